#!/usr/bin/env bash
# mpi-compare.sh OUT NAME...: which exchange wins under each MPI, in one
# sitting (make compare-mpis; docs/mpi.md). campaigns/mpis.toml (the demo's
# cubic halo sweep, 2 ranks) under each MPI NAME built by `make build
# MPI=NAME`, in the order given and then in reverse, into
# OUT/pass1/NAME.jsonl and OUT/pass2/NAME.jsonl; then `haloex-lab report` of
# each pass (OUT/passK/report.md), which gives each MPI a part with its
# recommendation table, and `haloex-lab compare` of every MPI against the
# first, per pass (OUT/passK/compare-*.txt). The passes are reported apart:
# the report decides through samples of the same rounds, and two passes
# pooled repeat every round's index.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
(($# >= 2)) || { echo "usage: mpi-compare.sh OUT NAME..." >&2; exit 2; }
out=$1
shift
names=("$@")
lab=("$root/.venv/bin/python" -m haloex_lab)
folder() { if [[ $1 == openmpi ]]; then echo "$root/build"; else echo "$root/build-$1"; fi; }
for n in "${names[@]}"; do
  [[ -x $(folder "$n")/haloex ]] || { echo "mpi-compare.sh: no $(folder "$n")/haloex: run 'make build MPI=$n'" >&2; exit 2; }
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
run_one() {  # NAME PASS
  local results=$out/pass$2/$1.jsonl
  mkdir -p "$out/pass$2"
  rm -f "$results"
  echo "== $1, pass $2 ($(date -u +%H:%M:%S))"
  (build=$(folder "$1") && . "$root/scripts/mpi-run-env.sh" &&
    "${lab[@]}" run "$root/campaigns/mpis.toml" --haloex "$build/haloex" --results "$results")
}
for n in "${names[@]}"; do run_one "$n" 1; done
for ((i = ${#names[@]} - 1; i >= 0; i--)); do run_one "${names[i]}" 2; done
for pass in 1 2; do
  echo "== pass $pass"
  "${lab[@]}" report "$out/pass$pass"
  for n in "${names[@]:1}"; do
    "${lab[@]}" compare "$out/pass$pass/${names[0]}.jsonl" "$out/pass$pass/$n.jsonl" |
      tee "$out/pass$pass/compare-${names[0]}-$n.txt"
  done
done
