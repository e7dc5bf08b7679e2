#pragma once
// The LB update kernels (internal header). One collision for every kernel and
// every code path, so that vector bodies, remainders and the scalar boundary
// path round identically: that, and -ffp-contract=off for this directory, is
// what makes results bit-identical for any decomposition and thread count.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
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
template <int S>
HALOEX_LB_INLINE void accumulate(double& acc, double v) {
  if constexpr (S > 0) acc += v;
  else if constexpr (S < 0) acc -= v;
}

template <int S0, int S1, int S2>
HALOEX_LB_INLINE double dot(double x, double y, double z) {
  double r = 0;
  accumulate<S0>(r, x);
  accumulate<S1>(r, y);
  accumulate<S2>(r, z);
  return r;
}

/// Relax one site's populations f (pre-collision) into out; returns the
/// density and |u|^2 for monitoring.
template <class L, bool Forced>
HALOEX_LB_INLINE void collide(const double* f, double* out, const Collision& p, double& rho_out, double& u2_out) {
  constexpr int Q = L::q;
  double rho = 0, jx = 0, jy = 0, jz = 0;
  static_for<Q>([&](auto I) __attribute__((always_inline)) {
    constexpr int i = I;
    rho += f[i];
    accumulate<L::c[i][0]>(jx, f[i]);
    accumulate<L::c[i][1]>(jy, f[i]);
    accumulate<L::c[i][2]>(jz, f[i]);
  });
  const double inv = 1.0 / rho;
  double ux, uy, uz;
  if constexpr (Forced) {
    ux = (jx + 0.5 * p.force[0]) * inv;
    uy = (jy + 0.5 * p.force[1]) * inv;
    uz = (jz + 0.5 * p.force[2]) * inv;
  } else {
    ux = jx * inv;
    uy = jy * inv;
    uz = jz * inv;
  }
  const double u2 = ux * ux + uy * uy + uz * uz;
  const double base = rho * (1.0 - 1.5 * u2);
  const double r45 = 4.5 * rho, r3 = 3.0 * rho;
  double uf = 0;
  if constexpr (Forced) uf = ux * p.force[0] + uy * p.force[1] + uz * p.force[2];
  {
    constexpr double w = L::w[0];
    double o = f[0] - p.omega_p * (f[0] - w * base);
    if constexpr (Forced) o += p.keep_p * (w * (-3.0 * uf));
    out[0] = o;
  }
  static_for<Q>([&](auto I) __attribute__((always_inline)) {
    constexpr int i = I;
    constexpr int j = L::opp[i];
    if constexpr (i != 0 && i < j) {
      constexpr double w = L::w[i];
      const double cu = dot<L::c[i][0], L::c[i][1], L::c[i][2]>(ux, uy, uz);
      const double fp = 0.5 * (f[i] + f[j]), fm = 0.5 * (f[i] - f[j]);
      const double dp = p.omega_p * (fp - w * (base + r45 * cu * cu));
      const double dm = p.omega_m * (fm - w * (r3 * cu));
      double oi = f[i] - dp - dm, oj = f[j] - dp + dm;
      if constexpr (Forced) {
        const double cf = dot<L::c[i][0], L::c[i][1], L::c[i][2]>(p.force[0], p.force[1], p.force[2]);
        const double sym = p.keep_p * (w * (9.0 * cu * cf - 3.0 * uf));
        const double anti = p.keep_m * (w * (3.0 * cf));
        oi += sym + anti;
        oj += sym - anti;
      }
      out[i] = oi;
      out[j] = oj;
    }
  });
  rho_out = rho;
  u2_out = u2;
}

/// Element index of (site, direction) in either layout.
template <bool Soa, int Q>
HALOEX_LB_INLINE long at(long s, int i, long cs) {
  if constexpr (Soa) return i * cs + s;
  else return s * Q + i;
}

/// What every kernel gets besides its arrays.
struct Context {
  long cs = 0;                  // SoA: elements between directions
  const long* off = nullptr;    // site-index displacement of each velocity
  const uint8_t* kind = nullptr;
  const double* wall = nullptr; // moving-wall term per direction
  Collision coll;
};

inline constexpr uint8_t kind_fluid = 0, kind_wall = 1, kind_moving = 2;

// Running min/max/NaN count of one site, on scalars a simd reduction can own.
HALOEX_LB_INLINE void track(double& rmin, double& rmax, double& umax, double& nan, double rho, double u2) {
  rmin = rho < rmin ? rho : rmin;
  rmax = rho > rmax ? rho : rmax;
  umax = u2 > umax ? u2 : umax;
  nan += (rho != rho || u2 != u2) ? 1.0 : 0.0;
}

