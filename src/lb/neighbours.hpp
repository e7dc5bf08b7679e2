#pragma once
// Where each site's neighbours are (internal header). On a periodic
// dimension that one rank holds whole, the kernels read and write across the
// boundary directly, through displacement tables per site class, instead of
// copying a halo there every step (Ludwig's and RRZE's kernels do the same
// with index wrap or lists). A class is, per dimension, whether the site lies
// on the low face, the high face, both (one site thick) or neither.
//
// Flat resting walls (the faces of non-periodic dimensions, SoA) go into the
// same tables: a link that crosses such a face points at the site's own
// opposite slot, which is where half-way bounce-back reads or writes it, so
// the sites next to a wall stay on the vectorised path. The one-site path,
// which finds solids by their kind, takes the tables without walls.
#include <array>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb::detail {

/// The faces whose walls the tables carry, per dimension: bit 1 the low
/// face, bit 2 the high face.
using WallFaces = std::array<int, 3>;

class NeighbourTables {
 public:
  /// `wrap[d]`: dimension d is periodic and this rank's whole. `walls`: the
  /// faces of this rank that are resting walls (never on a wrapped
  /// dimension); `aa` chooses the AA odd step's slot rule, else pull's.
  NeighbourTables(const FieldShape& shape, const VelocitySet& vs, std::array<bool, 3> wrap,
                  WallFaces walls = {}, bool aa = true);

  bool wraps(int d) const { return wrap_[d]; }
  bool wraps_any() const { return wrap_[0] || wrap_[1] || wrap_[2]; }
  /// The wall faces the tables carry.
  const WallFaces& walls() const { return walls_; }
  /// The class bits of coordinate x along dimension d (0 in the bulk).
  int site_class(int d, long x) const {
    const int faces = wrap_[d] ? 3 : walls_[d];
    return (((x == 0 ? 1 : 0) | (x == local_[d] - 1 ? 2 : 0)) & faces) << (2 * d);
  }
  /// Displacements of a class: s + table(c)[i] is the neighbour in direction
  /// i, or, across a wall, the site itself shifted to the bounce-back slot.
  const long* table(int cls) const { return tables_.data() + static_cast<size_t>(cls) * q_; }
  /// The same without walls: s + site_table(c)[i] is always a site.
  const long* site_table(int cls) const { return site_tables_.data() + static_cast<size_t>(cls) * q_; }
  const long* bulk() const { return table(0); }
  /// The site table of interior site (i, j, k).
  const long* site_at(long i, long j, long k) const {
    return site_table(site_class(0, i) | site_class(1, j) | site_class(2, k));
  }
  /// Coordinate x along dimension d (at most one step outside the interior),
  /// folded back into the interior when d wraps; unchanged otherwise.
  long fold(int d, long x) const { return wrap_[d] ? (x + local_[d]) % local_[d] : x; }

 private:
  std::array<bool, 3> wrap_;
  WallFaces walls_;
  std::array<long, 3> local_;
  int q_;
  std::vector<long> tables_, site_tables_;  // 64 classes x q each
};

}  // namespace haloex::lb::detail
