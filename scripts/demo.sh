#!/usr/bin/env bash
# The main job on the local machine: what this build is, then the halo
# benchmark comparing every strategy on 2 ranks.
set -euo pipefail
build=${BUILD:-build}
np=${NP:-2}
out=${OUT:-results/demo}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
launch=(mpirun -np "$np")
mpirun --version 2>/dev/null | grep -q "Open MPI" && launch+=(--oversubscribe)

"${launch[@]}" "$build/haloex" info
echo
"${launch[@]}" "$build/haloex" bench halo -m 16,32 -i 500 -r 5 -x 20 -o "$out/halo.jsonl"
echo
# A short D3Q19 lattice Boltzmann run per strategy: MLUPS and halo time per
# step for staged, direct and direct with the interior update overlapped.
"${launch[@]}" "$build/haloex" bench lb -L 48 -k aa -s staged,direct --overlap none,interior -i 20 -r 3 -x 2 \
  -o "$out/lb.jsonl"
echo
# One real case from examples/: flow past a cylinder, with its timer table.
"${launch[@]}" "$build/haloex" lb examples/cylinder.toml --set run.steps=300 -o "$out/cylinder.json"
