"""haloex for Python: decompose a lattice over an mpi4py communicator and
exchange the halos of NumPy arrays in place with any haloex strategy.

    from mpi4py import MPI
    import haloex

    dec = haloex.Decomposition(MPI.COMM_WORLD, (256, 256, 256), periodic=(True, True, False))
    plan = haloex.Plan(dec, [haloex.Field("float64", ncomp=19, halo=1, layout="aos")])
    f = plan.empty()                   # shape (nx + 2, ny + 2, nz + 2, 19), halo included
    x = haloex.Exchange(plan, "auto")
    x.begin(f)                         # ... work on sites that need no halo ...
    x.end()

Arrays are C order, x slowest: AoS (nx + 2h, ny + 2h, nz + 2h, ncomp), SoA
(ncomp, nx + 2h, ...); local site (i, j, k) is f[i + h, j + h, k + h].
"""

from mpi4py import MPI  # noqa: F401  (MPI is initialised before the library is used)

from ._core import Decomposition, Exchange, Field, HaloexError, Plan, strategies

__all__ = ["Decomposition", "Exchange", "Field", "HaloexError", "Plan", "strategies"]
