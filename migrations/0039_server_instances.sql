-- 0037: every instance in view.
--
-- Behind a proxy, N dispatchd processes share one database; each one's console page shows only
-- what that process knows. So each process writes a heartbeat row (a random id per start, its
-- version, address, start and last beat) and, once a minute, one compact sample of its own
-- request counters. Any instance's Server page then lists them all (a row whose last beat is
-- older than three heartbeat intervals is stale: the process stopped or lost the database) and
-- charts one instance or the sum over all. Each process prunes samples older than about an hour
-- and instances not heard from for a day, so both tables stay a few hundred rows.
CREATE TABLE server_instances (
    id         uuid        PRIMARY KEY,
    version    text        NOT NULL,
    address    text        NOT NULL,
    started_at timestamptz NOT NULL,
    last_seen  timestamptz NOT NULL
);

-- One row per instance per minute, rewritten in place while the minute lasts (only its own
-- instance writes it). `latency_buckets` holds the minute's answered requests at or under each
-- of the server's duration bucket bounds (RequestMetrics.durationBuckets), parked long-polls
-- and WebSockets excluded (they count in `parked`), so the sum over instances is a histogram
-- from which a p95 is read. `pool_waiting` is the most requests seen waiting for a database
-- connection at one heartbeat in the minute.
CREATE TABLE server_instance_samples (
    instance_id     uuid        NOT NULL REFERENCES server_instances (id) ON DELETE CASCADE,
    minute          timestamptz NOT NULL,
    requests        bigint      NOT NULL,
    errors          bigint      NOT NULL,
    parked          bigint      NOT NULL,
    pool_waiting    bigint      NOT NULL,
    latency_buckets bigint[]    NOT NULL,
    PRIMARY KEY (instance_id, minute)
);
CREATE INDEX server_instance_samples_minute_idx ON server_instance_samples (minute);
