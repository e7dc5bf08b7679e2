#!/usr/bin/env bash
# HPC4WC's day3 stencil, native against haloex: builds both with build.sh,
# runs them at 1 and 2 ranks, ROUNDS rounds interleaved (native, haloex,
# native, ...), compares every haloex run's output files (in_field.dat,
# out_field.dat) BIT FOR BIT (cmp) with the native run's of its round and
# with native-fixed's (build.sh: HPC4WC with its update_halo sending this
# exchange's corners, not the previous one's), and prints the median time
# per iteration of native and haloex (HPC4WC's own `work` timer, the mean
# over ranks, divided by num_iter) side by side.
#
#   run.sh HPC4WC_SRC WORK HALOEX_BUILD_DIR [ROUNDS]
#
# HPC4WC_SRC, WORK, HALOEX_BUILD_DIR  as for build.sh; runs go to WORK/hpc4wc-runs
# ROUNDS      default 5
# Environment: HPC4WC_ARGS (default "--nx 64 --ny 64 --nz 16 --num_iter 128"),
# HALOEX_STRATEGY (default auto; the patched program reads it), HPC4WC_RANKS
# (default "1 2"), MPIEXEC (default "mpirun --oversubscribe --allow-run-as-root").
# Exits 1 when a haloex output differs from native-fixed's. (It differs from
# native's once the stencil's values reach the subdomain corners: HPC4WC's
# update_halo packs the left/right halo, corners included, before it unpacks
# the top/bottom one.)
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
[[ $# -eq 3 || $# -eq 4 ]] || usage
src=$1 work=$2 build=$3 rounds=${4:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
args=${HPC4WC_ARGS:---nx 64 --ny 64 --nz 16 --num_iter 128}
ranks=${HPC4WC_RANKS:-1 2}
read -r -a mpiexec <<<"${MPIEXEC:-mpirun --oversubscribe --allow-run-as-root}"
export HALOEX_STRATEGY=${HALOEX_STRATEGY:-auto} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
[[ $HALOEX_STRATEGY != native ]] || { echo "run.sh: HALOEX_STRATEGY=native would compare native with itself" >&2; exit 2; }
iters=$(sed -n 's/.*--num_iter[ =]\([0-9]*\).*/\1/p' <<<"$args")
[[ -n $iters ]] || { echo "run.sh: HPC4WC_ARGS must give --num_iter N" >&2; exit 2; }

[[ -f $build/fortran/haloex.mod ]] ||
  { echo "run.sh: $build/fortran/haloex.mod is missing: build haloex's Fortran module there first" >&2; exit 2; }
mkdir -p "$work"
# build MODE: build.sh's output to WORK/build-MODE.log; prints the executable.
build() {
  local log=$work/build-$1.log
  bash "$here"/build.sh "$src" "$work" "$build" "$1" >"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; echo "run.sh: build.sh ... $1 failed (all of it in $log)" >&2; exit 1; }
  tail -n 1 "$log"
}
native=$(build native)
fixed=$(build native-fixed)
haloex=$(build haloex)

# same A B: A's output files are B's, bit for bit.
same() { cmp -s "$1/out_field.dat" "$2/out_field.dat" && cmp -s "$1/in_field.dat" "$2/in_field.dat"; }
# run MODE NP ROUND: one run in its own folder; prints its seconds per iteration.
run() {
  local dir=$work/hpc4wc-runs/np$2/$1-$3 exe=$native
  [[ $1 == haloex ]] && exe=$haloex
  [[ $1 == native-fixed ]] && exe=$fixed
  rm -rf "$dir" && mkdir -p "$dir"
  # (HALOEX_STRATEGY=native makes the patched program HPC4WC's own; the native one ignores it)
  (cd "$dir" && "${mpiexec[@]}" -np "$2" "$exe" $args >stdout.txt 2>stderr.txt) ||
    { echo "run.sh: $1 at $2 ranks failed:" >&2; cat "$dir"/stderr.txt >&2; exit 1; }
  awk -F, -v n="$iters" '/^\[/ { gsub(/[][ \\]/, ""); printf "%.6e\n", $6 / n }' "$dir"/stdout.txt
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

differ=0
printf '%-6s %-14s %-14s %-7s %-18s %-18s %s\n' ranks "native s/iter" "haloex s/iter" ratio "haloex=native" \
  "haloex=fixed" "haloex strategy"
for np in $ranks; do
  tn=() th=() same_native=0 same_fixed=0 d=$work/hpc4wc-runs/np$np
  run native-fixed "$np" 1 >/dev/null
  for ((r = 1; r <= rounds; r++)); do
    tn+=("$(run native "$np" "$r")")
    th+=("$(run haloex "$np" "$r")")
    same "$d/native-$r" "$d/haloex-$r" && same_native=$((same_native + 1))
    if same "$d/native-fixed-1" "$d/haloex-$r"; then same_fixed=$((same_fixed + 1)); else differ=1; fi
  done
  mn=$(printf '%s\n' "${tn[@]}" | median) mh=$(printf '%s\n' "${th[@]}" | median)
  # (what auto chose may differ from run to run)
  strategy=$(cat "$d"/haloex-*/stderr.txt | sed -n 's/^haloex strategy: //p' | sort | uniq -c |
    awk '{ printf "%s%s x%d", sep, $2, $1; sep = ", " }')
  printf '%-6s %-14s %-14s %-7s %-18s %-18s %s\n' "$np" "$mn" "$mh" \
    "$(awk -v a="$mh" -v b="$mn" 'BEGIN { printf "%.2f", a / b }')" "$same_native/$rounds identical" \
    "$same_fixed/$rounds identical" "${strategy:-?}"
  if ((same_native < rounds)); then
    echo "  (haloex against native at $np ranks: $(cmp "$d/native-1/out_field.dat" "$d/haloex-1/out_field.dat" 2>&1 || true))"
  fi
done
exit $differ
