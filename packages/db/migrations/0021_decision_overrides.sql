-- Overrides (docs/operators.md#overrides): the checks a decision or a revision to approved went
-- against, and the sealed justification it needs. Those recorded before overrode nothing on
-- record: an empty list.
ALTER TABLE "case_revisions" ADD COLUMN "overridden_checks" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "case_revisions" ADD COLUMN "justification_sealed" text;--> statement-breakpoint
ALTER TABLE "review_decisions" ADD COLUMN "overridden_checks" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "review_decisions" ADD COLUMN "justification_sealed" text;