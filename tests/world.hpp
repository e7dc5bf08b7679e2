#pragma once
// The tests' view of MPI_COMM_WORLD.
#include <mpi.h>

namespace haloex::test {

inline int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

}  // namespace haloex::test
