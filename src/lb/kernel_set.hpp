#pragma once
// The collide-stream kernels of one (velocity set, layout, forcing,
// monitoring) choice as a table of function pointers, picked once when the
// solver starts (kernels.hpp holds the kernels themselves).
#include <string>
#include <string_view>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/field/field.hpp"
#include "haloex/lb/config.hpp"
#include "kernels.hpp"

namespace haloex::lb::detail {

// The kernels of one (velocity set, layout, forcing, monitoring) choice.
struct KernelSet {
  void (*local_same)(const double*, double*, long, long, const Context&, Stats&);
  void (*local_swap)(const double*, double*, long, long, const Context&, Stats&);
  void (*pull)(const double*, double*, long, long, const Context&, Stats&);
  void (*aa_odd)(double*, long, long, const Context&, Stats&);
  void (*pull_list)(const double*, double*, const long*, long, const Context&, Stats&);
  void (*aa_odd_list)(double*, const long*, long, const Context&, Stats&);
  void (*pull_site)(const double*, double*, long, const Context&, Stats&);
  void (*aa_odd_site)(double*, long, const Context&, Stats&);
  double (*incoming_pull)(const double*, long, int, const Context&);
  double (*incoming_aa)(const double*, long, int, const Context&);
};

template <class L, bool Soa, bool Forced, bool Mon>
KernelSet kernel_set() {
  return {local_run<L, Soa, Forced, Mon, false>,
          local_run<L, Soa, Forced, Mon, true>,
          pull_run<L, Soa, Forced, Mon>,
          aa_odd_run<L, Soa, Forced, Mon>,
          pull_list<L, Soa, Forced, Mon>,
          aa_odd_list<L, Soa, Forced, Mon>,
          pull_site<L, Soa, Forced, Mon>,
          aa_odd_site<L, Soa, Forced, Mon>,
          incoming<L, Soa, false>,
          incoming<L, Soa, true>};
}

template <class L>
KernelSet pick(bool soa, bool forced, bool mon) {
  if (soa) {
    if (forced) return mon ? kernel_set<L, true, true, true>() : kernel_set<L, true, true, false>();
    return mon ? kernel_set<L, true, false, true>() : kernel_set<L, true, false, false>();
  }
  if (forced) return mon ? kernel_set<L, false, true, true>() : kernel_set<L, false, true, false>();
  return mon ? kernel_set<L, false, false, true>() : kernel_set<L, false, false, false>();
}

// Each velocity set's 8 kernel sets (layout x forcing x monitoring, 10
// kernels each) are compiled in a file of their own, kernels_<set>.cpp: all
// 32 in solver.cpp made it the build's longest step by far, one that no
// second core could share.
extern template KernelSet pick<D2Q9>(bool soa, bool forced, bool mon);
extern template KernelSet pick<D3Q15>(bool soa, bool forced, bool mon);
extern template KernelSet pick<D3Q19>(bool soa, bool forced, bool mon);
extern template KernelSet pick<D3Q27>(bool soa, bool forced, bool mon);

// The velocity sets this build compiled kernels for, comma-separated
// (CMake's HALOEX_LB_VELOCITY_SETS).
#ifndef HALOEX_LB_BUILT_SETS
#define HALOEX_LB_BUILT_SETS "D2Q9,D3Q15,D3Q19,D3Q27"
#endif
// (no set's name is part of another's)
template <class L>
constexpr bool compiled = std::string_view(HALOEX_LB_BUILT_SETS).find(L::name) != std::string_view::npos;

/// The kernels of the velocity set `name`, or InputError when this build
/// left that set out.
inline KernelSet pick(const std::string& name, bool soa, bool forced, bool mon) {
  return with_velocity_set(name, [&](auto l) -> KernelSet {
    using L = decltype(l);
    if constexpr (compiled<L>)
      return pick<L>(soa, forced, mon);
    else
      throw InputError("velocity set " + name +
                       ": this build has no kernels for it (CMake's HALOEX_LB_VELOCITY_SETS left it out)");
  });
}

/// The kernels of a run and what they get besides their arrays: the
/// collision parameters, the site kinds, the moving wall's term per
/// direction and the bulk neighbour table.
struct Kernels {
  std::vector<double> wall;  // moving-wall term per direction
  Context ctx;
  KernelSet set[2];  // without / with monitoring

  Kernels(const LbConfig& cfg, const VelocitySet& vs, const FieldShape& sh, const long* bulk,
          const uint8_t* kinds) {
    for (int i = 0; i < vs.q; ++i) {
      double cu = 0;
      for (int d = 0; d < 3; ++d) cu += vs.c[i][d] * cfg.wall_velocity[d];
      wall.push_back(2.0 * vs.w[i] * cfg.rho0 * cu / cs2);
    }
    ctx.cs = sh.comp_stride;
    ctx.nb = bulk;
    ctx.kind = kinds;
    ctx.wall = wall.data();
    const double tau_m = cfg.collision == lb::Collision::trt ? 0.5 + cfg.magic / (cfg.tau - 0.5) : cfg.tau;
    ctx.coll.omega_p = 1.0 / cfg.tau;
    ctx.coll.omega_m = 1.0 / tau_m;
    ctx.coll.keep_p = 1.0 - 0.5 * ctx.coll.omega_p;
    ctx.coll.keep_m = 1.0 - 0.5 * ctx.coll.omega_m;
    for (int d = 0; d < 3; ++d) ctx.coll.force[d] = cfg.force[d];
    const bool forced = cfg.force[0] != 0 || cfg.force[1] != 0 || cfg.force[2] != 0;
    const bool soa = cfg.layout == Layout::soa;
    for (int mon = 0; mon < 2; ++mon) set[mon] = pick(cfg.velocity_set, soa, forced, mon);
  }
  Kernels(const Kernels&) = delete;  // ctx points into wall
  Kernels& operator=(const Kernels&) = delete;

  /// The context with another neighbour table (and a flat run's gaps).
  Context with(const long* nb, Gaps gaps = {}) const {
    Context c = ctx;
    c.nb = nb;
    c.gaps = gaps;
    return c;
  }
};

}  // namespace haloex::lb::detail
