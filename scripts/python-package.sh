#!/usr/bin/env bash
# python-package.sh [BUILD] [PYTHON]: install the haloex Python package
# (bindings/python) into the project's virtual environment against the C++
# library built in BUILD: stage BUILD's install in BUILD/prefix, then
# `pip install .` with it on CMAKE_PREFIX_PATH, so that only the extension
# is compiled. (`pip install .` alone builds the library again from source.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
py=${2:-$root/.venv/bin/python}
[[ -x $py ]] || { echo "no Python at $py: run scripts/python-env.sh (make does)" >&2; exit 2; }
cmake --install "$build" --prefix "$build/prefix" >/dev/null
CMAKE_PREFIX_PATH=$build/prefix "$py" -m pip install --quiet --disable-pip-version-check \
  --no-build-isolation --no-deps "$root"
"$py" -c 'import haloex; print("haloex Python package:", haloex.__file__)'
