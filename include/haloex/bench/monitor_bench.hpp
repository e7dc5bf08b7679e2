#pragma once
// `haloex bench monitor`: what the LB solver's monitoring reduction costs
// (the CRESTA paper's section 6). The same case runs with the reduction off,
// blocking every step, non-blocking completed one step later, and every N
// steps; configurations are interleaved sample by sample.
#include <mpi.h>

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "haloex/measure/stats.hpp"

namespace haloex {

/// What to measure. A configuration is "off", "blocking", "nonblocking",
/// or one of the latter two with "/N" (reduce every N steps).
struct MonitorBenchOptions {
  long size = 64;                      ///< L: an L^3 lattice (L^2 for D2Q9)
  std::string velocity_set = "D3Q19";  ///< D2Q9, D3Q15, D3Q19 or D3Q27
  std::string strategy = "staged";     ///< halo strategy by name
  std::string overlap = "none";        ///< overlap mode: none, interior or map
  /// The configurations, interleaved sample by sample.
  std::vector<std::string> configs{"off", "blocking", "nonblocking", "blocking/10", "nonblocking/10"};
  int steps = 50;        ///< steps per sample
  int repeats = 5;       ///< samples per configuration
  int warmup = 4;        ///< untimed steps per configuration
  bool progress = true;  ///< progress lines on `log` (rank 0)
};

/// One configuration: per sample, times per step.
struct MonitorBenchResult {
  /// The configuration's name, and its mode ("off", "blocking" or "nonblocking").
  /// @{
  std::string config, mode;
  /// @}
  long every = 1;              ///< steps between reductions
  std::vector<double> sim_s;   ///< T_sim per step: the slowest rank's wall time
  std::vector<double> lb_s;    ///< T_LB per step: collision and streaming (mean over ranks)
  std::vector<double> halo_s;  ///< halo exchange per step (mean over ranks)
  std::vector<double> wait_s;  ///< T_wait per step: in the reduction's MPI calls (mean over ranks)
  std::vector<double> mon_s;   ///< T_mon per step: T_LB above the same sample's unmonitored run
  std::vector<double> sups;    ///< site updates per second: sites * steps / T_sim
  long reductions = 0;         ///< reductions per sample
  /// Statistics of the samples above (rate: of sups).
  /// @{
  Summary sim, lb, halo, wait, mon, rate;
  /// @}
  double ratio_to_off = 0;  ///< median T_sim / the "off" configuration's
};

/// Parse a configuration name into its mode and period. Throws InputError.
void parse_monitor_config(const std::string& config, std::string& mode, long& every);

/// Run the benchmark (collective); rank 0 gets the results.
std::vector<MonitorBenchResult> run_monitor_bench(MPI_Comm comm, const MonitorBenchOptions& opt,
                                                  std::ostream& log);

/// Aligned table of the results.
std::string format_monitor_table(const std::vector<MonitorBenchResult>& results);

/// JSON records with the run's metadata and every sample.
std::vector<nlohmann::json> monitor_records(MPI_Comm comm, const MonitorBenchOptions& opt,
                                            const std::vector<MonitorBenchResult>& results);

}  // namespace haloex
