# The BEFORE side of a before-beside-after bench (sourced, not run).
#
#   before_binary PATH VAR          → PATH, or exits saying VAR must name a release build
#   before_migrations WORK          → the migrations/ of BEFORE_REF (default main), extracted under
#                                     WORK: the BEFORE build runs its own commit's migrations
before_binary() {
  [ -x "$1" ] || { echo "set $2 to a release build of the commit to compare against (bench/targets builds one)" >&2; exit 1; }
  echo "$1"
}

before_migrations() {
  mkdir -p "$1/before-src"
  git archive "${BEFORE_REF:-main}" migrations | tar -x -C "$1/before-src"
  echo "$1/before-src/migrations"
}
