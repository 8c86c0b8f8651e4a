-- Every backup and every verify the server runs (the daily schedule, the console's "Back up
-- now" and "Verify", `dispatchd backup`), with who asked and how it ended: the console's
-- Backups page lists them. The files themselves stay in BACKUP_DIR; this holds no secret.
CREATE TABLE backup_runs (
    id                 uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    kind               text        NOT NULL CHECK (kind IN ('backup', 'verify')),
    -- The backup file's name in BACKUP_DIR (never a path: the directory is the server's).
    file               text        NOT NULL CHECK (octet_length(file) BETWEEN 1 AND 255),
    source             text        NOT NULL CHECK (source IN ('schedule', 'console', 'command')),
    requested_by       uuid        REFERENCES users (id) ON DELETE SET NULL,
    requested_by_email text        CHECK (octet_length(requested_by_email) <= 320),
    -- The host that ran it: each instance writes to its own BACKUP_DIR.
    instance           text        NOT NULL CHECK (octet_length(instance) BETWEEN 1 AND 255),
    started_at         timestamptz NOT NULL DEFAULT now(),
    finished_at        timestamptz,
    state              text        NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'succeeded', 'failed')),
    file_bytes         bigint,
    database_bytes     bigint,
    row_count          bigint,
    -- The outcome in one or a few sentences (a verify's report, a failure's reason).
    detail             text        CHECK (octet_length(detail) <= 8192),
    CHECK ((state = 'running') = (finished_at IS NULL))
);

CREATE INDEX backup_runs_recent ON backup_runs (started_at DESC);
CREATE INDEX backup_runs_file ON backup_runs (file, started_at DESC);
