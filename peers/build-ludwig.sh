#!/usr/bin/env bash
# Builds Ludwig (the lattice Boltzmann code of ludwig-cf/ludwig; in neither Debian nor PyPI, so the
# user hands in its source folder) for the side by side with `haloex lb`:
#
#   peers/build-ludwig.sh SRC WORK
#
# Copies SRC to WORK/ludwig (the user's folder is never built in), configures it with its own
# config/unix-mpicc-default.mk as config.mk (mpicc -fopenmp, D3Q19), compiles with CFLAGS below,
# and leaves:
#   WORK/bin/Ludwig.exe        the program
#   WORK/ludwig-version.txt    "<version> <commit or ?> <CFLAGS>", for the records
#   WORK/logs/ludwig-*.log     one log per step
# Exit status: 0 built; 2 SRC is not a Ludwig source folder; 1 the build failed. JOBS (default 2)
# sets the parallelism; the build runs under nice.
set -euo pipefail

# -DNDEBUG: Ludwig's README asks for it in production runs (its asserts sit inside the kernels).
readonly CFLAGS="-O3 -march=native -DNSIMDVL=8 -DADDR_SOA -DNDEBUG"
readonly JOBS=${JOBS:-2}

# shellcheck source=peers/build-common.sh
source "$(dirname "$0")/build-common.sh"

[[ $# -eq 2 ]] || die 2 "usage: peers/build-ludwig.sh SRC WORK"
src=$1
# What makes a Ludwig source folder: its main loop, its version header and the config used here.
for f in src/ludwig.c version.h config/unix-mpicc-default.mk Makefile.mk; do
  [[ -f $src/$f ]] || die 2 "$src is not a Ludwig source folder (no $f; expected a checkout of github.com/ludwig-cf/ludwig)"
done
src=$(cd "$src" && pwd)
mkdir -p "$2/bin" "$2/logs" || die 1 "cannot create $2"
work=$(cd "$2" && pwd)
[[ $work/ludwig != "$src" ]] || die 2 "SRC and WORK/ludwig are the same folder"

# version.h's MAJOR.MINOR.PATCH, and the commit when SRC is a git checkout.
version=$(awk '/define LUDWIG_(MAJOR|MINOR|PATCH)_VERSION/ {v = v (v ? "." : "") $3} END {print v}' "$src/version.h")
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "?")
echo "==> Ludwig $version (commit $commit) from $src"

echo "==> copying to $work/ludwig"
rm -rf "$work/ludwig"
# (.git left behind: a worktree's .git is a pointer, and the commit is taken above)
run ludwig-copy.log tar -C "$src" --exclude=.git -cf "$work/ludwig.tar" .
mkdir -p "$work/ludwig"
run ludwig-untar.log tar -C "$work/ludwig" -xf "$work/ludwig.tar"
rm -f "$work/ludwig.tar"

echo "==> config.mk from config/unix-mpicc-default.mk, CFLAGS = $CFLAGS"
cp "$work/ludwig/config/unix-mpicc-default.mk" "$work/ludwig/config.mk"
printf '\n# set by haloex peers/build-ludwig.sh\nCFLAGS = %s\n' "$CFLAGS" >>"$work/ludwig/config.mk"
grep -q -- '-D_D3Q19_' "$work/ludwig/config.mk" || die 1 "config/unix-mpicc-default.mk no longer selects D3Q19"

echo "==> building (logs in $work/logs)"
run ludwig-target.log nice make -C "$work/ludwig/target"
# GIT_REVISION: src/Makefile asks git for it, which the copy has not got.
run ludwig-src.log nice make -C "$work/ludwig/src" -j "$JOBS" GIT_REVISION="$commit" build
cp "$work/ludwig/src/Ludwig.exe" "$work/bin/Ludwig.exe"
echo "$version $commit $CFLAGS" >"$work/ludwig-version.txt"
echo "==> $work/bin/Ludwig.exe: Ludwig $version, commit $commit"
