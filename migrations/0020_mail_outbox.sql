-- 0020: durable mail (issue 25). Every mail is written here in the same transaction as the
-- token it carries, so a committed token always has its mail and a rolled-back one never does.
-- Senders (one per instance, Sources/API/MailSender.swift) claim due rows with
-- FOR UPDATE SKIP LOCKED in a short transaction and push `next_attempt_at` forward by a lease,
-- so N instances never send one mail at the same time and a sender that dies mid-send leaves
-- its rows to be retried once the lease runs out. No transaction stays open across SMTP.
CREATE TABLE mail_outbox (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    -- Sources/Mail/MailKind.swift: magic_link, recovery, invite, email_change,
    -- email_change_notice, password_changed.
    kind            text        NOT NULL CHECK (octet_length(kind) BETWEEN 1 AND 64),
    -- The envelope recipient, checked by the server (MailAddress); bounded here as well.
    recipient       text        NOT NULL CHECK (octet_length(recipient) BETWEEN 3 AND 320),
    -- The whole RFC 5322 message (7-bit ASCII: headers encoded, bodies base64), rendered at
    -- enqueue time. It may carry a sign-in code, so it is set to NULL as soon as the mail is
    -- delivered or dead.
    message         text,
    message_id      text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- When a sender may next take the row: now for a new mail, a lease while a sender holds
    -- it, the backoff after a failed attempt.
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    -- Set by the sender that holds the lease; finishing an attempt checks it, so a sender
    -- whose lease ran out cannot overwrite the outcome of the one that took the row over.
    claim           uuid,
    attempts        integer     NOT NULL DEFAULT 0,
    last_error      text,
    sent_at         timestamptz,
    dead_at         timestamptz,
    CHECK (sent_at IS NULL OR dead_at IS NULL)
);

-- What senders scan: only undelivered, live rows, in due order.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;
-- Hourly caps and pruning go by creation time.
CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at);

-- One mail per address per interval (issue 25: 60 s), across instances. A row is kept for
-- every address a mail was *requested* for, known to the server or not, so an unknown
-- address is throttled exactly like a known one and the answer reveals nothing.
CREATE TABLE mail_address_limits (
    address         text        PRIMARY KEY CHECK (octet_length(address) BETWEEN 1 AND 320),
    last_request_at timestamptz NOT NULL
);
CREATE INDEX mail_address_limits_last_idx ON mail_address_limits (last_request_at);
