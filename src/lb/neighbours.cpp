#include "neighbours.hpp"

namespace haloex::lb::detail {

NeighbourTables::NeighbourTables(const FieldShape& shape, const VelocitySet& vs, std::array<bool, 3> wrap)
    : wrap_(wrap), local_{shape.local[0], shape.local[1], shape.local[2]}, q_(vs.q) {
  tables_.resize(static_cast<size_t>(64 * q_));
  for (int cls = 0; cls < 64; ++cls)
    for (int i = 0; i < q_; ++i) {
      long s = 0;
      for (int d = 0; d < 3; ++d) {
        const int c = vs.c[i][d];
        const int bits = (cls >> (2 * d)) & 3;
        long step = c;
        // Leaving through the low face (c = -1 from x = 0) lands on the high
        // face, and the other way round.
        if (c < 0 && (bits & 1)) step += local_[d];
        if (c > 0 && (bits & 2)) step -= local_[d];
        s += step * shape.stride[d];
      }
      tables_[static_cast<size_t>(cls * q_ + i)] = s;
    }
}

}  // namespace haloex::lb::detail
