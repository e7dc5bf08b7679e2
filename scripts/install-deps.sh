#!/usr/bin/env bash
# Install what haloex needs to build and test. As root on Debian/Ubuntu it
# runs apt-get for whatever is missing; otherwise it says what to install.
set -euo pipefail

# Debian package -> why haloex needs it
declare -A why=(
  [cmake]="build system (3.20 or newer)"
  [ninja-build]="fast parallel builds"
  [g++]="C++20 compiler with OpenMP"
  [make]="the top-level make demo / make test"
  [openmpi-bin]="mpirun to launch ranks"
  [libopenmpi-dev]="MPI headers and libraries (Open MPI)"
  [libcli11-dev]="command-line parsing for the haloex program"
  [nlohmann-json3-dev]="JSON result records"
  [libtomlplusplus-dev]="TOML case files of the LB solver (toml++)"
  [libgtest-dev]="C++ unit tests"
  [libxsimd-dev]="explicit SIMD in the LB kernels (xsimd; without it the compiler vectorises them)"
  [libhdf5-openmpi-dev]="parallel HDF5 output that ParaView opens (optional for the library, used by the tests)"
  [procps]="pkill, with which the crash-safety test kills running jobs"
  [gfortran]="the Fortran module (use haloex) and its tests; without it CMake leaves the module out"
  [python3]="haloex-lab (campaigns, reports) and checks of the JSON records in the tests"
  [python3-venv]="the virtual environment haloex-lab's PyPI packages go into (.venv)"
  [paraview]="ParaView, which the tests open the output in (and haloex-lab screenshot draws with)"
  [python3-paraview]="pvpython, ParaView's scripting, for those tests"
  [xvfb]="a virtual display (Xvfb) for ParaView's screenshots on a machine without one"
  [slurmctld]="Slurm's controller: the campaign tests start a one-node cluster"
  [slurmd]="Slurm's node daemon, for that cluster"
  [slurm-client]="srun, sbatch, squeue, scontrol: haloex-lab's srun and sbatch launchers"
  [munge]="Slurm's authentication, started by the test with its own key"
  [iproute2]="ip and tc: the emulated cluster's network namespaces, links and rate limits (haloex-lab cluster)"
  [util-linux]="nsenter and unshare: entering the emulated cluster's nodes"
  [libsimgrid-dev]="SimGrid's SMPI (smpicxx, smpirun): the simulated machine of make smpi and haloex-lab simulate"
  # the developer tools: make lint, test-asan, test-ubsan, fuzz, coverage, docs
  [clang]="libFuzzer targets (make fuzz)"
  [libclang-rt-14-dev]="clang's fuzzer and sanitizer runtimes"
  [libomp-dev]="OpenMP for clang (the fuzz build configures the project with clang)"
  [clang-format]="the house style (make lint)"
  [clang-tidy]="static checks (make lint)"
  [gcovr]="line coverage of src/ (make coverage)"
  [doxygen]="the API reference from the public headers (make docs)"
  # the peers of make peers (built in a temporary folder, never in the tree)
  [petsc-dev]="PETSc (DMDA), a peer of make peers"
  [libboost-dev]="Boost, which GHEX (a peer of make peers) builds with"
  [pkg-config]="finding PETSc for the peer driver"
  [curl]="fetching GHEX's source distribution from PyPI"
  [libnuma-dev]="NUMA headers, which GHEX's bundled hwmalloc needs"
  [python3-petsc4py]="petsc4py, the Python level of make peers"
  [python3-mpi4py]="mpi4py for Debian's Python, the Python level of make peers"
  # MPI=mpich (scripts/mpi.sh): Debian's MPICH beside Open MPI
  [mpich]="MPICH's mpiexec (make ... MPI=mpich)"
  [libmpich-dev]="MPICH's headers, libraries and compiler wrappers (make ... MPI=mpich)"
  [libhdf5-mpich-dev]="parallel HDF5 built for MPICH (make ... MPI=mpich)"
)
core=(cmake ninja-build g++ gfortran make openmpi-bin libopenmpi-dev libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libgtest-dev libxsimd-dev libhdf5-openmpi-dev procps python3 python3-venv
  paraview python3-paraview xvfb slurmctld slurmd slurm-client munge iproute2 util-linux libsimgrid-dev)
tools=(clang libclang-rt-14-dev libomp-dev clang-format clang-tidy gcovr doxygen)
peers=(petsc-dev libboost-dev libnuma-dev pkg-config curl python3-petsc4py python3-mpi4py)
mpich=(mpich libmpich-dev libhdf5-mpich-dev)
# "install-deps.sh" installs what make demo and make test need; "install-deps.sh
# tools" adds the developer tools on top, "install-deps.sh peers" the peers,
# "install-deps.sh mpich" Debian's MPICH.
packages=("${core[@]}")
[[ ${1:-} == tools ]] && packages+=("${tools[@]}")
[[ ${1:-} == peers ]] && packages+=("${peers[@]}")
[[ ${1:-} == mpich ]] && packages+=("${mpich[@]}")

if ! command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for c in cmake ninja c++ mpicxx mpirun python3; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  if ((${#missing[@]})); then
    echo "haloex needs: a C++20 compiler with OpenMP, CMake >= 3.20, Ninja, an MPI library (Open MPI or MPICH)," >&2
    echo "CLI11, nlohmann-json, toml++ (tomlplusplus), GoogleTest and python3. Not found on PATH: ${missing[*]}" >&2
    exit 1
  fi
  exec bash "$(dirname "$0")/python-env.sh"
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && exec bash "$(dirname "$0")/python-env.sh"

if [[ $(id -u) -ne 0 ]]; then
  echo "haloex needs these Debian packages, which are not installed:" >&2
  for p in "${missing[@]}"; do printf '  %-20s %s\n' "$p" "${why[$p]}" >&2; done
  echo "Install them with:  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
exec bash "$(dirname "$0")/python-env.sh"
