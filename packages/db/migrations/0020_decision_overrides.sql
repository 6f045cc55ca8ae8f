-- Overrides (docs/operators.md#overrides): the checks an approval went against, and the sealed
-- justification it needs. Decisions recorded before overrode nothing on record: an empty list.
ALTER TABLE "review_decisions" ADD COLUMN "overridden_checks" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "review_decisions" ADD COLUMN "justification_sealed" text;