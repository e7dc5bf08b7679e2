#pragma once
// `haloex bench clock` and `haloex bench coll`: the CRESTA paper's
// collective benchmarks (sections 2 and 3). Every rank's start and end of
// every run is taken on the global clock, so the time of one collective is
// the latest end minus the earliest start; one chosen rank may enter late by
// a busy-waited delay, which gives the delay benefit b.
#include <mpi.h>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "haloex/core/mpi.hpp"
#include "haloex/measure/global_clock.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex {

/// Communicator sizes to run on: `requested`, or (when empty) the powers of
/// two up to `world` and `world` itself. Throws InputError for a size
/// outside 1..world.
std::vector<int> comm_sizes(int world, const std::vector<int>& requested);

/// The first p ranks of comm as a communicator of their own (MPI_Comm_split;
/// a null communicator on the other ranks). Collective over comm.
Comm first_ranks(MPI_Comm comm, int p);

/// The delay benefit b = (t0 + delta - t_delta) / t_delta (paper eq. 3).
double delay_benefit(double t0_s, double delta_s, double t_delta_s);

/// What `bench coll` measures.
struct CollBenchOptions {
  std::vector<std::string> collectives{"all"};  ///< by name; "all", "blocking" and "nonblocking" are groups
  std::vector<size_t> sizes{8};                 ///< bytes per rank (alltoall: per destination)
  std::vector<int> procs;                       ///< communicator sizes; empty: powers of two and the world
  std::vector<double> delays_s{0.0};            ///< delays in seconds; 0 is always measured too: it gives t0
  int delayed_rank = 0;                         ///< the rank that enters late
  int warmup = 100;                             ///< untimed runs per configuration
  int runs = 20;                                ///< timed runs per configuration and delay
  std::string sync = "barrier";                 ///< barrier, or window: spin until a common global time
  double window_s = 500e-6;                     ///< window: start this many seconds after rank 0 sets it
  int clock_exchanges = 100;                    ///< ping-pongs per rank for the skew
  bool progress = true;                         ///< progress lines on `log` (rank 0)
};

/// One collective at one communicator size, message size and delay.
struct CollBenchResult {
  /// The collective's name and the MPI call it times.
  /// @{
  std::string collective, mpi_name;
  /// @}
  bool nonblocking = false;                  ///< whether it is the non-blocking form
  int procs = 0;                             ///< communicator size
  size_t bytes = 0;                          ///< message bytes per rank (alltoall: per destination)
  double delay_s = 0;                        ///< the delay asked for, in seconds
  std::vector<double> time_s;                ///< seconds per run: latest end - earliest start
  std::vector<std::vector<double>> start_s;  ///< [run][rank] on the global clock
  std::vector<std::vector<double>> end_s;    ///< [run][rank] on the global clock
  std::vector<std::vector<double>> local_s;  ///< [run][rank] end - start on the rank's clock
  std::vector<double> delay_actual_s;        ///< per run: the delayed rank's busy wait
  std::vector<int> late_ranks;               ///< per run: ranks that reached the window late
  Summary summary;                           ///< statistics of time_s
  double t0_median_s = 0;                    ///< the same configuration's median at delay 0
  double benefit = 0;                        ///< b (0 at delay 0)
};

/// Everything one `bench coll` run produced (rank 0; empty elsewhere).
struct CollBenchReport {
  std::vector<SkewEstimate> clock;       ///< every rank's clock skew
  std::vector<CollBenchResult> results;  ///< one per collective, communicator size, message size and delay
};

/// Run the benchmark (collective over comm). Throws Error when a collective
/// returns a wrong result, InputError for bad options.
CollBenchReport run_coll_bench(MPI_Comm comm, const CollBenchOptions& opt, std::ostream& log);

/// Aligned table of the skew estimates (the paper's Table 1).
std::string format_clock_table(const std::vector<SkewEstimate>& clock);

/// Aligned table of the collective times and delay benefits.
std::string format_coll_table(const std::vector<CollBenchResult>& results);

/// JSON records: one "clock" record per rank's skew and one "coll" record
/// per result, each with the run's metadata and every raw sample.
/// @{
std::vector<nlohmann::json> clock_records(MPI_Comm comm, const std::vector<SkewEstimate>& clock);
std::vector<nlohmann::json> coll_records(MPI_Comm comm, const CollBenchOptions& opt,
                                         const CollBenchReport& report);
/// @}

}  // namespace haloex
