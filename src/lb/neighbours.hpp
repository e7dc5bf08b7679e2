#pragma once
// Where each site's neighbours are (internal header). On a periodic
// dimension that one rank holds whole, the kernels read and write across the
// boundary directly, through displacement tables per site class, instead of
// copying a halo there every step (Ludwig's and RRZE's kernels do the same
// with index wrap or lists). A class is, per dimension, whether the site lies
// on the low face, the high face, both (one site thick) or neither.
#include <array>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb::detail {

class NeighbourTables {
 public:
  /// `wrap[d]`: dimension d is periodic and this rank's whole.
  NeighbourTables(const FieldShape& shape, const VelocitySet& vs, std::array<bool, 3> wrap);

  bool wraps(int d) const { return wrap_[d]; }
  bool wraps_any() const { return wrap_[0] || wrap_[1] || wrap_[2]; }
  /// The class bits of coordinate x along dimension d (0 in the bulk).
  int site_class(int d, long x) const {
    if (!wrap_[d]) return 0;
    return ((x == 0 ? 1 : 0) | (x == local_[d] - 1 ? 2 : 0)) << (2 * d);
  }
  /// Displacements of a class: s + table(c)[i] is the neighbour in direction i.
  const long* table(int cls) const { return tables_.data() + static_cast<size_t>(cls) * q_; }
  const long* bulk() const { return table(0); }
  /// The table of interior site (i, j, k).
  const long* at(long i, long j, long k) const {
    return table(site_class(0, i) | site_class(1, j) | site_class(2, k));
  }
  /// Coordinate x along dimension d (at most one step outside the interior),
  /// folded back into the interior when d wraps; unchanged otherwise.
  long fold(int d, long x) const { return wrap_[d] ? (x + local_[d]) % local_[d] : x; }

 private:
  std::array<bool, 3> wrap_;
  std::array<long, 3> local_;
  int q_;
  std::vector<long> tables_;  // 64 classes x q
};

}  // namespace haloex::lb::detail
