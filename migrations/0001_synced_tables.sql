-- 0001: the synced tables of SPEC section 1.
--
-- Conventions (why they look the way they do):
-- * Ids are uuid with a server default: clients generate ids offline, the server fills one in
--   when a request has none.
-- * Enums are text + CHECK with the exact API strings instead of Postgres ENUM types: adding a
--   value later is a one-line constraint swap inside a transaction, and the JSON needs no mapping.
-- * created_at / updated_at / version / txid are server-managed. The trigger below sets them on
--   every write, so no code path (API, push, admin SQL) can forget or fake them.
-- * txid (xid8) is the gap-free sync cursor. updated_at is now() = transaction START time, so a
--   transaction that starts early and commits late writes an updated_at older than rows already
--   handed out ("updated_at > since" misses it). The feed instead remembers
--   pg_snapshot_xmin(pg_current_snapshot()) at read time and next asks for txid >= that xmin:
--   every transaction still running then, and every later one, has an xid >= xmin, so nothing
--   that commits later is missed (re-sending a few rows is allowed, missing one is not).
-- * Deletes are soft (deleted_at, and status = 'deleted' where a status exists) so syncing
--   clients receive the tombstone like any other change. Users are never deleted; deactivated_at
--   is their soft delete.
-- * Users and listings are never hard-deleted, so foreign keys keep the default NO ACTION:
--   an accidental hard delete fails instead of silently cascading through shared data.

-- Stamps server-managed columns. BEFORE trigger so the stamped values are what gets stored.
CREATE FUNCTION dispatch_stamp_synced_row() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.txid := pg_current_xact_id();
    IF TG_OP = 'INSERT' THEN
        NEW.updated_at := now();
        NEW.version := 1;
    ELSE
        NEW.id := OLD.id;
        NEW.created_at := OLD.created_at;
        NEW.updated_at := now();
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TABLE users (
    id             uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name           text        NOT NULL,
    -- Stored as given (display); uniqueness and lookups are case-insensitive through the
    -- lower(email) index below, so queries must compare lower(email) = lower($1).
    -- (A functional index instead of citext: no extension needed on managed databases.)
    email          text        NOT NULL CHECK (position('@' IN email) > 1),
    user_type      text        NOT NULL DEFAULT 'realtor' CHECK (user_type IN ('admin', 'realtor')),
    avatar_hash    text        CHECK (avatar_hash ~ '^[0-9a-f]{64}$'),
    deactivated_at timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    version        integer     NOT NULL DEFAULT 1,
    txid           xid8        NOT NULL DEFAULT pg_current_xact_id()
);
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));

CREATE TABLE listings (
    id                    uuid          PRIMARY KEY DEFAULT gen_random_uuid(),
    address               text          NOT NULL,
    city                  text          NOT NULL DEFAULT '',
    province              text          NOT NULL DEFAULT '',
    postal_code           text          NOT NULL DEFAULT '',
    country               text          NOT NULL DEFAULT '',
    price                 numeric(12,2) CHECK (price >= 0),
    mls_number            text,
    listing_type          text          NOT NULL DEFAULT 'sale' CHECK (listing_type IN ('sale', 'rental')),
    status                text          NOT NULL DEFAULT 'draft'
                                        CHECK (status IN ('draft', 'active', 'pending', 'closed', 'deleted')),
    owned_by              uuid          NOT NULL REFERENCES users (id),
    assigned_staff        uuid          REFERENCES users (id),
    created_via           text          NOT NULL DEFAULT 'dispatch' CHECK (created_via IN ('dispatch', 'slack')),
    source_slack_messages text[],
    activated_at          timestamptz,
    pending_at            timestamptz,
    closed_at             timestamptz,
    deleted_at            timestamptz,
    created_at            timestamptz   NOT NULL DEFAULT now(),
    updated_at            timestamptz   NOT NULL DEFAULT now(),
    version               integer       NOT NULL DEFAULT 1,
    txid                  xid8          NOT NULL DEFAULT pg_current_xact_id()
);

CREATE TABLE tasks (
    id                    uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    title                 text        NOT NULL,
    description           text,
    due_date              timestamptz,
    priority              text        NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    status                text        NOT NULL DEFAULT 'open'
                                      CHECK (status IN ('open', 'in_progress', 'completed', 'deleted')),
    declared_by           uuid        NOT NULL REFERENCES users (id),
    claimed_by            uuid        REFERENCES users (id),
    listing_id            uuid        REFERENCES listings (id),
    created_via           text        NOT NULL DEFAULT 'dispatch' CHECK (created_via IN ('dispatch', 'slack')),
    source_slack_messages text[],
    claimed_at            timestamptz,
    completed_at          timestamptz,
    deleted_at            timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    version               integer     NOT NULL DEFAULT 1,
    txid                  xid8        NOT NULL DEFAULT pg_current_xact_id(),
    -- Invariants the service layer maintains; the database refuses a half-applied claim.
    CONSTRAINT tasks_claim_consistent CHECK ((claimed_by IS NULL) = (claimed_at IS NULL))
);

