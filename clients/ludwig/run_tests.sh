#!/usr/bin/env bash
###############################################################################
#
#  run_tests.sh BUILD NRANKS [STRATEGY] [OUTDIR]
#
#  Run Ludwig's unit tests (tests/unit, `make test`) and the d3q19-short
#  regression suite (`make -k -C tests d3q19-short`) of an already built
#  Ludwig tree BUILD (see build.sh) on NRANKS MPI ranks.
#
#  STRATEGY: "native" (default) leaves LUDWIG_HALOEX_STRATEGY unset, so the
#  build uses Ludwig's own halo exchange; any other value (direct, staged,
#  auto, ...) is exported as LUDWIG_HALOEX_STRATEGY, which switches a
#  haloex build (-DLUDWIG_HALOEX) to haloex for lb and field halos.
#
#  Prints one line per test "input status" (status passed/failed) and a
#  summary.  An input counts as passed only if tests/test.sh printed
#  "PASS     ./<input>" for it (an input whose run never happened, e.g.
#  because a prerequisite failed, counts as failed).  The unit tests are
#  one executable: "unit-tests passed" requires exit status 0 and no
#  abort; the number of "PASS" lines it printed is reported too.
#  Raw logs and the outputs (*.new) go to OUTDIR (default
#  BUILD/test-logs-NRANKS-STRATEGY).
#  Exit status: 0 if everything passed, 1 otherwise.
#
###############################################################################
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "Usage: $0 BUILD NRANKS [STRATEGY|native] [OUTDIR]" >&2
  exit 2
fi

build=$(cd "$1" && pwd)
nranks=$2
strategy=${3:-native}
outdir=${4:-$build/test-logs-$nranks-$strategy}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

[ -x "$build/src/Ludwig.exe" ] || { echo "$0: no $build/src/Ludwig.exe (build first)" >&2; exit 2; }
[ -x "$build/tests/unit/a.out" ] || { echo "$0: no $build/tests/unit/a.out" >&2; exit 2; }

export OMP_NUM_THREADS=1
export OMP_WAIT_POLICY=passive
if [ "$strategy" = native ]; then
  unset LUDWIG_HALOEX_STRATEGY
else
  export LUDWIG_HALOEX_STRATEGY=$strategy
fi

# mpirun, or mpirun.openmpi (Debian without alternatives configured)
mpirun=mpirun
command -v mpirun > /dev/null || mpirun=mpirun.openmpi
command -v "$mpirun" > /dev/null || { echo "$0: no mpirun in PATH" >&2; exit 2; }
launch="$mpirun --oversubscribe --allow-run-as-root -np $nranks"

# Unit tests
t0=$(date +%s)
unit_rc=0
make -C "$build/tests/unit" test LAUNCH_MPIRUN_CMD="$launch" \
  > "$outdir/unit.log" 2>&1 || unit_rc=$?
t1=$(date +%s)
unit_npass=$(grep -c '^PASS' "$outdir/unit.log" || true)
if [ $unit_rc -eq 0 ]; then unit_status=passed; else unit_status=failed; fi

# d3q19-short regression tests (make -k: carry on after failures)
reg_rc=0
make -k -C "$build/tests" d3q19-short LAUNCH_MPIRUN_CMD="$launch" \
  > "$outdir/d3q19-short.log" 2>&1 || reg_rc=$?
t2=$(date +%s)
# Keep the outputs (*.new) for comparison between builds/strategies
cp "$build"/tests/regression/d3q19-short/*.new "$outdir/" 2> /dev/null || true

echo "unit-tests $unit_status"
for inp in "$build"/tests/regression/d3q19-short/*.inp; do
  name=$(basename "$inp")
  if grep -q -x -F "PASS     ./$name" "$outdir/d3q19-short.log"; then
    echo "$name passed"
  else
    echo "$name failed"
  fi
done | tee "$outdir/status.txt"

npass=$(grep -c ' passed$' "$outdir/status.txt" || true)
nfail=$(grep -c ' failed$' "$outdir/status.txt" || true)
echo "summary: ranks=$nranks strategy=$strategy unit-tests=$unit_status" \
     "(${unit_npass} PASS lines, $((t1 - t0)) s)" \
     "d3q19-short passed=$npass failed=$nfail total=$((npass + nfail))" \
     "($((t2 - t1)) s, make rc=$reg_rc)" | tee "$outdir/summary.txt"

if [ "$unit_status" = passed ] && [ "$nfail" -eq 0 ]; then exit 0; fi
exit 1
