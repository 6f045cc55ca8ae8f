-- The descriptor version of a reading's sealed face templates, so that the worker's start-up pass
-- over readings missing from the face index (FaceSearchIndex.indexMissing) can skip, by this
-- column, the readings whose templates no current template can come from, instead of opening them
-- at every start (docs/face-match.md, "Readings of an older descriptor").
ALTER TABLE "document_readings" ADD COLUMN "face_templates_descriptor" text;--> statement-breakpoint
-- Readings already in the index: their version is the one their vectors carry.
UPDATE "document_readings" r
SET "face_templates_descriptor" = (SELECT v."descriptor" FROM "face_vectors" v WHERE v."case_id" = r."case_id" AND v."round" = r."round" LIMIT 1)
WHERE r."face_templates_sealed" IS NOT NULL
  AND EXISTS (SELECT 1 FROM "face_vectors" v WHERE v."case_id" = r."case_id" AND v."round" = r."round");
