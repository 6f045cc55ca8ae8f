CREATE TABLE "client_journal" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "embedding_settings" (
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"origins" jsonb NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "embedding_settings_client_id_environment_pk" PRIMARY KEY("client_id","environment")
);
--> statement-breakpoint
CREATE TABLE "journeys" (
	"case_id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"round" integer DEFAULT 1 NOT NULL,
	"consented_at" timestamp with time zone,
	"declined_at" timestamp with time zone,
	"applicant_sealed" text,
	"answers_sealed" text,
	"questionnaire_score" jsonb,
	"document_country" text,
	"document_type" text,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pieces" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"case_id" text NOT NULL,
	"session_id" text NOT NULL,
	"round" integer NOT NULL,
	"kind" text NOT NULL,
	"key_class" text NOT NULL,
	"blob_id" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"content_hmac" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"superseded_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "client_journal" ADD CONSTRAINT "client_journal_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "embedding_settings" ADD CONSTRAINT "embedding_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journeys" ADD CONSTRAINT "journeys_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journeys" ADD CONSTRAINT "journeys_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pieces" ADD CONSTRAINT "pieces_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pieces" ADD CONSTRAINT "pieces_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "client_journal_tenant" ON "client_journal" USING btree ("client_id","environment","id");--> statement-breakpoint
CREATE INDEX "pieces_case" ON "pieces" USING btree ("case_id","id");--> statement-breakpoint
CREATE INDEX "pieces_case_kind" ON "pieces" USING btree ("case_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "pieces_current" ON "pieces" USING btree ("case_id","round","kind") WHERE superseded_at IS NULL;