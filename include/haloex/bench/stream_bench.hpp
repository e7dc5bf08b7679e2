#pragma once
// `haloex bench stream`: STREAM-style copy and triad bandwidth of all ranks
// and threads at once, the memory roofline the LB and stencil figures are
// read against.
#include <mpi.h>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "haloex/measure/stats.hpp"

namespace haloex {

/// What `bench stream` measures.
struct StreamOptions {
  size_t elements = size_t(1) << 24;  ///< doubles per array and rank (128 MiB)
  int iterations = 10;                ///< kernel sweeps per sample
  int repeats = 5;                    ///< samples per kernel, kernels interleaved
  int warmup = 1;                     ///< untimed sweeps per kernel
  bool progress = true;               ///< progress lines on `log` (rank 0)
};

/// One kernel: copy (c = a, 16 bytes per element) or triad (a = b + s c,
/// 24 bytes), counted as STREAM does (no write-allocate traffic).
struct StreamResult {
  std::string kernel;                         ///< "copy" or "triad"
  double bytes_per_element = 0;               ///< bytes STREAM counts per element
  std::vector<double> bandwidth_bytes_per_s;  ///< bytes/s per sample, all ranks together
  Summary summary;                            ///< statistics of bandwidth_bytes_per_s
};

/// Bytes STREAM counts per element of a kernel ("copy": 16, "triad": 24).
double stream_bytes_per_element(const std::string& kernel);

/// Run the benchmark (collective). Rank 0 gets the results.
std::vector<StreamResult> run_stream_bench(MPI_Comm comm, const StreamOptions& opt, std::ostream& log);

/// Aligned table of the results.
std::string format_stream_table(const StreamOptions& opt, int ranks,
                                const std::vector<StreamResult>& results);

/// JSON records, each with the run's metadata.
std::vector<nlohmann::json> stream_records(MPI_Comm comm, const StreamOptions& opt,
                                           const std::vector<StreamResult>& results);

}  // namespace haloex
