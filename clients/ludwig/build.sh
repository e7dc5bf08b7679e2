#!/usr/bin/env bash
###############################################################################
#
#  build.sh LUDWIG_SRC WORK HALOEX_PREFIX_OR_BUILD [native|haloex] [CFLAGS...]
#
#  Build Ludwig (ludwig-cf/ludwig 0.23.0, a clean export of commit
#  7a12d0017bde3b238650910bddb64b0934623aeb) in WORK, a fresh copy of
#  LUDWIG_SRC:
#    native  Ludwig as released (the patch is not applied);
#    haloex  (default) with ludwig-haloex.patch (next to this script)
#            applied, -DLUDWIG_HALOEX, linked against haloex's C API.
#  HALOEX_PREFIX_OR_BUILD is an install prefix (include/haloex/haloex.h,
#  lib/libhaloex_c.a) or a CMake build directory (libhaloex_c.a, headers
#  from its source tree); unused for native (pass anything, e.g. -).
#  Further arguments are extra CFLAGS (e.g. -DADDR_SOA).
#
#  Config: config/unix-mpicc-default.mk (mpicc -fopenmp -O2 -g -Wall,
#  assertions on). Uses mpicc, or mpicc.openmpi if there is no mpicc.
#  Environment: JOBS (make -j, default 2), HALOEX_LIBS (overrides the
#  libraries linked after libludwig.a for haloex). Heavy steps run under
#  nice -n 10. WORK must not exist, or be a directory this script made.
#  Exits nonzero with a message on failure.
#
###############################################################################
set -euo pipefail

die() { echo "build.sh: error: $*" >&2; exit 1; }

[ $# -ge 3 ] || die "usage: $0 LUDWIG_SRC WORK HALOEX_PREFIX_OR_BUILD [native|haloex] [CFLAGS...]"
src=$1; work=$2; hx=$3; mode=${4:-haloex}
shift 3; [ $# -gt 0 ] && shift
extra_cflags="$*"
here=$(cd "$(dirname "$0")" && pwd)
patch_file=$here/ludwig-haloex.patch

[ -f "$src/src/lb_data.c" ] && [ -f "$src/version.h" ] || die "$src is not a Ludwig source tree"
grep -q 'LUDWIG_MINOR_VERSION 23' "$src/version.h" || echo "build.sh: warning: $src is not Ludwig 0.23" >&2
case $mode in native|haloex) ;; *) die "mode must be native or haloex, not '$mode'";; esac

# A fresh copy of the source
if [ -e "$work" ]; then
  [ -f "$work/.ludwig-build-sh" ] || die "$work exists and was not made by build.sh; remove it or pick another"
  rm -rf "$work"
fi
mkdir -p "$work"
cp -a "$src/." "$work/"
touch "$work/.ludwig-build-sh"
work=$(cd "$work" && pwd)

# An mpicc (Debian without alternatives configured has only mpicc.openmpi)
mpicc=mpicc
command -v mpicc > /dev/null || mpicc=mpicc.openmpi
command -v "$mpicc" > /dev/null || die "no mpicc or mpicc.openmpi in PATH"

cp "$work/config/unix-mpicc-default.mk" "$work/config.mk"
sed -i "s/^CC *=.*/CC      = $mpicc -fopenmp/" "$work/config.mk"
[ -n "$extra_cflags" ] && echo "CFLAGS += $extra_cflags" >> "$work/config.mk"

if [ "$mode" = haloex ]; then
  [ -f "$patch_file" ] || die "no $patch_file"
  (cd "$work" && patch -p1 --quiet < "$patch_file") || die "the patch does not apply to $src"
  hx=$(cd "$hx" 2> /dev/null && pwd) || die "no haloex prefix or build directory '$3'"
  if [ -f "$hx/include/haloex/haloex.h" ]; then            # install prefix
    inc=$hx/include
    libdir=$hx/lib; [ -f "$libdir/libhaloex_c.a" ] || libdir=$hx/lib64
  elif [ -f "$hx/CMakeCache.txt" ]; then                   # build directory
    srcdir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$hx/CMakeCache.txt")
    inc=$srcdir/include; libdir=$hx
  else
    die "$hx is neither a haloex install prefix nor a CMake build directory"
  fi
  [ -f "$inc/haloex/haloex.h" ] || die "no $inc/haloex/haloex.h"
  [ -f "$libdir/libhaloex_c.a" ] && [ -f "$libdir/libhaloex.a" ] \
    || die "no libhaloex_c.a and libhaloex.a in $libdir (is the library built?)"
  if [ -z "${HALOEX_LIBS:-}" ]; then
    deps=""
    if [ -f "$hx/build.ninja" ]; then
      # The dependencies CMake links a C example (stencil2d_c) with
      deps=$(sed -n '/^build examples\/stencil2d_c:/,/^$/s/^ *LINK_LIBRARIES = //p' "$hx/build.ninja" \
             | tr ' ' '\n' | grep -v 'libhaloex' | tr '\n' ' ')
    fi
    if [ -z "$deps" ]; then
      for lib in /usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_cxx.so \
                 /usr/lib/x86_64-linux-gnu/libtomlplusplus.so \
                 /usr/lib/x86_64-linux-gnu/hdf5/openmpi/libhdf5.so; do
        [ -f "$lib" ] && deps="$deps -Wl,-rpath,$(dirname "$lib") $lib"
      done
    fi
    HALOEX_LIBS="$libdir/libhaloex_c.a $libdir/libhaloex.a $deps -lstdc++ -lm"
  fi
  {
    echo "CFLAGS += -DLUDWIG_HALOEX -I$inc"
    echo "HALOEX_LIBS = $HALOEX_LIBS"
  } >> "$work/config.mk"
fi

echo "build.sh: building $mode Ludwig in $work (config.mk:)"
sed 's/^/  /' "$work/config.mk" | grep -v '^ *#' | grep -v '^ *$'
if ! nice -n 10 make -C "$work" -j"${JOBS:-2}" build > "$work/build.log" 2>&1; then
  tail -n 30 "$work/build.log" >&2
  die "make failed; see $work/build.log"
fi
for exe in src/Ludwig.exe tests/unit/a.out; do
  [ -x "$work/$exe" ] || die "no $work/$exe after make; see $work/build.log"
done
if [ "$mode" = haloex ]; then
  nm "$work/src/Ludwig.exe" | grep ' T haloex_exchange_run' > /dev/null \
    || die "Ludwig.exe does not contain haloex (haloex_exchange_run)"
fi
echo "build.sh: OK: $work/src/Ludwig.exe ($mode${extra_cflags:+, $extra_cflags})"