template <bool Mon>
inline void observe(Stats& st, double rho, double u2) {
  if constexpr (Mon) track(st.rho_min, st.rho_max, st.u2_max, st.nan_sites, rho, u2);
}

// The vectorised site loop every fast kernel shares: load(s, I) is where
// direction I's pre-collision value at site s is, store(s, I) where its
// post-collision value goes.
//
// Not `omp simd`: GCC privatises the loop body's f[Q]/o[Q] into per-lane
// "simd arrays" laid out lane-major, which it cannot vectorise, and falls back
// to scalar code. Plain auto-vectorisation first scalarises the fully
// unrolled arrays and then vectorises; ivdep tells it what `omp simd` would
// have: the iterations of a kernel never touch each other's locations (each
// location is read and written by one site only). The monitor's per-site
// density and speed go to a small buffer that a separate simd reduction
// folds, since min/max reductions under IEEE rules keep the main loop from
// vectorising.
//
// Staged (for AoS): the chunk's populations are first copied direction by
// direction into an L1-resident SoA buffer, collided there, and copied back.
// That turns the per-lane gathers of an AoS site loop into short strided
// copies (1.4x faster here); for SoA it is slower than loading directly
// (measured: 54 against 72 MLUPS at 128^3, 1 thread). Software prefetching
// 128-1024 sites ahead was tried too and cost 20-35%.
template <class L, bool Forced, bool Mon, bool Staged, class Load, class Store>
inline void run_sites(long s0, long n, const Collision& coll, Stats& st, Load load, Store store) {
  constexpr int Q = L::q;
  constexpr long chunk = 128;
  const Collision p = coll;
  [[maybe_unused]] alignas(64) double in[Staged ? Q : 1][chunk], out[Staged ? Q : 1][chunk];
  [[maybe_unused]] alignas(64) double rho_buf[Mon ? chunk : 1], u2_buf[Mon ? chunk : 1];
  for (long c0 = s0; c0 < s0 + n; c0 += chunk) {
    const long m = std::min(chunk, s0 + n - c0);
    if constexpr (Staged) {
      static_for<Q>([&](auto I) __attribute__((always_inline)) {
        for (long k = 0; k < m; ++k) in[I][k] = load(c0 + k, I);
      });
    }
#pragma GCC ivdep
    for (long k = 0; k < m; ++k) {
      double f[Q], o[Q], rho, u2;
      static_for<Q>([&](auto I) __attribute__((always_inline)) {
        if constexpr (Staged) f[I] = in[I][k];
        else f[I] = load(c0 + k, I);
      });
      collide<L, Forced>(f, o, p, rho, u2);
      static_for<Q>([&](auto I) __attribute__((always_inline)) {
        if constexpr (Staged) out[I][k] = o[I];
        else store(c0 + k, I) = o[I];
      });
      if constexpr (Mon) rho_buf[k] = rho, u2_buf[k] = u2;
    }
    if constexpr (Staged) {
      static_for<Q>([&](auto I) __attribute__((always_inline)) {
        for (long k = 0; k < m; ++k) store(c0 + k, I) = out[I][k];
      });
    }
    if constexpr (Mon) {
      double rmin = st.rho_min, rmax = st.rho_max, umax = st.u2_max, nan = st.nan_sites;
#pragma omp simd reduction(min : rmin) reduction(max : rmax, umax) reduction(+ : nan)
      for (long k = 0; k < m; ++k) track(rmin, rmax, umax, nan, rho_buf[k], u2_buf[k]);
      st.rho_min = rmin, st.rho_max = rmax, st.u2_max = umax, st.nan_sites = nan;
    }
  }
}

// The velocity displacements as a local copy the loops can keep in registers.
template <int Q>
inline std::array<long, Q> offsets_of(const Context& c) {
  std::array<long, Q> off{};
  for (int i = 0; i < Q; ++i) off[i] = c.off[i];
  return off;
}

