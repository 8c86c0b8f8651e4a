# CPU per request, shared by the benches (sourced, not run).
#
# What is counted: user + system time of the dispatchd process (all its threads) PLUS every
# process of the benchmark's PostgreSQL cluster, from /proc/PID/stat (utime, stime; clock
# ticks, usually 10 ms), sampled just before and just after a load run, divided by the
# requests the load generator completed in that run.
#
# The cluster is the postmaster (its own utime + stime, plus cutime + cstime: the time of
# children it has already reaped, so a backend that exits during the run still counts) and
# every live child of the postmaster (backends, parallel workers, autovacuum, checkpointer,
# WAL writer: anything the cluster spends while serving the run). Only this benchmark's
# cluster is counted, by its postmaster pid, never other PostgreSQL servers on the machine.
# Per-process rounding to a tick averages out over a run of thousands of requests; CPU time
# is also far steadier than req/s on a shared machine, since waiting for a core is not
# counted (cache and frequency effects of neighbours still are, somewhat).
#
#   cpu_sample SERVER_PID POSTMASTER_PID         → "server_ticks postgres_ticks" (POSTMASTER_PID
#                                                  "-": no database in the measurement)
#   cpu_per_request BEFORE AFTER REQUESTS        → "server_us postgres_us total_us" per request
#   wrk_requests "$wrk_output"                   → the completed request count wrk printed

cpu_clock_ticks=$(getconf CLK_TCK)

# Fields after "pid (comm) ": $1 state, $2 ppid, $12 utime, $13 stime, $14 cutime, $15 cstime.
# comm may contain spaces or ")", so everything up to the last ") " is dropped first.
cpu_sample() {
  local server=$1 postmaster=$2
  local server_ticks
  server_ticks=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$server/stat")
  local pg_ticks=0
  [ "$postmaster" = - ] || pg_ticks=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v pm="$postmaster" '
    { pid = $1; sub(/^.*\) /, "") }
    pid == pm { total += $12 + $13 + $14 + $15 }
    $2 == pm  { total += $12 + $13 }
    END { print total + 0 }')
  echo "$server_ticks $pg_ticks"
}

cpu_per_request() {
  local before=$1 after=$2 requests=$3
  awk -v b="$before" -v a="$after" -v n="$requests" -v hz="$cpu_clock_ticks" 'BEGIN {
    split(b, x, " "); split(a, y, " ")
    if (n <= 0) { print "0 0 0"; exit }
    s = (y[1] - x[1]) * 1e6 / hz / n; p = (y[2] - x[2]) * 1e6 / hz / n
    printf "%.0f %.0f %.0f\n", s, p, s + p }'
}

wrk_requests() { awk '/requests in/ {print $1; exit}' <<<"$1"; }
