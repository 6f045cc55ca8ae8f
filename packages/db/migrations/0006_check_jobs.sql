CREATE TABLE "check_jobs" (
	"case_id" text NOT NULL,
	"round" integer NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"available_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"claim_token" text,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "check_jobs_case_id_round_pk" PRIMARY KEY("case_id","round")
);
--> statement-breakpoint
ALTER TABLE "check_jobs" ADD CONSTRAINT "check_jobs_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "check_jobs" ADD CONSTRAINT "check_jobs_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "check_jobs_due" ON "check_jobs" USING btree ("available_at") WHERE status = 'pending';