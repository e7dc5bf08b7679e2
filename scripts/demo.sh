#!/usr/bin/env bash
# The main job on the local machine: what this build is, then the small
# benchmark campaign of campaigns/demo.toml (ping-pong, stream, cubic and
# non-cubic halo sweeps, strong scaling, LB saturation, the 2-D stencil on 1
# and 2 ranks), its report with figures and the recommendation table, one
# short LB run, and the stencil (in C++, and in C, Fortran and Python over
# the bindings) validated against its serial reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
out=${OUT:-results/demo}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# shellcheck source=scripts/mpi-run-env.sh
. "$root/scripts/mpi-run-env.sh"  # the build's MPI: mpirun on PATH, $python
launch=(mpirun -np 2)
mpirun --version 2>/dev/null | grep -q "Open MPI" && launch+=(--oversubscribe)
lab=("$root/.venv/bin/python" -m haloex_lab)

"${launch[@]}" "$build/haloex" info
echo
# A fresh measurement every time (a campaign file run by hand resumes instead).
rm -f "$out/results.jsonl"
"${lab[@]}" run campaigns/demo.toml --haloex "$build/haloex" --results "$out/results.jsonl"
echo
"${lab[@]}" report "$out"
echo
# One real case from examples/: flow past a cylinder, with its timer table.
# The halo strategy is left to `auto`, which times them all and says which
# it chose ("# halo: auto chose ...").
"${launch[@]}" "$build/haloex" lb examples/cylinder.toml --set run.steps=300 run.strategy=auto -o "$out/cylinder.json"
echo
# The stencil on 2 ranks against the serial reference, as the paper validates.
"$build/haloex" stencil --serial -q -o "$out/stencil-serial.npy"
"${launch[@]}" "$build/haloex" stencil -s irecv-isend -q -o "$out/stencil-irecv-isend.npy"
"${lab[@]}" compare "$out/stencil-irecv-isend.npy" "$out/stencil-serial.npy"
echo
# The same stencil written against the bindings (C, Fortran, Python; examples/),
# each bit-identical to the serial reference.
bash scripts/python-package.sh "$build" "$python" >/dev/null
for cmd in "$build/examples/stencil2d_c" "$build/examples/stencil2d_f" "$python examples/stencil2d.py"; do
  [[ -x ${cmd%% *} ]] || continue
  # shellcheck disable=SC2086  # a program, or Python and its script
  "${launch[@]}" $cmd -o "$out/stencil-binding.npy"
  "${lab[@]}" compare "$out/stencil-binding.npy" "$out/stencil-serial.npy" | tail -1
done
echo
echo "Report and figures: $out/report.md, $out/figures/"
