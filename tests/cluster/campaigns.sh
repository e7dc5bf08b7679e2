#!/usr/bin/env bash
# campaigns.sh PYTHON HALOEX DIR: haloex-lab campaigns across the emulated
# cluster's nodes: launcher "cluster" (mpirun on the nodes) from this
# machine, and "srun" and "sbatch" on its Slurm from the login node (node1),
# each with nodes = [1, 2] x tasks_per_node = 2. Every point's records must
# arrive and name the hosts they ran on, a second run must resume with
# nothing to do, and the report must give 1 node and 2 nodes parts of their own.
set -u
(($# == 3)) || { echo "usage: campaigns.sh PYTHON HALOEX DIR" >&2; exit 2; }
python=$1 haloex=$2 dir=$3
. "$(dirname "$0")/common.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
export OMP_NUM_THREADS=1
pmi=pmix
[[ ${HALOEX_TEST_MPI:-openmpi} == openmpi ]] || pmi=pmi2  # (as tests/slurm/run.sh: Hydra's MPIs speak PMI-2)
launchers=(cluster)
if lab cluster status --name $CLUSTER | grep -q "slurm: .*idle"; then
  launchers+=(srun sbatch)
else
  echo "(no Slurm on the cluster: srun and sbatch campaigns not run)"
fi
for launcher in "${launchers[@]}"; do
  cat > $launcher.toml <<TOML
[campaign]
name = "cluster-$launcher"
results = "$dir/$launcher/results.jsonl"
launcher = "$launcher"
cluster = "$CLUSTER"
srun = ["srun", "--mpi=$pmi"]
timeout_s = 300
[campaign.sbatch]
time = "00:05:00"
poll_s = 0.5

[[points]]
benchmark = "halo"
nodes = [1, 2]
tasks_per_node = 2
sizes = [8]
args = ["-i", "20", "-r", "2", "-s", "direct,shm"]
TOML
  run=("$python" -m haloex_lab run $launcher.toml --haloex "$haloex")
  [[ $launcher == cluster ]] || run=("$python" -m haloex_lab cluster run --name $CLUSTER -- "${run[@]}")
  timeout 600 "${run[@]}" > $launcher.log 2>&1 || { cat $launcher.log; fail "$launcher campaign"; }
  "${run[@]}" > $launcher.again 2>&1 || { cat $launcher.again; fail "$launcher campaign, resumed"; }
  grep -q "2 already in .* 0 to run" $launcher.again || { cat $launcher.again; fail "$launcher: resuming ran points again"; }
  "$python" - "$launcher" "$dir/$launcher/results.jsonl" <<'PY' || exit 1
import json, sys
launcher, path = sys.argv[1], sys.argv[2]
recs = [json.loads(line) for line in open(path)]
assert len(recs) == 4, len(recs)
for r in recs:  # Slurm may pick any nodes: each of them gets two ranks
    per_host = r["placement"]["ranks_per_host"]
    assert len(per_host) == r["placement"].get("nodes", len(per_host)), per_host
    assert list(per_host.values()) == [2] * (r["ranks"] // 2) and all(h.startswith("node") for h in per_host), per_host
print(f"{launcher}: 4 records, " + " and ".join(sorted({" + ".join(f"{h} x {n}" for h, n in
      sorted(r["placement"]["ranks_per_host"].items())) for r in recs})))
PY
  lab report "$launcher" > report.log 2>&1 || { cat report.log; fail "report of the $launcher campaign"; }
  grep -q "^# Part m1: node, " "$launcher/report.md" && grep -q "^# Part m2: node (2 nodes), " "$launcher/report.md" ||
    { grep "^# Part" "$launcher/report.md"; fail "the $launcher report does not give 1 node and 2 nodes parts of their own"; }
done
echo PASS
