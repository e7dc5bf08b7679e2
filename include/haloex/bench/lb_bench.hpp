#pragma once
// `haloex bench lb`: LB kernels and halo strategies against the machine's
// memory bandwidth, measured in the same run by in-place read-modify-write
// sweeps over one array (the roofline) and over q arrays (the access order of
// an SoA kernel).
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "haloex/bench/stats.hpp"

namespace haloex {

/// What to measure. Sizes are global cubic edges L (an L^3 lattice, or L^2
/// for D2Q9, split over the ranks).
struct LbBenchOptions {
  std::vector<long> sizes{64};
  std::string velocity_set = "D3Q19";
  std::vector<std::string> kernels{"aa", "pull"};
  std::vector<std::string> layouts{"soa"};
  std::vector<std::string> strategies{"auto"};
  std::vector<std::string> overlaps{"none"};
  std::vector<std::string> collisions{"bgk"};  // bgk, trt
  std::vector<int> threads;  // empty: the count chosen at start-up (choose_threads)
  std::string monitor = "off";
  int steps = 20;    // steps per sample
  int repeats = 5;   // samples per configuration, configurations interleaved
  int warmup = 2;    // untimed steps before the first sample
  bool progress = true;
};

/// One configuration (or the bandwidth sweep) at one size and thread count.
struct LbBenchResult {
  long size = 0;
  int threads = 1;
  std::string config;               // "stream", "stream-q<q>" or kernel/layout/strategy/overlap/collision
  std::vector<double> samples;      // MLUPS per sample (stream: bytes/s)
  Summary summary;
  double roofline_mlups = 0;        // median 1-array sweep bandwidth / bytes per update
  double fraction = 0;              // median MLUPS / roofline
  double fraction_q = 0;            // median MLUPS / q-array sweep's roofline
  std::vector<double> halo_s_per_step;  // per sample, slowest rank
  double halo_median_s = 0;
  double bytes_per_update = 0;      // 2 * q * 8
  double ratio_to_first = 0;        // median MLUPS / first configuration's
};

/// Run the benchmark (collective). Rank 0 gets the results.
std::vector<LbBenchResult> run_lb_bench(MPI_Comm comm, const LbBenchOptions& opt, std::ostream& log);

/// Aligned table of the results.
std::string format_lb_table(const std::vector<LbBenchResult>& results);

/// JSON records, each with the run's metadata.
std::vector<nlohmann::json> lb_bench_records(MPI_Comm comm, const LbBenchOptions& opt,
                                             const std::vector<LbBenchResult>& results);

}  // namespace haloex
