#!/usr/bin/env bash
# peers/peers.sh BUILD WORK OUT [run.py options]: what `make peers` does
# (PEERS_ROUNDS rounds, default 7, for the exchange and the ping-pong).
# Builds the peers in WORK (a temporary folder outside the tree): GHEX 0.9.0
# from its source distribution on PyPI with the GHEX driver, and the PETSc
# DMDA driver against Debian's petsc-dev; then runs haloex and the peers side
# by side (peers/run.py), ping-pong beside OSU's osu_latency when OSU_SRC
# names an OSU source folder (OSU is in neither Debian nor PyPI), Ludwig beside
# `haloex lb` when LUDWIG_SRC names a Ludwig source folder (github.com/ludwig-cf/
# ludwig; likewise in neither: built in WORK/ludwig by peers/build-ludwig.sh,
# run by peers/ludwig.py), RRZE-HPC's lbm-benchmark-kernels beside `haloex
# bench lb` when RRZE_SRC names its source folder (github.com/RRZE-HPC/
# lbm-benchmark-kernels; built in WORK/rrze by peers/build-rrze.sh, run by
# peers/rrze.py; RRZE_KERNELS=a,b,... runs those of its kernels, all by
# default), and writes OUT/peers.jsonl, OUT/pingpong.jsonl,
# OUT/peers-ludwig.jsonl (with LUDWIG_SRC), OUT/peers-rrze.jsonl (with
# RRZE_SRC) and OUT/report.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: peers.sh BUILD WORK OUT [run.py options]}" && pwd)
work=${2:?usage: peers.sh BUILD WORK OUT}
out=${3:?usage: peers.sh BUILD WORK OUT}
shift 3
rounds=${PEERS_ROUNDS:-7}
mkdir -p "$work/bin" "$out"
work=$(cd "$work" && pwd)
haloex=$build/haloex
[[ -x $haloex ]] || { echo "peers: no haloex program at $haloex (make build first)" >&2; exit 2; }
[[ -z ${OSU_SRC:-} || -x $OSU_SRC/configure ]] ||
  { echo "peers: OSU_SRC=$OSU_SRC is not an OSU source folder (no configure script)" >&2; exit 2; }
[[ -z ${LUDWIG_SRC:-} || (-f $LUDWIG_SRC/src/ludwig.c && -f $LUDWIG_SRC/version.h) ]] ||
  { echo "peers: LUDWIG_SRC=$LUDWIG_SRC is not a Ludwig source folder (no src/ludwig.c or version.h;" \
    "a checkout of github.com/ludwig-cf/ludwig)" >&2; exit 2; }
[[ -z ${RRZE_SRC:-} || (-f $RRZE_SRC/src/Main.c && -f $RRZE_SRC/src/KernelFunctions.h) ]] ||
  { echo "peers: RRZE_SRC=$RRZE_SRC is not an RRZE lbm-benchmark-kernels source folder (no src/Main.c or" \
    "src/KernelFunctions.h; a checkout of github.com/RRZE-HPC/lbm-benchmark-kernels)" >&2; exit 2; }
py=$root/.venv/bin/python
[[ -x $py ]] || { echo "peers: no virtual environment at $root/.venv (make deps makes it)" >&2; exit 2; }

# (an earlier run's records, never mixed in)
rm -f "$out/peers.jsonl" "$out/peers-python.jsonl" "$out/pingpong.jsonl" "$out/peers-ludwig.jsonl" \
  "$out/peers-rrze.jsonl"

echo "[peers] GHEX (PyPI source distribution) and its driver, in $work"
bash "$root/peers/build-ghex.sh" "$work"

echo "[peers] the PETSc driver (Debian's petsc-dev)"
pkg-config --exists PETSc || { echo "peers: PETSc not found by pkg-config (install petsc-dev)" >&2; exit 2; }
read -ra petsc_flags <<<"$(pkg-config --cflags --libs PETSc)"
mpicc -O2 -std=c11 -Wall "$root/peers/petsc/petsc_halo.c" "${petsc_flags[@]}" -o "$work/bin/petsc_halo"

petsc_version=$(pkg-config --modversion PETSc)
petsc_pkg=$(dpkg-query -W -f='${Version}' "libpetsc-real${petsc_version%.*}-dev" 2>/dev/null || echo "?")
versions=$("$py" -c 'import json, sys; print(json.dumps(dict(zip(("ghex", "petsc", "mpi"), sys.argv[1:]))))' \
  "0.9.0 (PyPI sdist ghex-0.9.0.tar.gz, sha256 $(sha256sum "$work/ghex-0.9.0.tar.gz" | cut -c1-16)...)" \
  "$petsc_version (Debian $petsc_pkg)" "$(mpirun --version 2>&1 | head -1)")

# A step that fails (a wrong halo, no timed run, a package that does not
# install) fails make peers with the highest status, after the records and
# the report are written.
status=0
failed() {
  local rc=$?
  ((rc > status)) && status=$rc
  echo "[peers] $1 failed (status $rc)" >&2
}
echo "[peers] halo exchange side by side: haloex, GHEX, PETSc (progress below)"
"$py" "$root/peers/run.py" --haloex "$haloex" --ghex "$work/bin/ghex_halo" --petsc "$work/bin/petsc_halo" \
  -o "$out" -r "$rounds" --versions "$versions" "$@" || failed "the side by side"

