CREATE TABLE "case_revisions" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"case_id" text NOT NULL,
	"task_id" text NOT NULL,
	"actor" text NOT NULL,
	"previous_outcome" text NOT NULL,
	"previous_reason_code" text,
	"outcome" text NOT NULL,
	"reason_code" text,
	"comment_sealed" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operators" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"role" text NOT NULL,
	"countries" jsonb NOT NULL,
	"sensitivity" text NOT NULL,
	"status" text NOT NULL,
	"subject" text,
	"invitation_hash" text,
	"invitation_expires_at" timestamp with time zone,
	"last_connection_at" timestamp with time zone,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "review_corrections" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"case_id" text NOT NULL,
	"task_id" text NOT NULL,
	"actor" text NOT NULL,
	"field" text NOT NULL,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "review_decisions" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"task_id" text NOT NULL,
	"case_id" text NOT NULL,
	"actor" text NOT NULL,
	"outcome" text NOT NULL,
	"reason_code" text,
	"steps" jsonb,
	"comment_sealed" text,
	"effect" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "review_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"case_id" text NOT NULL,
	"country" text NOT NULL,
	"sensitivity_rank" smallint NOT NULL,
	"risk_score" smallint NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"double_validation" boolean NOT NULL,
	"reasons" jsonb NOT NULL,
	"locked_by" text,
	"lock_expires_at" timestamp with time zone,
	"outcome" text,
	"closed_by" text,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "case_revisions" ADD CONSTRAINT "case_revisions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_revisions" ADD CONSTRAINT "case_revisions_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_revisions" ADD CONSTRAINT "case_revisions_task_id_review_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."review_tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operators" ADD CONSTRAINT "operators_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_corrections" ADD CONSTRAINT "review_corrections_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_corrections" ADD CONSTRAINT "review_corrections_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_corrections" ADD CONSTRAINT "review_corrections_task_id_review_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."review_tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_decisions" ADD CONSTRAINT "review_decisions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_decisions" ADD CONSTRAINT "review_decisions_task_id_review_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."review_tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_decisions" ADD CONSTRAINT "review_decisions_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_tasks" ADD CONSTRAINT "review_tasks_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_tasks" ADD CONSTRAINT "review_tasks_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_revisions_case" ON "case_revisions" USING btree ("case_id","id");--> statement-breakpoint
CREATE INDEX "operators_tenant" ON "operators" USING btree ("client_id","environment","id");--> statement-breakpoint
CREATE UNIQUE INDEX "operators_subject" ON "operators" USING btree ("client_id","environment","subject") WHERE subject IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "operators_invitation" ON "operators" USING btree ("invitation_hash") WHERE invitation_hash IS NOT NULL;--> statement-breakpoint
CREATE INDEX "review_corrections_case" ON "review_corrections" USING btree ("case_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "review_decisions_actor" ON "review_decisions" USING btree ("task_id","actor");--> statement-breakpoint
CREATE INDEX "review_decisions_case" ON "review_decisions" USING btree ("case_id","id");--> statement-breakpoint
CREATE INDEX "review_tasks_queue" ON "review_tasks" USING btree ("client_id","environment","risk_score" DESC NULLS LAST,"due_at","id") WHERE status <> 'closed';--> statement-breakpoint
CREATE INDEX "review_tasks_status" ON "review_tasks" USING btree ("client_id","environment","status","risk_score" DESC NULLS LAST,"due_at","id");--> statement-breakpoint
CREATE INDEX "review_tasks_created" ON "review_tasks" USING btree ("client_id","environment","created_at");--> statement-breakpoint
CREATE INDEX "review_tasks_closed" ON "review_tasks" USING btree ("client_id","environment","closed_at");--> statement-breakpoint
CREATE INDEX "review_tasks_case" ON "review_tasks" USING btree ("case_id");--> statement-breakpoint
CREATE UNIQUE INDEX "review_tasks_one_active" ON "review_tasks" USING btree ("case_id") WHERE status <> 'closed';