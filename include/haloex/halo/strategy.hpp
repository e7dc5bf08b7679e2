#pragma once
// The exchange interface every strategy implements, and the registry that
// creates a strategy from its name.
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "haloex/halo/pack.hpp"
#include "haloex/halo/plan.hpp"

namespace haloex {

/// Where the exchanges of one strategy spent their time, summed over calls.
/// MPI time (posting, transfer, waiting) is what begin and end took beyond
/// packing and unpacking.
struct HaloTimes {
  /// Wall time inside begin() and end(), in seconds.
  /// @{
  double begin_s = 0, end_s = 0;
  /// @}
  double pack_s = 0;    ///< seconds packing, local copies included
  double unpack_s = 0;  ///< seconds unpacking
  long exchanges = 0;   ///< exchanges completed
  /// Seconds in MPI: posting, transfer and waiting.
  double mpi_s() const { return begin_s + end_s - pack_s - unpack_s; }
  /// Add another's times and exchanges (two strategies of one run).
  HaloTimes& operator+=(const HaloTimes& o) {
    begin_s += o.begin_s, end_s += o.end_s, pack_s += o.pack_s, unpack_s += o.unpack_s;
    exchanges += o.exchanges;
    return *this;
  }
};

/// One strategy's time as `auto` measured it.
struct CandidateTime {
  std::string strategy;  ///< the candidate's name
  double median_s = 0;   ///< seconds: median per exchange of the slowest rank
};

/// Executes a plan. begin() starts filling the halos of the given fields,
/// end() completes it; the interior may be read and the parts of it that feed
/// no halo may be written in between. The plan must outlive the strategy.
///
/// Every strategy guarantees that when begin() returns, the halo regions that
/// lie only across dimensions with a single process (periodic images of this
/// rank's own sites) are complete: their copies are local and are made in
/// begin(). An overlapping solver relies on it to update sites next to such
/// halos before end() (tested for every strategy, HaloBegin).
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// The strategy's registry name.
  std::string_view name() const { return name_; }
  /// Start the exchange of these fields (one view per plan field, in order).
  void begin(std::span<const FieldView> fields);
  /// Complete the exchange started by begin().
  void end();
  /// begin() then end().
  void exchange(std::span<const FieldView> fields) {
    begin(fields);
    end();
  }
  /// Drive MPI's progress engine while an exchange is in flight (nothing
  /// otherwise): an overlapping solver calls it now and then while it
  /// updates the interior, so that messages move (rendezvous handshakes,
  /// single-copy reads) before end() instead of inside it. One MPI_Iprobe
  /// on the plan's communicator, which runs one pass of the library's
  /// progress loop over every outstanding request; each call costs that
  /// pass, so call it every few rows, not every site. Funneled: the thread
  /// that called begin() calls it.
  void progress() {
    if (active_) do_progress();
  }
  /// Whether an exchange is in flight.
  bool active() const { return active_; }
  /// Time spent so far, by phase (for `auto`, the chosen strategy's).
  virtual const HaloTimes& times() const { return times_; }
  /// Start the time accounting afresh (after a warm-up, say).
  virtual void reset_times() { times_ = HaloTimes{}; }
  /// The strategy that really runs: this one's name, or the one `auto` chose.
  virtual std::string_view resolved_name() const { return name(); }
  /// What `auto` measured, fastest first; empty for every other strategy.
  virtual std::vector<CandidateTime> candidates() const { return {}; }
  /// How sure `auto` is of its choice, e.g. "decided in 9 rounds: shm; next
  /// staged-types 1.16x [1.13, 1.20]"; empty for every other strategy.
  virtual std::string decision() const { return {}; }

 protected:
  /// For derived classes: the plan to execute (which must outlive the strategy)
  /// and the registry name.
  Strategy(const Plan& plan, std::string_view name) : plan_(plan), name_(name) {}
  /// For a strategy that only forwards to another (`auto`): begin() and end()
  /// leave checking the views and timing to the one it forwards to, so that
  /// forwarding costs two calls, not a second check and four more clock reads
  /// (8% of an 8^3 exchange of one value on 2 ranks).
  void forward_only() { forwarding_ = true; }
  /// What begin() does for this strategy (begin() times it and checks the views).
  virtual void do_begin(std::span<const FieldView> fields) = 0;
  /// What end() does, for the views handed to begin().
  virtual void do_end(std::span<const FieldView> fields) = 0;
  /// What progress() does (see there); `auto` forwards to its choice.
  virtual void do_progress();
  /// pack(), unpack() and the local copies of a stage, timed into times():
  /// derived classes call these, which hide the free functions.
  /// @{
  void pack(std::span<const PackJob> jobs, std::span<const FieldView> fields);
  void unpack(std::span<const PackJob> jobs, std::span<const FieldView> fields);
  void copy_self(const Stage& stage, std::span<const FieldView> fields);
  /// @}
  /// Run `copy` and count its time as unpacking (a copy into the halo that
  /// none of the above describes, such as shm's reads from a neighbour).
  template <class Copy>
  void as_unpack(Copy&& copy) {
    const double t0 = MPI_Wtime();
    copy();
    times_.unpack_s += MPI_Wtime() - t0;
  }

  /// The plan being executed.
  const Plan& plan_;

 private:
  std::string name_;
  HaloTimes times_;
  bool active_ = false;
  bool forwarding_ = false;
  std::vector<FieldView> fields_;
};

