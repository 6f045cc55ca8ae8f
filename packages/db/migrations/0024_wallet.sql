CREATE TABLE "trust_anchors" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"kind" text NOT NULL,
	"label" text,
	"certificate_pem" text NOT NULL,
	"fingerprint" text NOT NULL,
	"subject" text NOT NULL,
	"not_before" timestamp with time zone NOT NULL,
	"not_after" timestamp with time zone NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"case_id" text NOT NULL,
	"session_id" text NOT NULL,
	"round" integer NOT NULL,
	"mode" text NOT NULL,
	"claims" jsonb NOT NULL,
	"nonce" text NOT NULL,
	"state" text NOT NULL,
	"encryption_key_sealed" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"fetched_at" timestamp with time zone,
	"answered_at" timestamp with time zone,
	"outcome" text
);
--> statement-breakpoint
CREATE TABLE "wallet_verifiers" (
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"certificate_chain_pem" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "wallet_verifiers_client_id_environment_pk" PRIMARY KEY("client_id","environment")
);
--> statement-breakpoint
ALTER TABLE "trust_anchors" ADD CONSTRAINT "trust_anchors_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_requests" ADD CONSTRAINT "wallet_requests_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_requests" ADD CONSTRAINT "wallet_requests_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_verifiers" ADD CONSTRAINT "wallet_verifiers_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "trust_anchors_certificate" ON "trust_anchors" USING btree ("client_id","environment","fingerprint");--> statement-breakpoint
CREATE INDEX "trust_anchors_client" ON "trust_anchors" USING btree ("client_id","environment","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_requests_state" ON "wallet_requests" USING btree ("state");--> statement-breakpoint
CREATE INDEX "wallet_requests_case" ON "wallet_requests" USING btree ("case_id","round","issued_at");