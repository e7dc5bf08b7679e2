// GoogleTest main for MPI tests: every rank runs every test; only rank 0
// prints. A test that fails on any rank makes mpirun exit non-zero.
#include <gtest/gtest.h>
#include <mpi.h>

#include "haloex/core/mpi.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  haloex::set_mpi_environment();
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
