"""What the Python binding costs per exchange: the same exchange (a field of
L^3 sites per rank, 19 float64 each, AoS, halo 1) called from Python
(Exchange.run, arrays checked every call) and looped in C++ through the C API
(Exchange.time_native), interleaved in the same process; medians per call.

    mpirun -n 2 .venv/bin/python tests/python/bench_overhead.py [-s direct] [-L 32] [-i 2000] [-r 7]

(tests/capi/bench_overhead.cpp measures the C API against the C++ call.)"""

import argparse
import statistics
import time

import haloex
from mpi4py import MPI


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-s", "--strategy", default="direct")
    p.add_argument("-L", "--size", type=int, default=32, help="sites per rank along each edge")
    p.add_argument("-i", "--iterations", type=int, default=2000, help="calls per sample")
    p.add_argument("-r", "--repeats", type=int, default=7, help="samples of each, interleaved")
    a = p.parse_args()
    comm = MPI.COMM_WORLD
    n = a.size
    dec = haloex.Decomposition(comm, (n * comm.size, n, n), procs=(comm.size, 1, 1))
    plan = haloex.Plan(dec, [haloex.Field("float64", ncomp=19, halo=1, layout="aos")])
    x = haloex.Exchange(plan, a.strategy)
    f = plan.empty()
    x.time_native(f, a.iterations // 10 + 1)  # warm-up

    def python_loop() -> float:
        comm.Barrier()
        t0 = time.perf_counter()
        for _ in range(a.iterations):
            x.run(f)
        return comm.allreduce((time.perf_counter() - t0) / a.iterations, op=MPI.MAX)

    def native_loop() -> float:
        comm.Barrier()
        return comm.allreduce(x.time_native(f, a.iterations), op=MPI.MAX)

    py, native = [], []
    for _ in range(a.repeats):
        py.append(python_loop())
        native.append(native_loop())
    if comm.rank == 0:
        mp, mn = statistics.median(py) * 1e6, statistics.median(native) * 1e6
        print(f"{x.strategy}, {n}^3 x 19 float64 per rank, {comm.size} ranks, median of {a.repeats} x "
              f"{a.iterations} calls, interleaved")  # fmt: skip
        print(f"  C++ loop over the C API  {mn:9.2f} us")
        print(f"  Python Exchange.run      {mp:9.2f} us")
        print(f"  difference {mp - mn:+.2f} us ({100 * (mp - mn) / mn:+.1f}%)")


if __name__ == "__main__":
    main()
