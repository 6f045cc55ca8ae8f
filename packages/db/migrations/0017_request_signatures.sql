-- A signed request is accepted once: its signature is kept with its idempotency entry, unique per key,
-- so the same signed request sent again under a new Idempotency-Key is refused (signature_replayed).
-- NULL (the console's unsigned calls) never collides.
ALTER TABLE "idempotency_keys" ADD COLUMN "signature" text;--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_signature" ON "idempotency_keys" USING btree ("api_key_id","signature");