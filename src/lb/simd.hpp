#pragma once
// Explicit SIMD for the LB kernels (internal header): the batch type, W
// consecutive sites, one per lane of an xsimd batch (the widest the build's
// instruction set has: 8 doubles with AVX-512), and the partial loads and
// stores of a run's last sites. The kernels whose populations of one
// direction are contiguous across sites (SoA) run collision.hpp's collision
// on batches instead of doubles: the same operations in the same order on
// every lane, so results are bit-identical to the scalar path. Without
// xsimd (HALOEX_LB_XSIMD undefined) they keep the compiler-vectorised loop.
#include "collision.hpp"

#if defined(HALOEX_LB_XSIMD)
#include <xsimd/xsimd.hpp>
#endif

namespace haloex::lb::detail {

#if defined(HALOEX_LB_XSIMD)
using Batch = xsimd::batch<double>;
inline constexpr long simd_width = static_cast<long>(Batch::size);

// Lanes 0 .. r-1 of a batch from p (the others zero) and to p (the others
// left alone), for the last r < W sites of a run: masked loads and stores
// where the instruction set has them, a buffer otherwise.
HALOEX_LB_INLINE Batch load_first(const double* p, long r) {
#if XSIMD_WITH_AVX512F
  if constexpr (simd_width == 8) return Batch(_mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << r) - 1), p));
#endif
  alignas(64) double b[simd_width] = {};
  for (long l = 0; l < r; ++l) b[l] = p[l];
  return Batch::load_aligned(b);
}

HALOEX_LB_INLINE void store_first(const Batch& v, double* p, long r) {
#if XSIMD_WITH_AVX512F
  if constexpr (simd_width == 8) return _mm512_mask_storeu_pd(p, static_cast<__mmask8>((1u << r) - 1), v);
#endif
  alignas(64) double b[simd_width];
  v.store_aligned(b);
  for (long l = 0; l < r; ++l) p[l] = b[l];
}

#endif

}  // namespace haloex::lb::detail
