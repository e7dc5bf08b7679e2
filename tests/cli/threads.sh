#!/usr/bin/env bash
# threads.sh MODE "MPIEXEC -n" HALOEX [FLAGS...]: the OpenMP thread count of
# 2 ranks that may both use every CPU (--bind-to none).
#   default: OMP_NUM_THREADS unset; each rank must take its share of the
#            CPUs, max(1, nproc / 2), say that it came from the affinity
#            masks, and print no warning.
#   warning: OMP_NUM_THREADS=1 must print no warning; OMP_NUM_THREADS=2 must
#            print exactly one (from rank 0, not one per rank) when 2 x 2
#            threads exceed the CPUs, i.e. nproc < 4; otherwise the test is
#            skipped (exit 77), as nothing is oversubscribed.
# The expectations come from nproc, not from haloex, so they hold on any
# machine.
set -eu
# (FLAGS last: with MPICH there are none, and ctest drops an empty argument.)
(($# >= 3)) || { echo "usage: threads.sh default|warning 'MPIEXEC -n' HALOEX [FLAGS...]" >&2; exit 2; }
mode=$1 mpiexec=$2 haloex=$3
shift 3
flags="$*"
cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # (nproc obeys those two variables)
# run2 ENV ARGS...: haloex ARGS on 2 unbound ranks, with env(1) settings ENV.
run2() {
  local settings=$1
  shift
  env $settings $mpiexec 2 $flags --bind-to none "$haloex" "$@"
}
# (Occurrences, not lines: lines from several ranks can share one line of mpirun's output.)
warnings() { grep -o "haloex: warning: [^;]*OpenMP threads" "$1" | wc -l; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case $mode in
default)
  expected=$((cpus / 2 > 1 ? cpus / 2 : 1))
  run2 "-u OMP_NUM_THREADS" info --json >"$tmp/info.json" 2>"$tmp/err.txt" || {
    cat "$tmp/info.json" "$tmp/err.txt"; echo "FAIL: haloex info failed"; exit 1; }
  cat "$tmp/info.json" "$tmp/err.txt"
  python3 - "$tmp/info.json" "$expected" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
assert j["ranks"] == 2, j["ranks"]
assert j["threads_source"] == "affinity", j["threads_source"]
assert j["threads_per_rank"] == want, f"threads_per_rank {j['threads_per_rank']}, expected {want}"
assert j["ranks_sharing_cpus"] == 2, j["ranks_sharing_cpus"]
print(f"threads_per_rank {want} from the affinity masks: OK")
PY
  # The application's header line reports the same count.
  run2 "-u OMP_NUM_THREADS" stencil --nx 8 --ny 8 --nz 2 --iters 1 >"$tmp/stencil.txt" 2>>"$tmp/err.txt" || {
    cat "$tmp/stencil.txt" "$tmp/err.txt"; echo "FAIL: haloex stencil failed"; exit 1; }
  cat "$tmp/stencil.txt"
  grep -q "iterations, $expected threads per rank (from affinity)" "$tmp/stencil.txt" ||
    { echo "FAIL: the stencil header does not report $expected threads from affinity"; exit 1; }
  n=$(warnings "$tmp/err.txt")
  ((n == 0)) || { echo "FAIL: $n oversubscription warnings without OMP_NUM_THREADS"; exit 1; }
  ;;
warning)
  run2 OMP_NUM_THREADS=1 info >/dev/null 2>"$tmp/err1.txt" ||
    { cat "$tmp/err1.txt"; echo "FAIL: haloex info failed"; exit 1; }
  n=$(warnings "$tmp/err1.txt")
  ((n == 0)) || { cat "$tmp/err1.txt"; echo "FAIL: $n warnings with OMP_NUM_THREADS=1"; exit 1; }
  if ((cpus >= 4)); then
    echo "SKIP: $cpus CPUs hold 2 ranks x 2 threads, so OMP_NUM_THREADS=2 oversubscribes nothing here"
    exit 77
  fi
  run2 OMP_NUM_THREADS=2 info >/dev/null 2>"$tmp/err2.txt" ||
    { cat "$tmp/err2.txt"; echo "FAIL: haloex info failed"; exit 1; }
  cat "$tmp/err2.txt"
  n=$(warnings "$tmp/err2.txt")
  ((n == 1)) || { echo "FAIL: expected one warning with OMP_NUM_THREADS=2 on $cpus CPUs, got $n"; exit 1; }
  grep -Eq "^haloex: warning: 2 ranks run 4 OpenMP threads on the $cpus CPUs? of host .*set OMP_NUM_THREADS=1 " \
    "$tmp/err2.txt" || { echo "FAIL: the warning does not give the numbers and the remedy"; exit 1; }
  ;;
*) echo "unknown mode '$mode'" >&2; exit 2 ;;
esac
echo PASS
