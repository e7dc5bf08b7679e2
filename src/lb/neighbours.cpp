#include "neighbours.hpp"

namespace haloex::lb::detail {

NeighbourTables::NeighbourTables(const FieldShape& shape, const VelocitySet& vs, std::array<bool, 3> wrap,
                                 WallFaces walls, bool aa)
    : wrap_(wrap), walls_(walls), local_{shape.local[0], shape.local[1], shape.local[2]}, q_(vs.q) {
  tables_.resize(64 * static_cast<size_t>(q_));
  site_tables_.resize(tables_.size());
  for (int cls = 0; cls < 64; ++cls)
    for (int i = 0; i < q_; ++i) {
      long s = 0;
      bool wall = false;
      for (int d = 0; d < 3; ++d) {
        const int c = vs.c[i][d];
        const int bits = (cls >> (2 * d)) & 3;
        long step = c;
        // Leaving through the low face (c = -1 from x = 0) lands on the high
        // face, and the other way round.
        const bool out = (c < 0 && (bits & 1)) || (c > 0 && (bits & 2));
        if (out && wrap_[d]) step -= c * local_[d];
        wall = wall || (out && !wrap_[d]);
        s += step * shape.stride[d];
      }
      site_tables_[static_cast<size_t>(cls) * q_ + i] = s;
      // Across a wall: the site itself, shifted to the slot that half-way
      // bounce-back uses (SoA: slot k of site s is s + k * comp_stride). The
      // AA odd step writes direction i to slot i of x + c_i, and reads
      // direction opposite(i) from slot i of x + c_i too: across a wall both
      // are slot opposite(i) of x, a shift of (opposite(i) - i). Pull reads
      // direction opposite(i) from slot opposite(i) of x + c_i; across a
      // wall that is slot i of x, the opposite shift.
      const long shift = static_cast<long>(vs.opp[static_cast<size_t>(i)] - i) * shape.comp_stride;
      tables_[static_cast<size_t>(cls) * q_ + i] = wall ? (aa ? shift : -shift) : s;
    }
}

}  // namespace haloex::lb::detail
