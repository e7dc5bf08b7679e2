#pragma once
// The collision of the LB kernels (internal header): moments and the TRT
// (or BGK) relaxation of one site, written once for every kernel and every
// code path, so that vector bodies, remainders and the scalar boundary path
// round identically: that, and -ffp-contract=off for the kernels, is what
// makes results bit-identical for any decomposition and thread count.
#include <limits>
#include <type_traits>
#include <utility>

#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb::detail {

// The collision is large enough that GCC declines to inline it into the site
// loop and calls it once per site, which also keeps the loop from being
// vectorised. Everything the loop body calls is therefore forced inline.
#define HALOEX_LB_INLINE inline __attribute__((always_inline))

/// Call f(std::integral_constant<int, I>) for I = 0 .. N-1, unrolled.
template <int N, class F>
HALOEX_LB_INLINE void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) __attribute__((always_inline)) {
    (f(std::integral_constant<int, I>{}), ...);
  }
  (std::make_integer_sequence<int, N>{});
}

/// Collision parameters: TRT relaxation rates (BGK has omega_m == omega_p)
/// and the Guo forcing factors.
struct Collision {
  double omega_p = 1, omega_m = 1;
  double keep_p = 0.5, keep_m = 0.5;  // 1 - omega/2
  double force[3] = {0, 0, 0};
};

/// Per-thread monitoring statistics gathered by the kernels.
struct Stats {
  double rho_min = std::numeric_limits<double>::infinity();
  double rho_max = -std::numeric_limits<double>::infinity();
  double u2_max = 0;
  double nan_sites = 0;
  void merge(const Stats& o) {
    rho_min = o.rho_min < rho_min ? o.rho_min : rho_min;
    rho_max = o.rho_max > rho_max ? o.rho_max : rho_max;
    u2_max = o.u2_max > u2_max ? o.u2_max : u2_max;
    nan_sites += o.nan_sites;
  }
};

// Adds s * v to acc for a compile-time sign s, without multiplying by 0 or 1
// (which the compiler may not drop under IEEE rules).
//
// V, here and below, is double or a SIMD batch of doubles (simd.hpp), one
// site per lane: the same operations in the same order on every lane, so a
// vector body and the scalar path round identically.
template <int S, class V>
HALOEX_LB_INLINE void accumulate(V& acc, const V& v) {
  if constexpr (S > 0)
    acc += v;
  else if constexpr (S < 0)
    acc -= v;
}

template <int S0, int S1, int S2, class V>
HALOEX_LB_INLINE V dot(const V& x, const V& y, const V& z) {
  V r = 0.0;
  accumulate<S0>(r, x);
  accumulate<S1>(r, y);
  accumulate<S2>(r, z);
  return r;
}

/// The moments of one site (or a batch of sites) that its relaxation needs.
template <class V = double>
struct Moments {
  V rho, ux, uy, uz, u2, base, uf;
};

/// Density, velocity and the equilibrium's direction-independent part of a
/// site whose pre-collision population i is f(i).
template <class L, bool Forced, class F>
HALOEX_LB_INLINE auto moments(F f, const Collision& p) {
  using V = std::decay_t<decltype(f(std::integral_constant<int, 0>{}))>;
  constexpr int Q = L::q;
  V rho = 0.0, jx = 0.0, jy = 0.0, jz = 0.0;
  static_for<Q>([&](auto I) __attribute__((always_inline)) {
    constexpr int i = I;
    const V v = f(I);
    rho += v;
    accumulate<L::c[i][0]>(jx, v);
    accumulate<L::c[i][1]>(jy, v);
    accumulate<L::c[i][2]>(jz, v);
  });
  const V inv = 1.0 / rho;
  Moments<V> m;
  if constexpr (Forced) {
    m.ux = (jx + 0.5 * p.force[0]) * inv;
    m.uy = (jy + 0.5 * p.force[1]) * inv;
    m.uz = (jz + 0.5 * p.force[2]) * inv;
  } else {
    m.ux = jx * inv;
    m.uy = jy * inv;
    m.uz = jz * inv;
  }
  m.rho = rho;
  m.u2 = m.ux * m.ux + m.uy * m.uy + m.uz * m.uz;
  m.base = rho * (1.0 - 1.5 * m.u2);
  m.uf = 0.0;
  if constexpr (Forced) m.uf = m.ux * p.force[0] + m.uy * p.force[1] + m.uz * p.force[2];
  return m;
}

/// Relax a site with moments m: out(i, value) receives post-collision
/// population i, computed from f(i) and f(opposite(i)) a pair at a time (TRT;
/// BGK when omega_m == omega_p).
template <class L, bool Forced, class F, class Out, class V>
HALOEX_LB_INLINE void relax(F f, Out out, const Moments<V>& m, const Collision& p) {
  constexpr int Q = L::q;
  const V r45 = 4.5 * m.rho, r3 = 3.0 * m.rho;
  {
    constexpr double w = L::w[0];
    const V f0 = f(std::integral_constant<int, 0>{});
    V o = f0 - p.omega_p * (f0 - w * m.base);
    if constexpr (Forced) o += p.keep_p * (w * (-3.0 * m.uf));
    out(std::integral_constant<int, 0>{}, o);
  }
  static_for<Q>([&](auto I) __attribute__((always_inline)) {
    constexpr int i = I;
    constexpr int j = L::opp[i];
    if constexpr (i != 0 && i < j) {
      constexpr double w = L::w[i];
      const V fi = f(I), fj = f(std::integral_constant<int, j>{});
      const V cu = dot<L::c[i][0], L::c[i][1], L::c[i][2]>(m.ux, m.uy, m.uz);
      const V fp = 0.5 * (fi + fj), fm = 0.5 * (fi - fj);
      const V dp = p.omega_p * (fp - w * (m.base + r45 * cu * cu));
      const V dm = p.omega_m * (fm - w * (r3 * cu));
      V oi = fi - dp - dm, oj = fj - dp + dm;
      if constexpr (Forced) {
        const double cf = dot<L::c[i][0], L::c[i][1], L::c[i][2]>(p.force[0], p.force[1], p.force[2]);
        const V sym = p.keep_p * (w * (9.0 * cu * cf - 3.0 * m.uf));
        const V anti = p.keep_m * (w * (3.0 * cf));
        oi += sym + anti;
        oj += sym - anti;
      }
      out(I, oi);
      out(std::integral_constant<int, j>{}, oj);
    }
  });
}

/// Relax one site's populations f (pre-collision) into out; returns the
/// density and |u|^2 for monitoring.
template <class L, bool Forced>
HALOEX_LB_INLINE void collide(const double* f, double* out, const Collision& p, double& rho_out,
                              double& u2_out) {
  auto in = [&](auto I) __attribute__((always_inline)) { return f[I]; };
  const Moments<> m = moments<L, Forced>(in, p);
  relax<L, Forced>(
      in, [&](auto I, double v) __attribute__((always_inline)) { out[I] = v; }, m, p);
  rho_out = m.rho;
  u2_out = m.u2;
}

}  // namespace haloex::lb::detail
