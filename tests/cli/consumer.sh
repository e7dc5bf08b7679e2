#!/usr/bin/env bash
# consumer.sh SOURCE BUILD WORK "LAUNCH" GENERATOR [FLAGS]: install haloex
# from BUILD into WORK/prefix, build examples/consumer against it with
# find_package, from C++ and from C (compiled with FLAGS: a sanitized haloex needs the same
# sanitizers in its consumer), and run it on 2 ranks.
set -eu
src=$1 build=$2 work=$3 launch=$4 generator=$5 flags=${6:-}
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix"
cmake -S "$src/examples/consumer" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags"
cmake --build "$work/build"
$launch "$work/build/heat_halo" staged
$launch "$work/build/heat_halo" neighbor
$launch "$work/build/heat_halo_c" auto
