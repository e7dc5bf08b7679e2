#pragma once
// The collide-stream kernels of one (velocity set, layout, forcing,
// monitoring) choice as a table of function pointers, picked once when the
// solver starts (kernels.hpp holds the kernels themselves).
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

}  // namespace haloex::lb::detail