/// A registered strategy: its name, what it does, and how to build it (the
/// name is handed to the strategy, which reports it as name()).
struct StrategyInfo {
  const char* name;  ///< as input files and results name it
  /// How it moves data, as the model prices it: staged (one dimension after
  /// another, packed by haloex), staged-types (MPI packs), direct (every
  /// neighbour at once, one message per peer rank), shm (node neighbours
  /// through a shared window), node-gather (one message per pair of nodes)
  /// or auto (runs the one it chose).
  const char* family;
  const char* description;  ///< one line for tables and `haloex info`
  std::unique_ptr<Strategy> (*make)(const Plan&, std::string_view name);  ///< builds it for a plan
};

/// Every registered strategy, in the order tables list them.
std::span<const StrategyInfo> strategies();

/// The names of all strategies.
std::vector<std::string> strategy_names();

/// Build the strategy with this name for this plan. Collective over the
/// plan's communicator. Throws InputError for an unknown name (listing the
/// valid ones) or a plan/grid the strategy cannot serve.
std::unique_ptr<Strategy> make_strategy(std::string_view name, const Plan& plan);

/// How `auto` measures: rounds in which every candidate still in the race
/// runs once (interleaved, the order shuffled every round), each sample the slowest
/// rank's time per exchange. From `samples` rounds on, every candidate is
/// compared with the leader through the ratios of the same rounds (the
/// median ratio's 95% interval, measure/stats.hpp); those decidedly slower
/// leave the race. It ends when every other is slower or within 2% of the
/// leader (then the first registered of those tied is taken: the simplest),
/// or when `budget_s` or `max_rounds` is spent, undecided: then, of those
/// still in the race that no other of them puts decidedly behind, the one
/// whose median paired ratio against each other one is lowest at its worst
/// (the best worst case), not the lowest median, which a machine jumping
/// between states can hand to a strategy several times slower. `timing`
/// maps each measured time (seconds, this rank) before the ranks agree on
/// it: the identity by default; a test may bend it to force a choice.
struct AutoOptions {
  int samples = 6;         ///< rounds before the first comparison (6: the fewest that reach 95%)
  double sample_s = 2e-3;  ///< seconds: aim for at least this much time per sample
  int max_calls = 200;     ///< but never more calls than this per sample
  double budget_s = 1.0;   ///< seconds of rounds before taking the leader undecided
  int max_rounds = 100;    ///< a last bound on the rounds
  /// Re-deciding during a long run: every `recheck_every` exchanges (0:
  /// never) a check. Once the slowest rank has spent `min_window_s` in
  /// exchanges since the last window, that stretch closes as a window: its
  /// time per exchange, the slowest rank's. The median of the first three
  /// windows after a choice is the baseline. When two windows in a row lie
  /// beyond it the same way by more than `drift` (relative), three times the
  /// chosen one's round-to-round variation in the race and three times the
  /// windows' own variation before them, the race runs again (collective,
  /// inside end(), on fresh scratch fields) and its winner takes over;
  /// decision() says so, with the race's seconds. A race that keeps the same
  /// strategy doubles the window (up to 64 x min_window_s). Every rank must
  /// call end() equally often, as every exchange requires anyway.
  long recheck_every = 0;
  double min_window_s = 0.05;  ///< seconds of exchanges a window spans at least
  double drift = 0.10;         ///< the least relative drift that runs the race again
  /// Maps each measured time (see above; with recheck_every, also each
  /// window's time per exchange, under the chosen one's name); empty: the
  /// identity.
  std::function<double(std::string_view strategy, double seconds)> timing;
};

/// `auto` with explicit options (make_strategy("auto", plan) uses the
/// defaults). Collective: times every other registered strategy that can
/// serve the plan on scratch copies of its fields, keeps the fastest by the
/// median of the slowest rank's time, and frees the rest.
std::unique_ptr<Strategy> make_auto(const Plan& plan, const AutoOptions& options = {});

/// How `shm` finds the ranks it shares memory with.
struct ShmOptions {
  /// 0: the ranks of each node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED).
  /// n > 0: groups of n consecutive ranks of a node, as if each group were a
  /// node, so that one machine can test the path between nodes (it goes
  /// through MPI); a group never spans two real nodes.
  int node_size = 0;
};

/// `shm` with explicit options (make_strategy("shm", plan) uses the
/// defaults). Collective over the plan's communicator. With every field in
/// node memory its node neighbours read the fields themselves, so end()
/// returns only once each of them has reached its own end(): where several
/// exchanges are in flight at once, end them in the same order on every rank.
std::unique_ptr<Strategy> make_shm(const Plan& plan, ShmOptions options = {});

/// How `node-gather` finds the ranks it treats as one node.
struct NodeGatherOptions {
  /// 0: the ranks of each node. n > 0: groups of n consecutive ranks of a
  /// node, as if each group were a node (to test the path between nodes on
  /// one machine); a group never spans two real nodes.
  int node_size = 0;
};

/// `node-gather` with explicit options (make_strategy("node-gather", plan)
/// uses the defaults). Collective over the plan's communicator. Every
/// message between two nodes goes as one: the ranks of a node pack their
/// off-node halos into one buffer in node memory and the node's first rank
/// sends it; so each exchange waits for every rank of the node.
std::unique_ptr<Strategy> make_node_gather(const Plan& plan, NodeGatherOptions options = {});

/// One line on what `auto` chose and how sure it is, such as "auto chose
/// direct: 12.30 us per exchange (median of the slowest rank); slowest
/// sendrecv 2.10x, of 15 strategies timed; decided in 9 rounds; next
/// persistent 1.040x [1.021, 1.062] over 9 paired rounds".
/// Empty for any other strategy.
std::string auto_choice_text(const Strategy& s);

}  // namespace haloex
