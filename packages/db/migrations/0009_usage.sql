CREATE TABLE "usage_monthly" (
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"period" text NOT NULL,
	"service" text NOT NULL,
	"slot" smallint NOT NULL,
	"quantity" bigint NOT NULL,
	CONSTRAINT "usage_monthly_client_id_environment_period_service_slot_pk" PRIMARY KEY("client_id","environment","period","service","slot")
);
--> statement-breakpoint
CREATE TABLE "usage_units" (
	"source_key" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"service" text NOT NULL,
	"case_id" text NOT NULL,
	"quantity" integer NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "usage_units_export" ON "usage_units" USING btree ("client_id","environment","occurred_at","source_key");