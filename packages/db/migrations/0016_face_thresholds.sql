-- The face descriptor changed (docs/face-match.md): distances between the new descriptors run from
-- about 0.6 (the same person) to 1.4 (strangers), so thresholds set on the old one (the standard
-- 0.63 / 0.70; nothing under 0.9 means anything now) would refuse almost everyone. Every stored
-- flow version still on the old scale takes the standard flow's new thresholds: match at
-- FMR 1e-4, review band to FMR 1e-3 on faces from the wild.
UPDATE "flows"
SET "definition" = jsonb_set(
  jsonb_set("definition", '{checks,face_match_max_distance}', '1.068'::jsonb),
  '{checks,face_review_max_distance}', '1.146'::jsonb)
WHERE ("definition" #>> '{checks,face_match_max_distance}')::numeric < 0.9;
