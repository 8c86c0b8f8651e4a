-- 0026: the sync wake-up leaves the writing transaction (issue 28, item 3).
--
-- 0006's statement triggers send pg_notify('dispatch_sync', '') inside every transaction that
-- writes a synced table. PostgreSQL's PreCommit_Notify takes one database-wide lock that is held
-- until the commit, WAL flush included, is done: all notifying commits run one after another and
-- lose group commit (bench/write-ceiling; docs/explanations/decisions.md, "The sync wake-up is
-- sent after commit").
--
-- Now a session that promises to send the wake-up itself, right after its commit and before it
-- answers anyone, says so with `dispatch.notify_after_commit = on` (dispatchd sets it on every
-- connection, as a session setting or, behind a transaction pooler, with each BEGIN). In such a
-- session the trigger does not notify; it raises a NOTICE naming the channel, which tells the
-- client that the transaction wrote a synced table (PostgresConnection+AfterCommitNotify.swift).
-- The client then runs `SELECT pg_notify(channel, '')` as its own transaction, which writes no WAL
-- of its own and so holds the lock for microseconds, not for an fsync.
--
-- Every other writer (psql, pg_restore, a test writing SQL, anything that does not set the
-- marker) gets 0006's behaviour unchanged: the notification is sent at its commit. The NOTICE
-- is raised only when the client will see it (client_min_messages at notice or finer): a session
-- that set the marker but silenced notices still notifies in its transaction.
CREATE OR REPLACE FUNCTION dispatch_notify_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('dispatch.notify_after_commit', true) = 'on'
       AND current_setting('client_min_messages') IN ('debug5', 'debug4', 'debug3', 'debug2', 'debug1', 'debug', 'log', 'notice') THEN
        RAISE NOTICE 'notify after commit: dispatch_sync';
    ELSE
        PERFORM pg_notify('dispatch_sync', '');
    END IF;
    RETURN NULL;
END;
$$;
