"""Checks what ParaView saw (probe.py's .npz) against the lattice and
against haloex-lab's numpy reader.

    check.py OUT.npz DIR STEP CX CY R PX PY PZ

DIR holds the output of one LB run with a cylinder of radius R around
(CX, CY) along z, driven along x; (PX, PY, PZ) is the site that probe.py
probed. Independent expectations: the lattice size from the metadata, the
obstacle from its geometric definition, the flow direction from the body
force; and every point's values against the numpy reader at that site."""

import sys

import numpy as np

from haloex_lab.fields import load_metadata, read_field

npz, out, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
cx, cy, radius = (float(v) for v in sys.argv[4:7])
probe = [int(v) for v in sys.argv[7:10]]
seen = np.load(npz)
meta = load_metadata(f"{out}/velocity-{step:06d}.json")
nx, ny, nz = meta["size"]
what = f"{out} ({meta['format']}, {meta['ndim']}-D, {len(meta['files'])} file(s))"


def fail(msg):
    sys.exit(f"FAIL: {what}: {msg}")


# 1. Bounds: x along ParaView's X, y along Y, z along Z; one cell per site,
# centred on it (a 2-D lattice is one cell thick).
want = [-0.5, nx - 0.5, -0.5, ny - 0.5, -0.5, nz - 0.5]
if seen["bounds"].tolist() != want:
    fail(f"ParaView's bounds are {seen['bounds'].tolist()}, the lattice is {want}")

# 2. Every cell ParaView has is a site, once, with the values numpy reads there.
pts = seen["points"]
site = np.rint(pts).astype(int)
if pts.shape[0] != nx * ny * nz or not np.array_equal(site, pts):
    fail(f"{pts.shape[0]} cells, not the {nx * ny * nz} sites centred on integer coordinates")
if len(np.unique(site[:, 0] + nx * (site[:, 1] + ny * site[:, 2]))) != nx * ny * nz:
    fail("some sites appear twice")
fields = {q: np.asarray(read_field(f"{out}/{q}-{step:06d}.json")) for q in ("density", "velocity", "mask")}
for q, a in fields.items():
    at = a[site[:, 0], site[:, 1], site[:, 2]]
    pv = seen[f"array_{q}"].reshape(at.shape)
    if not np.array_equal(pv, at):
        bad = np.argwhere(pv != at)[0][0]
        fail(f"{q} of ParaView's cell at {pts[bad].tolist()} is {pv[bad]}, numpy reads {at[bad]} there")

# 3. The obstacle: a cylinder along ParaView's Z (the mask does not change
# along Z), where its definition puts it.
mask = np.zeros((nx, ny, nz), dtype=np.uint8)
mask[site[:, 0], site[:, 1], site[:, 2]] = seen["array_mask"]
if not (mask == mask[:, :, :1]).all():
    fail("the solid mask changes along ParaView's Z: the cylinder's axis is not Z")
x, y = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
disk = ((x - cx) ** 2 + (y - cy) ** 2 <= radius**2).astype(np.uint8)
if not np.array_equal(mask[:, :, 0], disk):
    fail(f"the solid sites are not the disk of radius {radius} around ({cx}, {cy}) in ParaView's X-Y plane")

# 4. The flow: the body force is along x, so the mean velocity points along X.
u = seen["array_velocity"].mean(axis=0)
if not (u[0] > 0 and abs(u[0]) > 10 * abs(u[1]) and abs(u[0]) > 10 * abs(u[2])):
    fail(f"the mean velocity {u.tolist()} does not point along ParaView's X")

# 5. ParaView's own probe at one site.
px, py, pz = probe
for q, a in fields.items():
    got = seen[f"probe_{q}"].reshape(-1)
    if not np.array_equal(got, np.atleast_1d(a[px, py, pz]).reshape(-1)):
        fail(f"ParaView's probe at {probe} gives {q} {got.tolist()}, numpy reads {a[px, py, pz].tolist()}")
print(f"paraview: {what}: bounds, {pts.shape[0]} sites, cylinder along Z, flow along X {u[0]:.2e}, probe: OK")
