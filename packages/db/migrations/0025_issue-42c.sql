CREATE TABLE "wallet_sandbox_issuer" (
	"id" text PRIMARY KEY NOT NULL,
	"iaca_pem" text NOT NULL,
	"sd_jwt_issuer_pem" text NOT NULL,
	"issuer_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "wallet_requests" ADD COLUMN "request_jwt" text;--> statement-breakpoint
ALTER TABLE "wallet_requests" ADD COLUMN "presentation_sealed" text;