#pragma once
// `haloex bench pack`: pack, unpack and local copy of every kind of halo box
// (faces, edges and corners of each dimension) timed alone, against a plain
// copy of the same bytes in the same run: how close packing comes to the
// machine's copy speed, with no MPI in the way.
#include <mpi.h>

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "haloex/field/field.hpp"
#include "haloex/halo/plan.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex {

/// What `bench pack` measures.
struct PackBenchOptions {
  int ndim = 3;                                           ///< 2 or 3
  std::vector<long> sizes{64};                            ///< subdomain edge L (an L^d field per rank)
  int ncomp = 19;                                         ///< values per site
  int halo = 1;                                           ///< halo width in sites
  ElementType type = ElementType::f64;                    ///< element type
  std::vector<Layout> layouts{Layout::aos, Layout::soa};  ///< component layouts, one case each
  std::string plan = "full";                              ///< full or reduced (the LB's crossing populations)
  std::string velocity_set = "D3Q19";                 ///< whose crossing populations the "reduced" plan sends
  PackThreads pack_threads = PackThreads::automatic;  ///< whether packing uses the OpenMP team
  long iterations = 0;                                ///< calls per sample; 0: enough to move about 8 MB
  int repeats = 5;                                    ///< samples per case
  int warmup = 3;                                     ///< untimed calls of each copy before the samples
  bool progress = true;                               ///< progress lines on `log` (rank 0)
};

/// One box kind of one layout at one size.
struct PackBenchResult {
  long size = 0;                ///< L
  Layout layout = Layout::aos;  ///< component layout
  std::string box;              ///< offset name of the halo region, e.g. "x+", "x+y+"
  std::string kind;             ///< face, edge or corner
  std::string kernels;          ///< the pack kernels the plan chose, e.g. "fixed19"
  double bytes = 0;             ///< bytes packed per call
  double touched_bytes = 0;     ///< cache lines of the field that one pack reads, in bytes
  long calls = 0;               ///< calls per sample
  /// Seconds per call, one per sample: pack, unpack, local copy, a plain copy of
  /// the same bytes and a plain copy of as many bytes as the lines touched.
  /// @{
  std::vector<double> pack_s, unpack_s, local_s, copy_s, lines_s;
  /// @}
  /// Statistics of the samples above.
  /// @{
  Summary pack, unpack, local, copy, lines;
  /// @}
  /// Plain copy time / time, from the medians.
  /// @{
  double pack_ratio_to_copy = 0, unpack_ratio_to_copy = 0, local_ratio_to_copy = 0;
  /// @}
  /// Plain copy of the touched lines' bytes / time: what a box that moves
  /// one value per line can reach. (Timed, not scaled from the copy of the
  /// bytes: the lines of a large face live in a slower level of the cache.)
  /// @{
  double pack_lines_ratio = 0, unpack_lines_ratio = 0, local_lines_ratio = 0;
  /// @}
};

/// Run the benchmark on every rank at once (collective; each rank works on
/// its own field). Rank 0 gets the results, each sample the slowest rank's.
std::vector<PackBenchResult> run_pack_bench(MPI_Comm comm, const PackBenchOptions& opt, std::ostream& log);

/// Aligned table of the results.
std::string format_pack_table(const PackBenchOptions& opt, const std::vector<PackBenchResult>& results);

/// JSON records, each with the run's metadata and every sample.
std::vector<nlohmann::json> pack_bench_records(MPI_Comm comm, const PackBenchOptions& opt,
                                               const std::vector<PackBenchResult>& results);

}  // namespace haloex
