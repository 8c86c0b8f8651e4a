-- 0030: wrong e-mail codes counted per code, per source and per account, instead of voiding
-- every live code of an address after five wrong guesses from anyone; and the hourly mail
-- caps counted per source and per address instead of one switch for everybody.
-- (docs/app-developers/email-auth.md states the bounds; Sources/Store/EmailCodeBudget.swift.)

-- One row per live code a wrong guess was tested against (token_id), or one row with no
-- token for a guess that tested none (no live code, or none it may still try). guess_id ties
-- the rows of one guess together; client_address says whose budget it spent. The account's
-- rows since a code was issued bound the guessing of that code, whatever the number of
-- sources or of live codes. Rows die with their code, or are pruned after the source window.
CREATE TABLE auth_email_code_failures (
    guess_id       uuid        NOT NULL,
    token_id       uuid        REFERENCES auth_email_tokens (id) ON DELETE CASCADE,
    user_id        uuid        REFERENCES users (id) ON DELETE CASCADE,
    client_address text        NOT NULL CHECK (octet_length(client_address) BETWEEN 1 AND 256),
    failed_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((token_id IS NULL) = (user_id IS NULL))
);
CREATE INDEX auth_email_code_failures_token_idx ON auth_email_code_failures (token_id, client_address);
CREATE INDEX auth_email_code_failures_user_idx ON auth_email_code_failures (user_id, failed_at);
CREATE INDEX auth_email_code_failures_source_idx ON auth_email_code_failures (client_address, failed_at);

-- Requests that would send mail, per client address ('source') and per recipient address
-- ('address'), in fixed one-hour windows shared by every instance. Requests for unknown
-- addresses count like any other, so a refusal tells nothing about accounts.
CREATE TABLE mail_request_counts (
    scope        text        NOT NULL CHECK (scope IN ('source', 'address')),
    key          text        NOT NULL CHECK (octet_length(key) BETWEEN 1 AND 320),
    window_start timestamptz NOT NULL,
    requests     integer     NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX mail_request_counts_window_idx ON mail_request_counts (window_start);

-- mail_outbox.message (0020) now holds the message sealed: 'sealed:v1:' + base64 of AES-256-GCM
-- under a key derived from JWT_SECRET (Sources/Mail/MailSeal.swift), so a backup taken while the
-- relay is down holds no code or link in clear. Rows queued before this version stay plain
-- and are sent as they are.
