#pragma once
// `haloex bench halo`: time repeated exchanges of every strategy on the same
// fields, strategies interleaved, and report per-call times, effective
// bandwidth and updates per core per second.
#include <mpi.h>

#include <array>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "haloex/bench/stats.hpp"
#include "haloex/field/field.hpp"

namespace haloex {

/// What to measure. Sizes are per-rank subdomain edges L (an L^d subdomain
/// per rank, so the global lattice is L times the process grid).
struct HaloBenchOptions {
  int ndim = 3;
  std::vector<long> sizes{32};
  std::array<int, max_dims> procs{0, 0, 0};
  std::array<bool, max_dims> periodic{true, true, true};
  int ncomp = 19;
  int halo = 1;
  ElementType type = ElementType::f64;
  Layout layout = Layout::aos;
  int iterations = 2000;  // calls timed per sample
  int repeats = 5;        // samples per strategy
  int warmup = 20;        // untimed calls per strategy before the first sample
  std::vector<std::string> strategies;  // empty: every strategy that can run here
  bool progress = true;                 // progress lines on stderr (rank 0)
};

/// One strategy at one size: raw samples and what follows from them.
struct HaloBenchResult {
  std::string strategy;
  long size = 0;
  std::vector<double> time_per_call_s;  // one per repeat: slowest rank's time / calls
  Summary summary;
  double halo_bytes = 0;  // per rank and exchange, averaged over ranks
  int messages = 0;       // direct-pattern messages per exchange (most on any rank)
  double beff_bytes_per_s = 0;
  double updates_per_core_per_s = 0;
  double ratio_to_staged = 0;  // median time / staged's median time (0 if staged not run)
};

/// Bytes of a full halo of an L^3 subdomain with halo width 1:
/// (6L^2 + 12L + 8) * ncomp * element bytes (the 2016 paper's eq. 4.3).
double cubic_halo_bytes(long L, int ncomp, size_t element_bytes);

/// Effective bandwidth: bytes moved by one exchange / time of one exchange.
inline double effective_bandwidth(double bytes, double seconds) { return bytes / seconds; }

/// Updates per core per second: sites per rank / (time of one exchange *
/// threads per rank) (the 2016 paper's N = L^3 / t with one thread per core).
inline double updates_per_core(double sites, double seconds, int threads) { return sites / (seconds * threads); }

/// Run the benchmark (collective). Rank 0 gets the results; other ranks get
/// an empty vector. Notes about skipped strategies go to `log` on rank 0.
std::vector<HaloBenchResult> run_halo_bench(MPI_Comm comm, const HaloBenchOptions& opt, std::ostream& log);

/// The aligned table of results (one block per size).
std::string format_halo_table(const HaloBenchOptions& opt, const std::vector<HaloBenchResult>& results);

/// JSON records for the results, each with the run's metadata.
std::vector<nlohmann::json> halo_bench_records(MPI_Comm comm, const HaloBenchOptions& opt,
                                               const std::vector<HaloBenchResult>& results);

}  // namespace haloex
