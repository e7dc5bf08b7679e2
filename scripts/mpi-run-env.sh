# shellcheck shell=bash disable=SC2154  # ($build: set by the script that sources this)
# Sourced with $build set: runs below it use the MPI that build was made with
# (make ... MPI=NAME; scripts/mpi.sh): its launcher first on PATH as mpirun
# (haloex-lab's campaigns call mpirun too), its Python in $python (haloex's
# package and mpi4py built against that MPI), and what it needs to start.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
mpiexec=$(cached MPIEXEC_EXECUTABLE)
python=$(cached HALOEX_PYTHON)
[[ -x $mpiexec && -x $python ]] || { echo "no launcher or Python recorded in $build/CMakeCache.txt: build it first" >&2; exit 2; }
# (a script, not a link: Hydra looks for its proxy beside the path it was called by)
mkdir -p "$build/mpi-bin" && rm -f "$build/mpi-bin/mpirun"
printf '#!/bin/sh\nexec %s "$@"\n' "$mpiexec" > "$build/mpi-bin/mpirun" && chmod +x "$build/mpi-bin/mpirun"
PATH=$(cd "$build/mpi-bin" && pwd):$PATH
# (Intel MPI's wheel has no libfabric: one node through its shared memory)
"$mpiexec" --version 2>/dev/null | grep -q "Intel(R) MPI" && export I_MPI_FABRICS=shm
export PATH
