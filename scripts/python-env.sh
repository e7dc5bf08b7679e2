#!/usr/bin/env bash
# The Python side (haloex-lab) in a virtual environment at .venv: its
# dependencies and test tools (python/pyproject.toml) from PyPI, haloex-lab
# installed editable, and what the haloex package builds with. Re-run when
# python/pyproject.toml or pyproject.toml changes; otherwise it returns at once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/.venv
stamp=$venv/.haloex-lab-installed
if [[ -f $stamp && $stamp -nt $root/python/pyproject.toml && $stamp -nt $root/pyproject.toml ]]; then exit 0; fi
py=$(command -v python3 || true)
if [[ -z $py ]]; then
  echo "haloex-lab needs python3 (3.11 or newer) with the venv module" >&2
  exit 1
fi
if ! "$py" -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "haloex-lab needs Python 3.11 or newer with the venv module (Debian: apt-get install python3-venv)" >&2
  exit 1
fi
echo "Setting up the haloex-lab Python environment in $venv"
[[ -x $venv/bin/python ]] || "$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root/python[test]"
# What the haloex Python package (pyproject.toml, bindings/python) builds
# with and needs; scripts/python-package.sh installs it once the library is
# built.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "scikit-build-core>=0.8" "pybind11>=2.11" \
  "mpi4py>=3.1"
touch "$stamp"
