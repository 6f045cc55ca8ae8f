CREATE TABLE "case_keys" (
	"case_id" text NOT NULL,
	"key_class" text NOT NULL,
	"wrapped" text,
	"created_at" timestamp with time zone NOT NULL,
	"destroyed_at" timestamp with time zone,
	CONSTRAINT "case_keys_case_id_key_class_pk" PRIMARY KEY("case_id","key_class")
);
--> statement-breakpoint
ALTER TABLE "case_keys" ADD CONSTRAINT "case_keys_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE no action ON UPDATE no action;