#!/usr/bin/env python3
"""peers/python_level.py: one halo exchange from Python, through haloex's
package, GHEX's (`ghex` on PyPI) or petsc4py, timed as the C++ drivers are
(`make peers` runs it under mpirun, from peers/run.py --python).

The job is the drivers' job: L^3 doubles per rank, 3-D, periodic, halo 1,
the full 26-neighbour halo, 1 value a site or C values SoA (C separate
arrays for GHEX, C vectors of one DMDA for petsc4py; haloex's SoA field).
GHEX's Python package takes no component dimension, so AoS is not offered.

The arrays are NumPy arrays, x slowest (PETSc's x, its fastest, is our z).
Every value of the block is checked against a global-index encoding after
one exchange and again after the timed ones (the halos NaN again after the
warm-up); a wrong value exits 3 with no timing printed. Rank 0 prints one
JSON line like the drivers'.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from common import where_run
from mpi4py import MPI

WRONG_HALO = 3


def expected(offset, L: int, n, C: int, c: int) -> np.ndarray:
    """The encoding of component c of every site of a block with halo 1
    whose first owned site is global `offset` (x slowest), C components."""
    g = [(np.arange(-1, L + 1) + offset[d]) % n[d] for d in range(3)]
    x, y, z = np.meshgrid(*g, indexing="ij")
    return ((x * n[1] + y) * n[2] + z).astype(np.float64) * C + c


class Haloex:
    def __init__(self, comm, L: int, C: int, dims):
        import haloex

        n = tuple(L * d for d in dims)
        self.dec = haloex.Decomposition(comm, n, periodic=(True, True, True))
        if tuple(self.dec.local) != (L, L, L):
            raise SystemExit(f"python_level: haloex split {n} as {self.dec.local}, not {L}^3 per rank")
        layout = "soa" if C > 1 else "aos"
        self.plan = haloex.Plan(self.dec, [haloex.Field("float64", ncomp=C, halo=1, layout=layout)])
        self.f = self.plan.empty()
        self.x = haloex.Exchange(self.plan, "auto")
        self.n, self.offset, self.C = n, tuple(self.dec.offset), C

    def blocks(self):
        """(component, view of the block with halo, x slowest)"""
        if self.C == 1:
            return [(0, self.f[..., 0])]
        return [(c, self.f[c]) for c in range(self.C)]

    def exchange(self):
        self.x.run(self.f)

    def version(self):
        return f"haloex package, auto ({self.x.strategy})"


class Ghex:
    def __init__(self, comm, L: int, C: int, dims):
        import ghex  # noqa: F401
        from ghex.context import make_context
        from ghex.structured.cartesian_sets import IndexSpace
        from ghex.structured.regular import (
            DomainDescriptor,
            HaloGenerator,
            make_communication_object,
            make_field_descriptor,
            make_pattern,
        )

        self.n = tuple(L * d for d in dims)
        cart = comm.Create_cart(dims=list(dims), periods=[True] * 3)
        self.ctx = make_context(cart, False)
        coord = tuple(cart.Get_coords(cart.Get_rank()))
        grid = IndexSpace.from_sizes(*self.n)
        owned = grid.decompose(list(dims))[coord].subset["definition"]
        self.offset = tuple(owned[(0, 0, 0)])
        sub = IndexSpace({"definition": owned, "halo": owned.extend(1, 1, 1).without(owned)})
        local = sub.translate(*(-o for o in sub.bounds[(0, 0, 0)]))
        # (GHEX's buffer infos refer to the pattern and the field descriptors without owning them: all
        # are kept here, with the domain and the communicator, for as long as the exchanges run.)
        self.cart, self.dom = cart, DomainDescriptor(self.ctx.rank(), owned)
        halos = HaloGenerator(grid.subset["definition"], (1, 1, 1), (True,) * 3)
        self.pattern = make_pattern(self.ctx, halos, [self.dom])
        self.arrays = [np.zeros(local.bounds.shape, dtype=np.float64) for _ in range(C)]
        start = local.subset["definition"][(0, 0, 0)]
        self.descs = [make_field_descriptor(self.dom, a, start, local.bounds.shape) for a in self.arrays]
        self.fields = [self.pattern(d) for d in self.descs]
        self.co = make_communication_object(self.ctx)
        self.C = C

    def blocks(self):
        return list(enumerate(self.arrays))

    def exchange(self):
        self.co.exchange(self.fields).wait()

    def version(self):
        from importlib.metadata import version

        return f"ghex {version('ghex')}"


class Petsc:
    def __init__(self, comm, L: int, C: int, dims):
        from petsc4py import PETSc

        self.PETSc = PETSc
        self.n = tuple(L * d for d in dims)
        periodic = (PETSc.DM.BoundaryType.PERIODIC,) * 3
        self.da = PETSc.DMDA().create(dim=3, dof=1, sizes=self.n[::-1], proc_sizes=tuple(dims)[::-1],
                                      boundary_type=periodic, stencil_type=PETSc.DMDA.StencilType.BOX,
                                      stencil_width=1, comm=PETSc.COMM_WORLD)  # fmt: skip
        (xs, _), (ys, _), (zs, _) = self.da.getRanges()
        self.offset = (zs, ys, xs)  # (x slowest)
        self.g = [self.da.createGlobalVec() for _ in range(C)]
        self.loc = [self.da.createLocalVec() for _ in range(C)]
        self.L, self.C = L, C

    def blocks(self):
        shape = (self.L + 2,) * 3  # local vector: PETSc's z slowest, i.e. our x
        return [(c, v.getArray(readonly=True).reshape(shape)) for c, v in enumerate(self.loc)]

    def fill(self):
        for c, (g, loc) in enumerate(zip(self.g, self.loc, strict=True)):
            g.setArray(expected(self.offset, self.L, self.n, self.C, c)[1:-1, 1:-1, 1:-1].ravel())
            loc.set(np.nan)

    def exchange(self):
        for g, loc in zip(self.g, self.loc, strict=True):
            self.da.globalToLocal(g, loc)

    def version(self):
        return "petsc4py " + ".".join(map(str, self.PETSc.Sys.getVersion()))


def fill(lib, C: int):
    """Interior: the encoding; halos (and PETSc's local vectors): NaN."""
    if isinstance(lib, Petsc):
        lib.fill()
        return
    for c, b in lib.blocks():
        b[...] = np.nan
        b[1:-1, 1:-1, 1:-1] = expected(lib.offset, b.shape[0] - 2, lib.n, C, c)[1:-1, 1:-1, 1:-1]


def verified(lib, comm, C: int) -> bool:
    bad = ""
    for c, b in lib.blocks():
        want = expected(lib.offset, b.shape[0] - 2, lib.n, C, c)
        wrong = np.argwhere(b != want)
        if len(wrong) and not bad:
            w = tuple(wrong[0])
            site = tuple(int(v) - 1 for v in w)  # (local, halo at -1)
            bad = f"rank {comm.rank}: site {site} component {c} holds {b[w]}, expected {want[w]}"
    first = comm.allreduce(comm.rank if bad else comm.size, op=MPI.MIN)
    if bad and first == comm.rank:
        print(f"python_level: halo check FAILED: {bad}", file=sys.stderr)
    return first == comm.size


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True, choices=("haloex", "ghex", "petsc4py"))
    p.add_argument("--L", type=int, required=True)
    p.add_argument("--ncomp", type=int, default=1)
    p.add_argument("--layout", default="soa", choices=("aos", "soa"), help="soa (aos: one value a site only)")
    p.add_argument("--mode", help="(the library: --lib)")
    p.add_argument("--iterations", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--samples", type=int, default=3)
    a = p.parse_args()
    if min(a.L, a.ncomp, a.iterations, a.samples) < 1 or a.warmup < 0:
        p.error("--L, --ncomp, --iterations and --samples must be at least 1, --warmup at least 0")
    if a.layout == "aos" and a.ncomp > 1:
        p.error("--layout aos: GHEX's Python package has no component dimension; several values run SoA")
    comm = MPI.COMM_WORLD
    dims = MPI.Compute_dims(comm.size, 3)
    try:
        lib = {"haloex": Haloex, "ghex": Ghex, "petsc4py": Petsc}[a.lib](comm, a.L, a.ncomp, dims)
    except ImportError as e:
        print(f"python_level: {a.lib} is not installed in this Python ({e})", file=sys.stderr)
        return 4
    fill(lib, a.ncomp)
    lib.exchange()
    if not verified(lib, comm, a.ncomp):
        return WRONG_HALO
    for _ in range(a.warmup):
        lib.exchange()
    fill(lib, a.ncomp)
    samples = []
    for _ in range(a.samples):
        comm.Barrier()
        t0 = MPI.Wtime()
        for _ in range(a.iterations):
            lib.exchange()
        samples.append(comm.reduce(MPI.Wtime() - t0, op=MPI.MAX, root=0))
    if not verified(lib, comm, a.ncomp):
        return WRONG_HALO
    hosts = comm.gather(MPI.Get_processor_name(), root=0)
    if comm.rank == 0:
        rec = where_run(MPI.Get_library_version(), "{}.{}".format(*MPI.Get_version()), hosts)
        rec |= {"peer": "python", "peer_version": lib.version(), "mode": a.lib, "L": a.L, "ncomp": a.ncomp,
               "layout": a.layout, "ranks": comm.size, "procs": list(dims), "iterations": a.iterations,
               "warmup": a.warmup, "checked": True,
               "time_per_call_s": [t / a.iterations for t in samples]}  # fmt: skip
        print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