-- Activities deliberately mirror tasks column for column (plus type, duration_seconds) rather
-- than sharing a table: the API, the permissions and the sync feed treat them as separate kinds.
CREATE TABLE activities (
    id                    uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    title                 text        NOT NULL,
    description           text,
    type                  text        NOT NULL DEFAULT 'other'
                                      CHECK (type IN ('call', 'email', 'meeting', 'show_property', 'follow_up', 'other')),
    due_date              timestamptz,
    priority              text        NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    status                text        NOT NULL DEFAULT 'open'
                                      CHECK (status IN ('open', 'in_progress', 'completed', 'deleted')),
    declared_by           uuid        NOT NULL REFERENCES users (id),
    claimed_by            uuid        REFERENCES users (id),
    listing_id            uuid        REFERENCES listings (id),
    created_via           text        NOT NULL DEFAULT 'dispatch' CHECK (created_via IN ('dispatch', 'slack')),
    source_slack_messages text[],
    duration_seconds      integer     CHECK (duration_seconds >= 0),
    claimed_at            timestamptz,
    completed_at          timestamptz,
    deleted_at            timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    version               integer     NOT NULL DEFAULT 1,
    txid                  xid8        NOT NULL DEFAULT pg_current_xact_id(),
    CONSTRAINT activities_claim_consistent CHECK ((claimed_by IS NULL) = (claimed_at IS NULL))
);

-- parent_id is polymorphic (task, activity or listing), so it cannot carry a foreign key; the
-- service layer checks the parent exists and is visible before inserting.
CREATE TABLE notes (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    content     text        NOT NULL,
    created_by  uuid        NOT NULL REFERENCES users (id),
    parent_type text        NOT NULL CHECK (parent_type IN ('task', 'activity', 'listing')),
    parent_id   uuid        NOT NULL,
    edited_at   timestamptz,
    edited_by   uuid        REFERENCES users (id),
    deleted_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    version     integer     NOT NULL DEFAULT 1,
    txid        xid8        NOT NULL DEFAULT pg_current_xact_id()
);

CREATE TABLE subtasks (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    title       text        NOT NULL,
    completed   boolean     NOT NULL DEFAULT false,
    parent_type text        NOT NULL CHECK (parent_type IN ('task', 'activity')),
    parent_id   uuid        NOT NULL,
    -- Not unique: reordering rewrites several rows, and a unique constraint would force
    -- deferred checks or two-phase renumbering for no benefit (ties order by id).
    position    integer     NOT NULL DEFAULT 0,
    deleted_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    version     integer     NOT NULL DEFAULT 1,
    txid        xid8        NOT NULL DEFAULT pg_current_xact_id()
);

-- History tables are append-only and written by the server only. They still carry
-- updated_at / version / txid so the sync feed reads every table the same way.
CREATE TABLE claim_events (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    entity_type text        NOT NULL CHECK (entity_type IN ('task', 'activity')),
    entity_id   uuid        NOT NULL,
    user_id     uuid        NOT NULL REFERENCES users (id),
    action      text        NOT NULL CHECK (action IN ('claimed', 'released')),
    actor_id    uuid        NOT NULL REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    version     integer     NOT NULL DEFAULT 1,
    txid        xid8        NOT NULL DEFAULT pg_current_xact_id()
);

CREATE TABLE status_changes (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    entity_type text        NOT NULL CHECK (entity_type IN ('task', 'activity', 'listing')),
    entity_id   uuid        NOT NULL,
    old_status  text,
    new_status  text        NOT NULL,
    changed_by  uuid        NOT NULL REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    version     integer     NOT NULL DEFAULT 1,
    txid        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    -- The status vocabulary depends on entity_type; pairing them here keeps history truthful.
    CONSTRAINT status_changes_status_valid CHECK (
        CASE entity_type
            WHEN 'listing' THEN new_status IN ('draft', 'active', 'pending', 'closed', 'deleted')
                            AND (old_status IS NULL OR old_status IN ('draft', 'active', 'pending', 'closed', 'deleted'))
            ELSE new_status IN ('open', 'in_progress', 'completed', 'deleted')
                 AND (old_status IS NULL OR old_status IN ('open', 'in_progress', 'completed', 'deleted'))
        END
    )
);

CREATE TRIGGER users_stamp          BEFORE INSERT OR UPDATE ON users          FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
CREATE TRIGGER listings_stamp       BEFORE INSERT OR UPDATE ON listings       FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
CREATE TRIGGER tasks_stamp          BEFORE INSERT OR UPDATE ON tasks          FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
CREATE TRIGGER activities_stamp     BEFORE INSERT OR UPDATE ON activities     FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
CREATE TRIGGER notes_stamp          BEFORE INSERT OR UPDATE ON notes          FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
CREATE TRIGGER subtasks_stamp       BEFORE INSERT OR UPDATE ON subtasks       FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
CREATE TRIGGER claim_events_stamp   BEFORE INSERT OR UPDATE ON claim_events   FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
CREATE TRIGGER status_changes_stamp BEFORE INSERT OR UPDATE ON status_changes FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_synced_row();
