# peers/build-common.sh: what the build scripts of the peers handed in as
# source folders (build-ludwig.sh, build-rrze.sh) share; sourced, with
# `work` (the build folder) set before `run` is called.

# die STATUS MESSAGE: the message, named after the script, and exit.
die() {
  echo "$(basename "$0"): error: $2" >&2
  exit "$1"
}

# run LOG CMD...: CMD with its output in $work/logs/LOG; on failure the log's tail.
run() {
  local log=$work/logs/$1
  shift
  echo "  \$ $*"
  if ! "$@" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die 1 "command failed: $* (full log: $log)"
  fi
}
