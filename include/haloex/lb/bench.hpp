#pragma once
// `haloex bench lb`: LB kernels and halo strategies against the machine's
// memory bandwidth, measured in the same run by in-place read-modify-write
// sweeps over one array (the roofline) and over q arrays (the access order of
// an SoA kernel).
#include <mpi.h>

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "haloex/core/mpi_hints.hpp"
#include "haloex/core/threads.hpp"
#include "haloex/lb/config.hpp"
#include "haloex/measure/stats.hpp"
#include "haloex/measure/sweep.hpp"

namespace haloex {

/// The lattice a configuration runs on: all fluid and periodic in every
/// dimension, or a channel (periodic along x, bounce-back walls on the
/// other faces: the peer's `-geometry channel`).
enum class LbGeometry { box, channel };
/// The name of a geometry ("box" or "channel").
std::string to_string(LbGeometry g);
/// "box" or "channel"; throws InputError naming `what`.
LbGeometry parse_lb_geometry(const std::string& name, const std::string& what);

/// A global lattice from "L" (L^3, or L^2 when ndim is 2) or "NXxNY[xNZ]";
/// throws InputError naming `what` otherwise.
std::array<long, 3> parse_lb_size(const std::string& text, int ndim, const std::string& what);
/// "L" for a cubic (square) lattice, "NXxNYxNZ" (or "NXxNY") otherwise.
std::string lb_size_text(const std::array<long, 3>& size, int ndim);

/// What to measure. Sizes are global lattices (nx, ny, nz; nz = 1 for
/// D2Q9), split over the ranks. Every list is an axis; the configurations
/// are their product, run interleaved.
struct LbBenchOptions {
  std::vector<std::array<long, 3>> sizes{{64, 64, 64}};               ///< global lattices
  std::string velocity_set = "D3Q19";                                 ///< D2Q9, D3Q15, D3Q19 or D3Q27
  std::vector<lb::Kernel> kernels{lb::Kernel::aa, lb::Kernel::pull};  ///< streaming kernels
  std::vector<Layout> layouts{Layout::soa};                           ///< population layouts
  std::vector<std::string> strategies{"auto"};                        ///< halo strategies by name
  std::vector<lb::Overlap> overlaps{lb::Overlap::none};               ///< overlap modes
  std::vector<long> mpi_progress_rows{
      0};  ///< with interior overlap: rows between MPI progress calls (0: off)
  std::vector<lb::Collision> collisions{lb::Collision::bgk};       ///< collision operators
  std::vector<lb::Schedule> schedules{lb::Schedule::worksharing};  ///< thread schedules
  std::vector<lb::Sweep> sweeps{lb::LbConfig{}.sweep};             ///< how sweeps call the kernels
  std::vector<LbGeometry> geometries{LbGeometry::box};             ///< lattices: box or channel
  std::vector<int> threads;     ///< empty: the count chosen at start-up (choose_threads)
  std::string monitor = "off";  ///< monitoring mode: "off", "blocking" or "nonblocking"
  /// Steps between field outputs (density, velocity, mask) during the timed
  /// steps, an axis (0: none): the step rate with and without output.
  std::vector<long> output_every{0};
  std::string output_format = "binary";        ///< binary, ascii or hdf5
  std::string output_dir = "haloex-bench-lb";  ///< written to; each sample's files are deleted after it
  IoHints output_hints;                        ///< MPI-IO hints of the outputs (empty: none)
  int steps = 20;                              ///< steps per sample
  int repeats = 5;                             ///< samples per configuration, configurations interleaved
  int warmup = 2;                              ///< untimed steps before the first sample
  double precision = 0;                        ///< --ci: rounds until decided (Repetition::precision)
  double budget_s = 60;                        ///< --budget: seconds per size and thread count
  bool progress = true;                        ///< progress lines on `log` (rank 0)
};

/// One configuration (or the bandwidth sweep) at one size and thread count.
struct LbBenchResult {
  std::array<long, 3> size{};  ///< the global lattice
  int threads = 1;             ///< OpenMP threads per rank
  std::string
      config;       ///< "stream", "stream-q<q>" or kernel/layout/strategy/overlap/collision/schedule/geometry
  lb::LbConfig lb;  ///< the configuration's settings (not for the sweeps)
  std::string auto_choice;  ///< with strategy `auto`: what it chose and how sure it was (auto_choice_text)
  std::string pinned;       ///< where the threads ran (pin_team)
  std::vector<double> samples;          ///< MLUPS per sample (stream: bytes/s)
  RoundsOutcome rounds;                 ///< how many rounds ran and why they stopped
  Summary summary;                      ///< statistics of samples
  double roofline_mlups = 0;            ///< median 1-array sweep bandwidth / bytes per update
  double fraction = 0;                  ///< median MLUPS / roofline
  double fraction_q = 0;                ///< median MLUPS / q-array sweep's roofline
  std::vector<double> halo_s_per_step;  ///< halo seconds per step, per sample, slowest rank
  double halo_median_s = 0;             ///< median of halo_s_per_step
  /// The share of the step outside the collide-stream kernel calls (halo,
  /// copies, sweep bookkeeping, monitor), on the rank where it is largest:
  /// from extra samples after the rounds, with the kernel calls clocked.
  std::vector<double> outside_samples;
  double outside_median = 0;    ///< median of outside_samples
  double bytes_per_update = 0;  ///< bytes one site update moves: 2 * q * 8
  /// The kernel's own roofline: its MLUPS with the time outside the kernel
  /// calls taken away, against the q-array sweep's roofline (1: the kernel
  /// runs at the memory bandwidth; well below: its instructions limit it).
  double kernel_fraction_q = 0;
  /// User-space instructions per site update over a whole step (all ranks
  /// and threads), from an extra sample with hardware counters; NaN where
  /// the machine has no readable counter (LbBenchResult's note says why).
  double instructions_per_update = 0;
  double ratio_to_first = 0;     ///< median MLUPS / first configuration's
  long output_writes = 0;        ///< field outputs over all samples
  double output_bytes = 0;       ///< data bytes of one output (all quantities)
  std::vector<double> output_s;  ///< seconds from write_begin to write_end, per output
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
