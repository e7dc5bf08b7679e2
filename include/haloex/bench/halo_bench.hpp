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

#include "haloex/field/field.hpp"
#include "haloex/halo/plan.hpp"
#include "haloex/measure/stats.hpp"
#include "haloex/measure/sweep.hpp"

namespace haloex {

/// What to measure. Sizes are per-rank subdomain edges L: an L^d subdomain
/// per rank (shape "cubic") or L x 1.5L x 2L (shape "noncubic", the 2016
/// paper's section 4.4), so the global lattice is the subdomain times the
/// process grid. With `global` > 0 the global lattice is fixed at N^d instead
/// and split over the ranks (strong scaling); `sizes` is then unused.
struct HaloBenchOptions {
  int ndim = 3;                                           ///< 2 or 3
  std::vector<long> sizes{32};                            ///< subdomain edges L, one case each
  std::string shape = "cubic";                            ///< cubic or noncubic
  long global = 0;                                        ///< > 0: a fixed N^d global lattice
  std::array<int, max_dims> procs{0, 0, 0};               ///< process grid; 0: chosen by MPI_Dims_create
  std::array<bool, max_dims> periodic{true, true, true};  ///< periodicity per dimension
  int ncomp = 19;                                         ///< values per site
  int halo = 1;                                           ///< halo width in sites
  ElementType type = ElementType::f64;                    ///< element type
  Layout layout = Layout::aos;                            ///< order of the components in memory
  /// "full": every component to every halo site; "faces": every component,
  /// faces only (no edges or corners); "reduced": only the populations of
  /// `velocity_set` that cross into the subdomain (ncomp must be its q).
  std::string plan = "full";
  std::string velocity_set = "D3Q19";                 ///< whose crossing populations the "reduced" plan sends
  PackThreads pack_threads = PackThreads::automatic;  ///< whether packing uses the OpenMP team
  /// Where the field lives: node memory lets `shm` read halos straight from
  /// a neighbour's field; every other strategy runs alike on both.
  FieldMemory field_memory = FieldMemory::heap;
  /// Synthetic work (a busy wait of this many seconds) between begin() and
  /// end(), timed beside the plain exchange: how much of the exchange hides.
  double work_s = 0;
  int iterations = 2000;                ///< calls timed per sample
  int repeats = 5;                      ///< samples per strategy (with precision: the fewest)
  int warmup = 20;                      ///< untimed calls per strategy before the first sample
  double precision = 0;                 ///< --ci: rounds until decided (Repetition::precision)
  double budget_s = 60;                 ///< --budget: seconds per size for those rounds
  std::vector<std::string> strategies;  ///< empty: every strategy that can run here
  bool progress = true;                 ///< progress lines on stderr (rank 0)
  /// --check: the field holds global-index values while it is timed; after
  /// the rounds its halo is checked as the timed exchanges left it, then
  /// each strategy exchanges a freshly encoded field once and is checked
  /// (bench/halo_check.hpp).
  bool check = false;
};

/// One strategy at one size: raw samples and what follows from them.
struct HaloBenchResult {
  std::string strategy;  ///< the strategy asked for
  std::string resolved;  ///< what ran: the strategy, or the one `auto` chose
  /// `auto`: each candidate's median in seconds, fastest first.
  std::vector<std::pair<std::string, double>> auto_times;
  std::string auto_decision;                   ///< `auto`: how sure it was (Strategy::decision)
  long size = 0;                               ///< L, or N with a fixed global lattice
  std::array<long, max_dims> global{1, 1, 1};  ///< global lattice
  std::array<long, max_dims> local{1, 1, 1};   ///< rank 0's subdomain (the largest)
  double sites_per_rank = 0;                   ///< global sites / ranks
  std::vector<double> time_per_call_s;         ///< seconds, one per repeat: slowest rank's time / calls
  Summary summary;                             ///< statistics of time_per_call_s
  RoundsOutcome rounds;                        ///< how many rounds ran at this size and why they stopped
  /// Seconds of each phase, per call and repeat, each the slowest rank's, and
  /// their statistics: packing (local copies included), MPI (posting to
  /// completion, waiting included) and unpacking.
  /// @{
  std::vector<double> pack_s, mpi_s, unpack_s;
  Summary pack, mpi, unpack;
  /// @}
  double halo_bytes = 0;  ///< per rank and exchange, averaged over ranks
  /// The memory bound: field lines one exchange moves in bytes (the most on any
  /// rank, exchange_line_bytes), the STREAM copy bandwidth of all ranks at once
  /// in bytes/s, once per repeat in the same run, and what they give: seconds
  /// line_bytes / (the median bandwidth / ranks), and that time / the median
  /// time per call.
  /// @{
  double line_bytes = 0;
  std::vector<double> copy_bytes_per_s;
  double line_bound_s = 0, bound_fraction = 0;
  /// @}
  /// The link probe before each round (LinkProbe: a 64 KiB round trip
  /// between ranks 0 and 1, seconds; empty on one rank): the machine's state
  /// in the rounds these samples come from.
  std::vector<double> link_probe_s;
  int messages = 0;  ///< direct-pattern messages per exchange (most on any rank)
  /// Rank 0's message list, for models: per pattern (direct, and each
  /// stage of the staged one) the messages to other ranks, the bytes they
  /// carry (in all and each), those of them that leave the node, the same
  /// summed per peer rank (strategies of the direct family send one message
  /// per peer) and the bytes copied locally (periodic images of its own
  /// sites).
  nlohmann::json message_list;
  /// What crosses the network per exchange in the direct pattern, on the
  /// busiest node: nodes, messages and bytes sent off the node (one per
  /// pair of ranks), and the nodes it sends to (one message each when a
  /// node-aware strategy aggregates them).
  nlohmann::json node_traffic;
  double beff_bytes_per_s = 0;        ///< effective bandwidth: halo_bytes / median time per call
  double updates_per_core_per_s = 0;  ///< sites per rank / (median time per call * threads)
  double ratio_to_staged = 0;         ///< median time / staged's median time (0 if staged not run)
  /// With synthetic work (work_s > 0), seconds per call and sample: begin + work + end,
  /// and the work alone.
  /// @{
  std::vector<double> overlap_time_per_call_s, work_time_per_call_s;
  /// @}
  Summary overlap_summary;  ///< statistics of overlap_time_per_call_s
  /// (t_exchange + t_work - t_overlapped) / t_exchange from the medians: the
  /// share of the exchange hidden behind the work (OSU's overlap %, / 100).
  double overlap_fraction = 0;
  /// --check: elements found wrong over all ranks after this strategy's
  /// own exchange, and after the timed exchanges of all of them (-1: not
  /// checked); the elements checked per exchange.
  /// @{
  long check_wrong = -1, check_after_timing_wrong = -1;
  double check_elements = 0;
  /// @}
};

/// The component predicate of a plan name: "full" and "faces" (all
/// components; faces is a Regions choice), "reduced" (the crossing
/// populations of the velocity set, which must have ncomp velocities in ndim
/// dimensions). Throws InputError otherwise.
ComponentPredicate travels_for_plan(const std::string& plan, const std::string& velocity_set, int ncomp,
                                    int ndim);

/// Plan options of a plan name and a packing-thread choice.
PlanOptions plan_options_for(const std::string& plan, PackThreads pack_threads);

/// Share of a communication time hidden behind work: (t_comm + t_work -
/// t_both) / t_comm (OSU's overlap percentage divided by 100; may be
/// negative when overlapping costs more than it hides).
inline double hidden_fraction(double t_comm, double t_work, double t_both) {
  return (t_comm + t_work - t_both) / t_comm;
}

/// The per-rank subdomain extents of a shape at edge L ("cubic": L^d;
/// "noncubic": L x 1.5L x 2L, L even). Throws InputError otherwise.
std::array<long, max_dims> subdomain_extents(const std::string& shape, long L, int ndim);

/// Bytes of a full halo of an L^3 subdomain with halo width 1:
/// (6L^2 + 12L + 8) * ncomp * element bytes (equation 4.3 of the 2016 paper).
double cubic_halo_bytes(long L, int ncomp, size_t element_bytes);

/// Halo sites of an a x b x c subdomain with halo width 1:
/// 2(ab + bc + ca) + 4(a + b + c) + 8. For x, 1.5x, 2x that is 13x^2 + 18x + 8
/// (the 2016 paper's eq. 4.6 has 14.5x^2: it squares each edge instead of
/// multiplying the two edges of each face).
double box_halo_sites(long a, long b, long c);

/// Effective bandwidth: bytes moved by one exchange / time of one exchange.
inline double effective_bandwidth(double bytes, double seconds) { return bytes / seconds; }

/// Updates per core per second: sites per rank / (time of one exchange *
/// threads per rank) (the 2016 paper's N = L^3 / t with one thread per core).
inline double updates_per_core(double sites, double seconds, int threads) {
  return sites / (seconds * threads);
}

/// Run the benchmark (collective). Rank 0 gets the results; other ranks get
/// an empty vector. Notes about skipped strategies go to `log` on rank 0.
std::vector<HaloBenchResult> run_halo_bench(MPI_Comm comm, const HaloBenchOptions& opt, std::ostream& log);

/// The aligned table of results (one block per size).
std::string format_halo_table(const HaloBenchOptions& opt, const std::vector<HaloBenchResult>& results);

/// JSON records for the results, each with the run's metadata.
std::vector<nlohmann::json> halo_bench_records(MPI_Comm comm, const HaloBenchOptions& opt,
                                               const std::vector<HaloBenchResult>& results);

}  // namespace haloex
