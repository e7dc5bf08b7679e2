#!/usr/bin/env bash
# crash_restart.sh "MPIEXEC -n" HALOEX CASE DIR [FLAGS...]: kill checkpointing LB
# runs with SIGKILL at every stage of a checkpoint write and at random
# moments; each time the newest complete checkpoint must be the expected
# one, no partial file may be taken for it, and a restart on another number
# of ranks must end bit-identical to an uninterrupted run. Damaged
# checkpoints must be refused with a message.
set -u
# (FLAGS last: with MPICH there are none, and ctest drops an empty argument.)
(($# >= 4)) || { echo "usage: crash_restart.sh 'MPIEXEC -n' HALOEX CASE DIR [FLAGS...]" >&2; exit 2; }
mpiexec=$1 haloex=$2 case=$3 dir=$4
shift 4
flags="$*"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
run() {  # ranks, checkpoint dir, steps, extra args...
  local n=$1 d=$2 steps=$3
  shift 3
  $mpiexec "$n" $flags "$haloex" lb "$case" -q --set "lattice.size=[32,16,4]" run.steps=$steps \
    checkpoint.every=4 checkpoint.keep=2 checkpoint.dir=$d run.progress=0 \
    "geometry.obstacle=[{shape='cylinder',axis='z',center=[10.0,7.5,0.0],radius=3.0}]" "$@"
}

run 2 ref 12 > ref.log 2>&1 || { cat ref.log; fail "the uninterrupted run failed"; }
[[ $(ls ref/*.json | wc -l) == 2 ]] || fail "keep=2 left $(ls ref) in ref/"

# A rank killed inside MPI_File_open leaves Open MPI 4.1's shared-file-pointer
# semaphore (/dev/shm/sem.OMPIO_<file name>) taken; a run that then opens a
# file of that name must not wait on it (haloex turns that component off).
sem=OMPIO_checkpoint-000004.bin.part
if [[ ! -e /dev/shm/sem.$sem ]] && python3 -c "import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True); libc.sem_open.restype = ctypes.c_void_p
sys.exit(libc.sem_open(b'/$sem', 0o100, 0o600, 0) in (None, 0))"; then  # O_CREAT, value 0: taken
  trap 'rm -f /dev/shm/sem.$sem' EXIT
  timeout 60 bash -c "$(declare -f run); mpiexec='$mpiexec' flags='$flags' haloex='$haloex' case='$case' run 2 taken 4" \
    > taken.log 2>&1 || { cat taken.log; fail "a run hung or failed on a semaphore left taken in /dev/shm"; }
  rm -f /dev/shm/sem.$sem
  echo "a semaphore left taken by a killed MPI_File_open did not stop the next run"
fi

# A kill at each stage of the checkpoint at step 8: before the data file's
# rename, after it (no metadata yet), after the metadata (complete), and
# while the older checkpoint is being deleted (keep=1, so that there is one).
for case_stage in data-written:4 data-renamed:4 checkpoint-complete:8 pruning:8; do
  stage=${case_stage%%:*} want=${case_stage##*:} d=kill-$stage keep=2
  [[ $stage == pruning ]] && keep=1
  HALOEX_IO_KILL_AT=$stage@8 run 2 "$d" 12 checkpoint.keep=$keep > "$d.log" 2>&1 && fail "the run killed at $stage exited 0"
  [[ -e $d/checkpoint-000012.json ]] && fail "killed at step 8, yet $d has a checkpoint of step 12"
  [[ $stage == data-written && ! -e $d/checkpoint-000008.bin.part ]] && fail "no partial file left by the kill at $stage"
  [[ $stage == data-renamed && -e $d/checkpoint-000008.json ]] && fail "metadata written before the kill at $stage"
  [[ $stage == pruning && ( -e $d/checkpoint-000004.json || ! -e $d/checkpoint-000004.bin ) ]] &&
    fail "the kill while pruning did not leave checkpoint 4 half-deleted (data without metadata)"
  run 3 "$d" 12 --restart "$d" > "$d.restart.log" 2>&1 || { cat "$d.restart.log"; fail "restart after $stage failed"; }
  grep -q "restarted from $d/checkpoint-00000$want.json at step $want" "$d.restart.log" ||
    { cat "$d.restart.log"; fail "after a kill at $stage the restart did not start from step $want"; }
  cmp ref/checkpoint-000012.bin "$d/checkpoint-000012.bin" || fail "restart after $stage differs from the uninterrupted run"
  # The partial file the kill left is removed by the next run, which says so.
  if [[ $stage == data-written ]]; then
    grep -q "# removed $d/checkpoint-000008.bin.part, left by an interrupted run" "$d.restart.log" ||
      { cat "$d.restart.log"; fail "the restart did not report removing the stale checkpoint-000008.bin.part"; }
  fi
  ls "$d" | grep -q '\.part$' && fail "a .part file is still in $d after the restart"
  echo "killed at $stage: restarted from step $want on 3 ranks, step 12 identical"
done

# Kills at random moments of a longer run (every rank at once, as a node failure).
t0=$(date +%s.%N)
run 2 ref-long 400 > ref-long.log 2>&1 || fail "the long reference run failed"
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
for frac in 0.4 0.6 0.75; do
  delay=$(awk -v t="$t" -v f="$frac" 'BEGIN { print t * f }')
  d=random-$frac
  run 2 "$d" 400 > "$d.log" 2>&1 &
  sleep "$delay"
  pkill -9 -f "checkpoint.dir=$d " ; pkill -9 -f "checkpoint.dir=$d$"
  wait
  if ls "$d"/checkpoint-*.json > /dev/null 2>&1; then
    run 3 "$d" 400 --restart "$d" > "$d.restart.log" 2>&1 || { cat "$d.restart.log"; fail "restart after a kill at $delay s failed"; }
    grep -o "restarted from .* at step [0-9]*" "$d.restart.log" || echo "(the run had finished before the kill)"
  else
    run 3 "$d" 400 > "$d.restart.log" 2>&1 || fail "fresh run after a kill before the first checkpoint failed"
    echo "killed at $delay s before the first checkpoint"
  fi
  cmp ref-long/checkpoint-000400.bin "$d/checkpoint-000400.bin" || fail "restart after a kill at $delay s differs"
done

# Damaged checkpoints are refused, with exit code 2 and a message.
mkdir bad && cp ref/checkpoint-000012.* bad/
truncate -s -8 bad/checkpoint-000012.bin
out=$(run 2 bad 16 --restart bad 2>&1); rc=$?
[[ $rc == 2 && $out == *"checkpoint-000012.bin is truncated: it has"* ]] || { echo "$out"; fail "a truncated checkpoint was not refused (exit $rc)"; }
cp ref/checkpoint-000012.bin bad/ && printf '\x01' | dd of=bad/checkpoint-000012.bin bs=1 seek=1000 conv=notrunc status=none
out=$(run 2 bad 16 --restart bad 2>&1); rc=$?
[[ $rc == 2 && $out == *"is corrupted: its checksum"* ]] || { echo "$out"; fail "a corrupted checkpoint was not refused (exit $rc)"; }
out=$(run 2 bad 16 --restart ref --set physics.tau=0.9 2>&1); rc=$?
[[ $rc == 2 && $out == *"tau differs"* ]] || { echo "$out"; fail "a checkpoint of another case was not refused (exit $rc)"; }
out=$(run 2 bad 8 --restart ref 2>&1); rc=$?
[[ $rc == 2 && $out == *"beyond run.steps = 8"* ]] || { echo "$out"; fail "a checkpoint beyond run.steps was not refused (exit $rc)"; }
echo PASS
