#pragma once
// `haloex bench overlap`: how much of a non-blocking collective hides behind
// computation (the CRESTA paper's section 5). T_coll (start and wait),
// T_comp (a p x p matrix-vector product repeated to last about T_coll) and
// T_overlap (start, compute, wait) are measured interleaved, averaged over
// iterations and ranks, and turned into the paper's beta and the OSU and IMB
// overlap percentages.
#include <mpi.h>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace haloex {

/// Mean times of the three measurements, in seconds.
struct OverlapTimes {
  /// T_coll (start and wait), T_comp (the computation alone) and T_overlap
  /// (start, compute, wait).
  /// @{
  double coll_s = 0, comp_s = 0, overlap_s = 0;
  /// @}
};

/// The three views of the same times.
struct OverlapMetrics {
  double beta = 0;         ///< (T_coll + T_comp - T_overlap) / T_overlap   (paper eq. 5)
  double osu_percent = 0;  ///< 100 max(0, 1 - (T_overlap - T_comp) / T_coll)   (OSU; no upper clip)
  double imb_percent =
      0;  ///< 100 max(0, min(1, (T_coll + T_comp - T_overlap) / min(T_coll, T_comp)))   (IMB-NBC)
};

/// beta, OSU's and IMB's overlap from the mean times.
OverlapMetrics overlap_metrics(const OverlapTimes& t);

/// The paper's iteration count: 100 below 8 kB, 10 from there.
int overlap_iterations(size_t bytes);

/// The synthetic work: y = A x with a p x p matrix A, x = y after each
/// product, repeated; A's rows sum to 1, so values stay bounded.
class MatVec {
 public:
  /// An n x n matrix (at least 1 x 1) with rows that sum to 1, and its vector.
  explicit MatVec(int n);
  /// Run `repetitions` products, calling `between` (if any) `calls` times
  /// spread evenly over them.
  void run(long repetitions, int calls = 0, bool (*between)(void*) = nullptr, void* arg = nullptr);
  /// Seconds per product on this rank, from batches of at least `min_s`.
  double seconds_per_product(double min_s = 2e-3);

 private:
  int n_;
  std::vector<double> a_, x_, y_;
  volatile double observed_ = 0;
};

/// What `bench overlap` measures.
struct OverlapOptions {
  std::vector<std::string> collectives{"ialltoall", "iallreduce"};  ///< non-blocking collectives by name
  std::vector<size_t> sizes;  ///< bytes; empty: 8 B .. 64 KiB in powers of two
  std::vector<int> procs;     ///< communicator sizes; empty: powers of two from 2 and the world
  int iterations = 0;         ///< 0: the paper's 100 below 8 kB, 10 from there
  int warmup = 10;            ///< untimed iterations
  int test_calls = 0;         ///< MPI_Test calls spread over the computation
  bool progress = true;       ///< progress lines on `log` (rank 0)
};

/// One non-blocking collective at one communicator and message size.
struct OverlapResult {
  /// The collective's name and the MPI call it times.
  /// @{
  std::string collective, mpi_name;
  /// @}
  int procs = 0;     ///< communicator size
  size_t bytes = 0;  ///< message bytes per rank
  /// Timed iterations, and MPI_Test calls per computation.
  /// @{
  int iterations = 0, test_calls = 0;
  /// @}
  long products = 0;     ///< matrix-vector products per computation
  double product_s = 0;  ///< calibrated seconds per product (mean over ranks)
  /// Seconds of each measurement, [rank][iteration].
  /// @{
  std::vector<std::vector<double>> coll_s, comp_s, overlap_s;
  /// @}
  OverlapTimes mean;       ///< the mean times, over iterations and ranks
  OverlapMetrics metrics;  ///< what the mean times give
};

/// Run the benchmark (collective over comm); rank 0 gets the results.
std::vector<OverlapResult> run_overlap_bench(MPI_Comm comm, const OverlapOptions& opt, std::ostream& log);

/// Aligned table of the results.
std::string format_overlap_table(const std::vector<OverlapResult>& results);

/// JSON records with every raw time and the run's metadata.
std::vector<nlohmann::json> overlap_records(MPI_Comm comm, const OverlapOptions& opt,
                                            const std::vector<OverlapResult>& results);

}  // namespace haloex
