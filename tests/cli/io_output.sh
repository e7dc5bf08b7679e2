#!/usr/bin/env bash
# io_output.sh PYTHON HALOEX CASE DIR FORMATS MPIEXEC FLAGS...: LB field output in
# every format and I/O grid, read back by haloex-lab (numpy memory map,
# ASCII, h5py) with its own checksum code; the initial shear wave checked
# against its analytic form; the formats identical to the bit; the XDMF
# files' data (HDF5 datasets, binary files) of the sizes they state; a PNG
# slice.
set -eu
(($# >= 6)) || { echo "usage: io_output.sh PYTHON HALOEX CASE DIR 'FORMATS' MPIEXEC [FLAGS...]" >&2; exit 2; }
python=$1 haloex=$2 case=$3 dir=$4 formats=$5 mpiexec=$6
shift 6
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
[[ $formats == *hdf5* ]] || echo "NOTE: built without HDF5 (HALOEX_HDF5=OFF or not found): HDF5 and XDMF not checked"
for fmt in $formats; do
  for grid in "[1,1,1]" "[2,1,1]"; do
    out=$fmt-${grid//[^0-9]/}
    $mpiexec -n 2 "$@" "$haloex" lb "$case" --set "lattice.size=[6,16]" run.steps=6 output.every=3 \
      output.format=$fmt "output.io_grid=$grid" output.dir=$out "lattice.procs=[2,1]" | tee $out.log
    grep -Eq "# wrote $out/velocity-000006.json: [0-9]+ bytes in ${grid:1:1} files?, .* MB/s" $out.log
  done
done
"$python" - "$formats" <<'PY'
import math, xml.etree.ElementTree as ET
from pathlib import Path
import h5py, numpy as np
from haloex_lab.fields import read_field, load_metadata

nx, ny, amp = 6, 16, 0.01
import sys
formats = sys.argv[1].split()
runs = [f"{f}-{g}" for f in formats for g in ("111", "211")]
# Step 0 is the initial state: rho = 1, u_x = A sin(2 pi y / ny), u_y = 0.
for run in runs:
    rho = read_field(f"{run}/density-000000.json")
    u = read_field(f"{run}/velocity-000000.json")
    mask = read_field(f"{run}/mask-000000.json")
    assert rho.shape == (nx, ny, 1, 1) and u.shape == (nx, ny, 1, 3) and mask.shape == (nx, ny, 1, 1), run
    assert np.abs(rho - 1.0).max() < 1e-14, run
    want = amp * np.sin(2 * np.pi * np.arange(ny) / ny)
    assert np.abs(u[..., 0, 0] - want[None, :]).max() < 1e-14, run
    assert np.abs(u[..., 1:]).max() < 1e-15 and not mask.any(), run
# Later steps: every format and I/O grid holds the same bits.
for step in ("000003", "000006"):
    ref = {q: np.asarray(read_field(f"binary-111/{q}-{step}.json")) for q in ("density", "velocity", "mask")}
    for run in runs[1:]:
        for q, r in ref.items():
            got = np.asarray(read_field(f"{run}/{q}-{step}.json"))
            assert got.dtype == r.dtype and np.array_equal(got.view(np.uint8), r.view(np.uint8)), (run, q, step)
# A single binary file is a memory map, not a copy.
assert isinstance(read_field("binary-111/velocity-000006.json"), np.memmap)
# XDMF as ParaView reads it (tests/paraview opens it in ParaView itself):
# every attribute's DataItem names an HDF5 dataset or a binary file of the
# stated dimensions, one value per cell of a mesh of the lattice's size
# (points z+1, y+1, x+1); ASCII outputs have no XDMF.
for run in [r for r in runs if not r.startswith("ascii")]:
    root = ET.parse(f"{run}/fields-000006.xmf").getroot()
    grids = [g for g in root.iter("Grid") if g.get("GridType") == "Uniform"]
    assert len(grids) == (1 if run.endswith("111") else 2), run
    cells = 0
    names = set()
    for g in grids:
        dims = [int(v) - 1 for v in g.find("Topology").get("Dimensions").split()]
        cells += math.prod(dims)
        for a in g.findall("Attribute"):
            names.add(a.get("Name"))
            item = a.find("DataItem")
            shape = [int(v) for v in item.get("Dimensions").split()]
            assert shape[:3] == dims, (run, shape, dims)
            if item.get("Format") == "HDF":
                file, dset = item.text.strip().split(":")
                with h5py.File(Path(run) / file, "r") as h:
                    assert list(h[dset].shape) == shape, (run, file)
            else:
                assert item.get("Format") == "Binary" and item.get("Endian") == "Little", run
                size = (Path(run) / item.text.strip()).stat().st_size
                assert size == math.prod(shape) * int(item.get("Precision")), (run, item.text)
    assert cells == nx * ny and names == {"density", "velocity", "mask"}, (run, cells, names)
assert not list(Path("ascii-111").glob("*.xmf"))
print("io_output: formats, I/O grids, analytic initial state and XDMF all check")
PY
"$python" -m haloex_lab show ${formats##* }-211/velocity-000006.json -o slice.png -c ux
"$python" -c "import matplotlib.image as m; a = m.imread('slice.png'); assert a.ndim == 3 and a.shape[0] > 100, a.shape"
# A truncated file is refused by the reader too.
cp -r binary-111 cut && truncate -s -1 cut/density-000006.bin
if "$python" -m haloex_lab show cut/density-000006.json -o cut.png 2> cut.err; then echo "FAIL: truncated file read"; exit 1; fi
grep -q "is truncated" cut.err
echo PASS
