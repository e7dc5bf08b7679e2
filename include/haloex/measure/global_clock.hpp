#pragma once
// A global clock for collective benchmarks: the clock of rank 0, with each
// rank's skew estimated by the CRESTA paper's modified ping-pong (section
// 2.1). Start and end times taken on different ranks become comparable, so
// "latest end minus earliest start" of a collective can be measured.
#include <mpi.h>

#include <vector>

namespace haloex {

/// This rank's clock: MPI_Wtime plus a fixed offset. The offset is zero in
/// the benchmarks; tests set it to inject a known skew.
struct LocalClock {
  double offset_s = 0;  ///< seconds added to MPI_Wtime
  /// The time now, in seconds.
  double now() const { return MPI_Wtime() + offset_s; }
};

/// The cost of reading `clock` once (the paper's timer delay Delta), from
/// `reads` consecutive reads.
double timer_delay(const LocalClock& clock, int reads = 1000);

/// The skew of one rank against rank 0, from `exchanges` ping-pongs.
struct SkewEstimate {
  int rank = 0;                 ///< the rank whose clock is estimated
  double skew_s = 0;            ///< seconds: sigma of the exchange with the shortest round trip
  double mean_s = 0;            ///< mean sigma over all exchanges (the paper's Table 1)
  double stddev_s = 0;          ///< standard deviation of sigma over the exchanges
  double min_round_trip_s = 0;  ///< the shortest round trip, in seconds
  double timer_delay_s = 0;     ///< Delta of this rank's clock
  double at_s = 0;              ///< rank 0's time of the exchange the estimate comes from
  double drift_s_per_s = 0;     ///< d sigma / dt from two estimates (measure_drift), else 0
  double drift_bound = 0;       ///< the drift's error bound
  int exchanges = 0;            ///< ping-pongs taken
  /// The estimate's error bound: the remote reading lies inside the shortest
  /// round trip, so sigma is known to within half of it (plus the read cost).
  double bound_s() const { return 0.5 * (min_round_trip_s + timer_delay_s); }
};

/// Skew estimate of one rank from the raw exchanges: rank 0's send times t0,
/// its receive times t1 and the remote readings tr (all in seconds), with
/// sigma_i = tr_i - t0_i - (lambda_i + Delta) / 2 and lambda_i = t1_i - t0_i.
SkewEstimate estimate_skew(const std::vector<double>& t0, const std::vector<double>& t1,
                           const std::vector<double>& tr, double timer_delay_s);

/// Fill in the drift of each rank's clock from two estimates taken `later`
/// after `earlier` (as returned on rank 0): the change of skew over the
/// change of rank 0's time, with the sum of both bounds over that time as
/// its error bound.
void measure_drift(std::vector<SkewEstimate>& earlier, const std::vector<SkewEstimate>& later);

/// Rank 0's clock seen from every rank of a communicator.
class GlobalClock {
 public:
  /// Collective over comm: rank 0 ping-pongs with every other rank in turn,
  /// `exchanges` times each, and sends each rank its skew.
  static GlobalClock measure(MPI_Comm comm, int exchanges = 100, LocalClock clock = {});
  /// A clock with a known skew (no measurement), for tests and 1-rank runs.
  GlobalClock(LocalClock clock, double skew_s) : clock_(clock), skew_s_(skew_s) {}

  /// This rank's local time now.
  double local_now() const { return clock_.now(); }
  /// Rank 0's time corresponding to a local reading: t' = t + sigma.
  double to_global(double local_s) const { return local_s - skew_s_; }
  /// Rank 0's time now.
  double global_now() const { return to_global(clock_.now()); }
  /// This rank's skew sigma against rank 0, in seconds.
  double skew_s() const { return skew_s_; }
  /// Every rank's estimate (rank 0 only; empty elsewhere).
  const std::vector<SkewEstimate>& estimates() const { return estimates_; }

 private:
  LocalClock clock_;
  double skew_s_ = 0;
  std::vector<SkewEstimate> estimates_;
};

}  // namespace haloex
