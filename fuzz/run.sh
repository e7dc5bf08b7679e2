#!/usr/bin/env bash
# Run every libFuzzer target of fuzz/ (built by `make fuzz` in BUILD/fuzz/):
# first once over each saved regression input (tests/fuzz_regressions/<target>/),
# then for RUNS executions, at most MAX_TIME seconds, from its seeds
# (fuzz/corpus/<target>/) and the corpus of earlier runs. Exits non-zero if any
# target found a crash, leak, sanitizer report, timeout or out-of-memory; the
# input is left in BUILD/fuzz/artifacts/<target>/.
#   usage: fuzz/run.sh BUILD RUNS MAX_TIME [target...]
set -u
build=$1 runs=$2 max_time=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(lb_config metadata npy)
failed=()
summary=()
for t in "${targets[@]}"; do
  exe=$build/fuzz/fuzz_$t
  corpus=$build/fuzz/corpus/$t       # grows from run to run
  artifacts=$build/fuzz/artifacts/$t/
  log=$build/fuzz/$t.log
  mkdir -p "$corpus" "$artifacts" "$root/tests/fuzz_regressions/$t"
  echo "== fuzz_$t: $runs runs (at most $max_time s); log $log"
  regressions=("$root/tests/fuzz_regressions/$t"/*)
  if [ -e "${regressions[0]}" ] &&
    ! "$exe" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" "${regressions[@]}" >"$build/fuzz/$t.regressions.log" 2>&1; then
    failed+=("$t")
    summary+=("fuzz_$t: a saved regression input fails again; see $build/fuzz/$t.regressions.log")
    continue
  fi
  start=$(date +%s.%N)
  "$exe" -runs="$runs" -max_total_time="$max_time" -timeout=10 -rss_limit_mb=2048 \
    -dict="$root/fuzz/$t.dict" -artifact_prefix="$artifacts" -print_final_stats=1 \
    "$corpus" "$root/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  line=$(printf 'fuzz_%-10s %10s execs %8s execs/s %8.1f s  ' "$t" "${execs:-?}" "${rate:-?}" "$wall")
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    line+="FAILED (exit $rc)"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' "$log" | head -20
  elif [ "${execs:-0}" -lt "$runs" ]; then
    line+="stopped by the time cap before $runs runs"
  else
    line+="ok"
  fi
  summary+=("$line")
done
echo
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}: the inputs are in $build/fuzz/artifacts/; fix the parser, then copy each" \
    "input to tests/fuzz_regressions/<target>/ (docs/testing.md, \"Fuzzing\")" >&2
  exit 1
fi
