// GoogleTest main for MPI tests: every rank runs every test; only rank 0
// prints. A test that fails on any rank makes mpirun exit non-zero.
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "haloex/core/mpi.hpp"

namespace {

// Removes the scratch directories rank 0 made (test::scratch_dir names them
// "haloex-test-<suite>-<pid>-<name>"), once every rank is past its last test.
void remove_scratch_dirs() {
  namespace fs = std::filesystem;
  const std::string mine = "-" + std::to_string(::getpid()) + "-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("haloex-test-", 0) == 0 && name.find(mine) != std::string::npos)
      fs::remove_all(e.path(), ec);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  haloex::set_mpi_environment();
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // A launcher that does not belong to the MPI built against starts every
  // rank as a singleton, and each passes alone: a script that knows how many
  // ranks it started says so here.
  if (const char* want = std::getenv("HALOEX_TEST_RANKS"); want != nullptr && std::atoi(want) != size) {
    std::fprintf(stderr, "mpi_main: HALOEX_TEST_RANKS=%s, but MPI_COMM_WORLD has %d ranks\n", want, size);
    MPI_Finalize();
    return 1;
  }
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int result = RUN_ALL_TESTS();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) remove_scratch_dirs();
  MPI_Finalize();
  return result;
}
