# Shared by bench/explain and bench/resources: a private PostgreSQL cluster with a seeded demo
# team, kept between runs under $BENCH_DATA (seeding 100k tasks takes ~20-40 s; re-use is the
# default, BENCH_RESEED=1 forces a new one). Sourced, not run.
#
# Sets: pg_bin, bench_data, sock_dir, pg_port, DATABASE_URL, JWT_SECRET, PUBLISHABLE_KEY, conninfo, bin (release dispatchd)
bench_data=${BENCH_DATA:-/tmp/dispatch-bench-data}
sock_dir=${BENCH_SOCK:-/tmp/dispatch-bench-sock}
pg_port=${BENCH_PG_PORT:-5499}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
demo_password=${DEMO_PASSWORD:-bench-demo-password}
conninfo="host=$sock_dir port=$pg_port user=postgres dbname=postgres"
export DATABASE_URL="postgresql:///postgres?host=$sock_dir&port=$pg_port&user=postgres"
export JWT_SECRET=${JWT_SECRET:-bench-secret-bench-secret-bench-secret-0123}
export PUBLISHABLE_KEY=${PUBLISHABLE_KEY:-sb_publishable_bench-key-0123456789}

# Runs a command as the postgres user when root (PostgreSQL refuses to run as root).
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }

# cluster_start [cpu list for taskset]: initdb once, then start; settings sized for 64 clients.
cluster_start() {
  local cpus=${1:-}
  [ -n "$pg_bin" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
  mkdir -p "$bench_data" "$sock_dir"; chmod 755 "$bench_data"
  if [ "$(id -u)" = 0 ]; then chown postgres "$bench_data" "$sock_dir"; fi
  if [ ! -f "$bench_data/pg/PG_VERSION" ]; then
    as_postgres "$pg_bin/initdb -D $bench_data/pg -U postgres --auth=trust -E UTF8 >/dev/null"
  fi
  as_postgres "$pg_bin/pg_ctl -D $bench_data/pg status >/dev/null 2>&1" && cluster_stop
  local pin=""; [ -n "$cpus" ] && pin="taskset -c $cpus"
  as_postgres "$pin $pg_bin/pg_ctl -D $bench_data/pg -l $bench_data/pg/server.log -w -o \"-k $sock_dir -p $pg_port -c listen_addresses='' -c max_connections=200 -c shared_buffers=512MB -c logging_collector=off\" start >/dev/null"
}

cluster_stop() { as_postgres "$pg_bin/pg_ctl -D $bench_data/pg -m fast -w stop >/dev/null" || true; }

psql_q() { psql -X -Atq "$conninfo" -v ON_ERROR_STOP=1 "$@"; }

# seed_if_needed: a default-size demo team (100k tasks) unless one is there already.
# Eight admins: with a task's declarer, listing owner and staff that makes ten distinct users
# who all see it, which the claim storm needs (contract §2: a realtor sees only related tasks).
seed_if_needed() {
  local tasks; tasks=$(psql_q -c "SELECT CASE WHEN to_regclass('tasks') IS NULL THEN 0 ELSE (SELECT count(*) FROM tasks) END" 2>/dev/null || echo 0)
  if [ "${BENCH_RESEED:-0}" = 1 ] || [ "$tasks" -lt 100000 ]; then
    echo "seeding the demo team (100k tasks) ..." >&2
    LOG_LEVEL=error "$bin" seed-demo --replace --admins 8 --password "$demo_password" >"$bench_data/seed.txt"
    cat "$bench_data/seed.txt" >&2
  else
    echo "re-using the seeded database in $bench_data ($tasks tasks; BENCH_RESEED=1 to re-seed)" >&2
  fi
}

build_release() {
  swift build -c release --product dispatchd >/dev/null
  bin=$(swift build -c release --show-bin-path)/dispatchd
}
