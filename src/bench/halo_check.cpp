#include "haloex/bench/halo_check.hpp"

#include <cstdio>
#include <cstring>

namespace haloex {

namespace {

double global_value(const Decomposition& dec, const std::array<long, max_dims>& g, int c, int ncomp) {
  const double lin =
      (static_cast<double>(g[0]) * static_cast<double>(dec.global_size(1)) + static_cast<double>(g[1])) *
          static_cast<double>(dec.global_size(2)) +
      static_cast<double>(g[2]);
  return 1.0 + c + ncomp * lin;
}

double sentinel(long element) { return -1.0 - static_cast<double>(element); }

// A local site's halo offset (0 inside) and its periodic image's global
// coordinates; false where the image lies beyond a wall.
bool image_of(const Decomposition& dec, const FieldShape& s, const std::array<long, max_dims>& loc, Offset& o,
              std::array<long, max_dims>& g) {
  bool exists = true;
  for (int d = 0; d < max_dims; ++d) {
    o[d] = loc[d] < 0 ? -1 : (loc[d] >= s.local[d] ? 1 : 0);
    g[d] = dec.offset(d) + loc[d];
    const long n = dec.global_size(d);
    if (g[d] < 0 || g[d] >= n) {
      if (!dec.periodic(d)) exists = false;
      g[d] = (g[d] % n + n) % n;
    }
  }
  return exists;
}

bool promised(const HaloPromise& p, const Offset& o, int c) {
  const int nonzero = (o[0] != 0) + (o[1] != 0) + (o[2] != 0);
  if (p.regions == Regions::faces && nonzero > 1) return false;
  return !p.travels || p.travels(o, c);
}

}  // namespace

template <class T>
void encode_global_index(Field<T>& f, const Decomposition& dec) {
  const FieldShape& s = f.shape();
  const Box all = s.allocated();
  for (long i = all.lo[0]; i < all.hi[0]; ++i)
    for (long j = all.lo[1]; j < all.hi[1]; ++j)
      for (long k = all.lo[2]; k < all.hi[2]; ++k) {
        const bool inside = s.interior().contains(i, j, k);
        const std::array<long, max_dims> g{dec.offset(0) + i, dec.offset(1) + j, dec.offset(2) + k};
        for (int c = 0; c < s.ncomp; ++c) {
          const long e = s.element(i, j, k, c);
          f.data()[e] = static_cast<T>(inside ? global_value(dec, g, c, s.ncomp) : sentinel(e));
        }
      }
}

template <class T>
long count_wrong_halo(const Field<T>& f, const Decomposition& dec, const HaloPromise& promise,
                      const std::string& label) {
  const FieldShape& s = f.shape();
  const Box all = s.allocated();
  long wrong = 0;
  for (long i = all.lo[0]; i < all.hi[0]; ++i)
    for (long j = all.lo[1]; j < all.hi[1]; ++j)
      for (long k = all.lo[2]; k < all.hi[2]; ++k) {
        Offset o{0, 0, 0};
        std::array<long, max_dims> g{};
        const bool exists = image_of(dec, s, {i, j, k}, o, g);
        const bool halo = o != Offset{0, 0, 0};
        for (int c = 0; c < s.ncomp; ++c) {
          const long e = s.element(i, j, k, c);
          const bool filled = !halo || (exists && promised(promise, o, c));
          const T want = static_cast<T>(filled ? global_value(dec, g, c, s.ncomp) : sentinel(e));
          const T got = f.data()[e];
          // Bit for bit on purpose: tells -0.0 from 0.0, and a NaN is never right.
          // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
          if (std::memcmp(&got, &want, sizeof(T)) == 0) continue;
          if (wrong < 3)
            std::fprintf(stderr, "[check %s] rank %d site (%ld,%ld,%ld) comp %d: got %.17g, want %.17g\n",
                         label.c_str(), dec.rank(), i, j, k, c, static_cast<double>(got),
                         static_cast<double>(want));
          ++wrong;
        }
      }
  return wrong;
}

template void encode_global_index<double>(Field<double>&, const Decomposition&);
template void encode_global_index<float>(Field<float>&, const Decomposition&);
template long count_wrong_halo<double>(const Field<double>&, const Decomposition&, const HaloPromise&,
                                       const std::string&);
template long count_wrong_halo<float>(const Field<float>&, const Decomposition&, const HaloPromise&,
                                      const std::string&);

}  // namespace haloex
