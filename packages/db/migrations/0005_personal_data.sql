CREATE TABLE "document_readings" (
	"case_id" text NOT NULL,
	"round" integer NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"fields_sealed" text,
	"face_templates_sealed" text,
	"fingerprints" jsonb,
	"zone_agreement" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	"erased_at" timestamp with time zone,
	CONSTRAINT "document_readings_case_id_round_pk" PRIMARY KEY("case_id","round")
);
--> statement-breakpoint
CREATE TABLE "operator_unmasks" (
	"operator_id" text NOT NULL,
	"case_id" text NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "operator_unmasks_operator_id_case_id_pk" PRIMARY KEY("operator_id","case_id")
);
--> statement-breakpoint
CREATE TABLE "support_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"case_id" text NOT NULL,
	"operator_id" text NOT NULL,
	"reason_sealed" text,
	"granted_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" text
);
--> statement-breakpoint
ALTER TABLE "document_readings" ADD CONSTRAINT "document_readings_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_readings" ADD CONSTRAINT "document_readings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_unmasks" ADD CONSTRAINT "operator_unmasks_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_unmasks" ADD CONSTRAINT "operator_unmasks_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_unmasks" ADD CONSTRAINT "operator_unmasks_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_grants" ADD CONSTRAINT "support_grants_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_grants" ADD CONSTRAINT "support_grants_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_grants" ADD CONSTRAINT "support_grants_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "operator_unmasks_recent" ON "operator_unmasks" USING btree ("operator_id","last_at");--> statement-breakpoint
CREATE INDEX "support_grants_tenant" ON "support_grants" USING btree ("client_id","environment","id");--> statement-breakpoint
CREATE INDEX "support_grants_operator" ON "support_grants" USING btree ("operator_id","expires_at");--> statement-breakpoint
CREATE INDEX "support_grants_case" ON "support_grants" USING btree ("case_id");