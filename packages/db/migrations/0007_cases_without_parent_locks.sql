ALTER TABLE "cases" DROP CONSTRAINT "cases_client_id_clients_id_fk";
--> statement-breakpoint
ALTER TABLE "cases" DROP CONSTRAINT "cases_flow_id_flows_id_fk";
--> statement-breakpoint
-- Cases keep no foreign keys to clients and flows (each creation would lock the same parent rows);
-- what those keys guaranteed is kept by refusing to delete a client or a flow, or to change its id.
CREATE FUNCTION "idv_refuse_parent_removal"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are never deleted nor renumbered: cases refer to them', TG_TABLE_NAME
    USING ERRCODE = 'foreign_key_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER "clients_never_removed" BEFORE DELETE OR UPDATE OF "id" ON "clients"
  FOR EACH ROW EXECUTE FUNCTION "idv_refuse_parent_removal"();
--> statement-breakpoint
CREATE TRIGGER "flows_never_removed" BEFORE DELETE OR UPDATE OF "id" ON "flows"
  FOR EACH ROW EXECUTE FUNCTION "idv_refuse_parent_removal"();
