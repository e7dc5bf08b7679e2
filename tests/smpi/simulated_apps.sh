#!/usr/bin/env bash
# simulated_apps.sh PYTHON HALOEX_SMPI CASE DIR [RANKS[:STRATEGIES]...]: the
# applications on a simulated machine end bit-identical to their serial runs.
# haloex built for SMPI runs the stencil (against --serial) and the LB case
# CASE (output off; against 1 rank, overlapped, and with STRATEGIES given
# also without overlap) at each RANKS simulated ranks, with each of
# STRATEGIES (default: every one SMPI runs).
# Default: 27 (3x3x3, a rank's 26 neighbours distinct) with every strategy,
# 64 with direct and staged. Each run prints the checksum of every value and
# its global site, which must be the serial run's.
set -eu
(($# >= 4)) || { echo "usage: simulated_apps.sh PYTHON HALOEX_SMPI CASE DIR [RANKS...]" >&2; exit 2; }
python=$1 haloex=$2 case=$3 dir=$4
shift 4
points=("$@")
((${#points[@]})) || points=(27 64:direct,staged)
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
supported=staged,direct,direct-waitany,persistent,sendrecv,irecv-send,isend-recv,irecv-isend,irecv-issend,red-black,prepost
strategies() { [[ $1 == *:* ]] && echo "${1#*:}" | tr , ' ' || echo ${supported//,/ }; }
run() {  # run RANKS LOG ARGS...: one simulated run, its checksum line printed
  local n=$1 log=$2
  shift 2
  "$python" -m haloex_lab simulate "$root/networks/this-machine.toml" --haloex "$haloex" --timeout 300 \
    --ranks "$n" -- "$@" >"$log" 2>&1 || { cat "$log"; echo "simulated_apps: failed: $*" >&2; exit 1; }
  grep -o "checksum 0x[0-9a-f]*" "$log" || { cat "$log"; echo "simulated_apps: no checksum: $*" >&2; exit 1; }
}
same() {  # same WANT GOT WHAT
  [[ $1 == "$2" ]] || { echo "simulated_apps: $3: $2, the serial run $1" >&2; exit 1; }
}

stencil=(stencil --nx 72 --ny 72 --nz 3 -i 6 -q)
want=$(run 1 "$dir/stencil-serial.log" "${stencil[@]}" --serial) || exit 1
count=0
for p in "${points[@]}"; do
  n=${p%%:*}
  for s in $(strategies "$p"); do
    ((n % 2 == 0)) || [[ $s != red-black ]] || continue  # it needs an even grid
    got=$(run "$n" "$dir/stencil-$n-$s.log" "${stencil[@]}" -s "$s") || exit 1
    same "$want" "$got" "stencil, $s at $n ranks"
    count=$((count + 1))
  done
done
echo "simulated_apps: stencil: $count runs (${points[*]}) bit-identical to --serial ($want)"

# The cylinder: walls, an obstacle and a force; 12 sites along z so that
# 3 and 4 ranks split it.
lb=(lb "$case" --set run.steps=20 "lattice.size=[96,48,12]" output.every=0 checkpoint.every=0 run.progress=0)
want=$(run 1 "$dir/lb-serial.log" "${lb[@]}" run.strategy=direct run.overlap=none) || exit 1
count=0
for p in "${points[@]}"; do
  n=${p%%:*}
  for s in $(strategies "$p"); do
    ((n % 2 == 0)) || [[ $s != red-black ]] || continue
    # Every strategy overlapped (begin, interior, end); a chosen few also without.
    overlaps=interior
    [[ $p != *:* ]] || overlaps="none interior"
    for overlap in $overlaps; do
      got=$(run "$n" "$dir/lb-$n-$s-$overlap.log" "${lb[@]}" run.strategy="$s" run.overlap=$overlap) || exit 1
      same "$want" "$got" "lb, $s, overlap $overlap at $n ranks"
      count=$((count + 1))
    done
  done
done
echo "simulated_apps: lb: $count runs (${points[*]}) bit-identical to 1 rank ($want)"

# A build of some velocity sets only (build-smpi.sh DIR TYPE SETS; the
# suite's names them in HALOEX_SMPI_SETS) refuses another set by name.
if [[ -n ${HALOEX_SMPI_SETS:-} && $HALOEX_SMPI_SETS != *D3Q27* ]]; then
  log=$dir/lb-d3q27.log
  if "$python" -m haloex_lab simulate "$root/networks/this-machine.toml" --haloex "$haloex" --timeout 300 \
    --ranks 1 -- "${lb[@]}" lattice.velocity_set=D3Q27 >"$log" 2>&1; then
    cat "$log"; echo "simulated_apps: D3Q27 ran in a build without its kernels" >&2; exit 1
  fi
  grep -q "velocity set D3Q27: this build has no kernels" "$log" ||
    { cat "$log"; echo "simulated_apps: D3Q27 refused without naming why" >&2; exit 1; }
  echo "simulated_apps: D3Q27 refused by a build of $HALOEX_SMPI_SETS alone"
fi
