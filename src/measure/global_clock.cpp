#include "haloex/measure/global_clock.hpp"

#include <algorithm>
#include <cmath>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"

namespace haloex {

double timer_delay(const LocalClock& clock, int reads) {
  reads = std::max(reads, 2);
  const double first = clock.now();
  double last = first;
  for (int i = 1; i < reads; ++i) last = clock.now();
  return (last - first) / (reads - 1);
}

SkewEstimate estimate_skew(const std::vector<double>& t0, const std::vector<double>& t1,
                           const std::vector<double>& tr, double timer_delay_s) {
  const size_t n = t0.size();
  if (n == 0 || t1.size() != n || tr.size() != n)
    throw Error("estimate_skew: need equally many t0, t1, tr (>= 1)");
  SkewEstimate e;
  e.exchanges = static_cast<int>(n);
  e.timer_delay_s = timer_delay_s;
  std::vector<double> sigma(n);
  size_t best = 0;
  for (size_t i = 0; i < n; ++i) {
    const double lambda = t1[i] - t0[i];
    sigma[i] = tr[i] - t0[i] - 0.5 * (lambda + timer_delay_s);
    if (lambda < t1[best] - t0[best]) best = i;
  }
  e.skew_s = sigma[best];
  e.at_s = t0[best];
  e.min_round_trip_s = t1[best] - t0[best];
  double mean = 0;
  for (double s : sigma) mean += s;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double s : sigma) var += (s - mean) * (s - mean);
  e.mean_s = mean;
  e.stddev_s = std::sqrt(var / static_cast<double>(n));
  return e;
}

void measure_drift(std::vector<SkewEstimate>& earlier, const std::vector<SkewEstimate>& later) {
  if (earlier.size() != later.size()) throw Error("measure_drift: the two estimates cover different ranks");
  for (size_t r = 1; r < earlier.size(); ++r) {
    SkewEstimate& a = earlier[r];
    const SkewEstimate& b = later[r];
    const double dt = b.at_s - a.at_s;
    if (!(dt > 0)) throw Error("measure_drift: the later estimate is not later");
    a.drift_s_per_s = (b.skew_s - a.skew_s) / dt;
    a.drift_bound = (a.bound_s() + b.bound_s()) / dt;
  }
}

GlobalClock GlobalClock::measure(MPI_Comm comm, int exchanges, LocalClock clock) {
  if (exchanges < 1) throw InputError("clock skew: the number of exchanges must be at least 1");
  const int rank = comm_rank(comm), size = comm_size(comm);
  const double delta = timer_delay(clock);
  constexpr int tag = 7301;
  GlobalClock gc(clock, 0.0);
  std::vector<double> skews(static_cast<size_t>(size), 0.0);
  if (rank == 0) {
    SkewEstimate self;
    self.exchanges = exchanges;
    self.timer_delay_s = delta;
    gc.estimates_.push_back(self);
    std::vector<double> t0(exchanges), t1(exchanges), tr(exchanges);
    for (int r = 1; r < size; ++r) {
      double remote[2] = {0, 0};  // reading, remote timer delay
      for (int i = 0; i < exchanges; ++i) {
        t0[i] = clock.now();
        mpi_check(MPI_Send(nullptr, 0, MPI_BYTE, r, tag, comm), "MPI_Send");
        mpi_check(MPI_Recv(remote, 2, MPI_DOUBLE, r, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        t1[i] = clock.now();
        tr[i] = remote[0];
      }
      SkewEstimate e = estimate_skew(t0, t1, tr, remote[1]);
      e.rank = r;
      skews[static_cast<size_t>(r)] = e.skew_s;
      gc.estimates_.push_back(e);
    }
  } else {
    // The first ping of this rank's turn may be long in coming.
    MPI_Request req = MPI_REQUEST_NULL;
    mpi_check(MPI_Irecv(nullptr, 0, MPI_BYTE, 0, tag, comm, &req), "MPI_Irecv");
    wait_politely(req);
    for (int i = 0; i < exchanges; ++i) {
      if (i > 0) mpi_check(MPI_Recv(nullptr, 0, MPI_BYTE, 0, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
      const double reply[2] = {clock.now(), delta};
      mpi_check(MPI_Send(reply, 2, MPI_DOUBLE, 0, tag, comm), "MPI_Send");
    }
  }
  // Ranks done with their turn wait for the rest without taking a core.
  MPI_Request barrier = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibarrier(comm, &barrier), "MPI_Ibarrier");
  wait_politely(barrier);
  mpi_check(MPI_Scatter(skews.data(), 1, MPI_DOUBLE, &gc.skew_s_, 1, MPI_DOUBLE, 0, comm), "MPI_Scatter");
  return gc;
}

}  // namespace haloex
