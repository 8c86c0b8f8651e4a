# Shared by scripts/console-test and scripts/supabase-test (sourced, not run): one dispatchd on
# a fresh embedded PostgreSQL in a scratch directory, an optional real SMTP relay, and the
# cleanup that stops both whatever happens. The caller sets `python` (the .build-venv
# interpreter) and `dispatchd` (the binary) first.
#
#   test_server_init NAME      scratch directory in $work, DATA_DIR, traps; loopback, port 0
#   test_server_smtp_relay [ARG…]  aiosmtpd with STARTTLS (scripts/smtp_capture.py, given ARGs); exports SMTP_*
#                              and DISPATCH_SMTP_DIR, where the tests read the captured mail
#   test_server_start          `dispatchd serve`; sets base_url from the banner
#   test_server_alive          fails when the server exited during the tests

test_server_init() {
    work=$(mktemp -d "/tmp/dispatch-$1.XXXXXX")
    chmod 755 "$work" # the embedded cluster runs as `postgres` when we are root
    server_pid=
    smtp_pid=
    trap test_server_cleanup EXIT
    trap 'exit 130' INT TERM
    export DATA_DIR=$work/data
    unset DATABASE_URL JWT_SECRET PUBLISHABLE_KEY PUBLIC_URL
    export HOST=127.0.0.1 PORT=0 LOG_FORMAT=json LOG_LEVEL=info
}

test_server_cleanup() {
    local status=$?
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    # A server that crashed leaves its embedded PostgreSQL running: stop that one by its pid.
    local pidfile=$work/data/postgres/postmaster.pid
    if [[ -f $pidfile ]]; then
        local pg_pid
        pg_pid=$(head -n 1 "$pidfile")
        [[ $pg_pid =~ ^[0-9]+$ ]] && kill -QUIT "$pg_pid" 2>/dev/null || true
    fi
    if ((status != 0)) && [[ -f $work/server.log ]]; then
        echo "--- last server log lines ---" >&2
        tail -n 30 "$work/server.log" >&2 || true
    fi
    if [[ -n $smtp_pid ]]; then kill -TERM "$smtp_pid" 2>/dev/null || true; fi
    if [[ -n ${TEST_SERVER_KEEP_LOG:-} && -f $work/server.log ]]; then cp "$work/server.log" "$TEST_SERVER_KEEP_LOG"; fi
    rm -rf "$work"
    exit "$status"
}

test_server_smtp_relay() {
    scripts/smtp-capture --install-only
    local smtp_dir=$work/smtp
    "$python" scripts/smtp_capture.py --dir "$smtp_dir" "$@" >"$work/smtp.log" 2>&1 &
    smtp_pid=$!
    for _ in $(seq 1 300); do [[ -f $smtp_dir/ready.json ]] && break; sleep 0.1; done
    [[ -f $smtp_dir/ready.json ]] || { echo "the SMTP relay did not start" >&2; cat "$work/smtp.log" >&2; exit 1; }
    local smtp_port
    smtp_port=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"])' "$smtp_dir/ready.json")
    export SMTP_HOST=127.0.0.1 SMTP_PORT=$smtp_port SMTP_TLS=starttls SMTP_CA_FILE=$smtp_dir/cert.pem \
        SMTP_SENDER="Dispatch <no-reply@example.com>" DISPATCH_SMTP_DIR=$smtp_dir
}

test_server_start() {
    : >"$work/server.out" # exists before the background shell opens it, for the first look below
    "$dispatchd" serve >"$work/server.out" 2>"$work/server.log" &
    server_pid=$!
    base_url=
    for _ in $(seq 1 600); do
        base_url=$(sed -n 's/^Dispatch server listening on \(http:[^ ]*\)$/\1/p' "$work/server.out")
        [[ -n $base_url ]] && break
        kill -0 "$server_pid" 2>/dev/null || { echo "dispatchd serve exited during start" >&2; exit 1; }
        sleep 0.1
    done
    [[ -n $base_url ]] || { echo "dispatchd serve did not start listening within 60 s" >&2; exit 1; }
}

test_server_alive() {
    kill -0 "$server_pid" 2>/dev/null || { echo "dispatchd exited during the tests" >&2; exit 1; }
}
