#pragma once
// The tests' view of MPI_COMM_WORLD.
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <string>

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

/// A fresh directory "haloex-test-<suite>-<pid>-<name>" under the temporary
/// folder, made by rank 0 and named to every rank; mpi_main removes it after
/// the last test.
inline std::string scratch_dir(const std::string& suite, const std::string& name) {
  namespace fs = std::filesystem;
  std::string dir;
  if (world_rank() == 0) {
    dir =
        (fs::temp_directory_path() / ("haloex-test-" + suite + "-" + std::to_string(::getpid()) + "-" + name))
            .string();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  int n = static_cast<int>(dir.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dir.resize(static_cast<size_t>(n));
  MPI_Bcast(dir.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return dir;
}

}  // namespace haloex::test
