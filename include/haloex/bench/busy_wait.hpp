#pragma once
// Busy-waiting for a set time: the synthetic work of the overlap benchmarks
// and the delayed start of the collective ones. It spins on MPI_Wtime, so it
// keeps the core busy (as real work would) and does not yield to the MPI
// progress engine (as real work would not).
#include <mpi.h>

namespace haloex {

/// Spin until `seconds` have passed; returns the time actually spent.
inline double busy_wait(double seconds) {
  const double t0 = MPI_Wtime();
  double t = t0;
  while (t - t0 < seconds) t = MPI_Wtime();
  return t - t0;
}

}  // namespace haloex
