#pragma once
// What the lattice's sites are (internal header): the kind of every
// allocated site, the map of runs along rows the sweeps follow, the fluid
// sites over all ranks, and the boxes a sweep covers.
#include <array>
#include <cstdint>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/lb/config.hpp"
#include "haloex/lb/geometry.hpp"
#include "haloex/lb/velocity_set.hpp"
#include "neighbours.hpp"

namespace haloex::lb::detail {

/// The boxes a sweep covers: the whole interior, or (interior overlap) the
/// inner sites, which read no halo another process fills, and the shell.
struct SweepBoxes {
  std::vector<Box> all, inner, shell;
};

/// The sweep boxes of this rank's interior.
SweepBoxes sweep_boxes(const FieldShape& sh, int ndim, const Decomposition& dec);

/// The faces of this rank that are resting walls the kernels take from
/// their neighbour tables.
WallFaces table_walls(const LbConfig& c, const Decomposition& dec);

class Sites {
 public:
  /// Kinds from the case's geometry (collective: counts the fluid sites).
  Sites(const LbConfig& cfg, const VelocitySet& vs, const Decomposition& dec, const FieldShape& sh,
        const NeighbourTables& nbt);

  const std::vector<uint8_t>& kinds() const { return kinds_; }
  const SiteMap& map() const { return map_; }
  long fluid_global() const { return fluid_global_; }
  /// Build the site map again (overlap = map: the 2016 paper's experiment).
  void rebuild_map() { map_.build(sh_, ndim_, map_kinds_, offsets_); }

  /// Visit every fluid site of the interior, x slowest: f(s, n, p) with s
  /// the site, n its place in that order counting solid sites too (as the
  /// gathered arrays do) and p its local coordinates.
  template <class F>
  void for_each_fluid(F f) const {
    const Box b = sh_.interior();
    long n = 0;
    for (long i = b.lo[0]; i < b.hi[0]; ++i)
      for (long j = b.lo[1]; j < b.hi[1]; ++j)
        for (long l = b.lo[2]; l < b.hi[2]; ++l, ++n) {
          const long s = sh_.site(i, j, l);
          if (kinds_[static_cast<size_t>(s)] == site_fluid) f(s, n, std::array<long, 3>{i, j, l});
        }
  }

 private:
  FieldShape sh_;
  int ndim_;
  std::vector<uint8_t> kinds_;
  std::vector<uint8_t> map_kinds_;  // kinds with the solids behind table walls as fluid: the map's view
  std::vector<long> offsets_;       // site displacement of each velocity
  SiteMap map_;
  long fluid_global_ = 0;
};

}  // namespace haloex::lb::detail
