CREATE TABLE "journey_appearance" (
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"display_name" text,
	"primary_color" text NOT NULL,
	"background_color" text NOT NULL,
	"logo" "bytea",
	"logo_type" text,
	"logo_sha256" text,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "journey_appearance_client_id_environment_pk" PRIMARY KEY("client_id","environment")
);
--> statement-breakpoint
ALTER TABLE "journey_appearance" ADD CONSTRAINT "journey_appearance_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;