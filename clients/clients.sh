#!/usr/bin/env bash
# clients/clients.sh BUILD WORK OUT: what `make clients` does. Codes that
# haloex did not write, exchanging their halos through it and judged by their
# own tests (docs/clients.md). Their sources are in neither Debian nor PyPI,
# so the user hands them in:
#
#   LUDWIG_SRC  a Ludwig 0.23.0 source folder (github.com/ludwig-cf/ludwig,
#               7a12d00): built natively and with clients/ludwig/
#               ludwig-haloex.patch in WORK (for its tests as its default
#               configuration builds it, assertions on; for timing with
#               -O3 -march=native -DNDEBUG, AoS and SoA -DADDR_SOA);
#               its unit tests and d3q19-short run at CLIENT_RANKS ranks
#               natively and through each of CLIENT_STRATEGIES, into
#               OUT/clients-ludwig-tests.md; its timers natively and through
#               each strategy (clients/ludwig_timing.py) into
#               OUT/clients-ludwig-{aos,soa}.md.
#   HPC4WC_SRC  an HPC4WC checkout (github.com/ofuhrer/HPC4WC): day 3's
#               stencil2d-mpi.F90 natively and on the Fortran module
#               (clients/hpc4wc/), outputs compared bit for bit, times side
#               by side, into OUT/clients-hpc4wc.txt.
#
# Settings (environment): CLIENT_RANKS (default "1 2 4"), CLIENT_STRATEGIES
# (default "staged direct persistent neighbor shm auto"), CLIENT_ROUNDS
# (default 5), CLIENT_PARTS (any of "tests timing"; default both).
# Exit status: 0 all ran and agreed; 1 a step failed (the others still run);
# 2 bad input.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: clients.sh BUILD WORK OUT (with LUDWIG_SRC and/or HPC4WC_SRC set)"
build=$(cd "${1:?$usage}" && pwd)
work=${2:?$usage}
out=${3:?$usage}
ranks=${CLIENT_RANKS:-1 2 4}
strategies=${CLIENT_STRATEGIES:-staged direct persistent neighbor shm auto}
rounds=${CLIENT_ROUNDS:-5}
parts=${CLIENT_PARTS:-tests timing}
die() {
  echo "clients: $*" >&2
  exit 2
}
[[ -f $build/libhaloex_c.a ]] || die "no libhaloex_c.a in $build (make build first)"
[[ -n ${LUDWIG_SRC:-}${HPC4WC_SRC:-} ]] || die "give LUDWIG_SRC=<Ludwig source folder> and/or HPC4WC_SRC=<HPC4WC checkout>"
[[ -z ${LUDWIG_SRC:-} || (-f $LUDWIG_SRC/src/lb_data.c && -f $LUDWIG_SRC/version.h) ]] ||
  die "LUDWIG_SRC=$LUDWIG_SRC is not a Ludwig source folder (no src/lb_data.c or version.h)"
[[ -z ${HPC4WC_SRC:-} || -f $HPC4WC_SRC/day3/stencil2d-mpi.F90 ]] ||
  die "HPC4WC_SRC=$HPC4WC_SRC is not an HPC4WC checkout (no day3/stencil2d-mpi.F90)"
for s in $strategies; do
  "$build/haloex" info --json | grep -q "\"$s\"" || die "CLIENT_STRATEGIES: '$s' is no haloex strategy"
done
mkdir -p "$work" "$out"
work=$(cd "$work" && pwd)
out=$(cd "$out" && pwd)
status=0
step() { printf '[clients] %s\n' "$*"; }

ludwig_tests() { # build: one line per (ranks, strategy) with its counts
  local table=$out/clients-ludwig-tests.md
  printf '| build | ranks | exchange | unit tests | d3q19-short passed | failed | total | fell back |\n|---|---:|---|---|---:|---:|---:|---:|\n' >"$table"
  for n in $ranks; do
    for s in native $strategies; do
      local tree=$work/ludwig-haloex
      [[ $s == native ]] && tree=$work/ludwig-native
      local logs=$work/logs/ludwig-$n-$s
      step "Ludwig's tests at $n ranks, $s"
      bash "$root/clients/ludwig/run_tests.sh" "$tree" "$n" "$s" "$logs" >"$logs.txt" 2>&1 || true
      local summary fell
      # (grep finds nothing in a native run, or in a run that ended early:
      # not an error of this script, which set -e and pipefail would make it)
      summary=$({ grep '^summary:' "$logs.txt" || true; } | tail -1)
      fell=$({ grep -l "Halo type: .*Ludwig's own" "$logs"/*.new 2>/dev/null || true; } | wc -l)
      [[ -n $summary ]] || { echo "clients: no summary from run_tests.sh ($logs.txt)" >&2; status=1; continue; }
      echo "$summary" | sed -E "s/.*unit-tests=([a-z]+).*passed=([0-9]+) failed=([0-9]+) total=([0-9]+).*/| aos | $n | $s | \1 | \2 | \3 | \4 | $fell |/" >>"$table"
    done
  done
  cat "$table"
}

ludwig() { # build.sh's arguments
  bash "$root/clients/ludwig/build.sh" "$LUDWIG_SRC" "$@" || {
    echo "clients: Ludwig did not build ($*)" >&2
    exit 1
  }
}

if [[ -n ${LUDWIG_SRC:-} ]]; then
  mkdir -p "$work/logs"
  if [[ $parts == *tests* ]]; then
    # (as Ludwig's tests want it: its default configuration, assertions on)
    step "Ludwig for its tests: native and with haloex, in $work"
    ludwig "$work/ludwig-native" - native
    ludwig "$work/ludwig-haloex" "$build" haloex
    ludwig_tests
  fi
  if [[ $parts == *timing* ]]; then
    # (as Ludwig is run for speed: optimised, no assertions; AoS and SoA)
    opt=(-O3 -march=native -DNDEBUG)
    for label in aos soa; do
      extra=()
      [[ $label == soa ]] && extra=(-DADDR_SOA)
      step "Ludwig for timing ($label, ${opt[*]} ${extra[*]})"
      ludwig "$work/ludwig-native-$label" - native "${opt[@]}" "${extra[@]}"
      ludwig "$work/ludwig-haloex-$label" "$build" haloex "${opt[@]}" "${extra[@]}"
      step "Ludwig's timers, $label, $rounds rounds"
      python3 "$root/clients/ludwig_timing.py" --native "$work/ludwig-native-$label/src/Ludwig.exe" \
        --haloex "$work/ludwig-haloex-$label/src/Ludwig.exe" --label "$label" -o "$out" -r "$rounds" \
        --strategies "${strategies// /,}" || status=1
    done
  fi
fi

if [[ -n ${HPC4WC_SRC:-} ]]; then
  step "HPC4WC's stencil2d-mpi, natively and on haloex's Fortran module"
  bash "$root/clients/hpc4wc/run.sh" "$HPC4WC_SRC" "$work/hpc4wc" "$build" "$rounds" | tee "$out/clients-hpc4wc.txt" || status=1
fi
exit $status
