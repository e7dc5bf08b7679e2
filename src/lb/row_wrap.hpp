#pragma once
// The row dimension's periodic halo under a flat sweep on a rank that holds
// the whole lattice (internal header): copied row by row inside the sweep,
// right before or after the kernels update those rows, while their cache
// lines are at hand. Copied as a separate pass by the halo exchange it took
// 7% of the step at 128^3 (two cold cache lines per value, a row apart).
//
// Rows are the SiteMap's: along the contiguous dimension, indexed (a, b)
// over the two outer ones. Each row has two halo sites, before its first
// site and after its last, whose periodic images are the row's other end.
#include <cstdint>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/lb/geometry.hpp"
#include "haloex/lb/velocity_set.hpp"
#include "neighbours.hpp"

namespace haloex::lb::detail {

class RowWrap {
 public:
  RowWrap() = default;  // inactive
  /// The copies of every interior row: `fill` writes into the two halo sites
  /// what the kernels read there (pull: direction i from x - c_i; AA: the
  /// opposite slot), `write_back` returns what the AA odd step wrote there to
  /// the row's other end, leaving out locations whose writer is not fluid
  /// (their bounce-back value is already in place: see WallGuard).
  RowWrap(const FieldShape& sh, const VelocitySet& vs, const SiteMap& map, const NeighbourTables& nbt,
          const std::vector<uint8_t>& kinds, bool aa);

  bool active() const { return !fill_.start.empty(); }
  /// Rows (a, b0) .. (a, b1 - 1) of the populations f.
  /// @{
  void fill(double* f, long a, long b0, long b1) const { fill_.apply(f, a * n1_ + b0, a * n1_ + b1); }
  void write_back(double* f, long a, long b0, long b1) const { back_.apply(f, a * n1_ + b0, a * n1_ + b1); }
  /// @}
  /// Every row (outside a sweep).
  void write_back_all(double* f) const { back_.apply(f, 0, static_cast<long>(back_.start.size()) - 1); }

 private:
  struct Copy {
    long to, from;
  };
  // Copies row by row: row r's are copies[start[r]] .. copies[start[r + 1] - 1].
  struct Lists {
    std::vector<Copy> copies;
    std::vector<long> start;
    void apply(double* f, long r0, long r1) const {
      for (long k = start[static_cast<size_t>(r0)]; k < start[static_cast<size_t>(r1)]; ++k)
        f[copies[static_cast<size_t>(k)].to] = f[copies[static_cast<size_t>(k)].from];
    }
  };
  Lists fill_, back_;
  long n1_ = 1;  // rows per plane
};

}  // namespace haloex::lb::detail
