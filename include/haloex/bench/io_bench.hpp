#pragma once
// `haloex bench io`: output bandwidth of the io layer against system size,
// I/O grid and (across runs) ranks: the ARCHER2 paper's Table 1 on this
// machine. Each episode writes one quantity of ncomp doubles per site for
// an L^3 lattice, synchronised to storage and renamed, as every output is.
#include <mpi.h>

#include <array>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "haloex/core/mpi_hints.hpp"

#include "haloex/io/metadata.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex {

/// What `bench io` measures.
struct IoBenchOptions {
  std::vector<long> sizes{32, 64, 128};              ///< L of L^3 lattices
  int ncomp = 5;                                     ///< the paper's order parameter: 5 doubles per site
  IoFormat format = IoFormat::binary;                ///< file format
  std::vector<std::array<int, 3>> grids{{1, 1, 1}};  ///< I/O grids, interleaved
  std::vector<IoHints> hints{{}};                    ///< MPI-IO hint sets, interleaved (empty: none)
  int episodes = 10;                                 ///< timed writes per size and grid
  int warmup = 1;                                    ///< untimed writes per size and grid
  std::string dir = "haloex-bench-io";               ///< written to and emptied again
  bool progress = true;                              ///< progress lines on `log` (rank 0)
};

/// One (size, I/O grid): bytes per episode and the time of each episode.
struct IoBenchResult {
  long size = 0;                      ///< L
  std::array<int, 3> grid{1, 1, 1};   ///< the I/O grid
  IoHints hints;                      ///< the MPI-IO hints asked for
  nlohmann::json hints_applied;       ///< what the file system reported for them
  std::array<int, 3> procs{1, 1, 1};  ///< the process grid
  long bytes = 0;                     ///< bytes per episode
  std::vector<double> time_s;         ///< seconds per episode
  std::vector<double> bandwidth_Bps;  ///< bytes per second per episode
  Summary bandwidth;                  ///< statistics of bandwidth_Bps
};

/// Run the benchmark (collective); grids are interleaved episode by
/// episode. Throws InputError for a grid that does not divide the process
/// grid.
std::vector<IoBenchResult> run_io_bench(MPI_Comm comm, const IoBenchOptions& opt, std::ostream& log);

/// Aligned table of the results.
std::string format_io_table(const IoBenchOptions& opt, int ranks, const std::vector<IoBenchResult>& results);

/// JSON records, each with the run's metadata.
std::vector<nlohmann::json> io_records(MPI_Comm comm, const IoBenchOptions& opt,
                                       const std::vector<IoBenchResult>& results);

}  // namespace haloex
