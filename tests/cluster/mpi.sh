#!/usr/bin/env bash
# mpi.sh PYTHON NODES PER_NODE PROGRAM ARGS...: PROGRAM on the emulated
# cluster, NODES nodes x PER_NODE ranks.
set -u
python=$1 nodes=$2 per_node=$3
shift 3
. "$(dirname "$0")/common.sh"
on "$nodes" "$per_node" "$@"
