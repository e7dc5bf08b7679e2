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
#include "haloex/core/threads.hpp"
#include "haloex/lb/config.hpp"

namespace haloex {

/// The lattice a configuration runs on: all fluid and periodic in every
/// dimension, or a channel (periodic along x, bounce-back walls on the
/// other faces: the peer's `-geometry channel`).
enum class LbGeometry { box, channel };
std::string to_string(LbGeometry g);
/// "box" or "channel"; throws InputError naming `what`.
LbGeometry parse_lb_geometry(const std::string& name, const std::string& what);

/// What to measure. Sizes are global cubic edges L (an L^3 lattice, or L^2
/// for D2Q9, split over the ranks). Every list is an axis; the
/// configurations are their product, run interleaved.
struct LbBenchOptions {
  std::vector<long> sizes{64};
  std::string velocity_set = "D3Q19";
  std::vector<lb::Kernel> kernels{lb::Kernel::aa, lb::Kernel::pull};
  std::vector<Layout> layouts{Layout::soa};
  std::vector<std::string> strategies{"auto"};
  std::vector<lb::Overlap> overlaps{lb::Overlap::none};
  std::vector<lb::Collision> collisions{lb::Collision::bgk};
  std::vector<lb::Schedule> schedules{lb::Schedule::worksharing};
  std::vector<LbGeometry> geometries{LbGeometry::box};
  std::vector<int> threads;  // empty: the count chosen at start-up (choose_threads)
  std::string monitor = "off";
  int steps = 20;   // steps per sample
  int repeats = 5;  // samples per configuration, configurations interleaved
  int warmup = 2;   // untimed steps before the first sample
  bool progress = true;
};

/// One configuration (or the bandwidth sweep) at one size and thread count.
struct LbBenchResult {
  long size = 0;
  int threads = 1;
  std::string
      config;       // "stream", "stream-q<q>" or kernel/layout/strategy/overlap/collision/schedule/geometry
  lb::LbConfig lb;  // the configuration's settings (not for the sweeps)
  std::string pinned;           // where the threads ran (pin_team)
  std::vector<double> samples;  // MLUPS per sample (stream: bytes/s)
  Summary summary;
  double roofline_mlups = 0;            // median 1-array sweep bandwidth / bytes per update
  double fraction = 0;                  // median MLUPS / roofline
  double fraction_q = 0;                // median MLUPS / q-array sweep's roofline
  std::vector<double> halo_s_per_step;  // per sample, slowest rank
  double halo_median_s = 0;
  double bytes_per_update = 0;  // 2 * q * 8
  double ratio_to_first = 0;    // median MLUPS / first configuration's
};

/// Run the benchmark (collective), pinning each thread count's team as
/// `threads` plans. Rank 0 gets the results.
std::vector<LbBenchResult> run_lb_bench(MPI_Comm comm, const LbBenchOptions& opt, const ThreadChoice& threads,
                                        std::ostream& log);

/// Aligned table of the results.
std::string format_lb_table(const std::vector<LbBenchResult>& results);

/// JSON records, each with the run's metadata.
std::vector<nlohmann::json> lb_bench_records(MPI_Comm comm, const LbBenchOptions& opt,
                                             const std::vector<LbBenchResult>& results);

}  // namespace haloex
