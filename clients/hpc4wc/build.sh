#!/usr/bin/env bash
# Build HPC4WC's day3 stencil (stencil2d-mpi.F90, github.com/ofuhrer/HPC4WC)
# natively or on haloex's Fortran module.
#
#   build.sh HPC4WC_SRC WORK HALOEX_BUILD_DIR [native|native-fixed|haloex]
#
# HPC4WC_SRC  a clean export of HPC4WC (the folder holding day3/)
# WORK        where to build: WORK/hpc4wc-MODE
#             (that folder is made anew)
# HALOEX_BUILD_DIR  a haloex CMake build with the Fortran module built
#             (fortran/haloex.mod, libhaloex_fortran.a, libhaloex_c.a,
#             libhaloex.a; e.g. `cmake --build B --target haloex_fortran`);
#             only read for haloex
# mode        native (default): HPC4WC's sources as they are; haloex: with
#             stencil2d-haloex.patch (beside this script) applied;
#             native-fixed: with update_halo-corners.patch, which unpacks
#             the top/bottom halo BEFORE packing the left/right one, so that
#             the corners sent are this exchange's, not the previous one's
#             (HPC4WC's update_halo sends stale corners; haloex does not)
#
# Both are compiled as day3/Makefile does (make VERSION=mpi), with the
# compiler of its one GNU configuration (F90 = mpif90 -cpp) and -O3, the
# optimization of its Cray configurations, with -fallow-argument-mismatch,
# which gfortran >= 10 needs for the untyped `use mpi` calls of
# m_partitioner.F90 (FFLAGS; override with
# HPC4WC_FFLAGS). haloex adds the module's include path and links the
# libraries after HPC4WC's objects. Prints the executable's path:
# WORK/hpc4wc-MODE/stencil2d-mpi.x.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
[[ $# -eq 3 || $# -eq 4 ]] || usage
src=$1 work=$2 build=$3 mode=${4:-native}
[[ $mode == native || $mode == native-fixed || $mode == haloex ]] ||
  { echo "build.sh: mode must be native, native-fixed or haloex, not '$mode'" >&2; exit 2; }
[[ -f $src/day3/stencil2d-mpi.F90 && -f $src/day3/Makefile ]] ||
  { echo "build.sh: $src is not an HPC4WC export (no day3/stencil2d-mpi.F90 or day3/Makefile)" >&2; exit 2; }
command -v mpif90 >/dev/null || { echo "build.sh: no mpif90 (Debian: openmpi-bin, libopenmpi-dev)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
fflags=${HPC4WC_FFLAGS:--O3 -fallow-argument-mismatch}

dir=$work/hpc4wc-$mode
rm -rf "$dir"
mkdir -p "$dir"
cp -L "$src"/day3/Makefile "$src"/day3/m_utils.F90 "$src"/day3/m_partitioner.F90 "$src"/day3/stencil2d-mpi.F90 "$dir"/
cd "$dir"
# patch_with FILE: apply FILE (made with paths a/day3/..., b/day3/...) here.
patch_with() {
  mkdir day3 && mv stencil2d-mpi.F90 day3/ && patch -s -p1 <"$here/$1" && mv day3/stencil2d-mpi.F90 . && rmdir day3
}
if [[ $mode != haloex ]]; then
  [[ $mode == native ]] || patch_with update_halo-corners.patch
  make VERSION=mpi F90="mpif90 -cpp" FFLAGS="$fflags"
else
  [[ -d $build ]] || { echo "build.sh: no haloex build folder $build" >&2; exit 2; }
  build=$(cd "$build" && pwd)
  libs=("$build"/libhaloex_fortran.a "$build"/libhaloex_c.a "$build"/libhaloex.a)
  for f in "$build"/fortran/haloex.mod "${libs[@]}"; do
    [[ -f $f ]] || { echo "build.sh: $f is missing: build haloex's Fortran module in $build first" >&2; exit 2; }
  done
  patch_with stencil2d-haloex.patch
  make VERSION=mpi F90="mpif90 -cpp" FFLAGS="$fflags -I$build/fortran" m_utils.o m_partitioner.o stencil2d-mpi.o
  # The Makefile's link line, the libraries after the objects: the C++
  # library needs libstdc++, OpenMP and Open MPI's C library.
  mpif90 -cpp $fflags m_utils.o m_partitioner.o stencil2d-mpi.o "${libs[@]}" -fopenmp -lstdc++ -lm \
    $(mpicxx --showme:link) -o stencil2d-mpi.x
fi
echo "$dir/stencil2d-mpi.x"
