#!/usr/bin/env bash
# mpi.sh PYTHON NODES PER_NODE PROGRAM ARGS...: PROGRAM on the emulated
# cluster, NODES nodes x PER_NODE ranks.
set -u
python=$1 nodes=$2 per_node=$3
shift 3
. "$(dirname "$0")/common.sh"
# (the test program fails unless its world has every rank: a launcher of
# another MPI would start each as a singleton, and each would pass alone)
export HALOEX_TEST_RANKS=$((nodes * per_node))
on "$nodes" "$per_node" "$@"
