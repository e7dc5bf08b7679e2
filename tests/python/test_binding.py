"""The haloex Python package against the global-index encoding, run under
mpirun at any rank count: every interior (site, component) of a NumPy array
holds a value made from its global coordinates, the halo -1; after an
exchange every halo value must be that of the global site it mirrors
(wrapped where periodic), or still -1 across a wall and where its component
does not travel. Every strategy; 3-D AoS float64 with a wall, 3-D SoA
float32 split begin/end, 2-D AoS D2Q9 reduced; and a client's own split,
halo widths below the allocated halo, z planes of a 2-D lattice, integer,
byte and complex dtypes (client_run). Then bad arguments, each a
Python exception with a clear message. Exit 0 only when all pass."""

import sys

import haloex
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
failures: list[str] = []
# D2Q9's directions (the third entry 0): rest, then the 8 moving ones.
D2Q9 = [(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (1, 1, 0), (-1, -1, 0), (1, -1, 0),
        (-1, 1, 0)]  # fmt: skip


def expected(dec, n, periodic, halo, ncomp, dirs=None):
    """(values, halo written) of every (site, component), AoS order."""
    ndim = len(n)
    axes, walls, outs = [], [], []
    for d in range(ndim):
        local = np.arange(-halo, dec.local[d] + halo)
        g = dec.offset[d] + local
        wall = (g < 0) | (g >= n[d])
        if periodic[d]:
            g, wall = g % n[d], np.zeros_like(wall)
        axes.append(g)
        walls.append(wall)
        outs.append(np.where(local < 0, -1, np.where(local >= dec.local[d], 1, 0)))
    grids = np.meshgrid(*axes, indexing="ij")
    flat = grids[0]
    for d in range(1, ndim):
        flat = flat * n[d] + grids[d]
    c = np.arange(ncomp)
    values = (flat[..., None] * ncomp + c + 1).astype(np.float64)
    wall = np.logical_or.reduce(np.meshgrid(*walls, indexing="ij"))
    o = np.stack(np.meshgrid(*outs, indexing="ij"), axis=-1)  # the halo region's direction
    inside = np.all(o == 0, axis=-1)
    travels = np.ones(values.shape, bool)
    if dirs is not None:
        dv = np.array(dirs)[:, :ndim]  # (ncomp, ndim)
        travels = np.all((o[..., None, :] == 0) | (dv == -o[..., None, :]), axis=-1)
    written = inside[..., None] | (~wall[..., None] & travels)
    return values, written, inside


def run(strategy, n, periodic, dtype, layout, halo, ncomp, dirs=None, split=False):
    dec = haloex.Decomposition(comm, n, periodic=periodic)
    try:
        plan = haloex.Plan(dec, [haloex.Field(dtype, ncomp=ncomp, halo=halo, layout=layout, dirs=dirs)])
        x = haloex.Exchange(plan, strategy)
    except haloex.HaloexError as e:  # e.g. red-black on an odd rank count
        assert e.status == 3, e
        return 0
    values, written, inside = expected(dec, n, periodic, halo, ncomp, dirs)
    aos = np.where(inside[..., None], values, -1.0)
    f = plan.empty()
    f[...] = aos if layout == "aos" else np.moveaxis(aos, -1, 0)
    if split:
        x.begin(f)
        x.end()
    else:
        x.run([f])
    got = f if layout == "aos" else np.moveaxis(f, 0, -1)
    want = np.where(written, values, -1.0).astype(dtype)
    bad = np.argwhere(got != want)
    if len(bad):
        at = tuple(int(i) for i in bad[0])
        failures.append(
            f"{strategy} {len(n)}-D {layout} {dtype}: {len(bad)} wrong; at {at}: {got[at]} not {want[at]}"
        )
    return 1


def expect(exc, says, call):
    try:
        call()
    except exc as e:
        if says not in str(e):
            failures.append(f"{exc.__name__} says '{e}', not '{says}'")
        return
    except Exception as e:
        failures.append(f"expected {exc.__name__} ('{says}'), got {type(e).__name__}: {e}")
        return
    failures.append(f"expected {exc.__name__} ('{says}'), nothing raised")


def bad_arguments():
    dec = haloex.Decomposition(comm, (16, 16, 16))
    plan = haloex.Plan(dec, [haloex.Field("float64", ncomp=2)])
    x = haloex.Exchange(plan, "direct")
    f = plan.empty()
    expect(TypeError, "dtype float32, the plan's is float64", lambda: x.run(f.astype(np.float32)))
    expect(ValueError, "shape", lambda: x.run(f[1:]))
    expect(ValueError, "not C-contiguous", lambda: x.run(np.asfortranarray(f)))
    ro = f.copy()
    ro.flags.writeable = False
    expect(ValueError, "read-only", lambda: x.run(ro))
    expect(ValueError, "1 field(s), got 2", lambda: x.run([f, f]))
    expect(TypeError, "NumPy array", lambda: x.run([f.tolist()]))
    expect(haloex.HaloexError, "halo", lambda: haloex.Plan(dec, [haloex.Field("float64", halo=20)]))
    expect(haloex.HaloexError, "unknown halo strategy 'fast'", lambda: haloex.Exchange(plan, "fast"))
    expect(ValueError, "dtype must be", lambda: haloex.Field("int16"))
    expect(TypeError, "mpi4py communicator", lambda: haloex.Decomposition(object(), (8, 8)))
    expect(haloex.HaloexError, "no exchange was begun", x.end)
    x.begin(f)
    expect(haloex.HaloexError, "has not ended", lambda: x.begin(f))
    x.end()
    if x.strategy != "direct":
        failures.append(f"strategy is {x.strategy}")


def client_extents(n, p):
    """A client's split: the remainder on the highest coordinates."""
    return [n // p + (1 if c >= p - n % p else 0) for c in range(p)]


def client_run(strategy, n, periodic, dtype, layout, halo, width, ncomp, owned, zhalo=0):
    """A client's split (per-dimension extents, or this rank's box with the
    ranks x fastest), a halo deeper than the width exchanged, the planes of a
    2-D lattice in z, any dtype: halo elements beyond the width, on the z
    planes and across walls keep their sentinels."""
    ndim = len(n)
    procs = list(MPI.Compute_dims(comm.size, ndim))
    ext = [client_extents(n[d], procs[d]) for d in range(ndim)]
    if owned:
        c, r = [], comm.rank
        for d in range(ndim):  # x fastest
            c.append(r % procs[d])
            r //= procs[d]
        first = [sum(ext[d][: c[d]]) for d in range(ndim)]
        extent = [ext[d][c[d]] for d in range(ndim)]
        dec = haloex.Decomposition(comm, n, periodic=periodic, first=first, extent=extent)
    else:
        dec = haloex.Decomposition(comm, n, procs=procs, periodic=periodic, extents=ext)
    if dec.rank != comm.rank:
        failures.append(f"rank {dec.rank} in the decomposition, {comm.rank} in the communicator")
    try:
        field = haloex.Field(dtype, ncomp=ncomp, halo=halo, layout=layout, width=width, zhalo=zhalo)
        plan = haloex.Plan(dec, [field])
        x = haloex.Exchange(plan, strategy)
    except haloex.HaloexError as e:  # red-black on an odd periodic ring
        assert e.status == 3, e
        return 0
    values, written, inside = expected(dec, n, periodic, halo, ncomp)
    w = width or halo
    for d in range(ndim):  # deeper than the width exchanged: never written
        local = np.arange(-halo, dec.local[d] + halo)
        reach = (local >= -w) & (local < dec.local[d] + w)
        written &= reach.reshape([-1 if e == d else 1 for e in range(ndim)] + [1])
    sentinel = -1.0 - np.arange(values.size).reshape(values.shape)
    if dtype in ("uint8", "int8"):  # no unique values: 1..97 and sentinels 100..121
        values, sentinel = values % 97 + 1, 100 + (-sentinel) % 22
    start = np.where(inside[..., None], values, sentinel)
    want = np.where(written, values, sentinel)
    if zhalo:  # the lattice's plane between planes that keep their sentinels
        planes = range(2 * zhalo + 1)
        start = np.stack([sentinel - 1000 * (p + 1) if p != zhalo else start for p in planes], axis=2)
        want = np.stack([sentinel - 1000 * (p + 1) if p != zhalo else want for p in planes], axis=2)
        if dtype in ("uint8", "int8"):
            start, want = start % 128, want % 128
    f = plan.empty()
    f[...] = (start if layout == "aos" else np.moveaxis(start, -1, 0)).astype(dtype)
    x.run(f)
    got = f if layout == "aos" else np.moveaxis(f, 0, -1)
    bad = np.argwhere(got != want.astype(dtype))
    if len(bad):
        at = tuple(int(i) for i in bad[0])
        failures.append(
            f"client {strategy} {n} {dtype} {layout} halo {halo} width {width} zhalo {zhalo}: "
            f"{len(bad)} wrong; at {at}: {got[at]} not {want.astype(dtype)[at]}"
        )
    return 1


def grown(n):
    """A lattice's sizes for this many ranks: above 8 (27 and 64, where all
    26 neighbours are distinct) a few sites a rank, still split unevenly."""
    return n if comm.size <= 8 else tuple(4 * x + 1 for x in n)


ran = 0
for s in haloex.strategies():
    ran += client_run(s, grown((11, 9, 7)), (True, False, True), "int32", "aos", 2, 1, 2, owned=True)
    ran += client_run(s, grown((11, 9, 7)), (True, True, True), "complex128", "soa", 1, 0, 3, owned=False)
    ran += client_run(s, grown((13, 10)), (True, True), "uint8", "aos", 2, 0, 2, owned=True, zhalo=1)
    ran += client_run(s, grown((13, 10)), (False, True), "int64", "soa", 2, 1, 1, owned=False)
for s in haloex.strategies():
    ran += run(s, grown((12, 10, 8)), (True, False, True), "float64", "aos", 1, 3)
    ran += run(s, grown((12, 10, 8)), (False, True, True), "float32", "soa", 2, 2, split=True)
    ran += run(s, grown((12, 10)), (True, True), "float64", "aos", 1, 9, dirs=D2Q9)
bad_arguments()
for f in failures[:20]:
    print(f"FAIL (rank {comm.rank}): {f}", file=sys.stderr)
total = comm.allreduce(len(failures))
if comm.rank == 0:
    print(f"Python binding: {ran} exchanges checked, {total} failures")
sys.exit(1 if total else 0)
