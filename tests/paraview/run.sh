#!/usr/bin/env bash
# run.sh PYTHON HALOEX CASE DIR FORMATS MPIEXEC FLAGS...: LB output opened in
# ParaView itself. For 3-D and 2-D lattices of a different size in every
# dimension, one and two files, and each FORMAT (binary, hdf5): run the
# cylinder case, let pvpython (probe.py) read the XDMF file with both of
# ParaView's XDMF readers, and check (check.py) the bounds, every site's
# values against haloex-lab's numpy reader, the cylinder along Z, the flow
# along X and ParaView's probe at one site. Then one screenshot through
# haloex-lab. Skips (77) only where ParaView is not installed.
set -eu
(($# >= 6)) || { echo "usage: run.sh PYTHON HALOEX CASE DIR 'FORMATS' MPIEXEC [FLAGS...]" >&2; exit 2; }
python=$1 haloex=$2 case=$3 dir=$4 formats=$5 mpiexec=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v pvpython >/dev/null; then
  echo "SKIP: ParaView's pvpython is not installed (Debian: paraview python3-paraview; scripts/install-deps.sh installs them)"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
export OMP_NUM_THREADS=1
# name  ranks  io_grid  --set overrides (3-D: the example; 2-D: D2Q9, 64x32, a disk)  cx cy r  probe site
three=(run.steps=20)
two=(lattice.velocity_set=D2Q9 "lattice.size=[64,32]" "lattice.periodic=[true,false]" "physics.force=[2e-6,0]"
     "geometry.obstacle=[{shape='cylinder',axis='z',center=[16.0,15.5,0.0],radius=5.0}]" run.steps=20)
for fmt in $formats; do
  for shape in 3d-1 3d-2 2d-1 2d-2; do
    out=$fmt-$shape
    ranks=${shape#*-}
    if [[ $shape == 3d-* ]]; then sets=("${three[@]}") geo=(24 23.5 6) site=(60 10 4); else
      sets=("${two[@]}") geo=(16 15.5 5) site=(40 10 0); fi
    $mpiexec -n "$ranks" "$@" "$haloex" lb "$case" --set "${sets[@]}" output.every=20 output.format=$fmt \
      output.dir=$out "output.io_grid=[$ranks,1,1]" "lattice.procs=[$ranks,1,1]" checkpoint.every=0 > $out.log
    for reader in xdmf2 xdmf3; do
      pvpython "$here/probe.py" $reader $out/fields-000020.xmf $out-$reader.npz "${site[@]}" > $out-$reader.log 2>&1 ||
        { cat $out-$reader.log; exit 1; }
      echo -n "$reader: "
      "$python" "$here/check.py" $out-$reader.npz $out 20 "${geo[@]}" "${site[@]}"
    done
  done
done
# One screenshot, as a person would take it, and a look that it is a picture.
"$python" -m haloex_lab screenshot ${formats%% *}-3d-2/fields-000020.xmf -o shot.png
"$python" -c "
import matplotlib.image as m, numpy as np
a = m.imread('shot.png')
assert a.shape[0] >= 400 and a.shape[1] >= 800, a.shape
assert len(np.unique(a.reshape(-1, a.shape[2]), axis=0)) > 50, 'a nearly uniform image'"
echo PASS
