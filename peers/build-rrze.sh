#!/usr/bin/env bash
# Builds RRZE-HPC's lbm-benchmark-kernels (github.com/RRZE-HPC/lbm-benchmark-kernels; in neither
# Debian nor PyPI, so the user hands in its source folder) for the side by side with
# `haloex bench lb`:
#
#   peers/build-rrze.sh SRC WORK
#
# Copies SRC to WORK/rrze (the user's folder is never built in), builds its one binary of D3Q19
# TRT kernels in WORK/rrze/src with the command below (double precision, OpenMP, benchmark build:
# no verification, statistics or VTK output), and leaves:
#   WORK/bin/lbmbenchk         the program (`lbmbenchk -list` names its kernels)
#   WORK/rrze-version.txt      "<version> <commit or folder name>; <build command>", for the records
#   WORK/logs/rrze-*.log       one log per step
# Exit status: 0 built; 2 SRC is not an RRZE source folder; 1 the build failed. JOBS (default 2)
# sets the parallelism; the build runs under nice.
set -euo pipefail

readonly JOBS=${JOBS:-2}
# The README's benchmark build with GCC. ISA=avx: the AVX intrinsics (ISA=avx512 would add the
# gather kernels, not the ones compared here); -march=native lets GCC use what the CPU has.
# CC="gcc -Dnone=shared": GCC 9 and later refuse the sources' `default(none)` OpenMP clauses (const
# variables are no longer predetermined shared); turning them into default(shared) is what the
# compilers of 2018 did with them, and "none" appears nowhere else in the sources.
readonly MAKE_ARGS=(CONFIG=linux-gcc BUILD=release BENCHMARK=on PRECISION=dp OPENMP=on ISA=avx
  TARCH=-march=native COLOR=off "CC=gcc -Dnone=shared" LD=gcc)
readonly BINARY=bin/lbmbenchk-linux-gcc-release-dp

# shellcheck source=peers/build-common.sh
source "$(dirname "$0")/build-common.sh"

[[ $# -eq 2 ]] || die 2 "usage: peers/build-rrze.sh SRC WORK"
src=$1
# What makes an RRZE source folder: its main program, its kernel table and the GCC configuration.
for f in src/Main.c src/KernelFunctions.h src/Makefile src/config.linux-gcc.mk; do
  [[ -f $src/$f ]] ||
    die 2 "$src is not an RRZE lbm-benchmark-kernels source folder (no $f; expected a checkout of github.com/RRZE-HPC/lbm-benchmark-kernels)"
done
src=$(cd "$src" && pwd)
mkdir -p "$2/bin" "$2/logs" || die 1 "cannot create $2"
work=$(cd "$2" && pwd)
[[ $work/rrze != "$src" ]] || die 2 "SRC and WORK/rrze are the same folder"

# Main.c's version; the commit when SRC is itself a git checkout (not a folder inside another
# repository), its folder's name otherwise.
version=$(awk '/define LBM_BENCH_KERNELS_VERSION_(MAJOR|MINOR)/ {v = v (v ? "." : "") $3} END {print v}' \
  "$src/src/Main.c")
if [[ $(git -C "$src" rev-parse --show-toplevel 2>/dev/null) == "$src" ]]; then
  id="commit $(git -C "$src" rev-parse HEAD)"
  [[ -z $(git -C "$src" status --porcelain 2>/dev/null) ]] || id="$id (with uncommitted changes)"
else
  id="folder $(basename "$src")"
fi
echo "==> RRZE lbm-benchmark-kernels ${version:-?} ($id) from $src"

echo "==> copying to $work/rrze"
rm -rf "$work/rrze"
mkdir -p "$work/rrze"
run rrze-copy.log tar -C "$src" --exclude=.git --exclude=bin --exclude=src/obj -cf "$work/rrze.tar" .
run rrze-untar.log tar -C "$work/rrze" -xf "$work/rrze.tar"
rm -f "$work/rrze.tar"

echo "==> building (logs in $work/logs)"
run rrze-make.log nice make -C "$work/rrze/src" -j "$JOBS" "${MAKE_ARGS[@]}"
cp "$work/rrze/$BINARY" "$work/bin/lbmbenchk"
# A binary that lists no kernel is no use to the comparison.
run rrze-list.log "$work/bin/lbmbenchk" -list
grep -q '^ *aa-' "$work/logs/rrze-list.log" || die 1 "$work/bin/lbmbenchk lists no kernels (see $work/logs/rrze-list.log)"
printf -v command '%q ' make "${MAKE_ARGS[@]}"
echo "${version:-?} $id; in src/: ${command% }" >"$work/rrze-version.txt"
echo "==> $work/bin/lbmbenchk: RRZE lbm-benchmark-kernels ${version:-?}, $id"
