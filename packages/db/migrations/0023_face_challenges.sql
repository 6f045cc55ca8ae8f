CREATE TABLE "face_challenges" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"case_id" text NOT NULL,
	"session_id" text NOT NULL,
	"round" integer NOT NULL,
	"movements" jsonb NOT NULL,
	"hold_ms" integer NOT NULL,
	"nonce_hash" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"answered_at" timestamp with time zone,
	"sequence" jsonb
);
--> statement-breakpoint
DROP INDEX "pieces_current";--> statement-breakpoint
ALTER TABLE "face_challenges" ADD CONSTRAINT "face_challenges_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "face_challenges" ADD CONSTRAINT "face_challenges_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "face_challenges_case" ON "face_challenges" USING btree ("case_id","round","id");--> statement-breakpoint
CREATE UNIQUE INDEX "pieces_current" ON "pieces" USING btree ("case_id","round","kind") WHERE superseded_at IS NULL AND kind <> 'liveness_frame';