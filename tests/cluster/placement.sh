#!/usr/bin/env bash
# placement.sh PYTHON HALOEX DIR: records written on 2 nodes x 2 ranks name
# both hosts, two ranks each, and the cluster's launcher; node detection
# splits the ranks as the hosts do (shm's node groups, auto's choice); the
# records count what crosses the network as the 2x2x1 grid says it must.
set -u
(($# == 3)) || { echo "usage: placement.sh PYTHON HALOEX DIR" >&2; exit 2; }
python=$1 haloex=$2 dir=$3
. "$(dirname "$0")/common.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
export HALOEX_LAUNCHER="haloex-lab cluster mpirun --name $CLUSTER"
on 2 2 "$haloex" bench halo -m 8 --procs 2,2,1 -i 20 -r 2 -s direct,shm,auto -q -o halo.jsonl || fail "bench halo on 2 nodes x 2 ranks"
on 2 2 "$haloex" info > info.txt || fail "haloex info on 2 nodes x 2 ranks"
"$python" - <<'PY' || exit 1
import json
recs = [json.loads(line) for line in open("halo.jsonl")]
assert len(recs) == 3, len(recs)
for r in recs:
    p = r["placement"]
    assert p["ranks_per_host"] == {"node1": 2, "node2": 2}, p["ranks_per_host"]
    assert p["hosts"] == ["node1", "node1", "node2", "node2"], p["hosts"]
    assert p["launcher"] == "haloex-lab cluster mpirun --name ctest", p["launcher"]
    yields = ("OMPI_MCA_mpi_yield_when_idle", "1")  # (Hydra's: cluster.HYDRA_SETTINGS)
    if "Open MPI" not in r["mpi_library"]:
        yields = ("HALOEX_MPICH_YIELD", "always")
    assert p["mpi_env"].get(yields[0]) == yields[1], p["mpi_env"]
    assert len(set(p["kernels"])) == 1, p["kernels"]  # emulated hosts: one machine
    # Rank 0 at (0,0,0) of 2x2x1, periodic, node1 = ranks 0 and 1 (0,1,0):
    # off the node go the 6 links to rank 2 (+-x with z -1,0,1: 2 faces L^2,
    # 4 edges L) and the 12 to rank 3 (4 edges L, 8 corners), 19 doubles a site.
    L, site = 8, 19 * 8
    d = r["message_list"]["direct"]
    assert d["off_node_messages"] == 18, d
    assert d["off_node_bytes"] == (2 * L * L + 8 * L + 8) * site, d
    assert sorted(d["off_node_peer_message_bytes"]) == [(4 * L + 8) * site, (2 * L * L + 4 * L) * site], d
    assert r["node_traffic"] == {"nodes": 2, "messages_per_node": 36, "bytes_per_node": 2 * d["off_node_bytes"],
                                 "peer_nodes": 1}, r["node_traffic"]
print("placement: node1 x 2, node2 x 2 in every record, launcher and yield setting recorded; "
      "off-node messages and bytes as the grid says")
PY
grep -q "node1" info.txt && grep -q "node2" info.txt || { cat info.txt; fail "haloex info does not name both hosts"; }
