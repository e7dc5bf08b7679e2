// See halo_part.hpp.
#include "halo_part.hpp"

#include <utility>

namespace haloex::lb::detail {

namespace {

// The dimensions whose halo no exchange fills: those the kernels wrap, and
// the row dimension when the sweep copies it (RowWrap).
std::array<bool, 3> unexchanged(const LbConfig& c, const Decomposition& dec) {
  std::array<bool, 3> w = wrapped_dims(c, dec);
  if (sweep_wraps_rows(c, dec)) w[c.ndim() - 1] = true;
  return w;
}

// `base` without the halo regions across `skip`ped dimensions.
ComponentPredicate outside(ComponentPredicate base, std::array<bool, 3> skip) {
  if (!skip[0] && !skip[1] && !skip[2]) return base;
  return [base = std::move(base), skip](const Offset& o, int comp) {
    for (int d = 0; d < max_dims; ++d)
      if (o[d] != 0 && skip[d]) return false;
    return !base || base(o, comp);
  };
}

// Reduced: only the populations that cross into each halo region (for the
// AA pattern, which stores them in opposite slots, the reversed set).
Plan forward_plan(const LbConfig& cfg, const VelocitySet& vs, const Decomposition& dec, Field<double>& f0) {
  ComponentPredicate pred;
  if (cfg.halo == HaloMode::reduced)
    pred = crossing_components(cfg.kernel == Kernel::aa ? vs.reversed() : vs.c);
  return Plan(dec, {FieldSpec::of(f0, outside(pred, unexchanged(cfg, dec)))});
}

// The halo strategy by name; `auto` re-checks its choice every `recheck`
// exchanges (run.auto_recheck).
std::unique_ptr<Strategy> strategy_for(const std::string& name, const Plan& plan, long recheck) {
  if (name != "auto" || recheck == 0) return make_strategy(name, plan);
  AutoOptions opt;
  opt.recheck_every = recheck;
  return make_auto(plan, opt);
}

}  // namespace

std::array<bool, 3> wrapped_dims(const LbConfig& c, const Decomposition& dec) {
  std::array<bool, 3> w{false, false, false};
  for (int d = 0; d < c.ndim(); ++d) w[d] = c.periodic_wrap && c.periodic[d] && dec.procs(d) == 1;
  // A flat sweep runs across the row dimension's halo sites: the kernels
  // find the other side of the lattice there.
  if (c.sweep == Sweep::flat) w[c.ndim() - 1] = false;
  return w;
}

bool sweep_wraps_rows(const LbConfig& c, const Decomposition& dec) {
  if (c.sweep != Sweep::flat || !c.periodic_wrap || !c.periodic[c.ndim() - 1]) return false;
  for (int d = 0; d < c.ndim(); ++d)
    if (dec.procs(d) > 1) return false;
  return true;
}

HaloPart::HaloPart(const LbConfig& cfg, const VelocitySet& vs, const Decomposition& dec, Field<double>& f0)
    : kind(to_string(cfg.halo)), fwd_plan(forward_plan(cfg, vs, dec, f0)) {
  // The write-back is always reduced: with full components it would
  // overwrite populations this rank has just computed.
  if (cfg.kernel == Kernel::aa)
    rev_plan.emplace(
        Plan(dec, {FieldSpec::of(f0, outside(crossing_components(vs.reversed()), unexchanged(cfg, dec)))})
            .transposed(vs.c, wrapped_dims(cfg, dec)));
}

void HaloPart::start(const LbConfig& cfg) {
  // With the AA pattern each of the two exchanges runs every other step.
  const long recheck = rev_plan ? (cfg.auto_recheck + 1) / 2 : cfg.auto_recheck;
  fwd = strategy_for(cfg.strategy, fwd_plan, recheck);
  if (rev_plan) rev = strategy_for(cfg.strategy, *rev_plan, recheck);
}

double HaloPart::bytes_per_step() const {
  if (!rev_plan) return static_cast<double>(fwd_plan.halo_bytes());
  return 0.5 * static_cast<double>(fwd_plan.halo_bytes() + rev_plan->halo_bytes());
}

}  // namespace haloex::lb::detail
