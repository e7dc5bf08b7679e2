// See link_probe.hpp: a short ping-pong between ranks 0 and 1.
#include "haloex/bench/link_probe.hpp"

#include "haloex/core/mpi.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex {

LinkProbe::LinkProbe(size_t bytes, int trips) : buffer_(bytes, 1), trips_(trips) {}

double LinkProbe::measure(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) return 0;
  const int n = static_cast<int>(buffer_.size()), tag = 7301;
  std::vector<double> trips;
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  if (rank <= 1) {
    const int other = 1 - rank;
    for (int t = 0; t < trips_; ++t) {
      const double t0 = MPI_Wtime();
      if (rank == 0) {
        mpi_check(MPI_Send(buffer_.data(), n, MPI_CHAR, other, tag, comm), "MPI_Send");
        mpi_check(MPI_Recv(buffer_.data(), n, MPI_CHAR, other, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
      } else {
        mpi_check(MPI_Recv(buffer_.data(), n, MPI_CHAR, other, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        mpi_check(MPI_Send(buffer_.data(), n, MPI_CHAR, other, tag, comm), "MPI_Send");
      }
      trips.push_back(MPI_Wtime() - t0);
    }
  }
  double m = rank == 0 ? median_of(trips) : 0;
  mpi_check(MPI_Bcast(&m, 1, MPI_DOUBLE, 0, comm), "MPI_Bcast");
  return m;
}

}  // namespace haloex
