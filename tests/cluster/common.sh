# Sourced by the cluster_ tests, after setting $python: skips (exit 77) with
# the reason where this machine cannot make a cluster, fails where the
# fixture (cluster_up) did not make one, and gives
#   on NODES PER_NODE PROGRAM ARGS...   PROGRAM under the cluster's launcher
#                                       (the build's) on NODES nodes x PER_NODE ranks
#   lab ARGS...                         haloex-lab
CLUSTER=ctest
HALOEX_TEST_MPI=${HALOEX_TEST_MPI:-openmpi}
lab() { "$python" -m haloex_lab "$@"; }
fail() { echo "FAIL: $*"; exit 1; }
if [[ $HALOEX_TEST_MPI == impi ]]; then
  echo "SKIP: Intel MPI's wheel comes without libfabric, so its ranks reach no other node (I_MPI_FABRICS=shm)"
  exit 77
fi
why=$("$python" -c 'from haloex_lab.cluster import cannot_make; print(cannot_make() or "")')
[[ -z $why ]] || { echo "SKIP: $why"; exit 77; }
lab cluster status --name $CLUSTER > /dev/null || fail "the emulated cluster '$CLUSTER' is not up (the cluster_up fixture failed)"
on() {
  local nodes=$1 per_node=$2
  shift 2
  timeout 900 "$python" -m haloex_lab cluster mpirun --name $CLUSTER -np $((nodes * per_node)) \
    --npernode "$per_node" -- "$@"
}
