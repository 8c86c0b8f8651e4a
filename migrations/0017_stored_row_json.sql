-- 0017: tasks and activities keep their row JSON as text, written with the row, so a list page
-- reads 51 stored texts instead of building them (issue 14, README "Cost per request").
--
-- Building a page's JSON (`dispatch_json`: json_build_object, escape_json, to_char for every
-- timestamp) was ~850 µs of PostgreSQL's ~1,900 µs per `GET /v1/tasks?limit=50`, paid on every
-- read of a row that changes rarely. The shape stays defined once: the trigger stores exactly
-- `dispatch_json(row)::text` (0005), and readers fall back to computing it where the column is
-- NULL (`COALESCE(row_json, dispatch_json(r)::text)`, `StoredRowJSON`), which happens only for
-- rows written with triggers off (`session_replication_role = replica`).
--
-- Trigger order: PostgreSQL fires BEFORE row triggers in name order, and the row JSON must
-- describe the row as the other BEFORE triggers leave it (`*_stamp` sets updated_at, version
-- and txid). `*_zz_row_json` sorts after every trigger on these tables; keep it last.

CREATE FUNCTION dispatch_store_row_json() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- PL/pgSQL compiles a trigger function once per table, so this resolves to that table's
    -- dispatch_json overload (tasks or activities) and its plan is cached per session.
    NEW.row_json := dispatch_json(NEW)::text;
    RETURN NEW;
END;
$$;

ALTER TABLE tasks ADD COLUMN row_json text;
ALTER TABLE activities ADD COLUMN row_json text;

-- Backfill without the row triggers: filling a cache column is not a change, so updated_at,
-- version, txid, the access log and the change stream must not move. (The migration runs in one
-- transaction; the triggers are back on before anyone else can see the tables.)
ALTER TABLE tasks DISABLE TRIGGER USER;
UPDATE tasks t SET row_json = dispatch_json(t)::text;
ALTER TABLE tasks ENABLE TRIGGER USER;
ALTER TABLE activities DISABLE TRIGGER USER;
UPDATE activities a SET row_json = dispatch_json(a)::text;
ALTER TABLE activities ENABLE TRIGGER USER;

CREATE TRIGGER tasks_zz_row_json BEFORE INSERT OR UPDATE ON tasks
    FOR EACH ROW EXECUTE FUNCTION dispatch_store_row_json();
CREATE TRIGGER activities_zz_row_json BEFORE INSERT OR UPDATE ON activities
    FOR EACH ROW EXECUTE FUNCTION dispatch_store_row_json();
