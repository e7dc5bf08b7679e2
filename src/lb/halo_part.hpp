#pragma once
// The LB solver's halo: the plan that fills the halo from its owners, the
// AA pattern's write-back plan (what the odd step wrote into the halo, back
// to its owners), the strategies that run them, and whether a write-back is
// still to be sent.
#include <array>
#include <memory>
#include <optional>
#include <string>

#include "haloex/field/field.hpp"
#include "haloex/halo/plan.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/lb/config.hpp"
#include "haloex/lb/velocity_set.hpp"
#include "neighbours.hpp"

namespace haloex::lb::detail {

/// Dimensions the kernels wrap: periodic, and this rank's whole.
std::array<bool, 3> wrapped_dims(const LbConfig& c, const Decomposition& dec);
/// Whether a flat sweep copies the row dimension's periodic halo itself,
/// row by row (RowWrap), rather than an exchange: this rank holds the whole
/// lattice, and the kernels wrap every other periodic dimension.
bool sweep_wraps_rows(const LbConfig& c, const Decomposition& dec);

struct HaloPart {
  /// The plans for the populations `f0` (and, with the AA pattern, the
  /// write-back's); no strategy yet.
  HaloPart(const LbConfig& cfg, const VelocitySet& vs, const Decomposition& dec, Field<double>& f0);
  /// Build the strategies that run the plans (collective: `auto` races here).
  void start(const LbConfig& cfg);
  /// Bytes a rank sends per step: with the AA pattern half of each exchange.
  double bytes_per_step() const;

  std::string kind;              // "reduced" or "full"
  Plan fwd_plan;                 // halo sites filled from their owners
  std::optional<Plan> rev_plan;  // AA: what the odd step wrote into the halo, back to its owners
  std::unique_ptr<Strategy> fwd, rev;
  bool reverse_pending = false;  // AA: the odd step's outgoing populations still sit in the halo
};

}  // namespace haloex::lb::detail
