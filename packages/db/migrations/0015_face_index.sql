-- pgvector: installed on PostgreSQL beside the server (docs/deployment.md), loaded into PGlite by
-- packages/db/src/pglite-thread.ts (@electric-sql/pglite-pgvector). Not in drizzle's schema snapshot.
CREATE EXTENSION IF NOT EXISTS vector;--> statement-breakpoint
-- vector(512) below: the length of the engine's face template (FACE_VECTOR_DIMENSIONS in
-- packages/db/src/schema.ts, FACE_TEMPLATE_LENGTH in packages/engine/src/face-template.ts).
CREATE TABLE "face_index_keys" (
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"wrapped" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "face_index_keys_client_id_environment_pk" PRIMARY KEY("client_id","environment")
);
--> statement-breakpoint
CREATE TABLE "face_vectors" (
	"case_id" text NOT NULL,
	"round" integer NOT NULL,
	"source" text NOT NULL,
	"client_id" text NOT NULL,
	"environment" text NOT NULL,
	"descriptor" text NOT NULL,
	"embedding" vector(512) NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "face_vectors_case_id_round_source_pk" PRIMARY KEY("case_id","round","source")
);
--> statement-breakpoint
ALTER TABLE "face_index_keys" ADD CONSTRAINT "face_index_keys_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "face_vectors" ADD CONSTRAINT "face_vectors_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "face_vectors" ADD CONSTRAINT "face_vectors_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "face_vectors_hnsw" ON "face_vectors" USING hnsw ("embedding" vector_l2_ops);