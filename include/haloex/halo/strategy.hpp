#pragma once
// The exchange interface every strategy implements, and the registry that
// creates a strategy from its name.
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
  double begin_s = 0, end_s = 0;  // wall time inside begin() and end()
  double pack_s = 0;              // packing, local copies included
  double unpack_s = 0;
  long exchanges = 0;
  double mpi_s() const { return begin_s + end_s - pack_s - unpack_s; }
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
  virtual std::string_view name() const = 0;
  /// Start the exchange of these fields (one view per plan field, in order).
  void begin(std::span<const FieldView> fields);
  /// Complete the exchange started by begin().
  void end();
  /// begin() then end().
  void exchange(std::span<const FieldView> fields) {
    begin(fields);
    end();
  }
  /// Whether an exchange is in flight.
  bool active() const { return active_; }
  /// Time spent so far, by phase.
  const HaloTimes& times() const { return times_; }
  /// Start the time accounting afresh (after a warm-up, say).
  void reset_times() { times_ = HaloTimes{}; }

 protected:
  explicit Strategy(const Plan& plan) : plan_(plan) {}
  virtual void do_begin(std::span<const FieldView> fields) = 0;
  virtual void do_end(std::span<const FieldView> fields) = 0;
  // Timed packing: derived classes call these, which hide the free functions.
  void pack(std::span<const PackJob> jobs, std::span<const FieldView> fields);
  void unpack(std::span<const PackJob> jobs, std::span<const FieldView> fields);
  void copy_self(const Stage& stage, std::span<const FieldView> fields);

  const Plan& plan_;

 private:
  HaloTimes times_;
  bool active_ = false;
  std::vector<FieldView> fields_;
};

/// A registered strategy: its name, what it does, and how to build it.
struct StrategyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<Strategy> (*make)(const Plan&);
};

/// Every registered strategy, in the order tables list them.
std::span<const StrategyInfo> strategies();

/// The names of all strategies.
std::vector<std::string> strategy_names();

/// Build the strategy with this name for this plan. Collective over the
/// plan's communicator. Throws InputError for an unknown name (listing the
/// valid ones) or a plan/grid the strategy cannot serve.
std::unique_ptr<Strategy> make_strategy(std::string_view name, const Plan& plan);

}  // namespace haloex
