ALTER TABLE "check_jobs" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "request_id" text;