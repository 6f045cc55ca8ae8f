CREATE TABLE "quota_notices" (
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"service" text NOT NULL,
	"period" text NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "quota_notices_client_id_environment_service_period_kind_pk" PRIMARY KEY("client_id","environment","service","period","kind")
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"service" text NOT NULL,
	"offer" text NOT NULL,
	"monthly_quota" bigint,
	"over_quota" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "subscriptions_client" ON "subscriptions" USING btree ("client_id","service","starts_at");