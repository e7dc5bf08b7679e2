#!/usr/bin/env bash
# Builds GHEX 0.9.0 (C++ only: MPI transport, its bundled GridTools, oomph and hwmalloc; no GPU, no
# Python or Fortran bindings, no tests) from its PyPI source distribution, and the peer driver
# peers/ghex/ghex_halo.cpp against it.
#
#   peers/build-ghex.sh WORKDIR
#
# Leaves in WORKDIR:
#   ghex-0.9.0.tar.gz    the sdist (downloaded through PyPI's simple index unless already there;
#                        its sha256 is always checked)
#   src/ghex-0.9.0/      the unpacked sources
#   ghex-install/        GHEX, oomph, hwmalloc and GridTools' headers, with their CMake configs
#   bin/ghex_halo        the driver
#   build/, logs/        build trees and one log per step
# Steps already done are skipped (delete WORKDIR/stamps/<step> to redo one). JOBS (default 2) sets
# the build parallelism; builds run under nice.
# Needs (Debian): cmake, g++, libopenmpi-dev + openmpi-bin, libboost-dev, libnuma-dev, curl.
set -euo pipefail

readonly VERSION=0.9.0
readonly SHA256=165115747171c2b16367dace0420d8d50ddc925a1ad9b037c6669ffa70e7a596
readonly INDEX=https://pypi.org/simple/ghex/
readonly JOBS=${JOBS:-2}

die() {
  echo "build-ghex.sh: error: $*" >&2
  exit 1
}

[[ $# -eq 1 ]] || die "usage: peers/build-ghex.sh WORKDIR"
mkdir -p "$1" || die "cannot create $1"
WORK=$(cd "$1" && pwd)
PEERS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly WORK PEERS
readonly TARBALL=$WORK/ghex-$VERSION.tar.gz
readonly SRC=$WORK/src/ghex-$VERSION
readonly PREFIX=$WORK/ghex-install
readonly STAMPS=$WORK/stamps LOGS=$WORK/logs
mkdir -p "$STAMPS" "$LOGS" "$WORK/build"

# run LOG CMD...: prints CMD, runs it with its output in LOGS/LOG; on failure shows the log's tail.
run() {
  local log=$LOGS/$1
  shift
  echo "  \$ $*"
  if ! "$@" >>"$log" 2>&1; then
    echo "----- last lines of $log -----" >&2
    tail -n 30 "$log" >&2
    die "command failed: $* (full log: $log)"
  fi
}

# step NAME DESCRIPTION: true if the step still has to run (prints what happens either way)
step() {
  if [[ -e $STAMPS/$1 ]]; then
    echo "==> $2: done already (remove $STAMPS/$1 to redo)"
    return 1
  fi
  echo "==> $2"
  : >"$LOGS/$1.log"
  STEP_START=$SECONDS
}
done_step() {
  touch "$STAMPS/$1"
  echo "    ($1 took $((SECONDS - STEP_START)) s)"
}

for tool in cmake mpicxx mpirun curl sha256sum tar; do
  command -v "$tool" >/dev/null ||
    die "'$tool' not found (Debian: apt-get install cmake g++ libopenmpi-dev openmpi-bin curl)"
done
[[ -e /usr/include/boost/version.hpp ]] || die "Boost headers not found (Debian: apt-get install libboost-dev)"
[[ -e /usr/include/numa.h ]] || die "libnuma headers not found; hwmalloc needs them (Debian: apt-get install libnuma-dev)"

# 1. the sdist, through PyPI's simple index, and its checksum
if [[ ! -e $TARBALL ]]; then
  echo "==> downloading ghex-$VERSION.tar.gz (index $INDEX)"
  url=$(curl -fsSL "$INDEX" | grep -o "href=\"[^\"]*/ghex-$VERSION\.tar\.gz[^\"]*\"" | head -n 1 |
    sed -e 's/^href="//' -e 's/"$//' -e 's/#.*//') || true
  [[ -n $url ]] || die "ghex-$VERSION.tar.gz not listed at $INDEX (or the index could not be read)"
  echo "  \$ curl -fsSL -o $TARBALL.part $url"
  curl -fsSL -o "$TARBALL.part" "$url" || die "download failed: $url"
  mv "$TARBALL.part" "$TARBALL"
else
  echo "==> using $TARBALL"
fi
got=$(sha256sum "$TARBALL" | cut -d' ' -f1)
[[ $got == "$SHA256" ]] || die "sha256 mismatch for $TARBALL: got $got, expected $SHA256 (remove the file to download it again)"
echo "    sha256 ok ($SHA256)"

# 2. unpack
if step unpack "unpacking into $SRC"; then
  rm -rf "$SRC"
  mkdir -p "$WORK/src"
  run unpack.log tar -xzf "$TARBALL" -C "$WORK/src"
  [[ -e $SRC/CMakeLists.txt && -e $SRC/ext/oomph/CMakeLists.txt && -e $SRC/ext/gridtools/CMakeLists.txt ]] ||
    die "$TARBALL does not hold GHEX with its bundled oomph and GridTools"
  done_step unpack
fi

# 3. GHEX itself (builds libghex, liboomph_mpi, libhwmalloc) and its installation
if step ghex "configuring, building and installing GHEX $VERSION into $PREFIX"; then
  run ghex.log cmake -S "$SRC" -B "$WORK/build/ghex" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib \
    -DGHEX_USE_BUNDLED_LIBS=ON -DGHEX_USE_BUNDLED_GRIDTOOLS=ON -DGHEX_USE_BUNDLED_OOMPH=ON \
    -DGHEX_TRANSPORT_BACKEND=MPI -DGHEX_USE_GPU=OFF -DGHEX_USE_XPMEM=OFF \
    -DGHEX_BUILD_PYTHON_BINDINGS=OFF -DGHEX_BUILD_FORTRAN=OFF -DGHEX_WITH_TESTING=OFF
  run ghex.log nice -n 10 cmake --build "$WORK/build/ghex" -j "$JOBS"
  run ghex.log cmake --install "$WORK/build/ghex"
  done_step ghex
fi

# 4. GridTools is header-only and bundled with EXCLUDE_FROM_ALL, so GHEX's install leaves it out
#    although GHEX's exported targets name GridTools::gridtools: install the bundled copy beside it.
if step gridtools "installing GHEX's bundled GridTools headers into $PREFIX"; then
  run gridtools.log cmake -S "$SRC/ext/gridtools" -B "$WORK/build/gridtools" \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_TESTING=OFF -DGT_INSTALL_EXAMPLES=OFF
  run gridtools.log cmake --install "$WORK/build/gridtools"
  done_step gridtools
fi

# 5. the driver (always rebuilt incrementally, so edits to peers/ghex/ are picked up)
echo "==> building the driver $PEERS/ghex -> $WORK/bin/ghex_halo"
STEP_START=$SECONDS
: >"$LOGS/driver.log"
run driver.log cmake -S "$PEERS/ghex" -B "$WORK/build/ghex_halo" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DGHEX_DIR="$PREFIX/lib/cmake" -DCMAKE_INSTALL_PREFIX="$WORK"
run driver.log nice -n 10 cmake --build "$WORK/build/ghex_halo" -j "$JOBS"
run driver.log cmake --install "$WORK/build/ghex_halo"
[[ -x $WORK/bin/ghex_halo ]] || die "$WORK/bin/ghex_halo was not produced"
echo "    (driver took $((SECONDS - STEP_START)) s)"
echo "==> ready: $WORK/bin/ghex_halo"
