"""The 2-D fourth-order diffusion stencil (the 2022 stencil paper's code, and
`haloex stencil`) in Python: NumPy kernels, mpi4py, and the halo exchanged
in place by haloex.

    mpirun -n 4 .venv/bin/python examples/stencil2d.py --nx 128 --ny 128 --nz 64 -i 64 -o out.npy

An nx x ny x nz field (z not decomposed, a halo of 2 in x and y, periodic)
starts at 1 in the central block and 0 elsewhere; each iteration exchanges
the halo and applies out = in - alpha lap(lap(in)), alpha = 1/32, with the
additions in the order of haloex's C++ kernel, so that the result is the
same to the last bit as `haloex stencil --serial` (the test compares them).
"""

import argparse
import sys
import time

import haloex
import numpy as np
from mpi4py import MPI

HALO = 2
ALPHA = 1.0 / 32.0


def laplacian(u):
    """-4 u + u(x-1) + u(x+1) + u(y-1) + u(y+1) on all but the outer ring,
    summed left to right as the C++ kernel does."""
    return -4.0 * u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nx", type=int, default=128, help="sites along x (default: %(default)s)")
    p.add_argument("--ny", type=int, default=128, help="sites along y (default: %(default)s)")
    p.add_argument("--nz", type=int, default=64, help="values per column, z (default: %(default)s)")
    p.add_argument("-i", "--iters", type=int, default=64, help="iterations (default: %(default)s)")
    p.add_argument("-s", "--strategy", default="auto", help="halo strategy (default: %(default)s)")
    p.add_argument("-o", "--out", help="write the final field, [x, y, z] without halo, to this .npy file")
    args = p.parse_args(argv)
    comm = MPI.COMM_WORLD
    if min(args.nx, args.ny, args.nz) < 1 or args.iters < 0:
        if comm.rank == 0:
            print("stencil2d: --nx, --ny and --nz must be >= 1 and --iters >= 0", file=sys.stderr)
        return 2
    try:
        dec = haloex.Decomposition(comm, (args.nx, args.ny), periodic=True)
        plan = haloex.Plan(dec, [haloex.Field("float64", ncomp=args.nz, halo=HALO, layout="aos")])
        halo = haloex.Exchange(plan, args.strategy)
    except (haloex.HaloexError, ValueError) as e:
        if comm.rank == 0:
            print(f"stencil2d: {e}", file=sys.stderr)
        return 2

    def central(offset, n, count):  # [n/4, 3n/4) of the global index, integer division
        g = offset + np.arange(count)
        return (g >= n // 4) & (g < 3 * n // 4)

    (lx, ly), (ox, oy) = dec.local, dec.offset
    u, out = plan.empty(), plan.empty()
    block = central(ox, args.nx, lx)[:, None, None] & central(oy, args.ny, ly)[None, :, None]
    u[HALO:-HALO, HALO:-HALO] = block & central(0, args.nz, args.nz)[None, None, :]

    t0, t_halo = time.perf_counter(), 0.0
    for _ in range(args.iters):
        t = time.perf_counter()
        halo.run(u)
        t_halo += time.perf_counter() - t
        lap2 = laplacian(laplacian(u))
        out[HALO:-HALO, HALO:-HALO] = u[HALO:-HALO, HALO:-HALO] - ALPHA * lap2
        u, out = out, u
    total = time.perf_counter() - t0

    parts = comm.gather((dec.offset, np.ascontiguousarray(u[HALO:-HALO, HALO:-HALO])), root=0)
    if comm.rank == 0:
        print(f"stencil2d: {comm.size} ranks, {args.nx}x{args.ny}x{args.nz}, {args.iters} iterations, "
              f"{halo.strategy}: {total:.3f} s, halo {t_halo:.3f} s")  # fmt: skip
        if args.out:
            field = np.empty((args.nx, args.ny, args.nz))
            for (x0, y0), a in parts:
                field[x0 : x0 + a.shape[0], y0 : y0 + a.shape[1]] = a
            np.save(args.out, field)
    return 0


if __name__ == "__main__":
    sys.exit(main())