/// Collide without streaming: read direction i at s, write it to slot i
/// (Swap false: the two-grid kernel's first step) or slot opposite(i) (the AA
/// pattern's even step) of dst at s.
template <class L, bool Soa, bool Forced, bool Mon, bool Swap>
void local_run(const double* src, double* dst, long s0, long n, const Context& c, Stats& st) {
  constexpr int Q = L::q;
  const long cs = c.cs;
  run_sites<L, Forced, Mon, !Soa>(
      s0, n, c.coll, st,
      [=](long s, auto I) __attribute__((always_inline)) -> const double& { return src[at<Soa, Q>(s, I, cs)]; },
      [=](long s, auto I) __attribute__((always_inline)) -> double& {
        return dst[at<Soa, Q>(s, Swap ? L::opp[I] : int(I), cs)];
      });
}

/// Two-grid pull: f_i(x) = src_i(x - c_i), collide, write dst at x.
template <class L, bool Soa, bool Forced, bool Mon>
void pull_run(const double* src, double* dst, long s0, long n, const Context& c, Stats& st) {
  constexpr int Q = L::q;
  const long cs = c.cs;
  const std::array<long, Q> off = offsets_of<Q>(c);
  run_sites<L, Forced, Mon, !Soa>(
      s0, n, c.coll, st,
      [=](long s, auto I) __attribute__((always_inline)) -> const double& {
        return src[at<Soa, Q>(s - off[I], I, cs)];
      },
      [=](long s, auto I) __attribute__((always_inline)) -> double& { return dst[at<Soa, Q>(s, I, cs)]; });
}

/// AA pattern, odd step: read direction i from slot opposite(i) at x - c_i,
/// collide, write direction i to slot i at x + c_i. Each location is read and
/// written by one site only, so the update is in place and race free.
template <class L, bool Soa, bool Forced, bool Mon>
void aa_odd_run(double* a, long s0, long n, const Context& c, Stats& st) {
  constexpr int Q = L::q;
  const long cs = c.cs;
  const std::array<long, Q> off = offsets_of<Q>(c);
  run_sites<L, Forced, Mon, !Soa>(
      s0, n, c.coll, st,
      [=](long s, auto I) __attribute__((always_inline)) -> const double& {
        return a[at<Soa, Q>(s - off[I], L::opp[I], cs)];
      },
      [=](long s, auto I) __attribute__((always_inline)) -> double& { return a[at<Soa, Q>(s + off[I], I, cs)]; });
}

/// Incoming population i at site s for a pull from `src` holding
/// post-collision values in slot `slot_of(i)` (pull: i; AA: opposite(i)),
/// with half-way bounce-back where x - c_i is not fluid.
template <class L, bool Soa, bool AA>
inline double incoming(const double* src, long s, int i, const Context& c) {
  constexpr int Q = L::q;
  const long nb = s - c.off[i];
  const uint8_t k = c.kind[nb];
  if (k == kind_fluid) return src[at<Soa, Q>(nb, AA ? L::opp[i] : i, c.cs)];
  const double back = src[at<Soa, Q>(s, AA ? i : L::opp[i], c.cs)];
  return k == kind_moving ? back + c.wall[i] : back;
}

/// Two-grid pull at one site next to a wall or obstacle.
template <class L, bool Soa, bool Forced, bool Mon>
void pull_site(const double* src, double* dst, long s, const Context& c, Stats& st) {
  constexpr int Q = L::q;
  double f[Q], o[Q], rho, u2;
  for (int i = 0; i < Q; ++i) f[i] = incoming<L, Soa, false>(src, s, i, c);
  collide<L, Forced>(f, o, c.coll, rho, u2);
  for (int i = 0; i < Q; ++i) dst[at<Soa, Q>(s, i, c.cs)] = o[i];
  observe<Mon>(st, rho, u2);
}

/// AA odd step at one site next to a wall or obstacle: a population headed
/// into a solid returns to this site's opposite slot, where the next even
/// step reads it.
template <class L, bool Soa, bool Forced, bool Mon>
void aa_odd_site(double* a, long s, const Context& c, Stats& st) {
  constexpr int Q = L::q;
  double f[Q], o[Q], rho, u2;
  for (int i = 0; i < Q; ++i) f[i] = incoming<L, Soa, true>(a, s, i, c);
  collide<L, Forced>(f, o, c.coll, rho, u2);
  for (int i = 0; i < Q; ++i) {
    const long nb = s + c.off[i];
    const uint8_t k = c.kind[nb];
    if (k == kind_fluid)
      a[at<Soa, Q>(nb, i, c.cs)] = o[i];
    else
      a[at<Soa, Q>(s, L::opp[i], c.cs)] = k == kind_moving ? o[i] + c.wall[L::opp[i]] : o[i];
  }
  observe<Mon>(st, rho, u2);
}

}  // namespace haloex::lb::detail
