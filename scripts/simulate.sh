#!/usr/bin/env bash
# simulate.sh HALOEX_SMPI OUT: the simulated campaigns of docs/simulation.md
# (make simulate), on the ARCHER2-like description. Each step appends to its
# records in OUT and prints its wall time.
#  1. bench halo of the reduced D3Q19 plan, L = 12 per rank, every strategy
#     SMPI runs, every halo checked, at 64, 512, 4096 and 8192 ranks (1-64
#     nodes of 128 ranks), then the model's message time beside it.
#  2. overlap at the strong-scaling limit of the 2023 paper's sizes (64^3 a
#     rank, 2 ranks a node): the exchange around the interior's update, its
#     time injected from the description's LB rate (lb_mlups / 2 per rank).
#  3. the stencil and the LB at 512 simulated ranks, bit-identical to their
#     serial runs.
#  4. the LB's scaling figure (scripts/simulate_lb_scaling.py): a bench lb
#     on this machine (2 ranks, MPIRUN_FLAGS for mpirun) for the kernels'
#     roofline fraction, then 13 simulated points up to 8192 ranks.
set -euo pipefail
(($# == 2)) || { echo "usage: simulate.sh HALOEX_SMPI OUT" >&2; exit 2; }
haloex=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
lab=("$root/.venv/bin/python" -m haloex_lab)
net=$root/networks/archer2-like.toml
mkdir -p "$out"
supported=staged,direct,direct-waitany,persistent,sendrecv,irecv-send,isend-recv,irecv-isend,irecv-issend,red-black,prepost
for n in ${SIMULATE_RANKS:-64 512 4096 8192}; do
  start=$SECONDS
  "${lab[@]}" simulate "$net" --ranks "$n" --haloex "$haloex" -o "$out/halo-L12.jsonl" -- \
    bench halo -L 12 --plan reduced -i 3 -r 1 --warmup 0 -q --check -s $supported
  echo "simulate.sh: bench halo at $n ranks: $((SECONDS - start)) s"
done
"${lab[@]}" project "$net" --simulated "$out/halo-L12.jsonl" -o "$out"

# 64^3 a rank: the interior (62^3) and boundary sites at 460 MLUPS a rank.
read -r inner_us boundary_us < <(python3 -c '
rate = 920e6 / 2
print(f"{62**3 / rate * 1e6:.1f} {(64**3 - 62**3) / rate * 1e6:.1f}")')
start=$SECONDS
"${lab[@]}" simulate "$net" --ranks 64 --ranks-per-node 2 --haloex "$haloex" -o "$out/overlap-L64.jsonl" -- \
  bench halo -L 64 --plan reduced -i 3 -r 1 --warmup 0 -q --check -s staged,direct,persistent --work-us "$inner_us"
echo "simulate.sh: overlap at 64^3 a rank: $((SECONDS - start)) s (interior $inner_us us, boundary $boundary_us us)"
python3 - "$out/overlap-L64.jsonl" "$boundary_us" <<'PY'
import json, sys
boundary = float(sys.argv[2]) * 1e-6
print("| strategy | exchange us | interior us | step without overlap us | step with overlap us | with / without |")
print("|---|---:|---:|---:|---:|---:|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    ex, work = r["median_time_per_call_s"], r["median_work_time_per_call_s"]
    both = r["median_overlap_time_per_call_s"]
    without, with_ = ex + work + boundary, both + boundary
    print(f"| {r['strategy']} | {ex*1e6:.1f} | {work*1e6:.1f} | {without*1e6:.1f} | {with_*1e6:.1f} | {with_/without:.3f} |")
PY

# 3. The applications at 512 simulated ranks (8x8x8; the stencil 32x16):
#    the stencil and the LB bit-identical to their serial runs.
start=$SECONDS
bash "$root/tests/smpi/simulated_apps.sh" "$root/.venv/bin/python" "$haloex" "$root/examples/cylinder.toml" \
  "$out/apps" 512:direct,staged,persistent
echo "simulate.sh: the stencil and the LB at 512 ranks: $((SECONDS - start)) s"

# 4. The 2023 paper's scaling figure in kind: 128^3 on 1 node to 2048^3 on
#    4096 nodes (2 ranks each), the update injected at this machine's
#    measured fraction of the memory roofline on the description's node.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMP_NUM_THREADS=1 mpirun ${MPIRUN_FLAGS:---bind-to core} -n 2 "$root/build/haloex" bench lb -L 128 \
  --velocity-set D3Q19 -q -o "$out/lb-rate.jsonl" >/dev/null
"$root/.venv/bin/python" "$root/scripts/simulate_lb_scaling.py" "$haloex" "$net" "$out/lb-rate.jsonl" "$out" \
  ${SIMULATE_POINTS:+--points "$SIMULATE_POINTS"}
