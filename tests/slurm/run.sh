#!/usr/bin/env bash
# run.sh PYTHON HALOEX DIR: haloex-lab campaigns under a real Slurm. Starts a
# single-node cluster (cluster.sh) in DIR, runs one campaign with launcher
# srun (in the foreground) and one with sbatch (batch scripts, collected as
# the jobs finish), checks that every point's records arrived, say where they
# ran (launcher, ranks per host) and that a second run resumes with nothing to
# do; the batch scripts are checked by Slurm's own parser (sbatch
# --test-only). Stops the cluster afterwards. Skips (77), saying why, where
# Slurm or munge is not installed or the test does not run as root.
set -eu
(($# == 3)) || { echo "usage: run.sh PYTHON HALOEX DIR" >&2; exit 2; }
python=$1 haloex=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
for c in slurmctld slurmd munged srun sbatch scontrol; do
  command -v $c >/dev/null || { echo "SKIP: $c is not installed (Debian: slurmctld slurmd slurm-client munge)"; exit 77; }
done
[[ $(id -u) == 0 ]] || { echo "SKIP: the test cluster's slurmd must run as root"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir"
trap 'bash "$here/cluster.sh" stop "$dir/cluster"' EXIT
# Not `export X=$(...)`: export's own status would hide a cluster that failed to start.
SLURM_CONF=$(bash "$here/cluster.sh" start "$dir/cluster") || exit 1
export SLURM_CONF
export OMP_NUM_THREADS=1
# Slurm's PMI for the build's MPI: PMIx for Open MPI, PMI-2 for MPICH and Intel MPI.
srun_mpi=pmix
[[ ${HALOEX_TEST_MPI:-openmpi} == openmpi ]] || srun_mpi=pmi2
cd "$dir"
for launcher in srun sbatch; do
  cat > $launcher.toml <<TOML
[campaign]
name = "slurm-$launcher"
results = "$dir/$launcher/results.jsonl"
launcher = "$launcher"
srun = ["srun", "--mpi=$srun_mpi"]
timeout_s = 120
[campaign.sbatch]
time = "00:05:00"
poll_s = 0.5

[[points]]
benchmark = "pingpong"
nodes = 1
tasks_per_node = 2
args = ["-m", "8", "-i", "10"]

[[points]]
benchmark = "halo"
ranks = [1, 2]
sizes = [8]
args = ["-i", "10", "-r", "2", "-s", "direct"]
TOML
  timeout 300 "$python" -m haloex_lab run $launcher.toml --haloex "$haloex" > $launcher.log 2>&1 ||
    { cat $launcher.log; exit 1; }
  timeout 120 "$python" -m haloex_lab run $launcher.toml --haloex "$haloex" > $launcher.again 2>&1 ||
    { cat $launcher.again; exit 1; }
  grep -q "3 already in .* 0 to run" $launcher.again || { cat $launcher.again; exit 1; }
  "$python" - "$launcher" "$dir/$launcher/results.jsonl" "$srun_mpi" <<'PY'
import json, sys
launcher, path, pmi = sys.argv[1], sys.argv[2], sys.argv[3]
recs = [json.loads(line) for line in open(path)]
got = sorted((r["benchmark"], r["ranks"]) for r in recs)
assert got == [("halo", 1), ("halo", 2), ("pingpong", 2)], got
for r in recs:
    p = r["placement"]
    want = f"srun --mpi={pmi}" if launcher == "srun" else f"sbatch + srun --mpi={pmi}"
    assert p["launcher"] == want, p["launcher"]
    assert sum(p["ranks_per_host"].values()) == r["ranks"] and len(p["cpus"]) == r["ranks"], p
print(f"{launcher}: {len(recs)} records, launcher and placement recorded")
PY
done
# Slurm's own parser on every script the runner wrote.
for s in sbatch/jobs/*.sh; do
  sbatch --test-only "$s" > /dev/null 2>&1 || { echo "sbatch --test-only refused $s:"; sbatch --test-only "$s"; exit 1; }
done
ls sbatch/jobs/*.sh | wc -l | grep -q 3
echo PASS
