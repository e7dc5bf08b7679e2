#pragma once
// `haloex bench stencil`: the 2-D diffusion application with every halo
// strategy (and the serial reference) interleaved, halo and work time
// measured apart, and the work read against the memory bandwidth measured in
// the same run.
#include <mpi.h>

#include <array>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "haloex/field/field.hpp"
#include "haloex/measure/stats.hpp"
#include "haloex/measure/sweep.hpp"

namespace haloex {

/// What `bench stencil` measures.
struct StencilBenchOptions {
  /// Global sites along x and y.
  /// @{
  long nx = 128, ny = 128;
  /// @}
  std::vector<long> nz{64};             ///< one case per nz (the message-size sweep)
  long iterations = 64;                 ///< iterations per sample (one application run)
  int repeats = 5;                      ///< samples per strategy, strategies interleaved
  int warmup = 1;                       ///< untimed runs per strategy before the first sample
  double precision = 0;                 ///< --ci: rounds until decided (Repetition::precision)
  double budget_s = 60;                 ///< --budget: seconds per nz for those rounds
  std::array<int, 2> procs{0, 0};       ///< process grid; 0: chosen by MPI_Dims_create
  ElementType type = ElementType::f64;  ///< element type
  /// Halo strategies and "serial" (rank 0 runs the whole domain with plain
  /// copies while the others wait). Empty: "serial" and every strategy that
  /// can run on this grid.
  std::vector<std::string> strategies;
  bool progress = true;  ///< progress lines on `log` (rank 0)
};

/// One strategy at one nz: per-sample times of a whole run (slowest rank).
struct StencilBenchResult {
  std::string strategy;             ///< the strategy asked for, or "serial"
  long nz = 0;                      ///< values per site
  std::array<int, 2> procs{1, 1};   ///< the process grid
  std::array<long, 2> local{1, 1};  ///< rank 0's block (the largest)
  double halo_bytes = 0;            ///< per rank and exchange, averaged over ranks
  /// Seconds per sample: the whole run, its halo exchanges and its kernel.
  /// @{
  std::vector<double> total_s, halo_s, work_s;
  /// @}
  /// Statistics of the samples above.
  /// @{
  Summary total, halo, work;
  /// @}
  /// Seconds per exchange, slowest rank, and their statistics: packing (local
  /// copies included), MPI (posting, transfer, waiting) and unpacking; empty for
  /// serial.
  /// @{
  std::vector<double> pack_s, mpi_s, unpack_s;
  Summary pack, mpi, unpack;
  /// @}
  std::string resolved_strategy;      ///< what `auto` chose, else the strategy itself
  std::string auto_choice;            ///< `auto`: what it chose and how sure it was (auto_choice_text)
  RoundsOutcome rounds;               ///< how many rounds ran at this nz and why they stopped
  double updates_per_s = 0;           ///< global values * iterations / median work time
  double roofline_updates_per_s = 0;  ///< median copy bandwidth / bytes per update
  double roofline_fraction = 0;       ///< 0 when not comparable (serial on > 1 rank)
  double halo_ratio_to_staged = 0;    ///< median halo time / staged's (0: staged not run)
  double speedup_vs_serial = 0;       ///< serial's median total / this one's (0: serial not run)
};

/// The measured copy bandwidth of one nz case (all ranks and threads at once,
/// bytes counted as STREAM does), read as the roofline.
struct StencilBandwidth {
  long nz = 0;                           ///< values per site
  std::vector<double> copy_bytes_per_s;  ///< bytes/s per sample, all ranks together
  Summary summary;                       ///< statistics of copy_bytes_per_s
};

/// Everything one `bench stencil` run produced (rank 0; empty elsewhere).
struct StencilBenchReport {
  std::vector<StencilBenchResult> results;  ///< one per strategy and nz
  std::vector<StencilBandwidth> bandwidth;  ///< one per nz
};

/// Run the benchmark (collective). Rank 0 gets the results.
StencilBenchReport run_stencil_bench(MPI_Comm comm, const StencilBenchOptions& opt, std::ostream& log);

/// Aligned table of the results.
std::string format_stencil_table(const StencilBenchOptions& opt, int ranks, const StencilBenchReport& r);

/// JSON records, each with the run's metadata.
std::vector<nlohmann::json> stencil_bench_records(MPI_Comm comm, const StencilBenchOptions& opt,
                                                  const StencilBenchReport& r);

}  // namespace haloex
