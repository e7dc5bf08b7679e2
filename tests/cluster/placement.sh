#!/usr/bin/env bash
# placement.sh PYTHON HALOEX DIR: records written on 2 nodes x 2 ranks name
# both hosts, two ranks each, and the cluster's launcher; node detection
# splits the ranks as the hosts do (shm's node groups, auto's choice).
set -u
(($# == 3)) || { echo "usage: placement.sh PYTHON HALOEX DIR" >&2; exit 2; }
python=$1 haloex=$2 dir=$3
. "$(dirname "$0")/common.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
export HALOEX_LAUNCHER="haloex-lab cluster mpirun --name $CLUSTER"
on 2 2 "$haloex" bench halo -m 8 -i 20 -r 2 -s direct,shm,auto -q -o halo.jsonl || fail "bench halo on 2 nodes x 2 ranks"
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
    assert p["mpi_env"].get("OMPI_MCA_mpi_yield_when_idle") == "1", p["mpi_env"]
print("placement: node1 x 2, node2 x 2 in every record, launcher and yield setting recorded")
PY
grep -q "node1" info.txt && grep -q "node2" info.txt || { cat info.txt; fail "haloex info does not name both hosts"; }