# The Python level: a virtual environment of Debian's Python (whose petsc4py
# and mpi4py are Debian's) with haloex's package (linking build/'s library)
# and GHEX's from PyPI (built from its source distribution).
echo "[peers] the Python packages: haloex (HALOEX_DIR=$build), ghex 0.9.0 (PyPI), petsc4py (Debian)"
pyenv=$work/pyenv
python_ok=1
[[ -x $pyenv/bin/python ]] || /usr/bin/python3 -m venv --system-site-packages "$pyenv" || python_ok=0
((python_ok)) && { HALOEX_DIR=$build "$pyenv/bin/pip" install --quiet "$root" >"$work/logs/pip-haloex.log" 2>&1 ||
  { failed "installing haloex's package (log: $work/logs/pip-haloex.log)"; python_ok=0; }; }
ghex_version() { "$pyenv/bin/python" -c 'from importlib.metadata import version; print(version("ghex"))' 2>/dev/null; }
((python_ok)) && [[ $(ghex_version) != 0.9.0 ]] && {
  "$pyenv/bin/pip" install --quiet ghex==0.9.0 >"$work/logs/pip-ghex.log" 2>&1 ||
    { failed "installing ghex 0.9.0 from PyPI (log: $work/logs/pip-ghex.log)"; python_ok=0; }
}
if ((python_ok)); then
  echo "[peers] the same job from Python: haloex, GHEX, petsc4py"
  "$py" "$root/peers/run.py" --haloex "$haloex" --python "$pyenv/bin/python" \
    --tools py-haloex,py-ghex,py-petsc4py --values 1,19soa --faces "" --file peers-python.jsonl \
    --metadata-from "$out/peers.jsonl" -o "$out" -r "$rounds" --versions "$versions" || failed "the Python level"
fi

osu=()
if [[ -n ${OSU_SRC:-} ]]; then
  # OSU is in neither Debian nor PyPI: built from the source folder given.
  echo "[peers] osu_latency from $OSU_SRC, in $work/osu"
  mkdir -p "$work/osu"
  if (cd "$work/osu" && "$(cd "$OSU_SRC" && pwd)/configure" CC=mpicc CXX=mpicxx >configure.log 2>&1 &&
    make -C c/mpi/pt2pt/standard osu_latency ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true \
      >make.log 2>&1); then
    osu=(--osu "$work/osu/c/mpi/pt2pt/standard/osu_latency" --osu-version "$(basename "$OSU_SRC")")
  else
    failed "building OSU (logs in $work/osu)"
  fi
fi
echo "[peers] ping-pong, both buffer modes${OSU_SRC:+, beside osu_latency}"
"$py" "$root/peers/pingpong.py" --haloex "$haloex" -o "$out" -r "$rounds" "${osu[@]}" || failed "the ping-pong"

if [[ -n ${LUDWIG_SRC:-} ]]; then
  # Ludwig is in neither Debian nor PyPI: built from the source folder given, never inside it.
  echo "[peers] Ludwig from $LUDWIG_SRC, in $work/ludwig"
  if bash "$root/peers/build-ludwig.sh" "$LUDWIG_SRC" "$work"; then
    echo "[peers] Ludwig beside haloex lb: 128^3 at 1 and 2 ranks, then 8^3 to 128^3 at 2 ranks"
    "$py" "$root/peers/ludwig.py" --haloex "$haloex" --ludwig "$work/bin/Ludwig.exe" \
      --ludwig-version "$(cat "$work/ludwig-version.txt")" -o "$out" || failed "Ludwig beside haloex lb"
  else
    failed "building Ludwig (logs in $work/logs)"
  fi
fi

if [[ -n ${RRZE_SRC:-} ]]; then
  # RRZE's kernels are in neither Debian nor PyPI: built from the source folder given, never inside it.
  echo "[peers] RRZE lbm-benchmark-kernels from $RRZE_SRC, in $work/rrze"
  if bash "$root/peers/build-rrze.sh" "$RRZE_SRC" "$work"; then
    echo "[peers] RRZE's kernels beside haloex bench lb: 1 and 2 threads, box and channel, 128^3 and 64^3"
    "$py" "$root/peers/rrze.py" --haloex "$haloex" --rrze "$work/bin/lbmbenchk" \
      --rrze-version "$(cat "$work/rrze-version.txt")" ${RRZE_KERNELS:+--kernels "$RRZE_KERNELS"} -o "$out" \
      -r "$rounds" || failed "RRZE beside haloex bench lb"
  else
    failed "building RRZE's kernels (logs in $work/logs)"
  fi
fi

"$root/.venv/bin/haloex-lab" report "$out" || failed "the report"
if ((status != 0)); then
  echo "[peers] a run failed (see the messages above and the report's failed runs): status $status" >&2
  exit "$status"
fi
echo "[peers] done: $out/report.md"
