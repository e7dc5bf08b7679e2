#!/usr/bin/env bash
# simulate_on_node.sh OUT: on one node, do a rank's messages in flight
# together take the time of one (the simulation's premise: each flow gets
# the on-node stream bandwidth) or add up (the model's: the rank's core
# copies them one after another)? docs/simulation.md, "The model against
# the simulation".
#
# 2 ranks on this machine's 2 cores (a 2x1x1 grid): `irecv-isend` posts a
# stage's two messages together, `sendrecv` sends them one after the other.
# Their MPI time, paired per round over 3 interleaved runs, against the same
# bench halo simulated on this machine's description, calibrated on a
# ping-pong of the same sitting. Needs build/haloex and build-smpi/haloex.
set -euo pipefail
(($# == 1)) || { echo "usage: simulate_on_node.sh OUT" >&2; exit 2; }
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
rm -f "$out"/real-*.jsonl "$out"/pp.jsonl "$out"/sim.jsonl
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
mpirun=(mpirun --oversubscribe --bind-to core -n 2 "$root/build/haloex")
strategies=sendrecv,irecv-isend,staged,direct
for k in 1 2 3; do
  "${mpirun[@]}" bench pingpong -m 1:4M -r 5 -q -o "$out/pp-$k.jsonl"
  "${mpirun[@]}" bench halo -m 16,32,64 --plan reduced -s $strategies -r 7 -q -o "$out/real-$k.jsonl"
done
cat "$out"/pp-*.jsonl > "$out/pp.jsonl"
"$root/.venv/bin/python" -m haloex_lab simulate "$root/networks/this-machine.toml" --ranks 2 --ranks-per-node 2 \
  --calibrate "$out/pp.jsonl" --calibrate-on node --haloex "$root/build-smpi/haloex" -o "$out/sim.jsonl" -- \
  bench halo -m 16,32,64 --plan reduced -s $strategies -i 3 -r 1 --warmup 0 -q --check >/dev/null
python3 - "$out" <<'PY'
import glob, json, math, statistics, sys

out = sys.argv[1]
real = {}  # (file, L) -> strategy -> record
for f in sorted(glob.glob(f"{out}/real-*.jsonl")):
    for line in open(f):
        r = json.loads(line)
        real.setdefault((f, r["local_extent"][0]), {})[r["strategy"]] = r
sim = {}
for line in open(f"{out}/sim.jsonl"):
    r = json.loads(line)
    sim[(r["local_extent"][0], r["strategy"])] = r["median_time_per_call_s"]


def median_ci(xs):
    """The median and its 95% interval by order statistics (binomial)."""
    xs, n = sorted(xs), len(xs)
    h = math.ceil(0.98 * math.sqrt(n))
    return statistics.median(xs), xs[max(n // 2 - h, 0)], xs[min(n // 2 + h, n - 1)]


print("| L | irecv-isend / sendrecv, measured (paired rounds) | simulated | sendrecv MPI us | irecv-isend MPI us |")
print("|---:|---:|---:|---:|---:|")
for size in sorted({L for _, L in real}):
    pairs, mpi = [], {"sendrecv": [], "irecv-isend": []}
    for (_, L), by in real.items():
        if L != size:
            continue
        a, b = by["irecv-isend"]["mpi_time_per_call_s"], by["sendrecv"]["mpi_time_per_call_s"]
        pairs += [x / y for x, y in zip(a, b)]
        for s in mpi:
            mpi[s] += by[s]["mpi_time_per_call_s"]
    m, lo, hi = median_ci(pairs)
    s = sim[(size, "irecv-isend")] / sim[(size, "sendrecv")]
    print(f"| {size} | {m:.2f} [{lo:.2f}, {hi:.2f}] (n = {len(pairs)}) | {s:.2f} | "
          f"{statistics.median(mpi['sendrecv']) * 1e6:.1f} | {statistics.median(mpi['irecv-isend']) * 1e6:.1f} |")
probe = [p for by in real.values() for r in by.values() for p in r["link_probe_s"]]
print(f"\nlink probe: median {statistics.median(probe) * 1e6:.1f} us, {min(probe) * 1e6:.1f}-{max(probe) * 1e6:.1f}")
PY
