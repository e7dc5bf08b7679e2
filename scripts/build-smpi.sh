#!/usr/bin/env bash
# build-smpi.sh DIR [BUILD_TYPE [SETS]]: haloex's program built against SimGrid's
# SMPI (smpicc/smpicxx) in its own folder DIR, for `smpirun` and
# `haloex-lab simulate` (docs/simulation.md). Release by default (make smpi);
# the test suite builds a Debug one at -O0, which compiles in a third of the
# time and runs its small checks as fast: simulated time does not depend on
# how fast the host computes. SETS (e.g. D3Q19, or "D2Q9;D3Q19") compiles
# the LB kernels of those velocity sets only (default: all).
set -euo pipefail
(($# >= 1)) || { echo "usage: build-smpi.sh DIR [Release|Debug [VELOCITY_SETS]]" >&2; exit 2; }
dir=$1 type=${2:-Release} sets=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
for tool in smpicc smpicxx smpirun; do
  command -v $tool >/dev/null || { echo "build-smpi.sh: $tool not found: install SimGrid (Debian: apt-get install libsimgrid-dev)" >&2; exit 2; }
done
flags=()
# (At -O0 the LB kernels' explicit SIMD is not inlined: with it the suite's
# simulated applications took 243 s, 14-20 s a simulated LB run; without it
# 39 s, in clean-clone CI runs on the same machine.)
[[ $type == Debug ]] && flags+=(-DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_C_FLAGS_DEBUG=-O0 -DHALOEX_SIMD=OFF)
[[ -n $sets ]] && flags+=("-DHALOEX_LB_VELOCITY_SETS=$sets")
# No tests, HDF5, Fortran or -march=native: only the program runs under
# SMPI, and the MPI those would find is the system's, not SimGrid's.
mkdir -p "$dir"
cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DCMAKE_C_COMPILER=smpicc \
  -DCMAKE_CXX_COMPILER=smpicxx -DCMAKE_Fortran_COMPILER=NOTFOUND -DHALOEX_SMPI=ON -DHALOEX_HDF5=OFF \
  -DHALOEX_TESTS=OFF -DHALOEX_NATIVE=OFF "${flags[@]}" >"$dir/configure.log" 2>&1 ||
  { cat "$dir/configure.log" >&2; exit 1; }
cmake --build "$dir" --target haloex_cli
