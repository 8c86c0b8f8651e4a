-- 0034: Slack, both ways. One workspace per server (a singleton row), the Slack users linked
-- to Dispatch accounts, receipts that make Slack's retries and replays create nothing new,
-- and the Slack outbox: posts to the incoming webhook and follow-ups to a request's
-- response_url, claimed like mail_outbox (FOR UPDATE SKIP LOCKED under a lease), never sent
-- while a transaction is open.
CREATE TABLE slack_integration (
    singleton              boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    team_id                text        NOT NULL CHECK (team_id ~ '^[A-Z0-9]{2,32}$'),
    -- Credentials, sealed (AES-256-GCM under a key derived from JWT_SECRET, SlackSeal): a
    -- backup or a read-only database user never sees them in the clear.
    signing_secret         text        NOT NULL,
    previous_signing_secret text,
    incoming_webhook_url   text        NOT NULL,
    -- Event types posted to the incoming webhook (task.created, task.claimed, ...).
    events                 text[]      NOT NULL DEFAULT '{}',
    -- Paused by Slack's answer (channel archived, hook removed, ...): nothing is posted until
    -- an administrator stores the integration again.
    paused_at              timestamptz,
    pause_reason           text,
    -- One post per second to the webhook, and none while one is in flight (a lease).
    next_post_at           timestamptz NOT NULL DEFAULT now(),
    -- History rows (status_changes, claim_events) up to here were turned into posts.
    scanned_through        timestamptz NOT NULL DEFAULT now(),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);

-- Set by an administrator (PUT /v1/integrations/slack/users/{id}): whose name a Slack
-- user's commands create tasks under. One Slack user per account and one account per user.
CREATE TABLE slack_user_links (
    slack_user_id text        PRIMARY KEY CHECK (slack_user_id ~ '^[A-Z0-9]{2,32}$'),
    user_id       uuid        NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    linked_by     uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- One row per Slack request that created something, keyed by the request's identity (team
-- and trigger_id): a retry (X-Slack-Retry-Num) or a replay finds it and creates nothing.
CREATE TABLE slack_receipts (
    request_key text        PRIMARY KEY CHECK (octet_length(request_key) BETWEEN 1 AND 300),
    -- Filled in by the same transaction that took the key, after the task's insert.
    task_id     uuid        REFERENCES tasks (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX slack_receipts_created_idx ON slack_receipts (created_at);

CREATE TABLE slack_outbox (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    -- post: to the integration's incoming webhook (paced, paused with it);
    -- response: to `response_url`, a follow-up to one Slack request.
    kind            text        NOT NULL CHECK (kind IN ('post', 'response')),
    -- The history row a post was made from ("status_changes:<id>"): a scan that reads it
    -- again (instances, look-back) enqueues nothing new.
    event_key       text        UNIQUE,
    event_type      text,
    -- A response's target URL, sealed (it lets anyone post to the channel for 30 minutes).
    target          text,
    body            text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claim           uuid,
    attempts        integer     NOT NULL DEFAULT 0,
    last_status     integer,
    last_error      text,
    sent_at         timestamptz,
    dead_at         timestamptz,
    CHECK (sent_at IS NULL OR dead_at IS NULL),
    CHECK ((kind = 'response') = (target IS NOT NULL))
);
CREATE INDEX slack_outbox_due_idx ON slack_outbox (kind, next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;
CREATE INDEX slack_outbox_created_idx ON slack_outbox (created_at);
