#pragma once
// The AA pattern's wall guard: border locations that bounce-back filled and
// the write-back would overwrite (their writer is a solid site in the halo,
// which no rank updates), saved after the odd step and restored after the
// write-back.
#include <array>
#include <cstdint>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/lb/geometry.hpp"
#include "haloex/lb/velocity_set.hpp"
#include "neighbours.hpp"

namespace haloex::lb::detail {

struct WallGuard {
  std::vector<long> at[2];  // [0]: overwritten by local copies in begin(), [1]: by messages in end()
  std::vector<double> values[2];

  // Guard locations: (site, direction) whose AA odd-step population bounced
  // off a solid halo site and so sits in this rank's interior, where the
  // write-back would overwrite it with the solid image's stale value. Those
  // whose solid site lies only across single-process dimensions are
  // overwritten by local copies in begin() (at[0]), the rest by messages in
  // end() (at[1]); each list is restored as soon as its writer is done, so
  // that the inner update of interior overlap, which runs in between and
  // may read at[0] locations, sees the right values. `each_fluid(f)` calls
  // f(site, run length, position) for every fluid site, as the solver does.
  template <class EachFluid>
  void build(const FieldShape& sh, const VelocitySet& vs, const NeighbourTables& nbt,
             const Decomposition& dec, const std::vector<uint8_t>& kinds, EachFluid&& each_fluid) {
    each_fluid([&](long s, long, const std::array<long, 3>& p) {
      for (int q = 0; q < vs.q; ++q) {
        long w[3];
        for (int d = 0; d < 3; ++d) w[d] = nbt.fold(d, p[d] - vs.c[q][d]);
        bool in_halo = false, remote = false;
        for (int d = 0; d < vs.ndim; ++d) {
          const bool out = w[d] < 0 || w[d] >= sh.local[d];
          in_halo = in_halo || out;
          remote = remote || (out && dec.procs(d) > 1);
        }
        if (in_halo && kinds[static_cast<size_t>(sh.site(w[0], w[1], w[2]))] != site_fluid)
          at[remote ? 1 : 0].push_back(s * sh.site_stride + q * sh.comp_stride);
      }
    });
    for (int k = 0; k < 2; ++k) values[k].resize(at[k].size());
  }

  void save(const double* a) {
    for (int g = 0; g < 2; ++g)
      for (size_t k = 0; k < at[g].size(); ++k) values[g][k] = a[at[g][k]];
  }
  void restore(double* a, int g) const {
    for (size_t k = 0; k < at[g].size(); ++k) a[at[g][k]] = values[g][k];
  }
};

}  // namespace haloex::lb::detail
