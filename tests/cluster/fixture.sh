#!/usr/bin/env bash
# fixture.sh PYTHON up|down [MPIEXEC]: the emulated cluster of the cluster_
# tests, four nodes named ctest (and a Slurm on them where Slurm is
# installed), whose jobs MPIEXEC launches (the build's: Open MPI's mpirun or
# Hydra's mpiexec). Where no cluster can be made here, `up` says why and
# succeeds: every test then skips with that reason.
set -u
python=$1 what=$2 mpiexec=${3:-mpirun}
why=$("$python" -c 'from haloex_lab.cluster import cannot_make; print(cannot_make() or "")')
if [[ -n $why ]]; then echo "no cluster: $why"; exit 0; fi
if [[ $what == up ]]; then
  "$python" -m haloex_lab cluster down --name ctest > /dev/null  # what a killed run left
  exec "$python" -m haloex_lab cluster up --name ctest --nodes 4 --mpirun "$mpiexec"
fi
exec "$python" -m haloex_lab cluster down --name ctest
