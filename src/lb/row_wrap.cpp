// See row_wrap.hpp.
#include "row_wrap.hpp"

namespace haloex::lb::detail {

RowWrap::RowWrap(const FieldShape& sh, const VelocitySet& vs, const SiteMap& map, const NeighbourTables& nbt,
                 const std::vector<uint8_t>& kinds, bool aa) {
  const int rd = map.row_dim(), o0 = map.outer(0), o1 = map.outer(1);
  const long rn = sh.local[rd], step = sh.stride[rd];
  n1_ = sh.local[o1];
  auto elem = [&](long s, int q) { return s * sh.site_stride + q * sh.comp_stride; };
  fill_.start.assign(1, 0);
  back_.start.assign(1, 0);
  for (long a = 0; a < sh.local[o0]; ++a)
    for (long b = 0; b < n1_; ++b) {
      long p[3] = {0, 0, 0};
      p[o0] = a;
      p[o1] = b;
      const long row0 = sh.site(p[0], p[1], p[2]);
      // side 0: the halo site before the row, whose image is the row's last
      // site; side 1: the one after it, whose image is the first.
      for (int side = 0; side < 2; ++side) {
        const int out = side == 0 ? -1 : 1;  // the direction that leaves the row there
        const long halo = side == 0 ? row0 - step : row0 + rn * step;
        const long image = side == 0 ? row0 + (rn - 1) * step : row0;
        for (int q = 0; q < vs.q; ++q) {
          const int c = vs.c[q][rd];
          // Read there: pull direction i from x - c_i (c_i enters the row);
          // AA the slot opposite(i), whose own direction leaves it.
          if (c == (aa ? out : -out)) fill_.copies.push_back({elem(halo, q), elem(image, q)});
          if (!aa || c != out) continue;
          // Written there by the AA odd step's site halo - c_q, folded as the
          // kernels fold it, and returned to the image unless that writer is
          // not fluid.
          long w[3] = {p[0], p[1], p[2]};
          w[o0] = nbt.fold(o0, a - vs.c[q][o0]);
          w[o1] = nbt.fold(o1, b - vs.c[q][o1]);
          w[rd] = side == 0 ? 0 : rn - 1;
          if (kinds[static_cast<size_t>(sh.site(w[0], w[1], w[2]))] == site_fluid)
            back_.copies.push_back({elem(image, q), elem(halo, q)});
        }
      }
      fill_.start.push_back(static_cast<long>(fill_.copies.size()));
      back_.start.push_back(static_cast<long>(back_.copies.size()));
    }
}

}  // namespace haloex::lb::detail
