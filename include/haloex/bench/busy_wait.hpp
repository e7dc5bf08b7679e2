#pragma once
// Busy-waiting for a set time: the synthetic work of the overlap benchmarks
// and the delayed start of the collective ones. It spins on MPI_Wtime, so it
// keeps the core busy (as real work would) and does not yield to the MPI
// progress engine (as real work would not).
#include <mpi.h>

namespace haloex {

/// Spin until `seconds` have passed; returns the time actually spent.
inline double busy_wait(double seconds) {
#ifdef HALOEX_SMPI
  // Simulated: the work is charged to the simulated clock at once (SMPI's
  // smpi_execute); spinning on MPI_Wtime would cost the host time and, with
  // no computation simulated, move the simulated clock only by SMPI's tiny
  // per-call charge.
  const double s0 = MPI_Wtime();
  if (seconds > 0) smpi_execute(seconds);
  return MPI_Wtime() - s0;
#endif
  const double t0 = MPI_Wtime();
  double t = t0;
  while (t - t0 < seconds) t = MPI_Wtime();
  return t - t0;
}

}  // namespace haloex
