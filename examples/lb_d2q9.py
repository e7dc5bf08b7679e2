"""A D2Q9 lattice Boltzmann toy in NumPy over the haloex Python package: a
decaying shear wave u_x(y) = U sin(2 pi y / ny) on a periodic nx x ny
lattice, BGK collision, pull streaming, and the halo of the populations
exchanged by `auto` with a reduced plan (each population travels only to
the halo regions it streams out of: the velocity set's directions are the
message map).

    mpirun -n 4 .venv/bin/python examples/lb_d2q9.py --nx 64 --ny 64 --steps 500 -o u.npy

It prints the wave's amplitude against the Navier-Stokes decay
exp(-nu k^2 t), nu = (tau - 1/2) / 3, and exits 1 when they differ by more
than --tolerance; -o writes u_x, [x, y], for comparing rank counts."""

import argparse
import sys

import haloex
import numpy as np
from mpi4py import MPI

C = np.array([(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)])
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)


def equilibrium(rho, ux, uy):
    cu = C[:, 0] * ux[..., None] + C[:, 1] * uy[..., None]
    usq = (ux * ux + uy * uy)[..., None]
    return W * rho[..., None] * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nx", type=int, default=64)
    p.add_argument("--ny", type=int, default=64)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--tau", type=float, default=0.8)
    p.add_argument("--amplitude", type=float, default=0.01)
    p.add_argument("--tolerance", type=float, default=0.01, help="relative amplitude error allowed")
    p.add_argument("-s", "--strategy", default="auto")
    p.add_argument("-o", "--out", help="write u_x, [x, y], to this .npy file")
    a = p.parse_args(argv)
    comm = MPI.COMM_WORLD
    if min(a.nx, a.ny) < 3 or a.steps < 0 or not a.tau > 0.5:
        if comm.rank == 0:
            print("lb_d2q9: --nx and --ny must be >= 3, --steps >= 0 and --tau > 0.5", file=sys.stderr)
        return 2
    dec = haloex.Decomposition(comm, (a.nx, a.ny), periodic=True)
    dirs = [(int(cx), int(cy), 0) for cx, cy in C]
    plan = haloex.Plan(dec, [haloex.Field("float64", ncomp=9, halo=1, layout="aos", dirs=dirs)])
    halo = haloex.Exchange(plan, a.strategy)
    (lx, ly), (ox, oy) = dec.local, dec.offset
    k = 2 * np.pi / a.ny
    y = oy + np.arange(ly)
    ux0 = np.broadcast_to(a.amplitude * np.sin(k * y), (lx, ly))
    f = plan.empty()
    f[1:-1, 1:-1] = equilibrium(np.ones((lx, ly)), ux0, np.zeros((lx, ly)))
    post = plan.empty()
    for _ in range(a.steps):
        inner = f[1:-1, 1:-1]
        rho = inner.sum(axis=-1)
        ux = (inner * C[:, 0]).sum(axis=-1) / rho
        uy = (inner * C[:, 1]).sum(axis=-1) / rho
        post[1:-1, 1:-1] = inner - (inner - equilibrium(rho, ux, uy)) / a.tau
        halo.run(post)
        for i, (cx, cy) in enumerate(C):  # pull: f_i(x) = post_i(x - c_i)
            f[1:-1, 1:-1, i] = post[1 - cx : lx + 1 - cx, 1 - cy : ly + 1 - cy, i]
    inner = f[1:-1, 1:-1]
    ux = (inner * C[:, 0]).sum(axis=-1) / inner.sum(axis=-1)
    # The amplitude: the projection of u_x on sin(k y), over the whole lattice.
    proj = comm.allreduce(float((ux * np.sin(k * y)).sum())) * 2 / (a.nx * a.ny)
    nu = (a.tau - 0.5) / 3
    want = a.amplitude * np.exp(-nu * k * k * a.steps)
    error = abs(proj - want) / want
    parts = comm.gather(((ox, oy), ux), root=0)
    if comm.rank == 0:
        print(f"lb_d2q9: {comm.size} ranks, {a.nx}x{a.ny}, {a.steps} steps, {halo.strategy}: "
              f"amplitude {proj:.6e}, Navier-Stokes {want:.6e}, relative error {error:.2e}")  # fmt: skip
        if a.out:
            u = np.empty((a.nx, a.ny))
            for (x0, y0), b in parts:
                u[x0 : x0 + b.shape[0], y0 : y0 + b.shape[1]] = b
            np.save(a.out, u)
    return 0 if error <= a.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
