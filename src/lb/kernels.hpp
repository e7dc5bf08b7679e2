#pragma once
// The LB update kernels (internal header): the vectorised site loop, the
// local step (collide in place), the two-grid pull and the AA pattern's odd
// step over runs and lists of sites, and the one-site bounce-back path. The
// collision itself is collision.hpp's. SoA or AoS by template parameter;
// each site update reads and writes q doubles (2 x q x 8 bytes).
#include <algorithm>
#include <array>
#include <cstdint>

#include "collision.hpp"
#include "simd.hpp"

namespace haloex::lb::detail {

/// Where a flat run (run.sweep = flat) has halo sites: it crosses the two
/// halo sites between consecutive rows, so of every `pitch` sites from the
/// run's start only the first `len` are the interior's. The kernels update
/// the others too (their results are never read) but leave them out of the
/// monitoring statistics. pitch = 0: a run without gaps.
struct Gaps {
  long len = 0, pitch = 0;
  /// Whether site s of a run starting at s0 is a halo site.
  bool at(long s0, long s) const { return pitch > 0 && (s - s0) % pitch >= len; }
};

/// Element index of (site, direction) in either layout.
template <bool Soa, int Q>
HALOEX_LB_INLINE long at(long s, int i, long cs) {
  if constexpr (Soa)
    return i * cs + s;
  else
    return s * Q + i;
}

/// What every kernel gets besides its arrays.
struct Context {
  long cs = 0;  // SoA: elements between directions
  // Site-index displacement to the neighbour in each direction: s + nb[i] is
  // the site at x + c_i. In the bulk nb[i] = c_i . stride; on a face of a
  // dimension this rank wraps periodically (no halo copy) it points across
  // the lattice instead, so reads use nb[opposite(i)], never -nb[i].
  const long* nb = nullptr;
  const uint8_t* kind = nullptr;
  const double* wall = nullptr;  // moving-wall term per direction
  Collision coll;
  Gaps gaps;  // of a flat run (for the monitor)
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

// The monitoring statistics of a chunk of m sites whose densities and
// speeds are rho[k] and u2[k], the first at place `at` of its run: a simd
// reduction (min/max reductions under IEEE rules keep the main loops from
// vectorising), or, on a flat run, site by site leaving the halo sites out.
inline void observe_chunk(Stats& st, const double* rho, const double* u2, long m, Gaps gaps, long at) {
  if (gaps.pitch > 0) {
    for (long k = 0, x = at % gaps.pitch; k < m; ++k, x = x + 1 == gaps.pitch ? 0 : x + 1)
      if (x < gaps.len) observe<true>(st, rho[k], u2[k]);
    return;
  }
  double rmin = st.rho_min, rmax = st.rho_max, umax = st.u2_max, nan = st.nan_sites;
#pragma omp simd reduction(min : rmin) reduction(max : rmax, umax) reduction(+ : nan)
  for (long k = 0; k < m; ++k) track(rmin, rmax, umax, nan, rho[k], u2[k]);
  st.rho_min = rmin, st.rho_max = rmax, st.u2_max = umax, st.nan_sites = nan;
}

#if defined(HALOEX_LB_XSIMD)
// The last r < W sites of a run as one batch, through masked loads and
// stores (simd.hpp). The lanes past r compute on zeros and are never
// stored. A channel's row of 62 sites (64^3) ends in 6 such sites; one by
// one on doubles, or copied through a buffer, they made that channel's
// step 8% slower than the compiler's loop.
template <class L, bool Forced, class Load, class Store>
inline Moments<Batch> collide_tail(long s, long r, const Collision& p, Load load, Store store) {
  constexpr int Q = L::q;
  Batch f[Q];
  static_for<Q>([&](auto I) __attribute__((always_inline)) { f[I] = load_first(&load(s, I), r); });
  auto in = [&](auto I) __attribute__((always_inline)) { return f[I]; };
  const Moments<Batch> m = moments<L, Forced>(in, p);
  relax<L, Forced>(
      in, [&](auto I, const Batch& v) __attribute__((always_inline)) { store_first(v, &store(s, I), r); }, m,
      p);
  return m;
}

// The site loop of the SoA kernels with explicit SIMD (simd.hpp): a chunk
// of sites in two passes, as run_sites below (the moments of every batch of
// the chunk first, then the relaxation, reading the populations again from
// L1), W sites at a time, a last partial batch masked (collide_tail). One pass
// per batch (all q populations loaded, collided, stored) ran 5-30% slower
// than the compiler's two-pass loop here, likely because a chunk reads each direction's
// array in bursts of 8 cache lines, which the prefetchers follow better
// than q streams advancing one line at a time.
template <class L, bool Forced, bool Mon, class Load, class Store>
inline void run_sites_simd(long s0, long n, const Collision& coll, Stats& st, Load load, Store store,
                           Gaps gaps) {
  constexpr long chunk = 64;  // sites per chunk (32: 2-4% and 128: 8% slower at 128^3)
  constexpr long nb = chunk / simd_width;
  static_assert(chunk % simd_width == 0, "a chunk holds whole batches");
  const Collision p = coll;
  Moments<Batch> mo[nb];
  [[maybe_unused]] alignas(64) double rho_b[Mon ? chunk : 1], u2_b[Mon ? chunk : 1];
  for (long c0 = s0; c0 < s0 + n; c0 += chunk) {
    const long m = std::min(chunk, s0 + n - c0);
    const long full = m / simd_width;
    for (long b = 0; b < full; ++b) {
      const long s = c0 + b * simd_width;
      mo[b] = moments<L, Forced>(
          [&](auto I) __attribute__((always_inline)) { return Batch::load_unaligned(&load(s, I)); }, p);
    }
    for (long b = 0; b < full; ++b) {
      const long s = c0 + b * simd_width;
      relax<L, Forced>(
          [&](auto I) __attribute__((always_inline)) { return Batch::load_unaligned(&load(s, I)); },
          [&](auto I, const Batch& v) __attribute__((always_inline)) { v.store_unaligned(&store(s, I)); },
          mo[b], p);
      if constexpr (Mon)
        mo[b].rho.store_aligned(rho_b + b * simd_width), mo[b].u2.store_aligned(u2_b + b * simd_width);
    }
    if (full * simd_width < m) {
      const Moments<Batch> t =
          collide_tail<L, Forced>(c0 + full * simd_width, m - full * simd_width, p, load, store);
      if constexpr (Mon)
        t.rho.store_aligned(rho_b + full * simd_width), t.u2.store_aligned(u2_b + full * simd_width);
    }
    if constexpr (Mon) observe_chunk(st, rho_b, u2_b, m, gaps, c0 - s0);
  }
}
#endif

// The vectorised site loop every fast kernel shares: load(s, I) is where
// direction I's pre-collision value at site s is, store(s, I) where its
// post-collision value goes.
//
// Not `omp simd`: GCC privatises per-lane arrays into lane-major "simd
// arrays" it cannot vectorise. Plain auto-vectorisation with ivdep tells it
// what `omp simd` would have: the iterations of a kernel never touch each
// other's locations (each location is read and written by one site only, and
// a site's pair (i, opposite(i)) writes exactly the two locations it read).
// The monitor's per-site density and speed come from the moment buffers
// (observe_chunk).
//
// Staged (for the AoS local kernel): the chunk's populations are first copied
// direction by direction into an L1-resident SoA buffer, collided there, and
// copied back. That turns the per-lane gathers of an AoS site loop into short
// strided copies (1.4x faster here, and faster than one site at a time,
// which the streaming AoS kernels use: run_streaming); for SoA it is slower than loading directly
// (measured: 54 against 72 MLUPS at 128^3, 1 thread). Software prefetching
// 128-1024 sites ahead was tried too and cost 20-35%.
template <class L, bool Forced, bool Mon, bool Staged, class Load, class Store>
inline void run_sites(long s0, long n, const Collision& coll, Stats& st, Load load, Store store,
                      Gaps gaps = {}) {
  constexpr int Q = L::q;
  constexpr long chunk = 64;
  const Collision p = coll;
  [[maybe_unused]] alignas(64) double in[Staged ? Q : 1][chunk], out[Staged ? Q : 1][chunk];
  alignas(64) double rho_b[chunk], ux_b[chunk], uy_b[chunk], uz_b[chunk], u2_b[chunk], base_b[chunk];
  [[maybe_unused]] alignas(64) double uf_b[Forced ? chunk : 1];
  for (long c0 = s0; c0 < s0 + n; c0 += chunk) {
    const long m = std::min(chunk, s0 + n - c0);
    if constexpr (Staged) {
      static_for<Q>([&](auto I) __attribute__((always_inline)) {
        for (long k = 0; k < m; ++k) in[I][k] = load(c0 + k, I);
      });
    }
    auto f_of = [&](long k) __attribute__((always_inline)) {
      return [&, k ](auto I) __attribute__((always_inline))->double {
        if constexpr (Staged)
          return in[I][k];
        else
          return load(c0 + k, I);
      };
    };
      // Two passes keep few values live at once: the moments first, then the
      // pairs, which read the populations again from L1. One pass would hold
      // all q of them across the moment sums and spill them to the stack.
#pragma GCC ivdep
    for (long k = 0; k < m; ++k) {
      const Moments<> mo = moments<L, Forced>(f_of(k), p);
      rho_b[k] = mo.rho, ux_b[k] = mo.ux, uy_b[k] = mo.uy, uz_b[k] = mo.uz, u2_b[k] = mo.u2,
      base_b[k] = mo.base;
      if constexpr (Forced) uf_b[k] = mo.uf;
    }
#pragma GCC ivdep
    for (long k = 0; k < m; ++k) {
      Moments<> mo;
      mo.rho = rho_b[k], mo.ux = ux_b[k], mo.uy = uy_b[k], mo.uz = uz_b[k], mo.base = base_b[k];
      if constexpr (Forced) mo.uf = uf_b[k];
      relax<L, Forced>(
          f_of(k),
          [&](auto I, double v) __attribute__((always_inline)) {
            if constexpr (Staged)
              out[I][k] = v;
            else
              store(c0 + k, I) = v;
          },
          mo, p);
    }
    if constexpr (Staged) {
      static_for<Q>([&](auto I) __attribute__((always_inline)) {
        for (long k = 0; k < m; ++k) store(c0 + k, I) = out[I][k];
      });
    }
    if constexpr (Mon) observe_chunk(st, rho_b, u2_b, m, gaps, c0 - s0);
  }
}

// The site loop of the SoA kernels: explicit SIMD where the build has it.
template <class L, bool Forced, bool Mon, class Load, class Store>
inline void run_sites_soa(long s0, long n, const Collision& coll, Stats& st, Load load, Store store,
                          Gaps gaps) {
#if defined(HALOEX_LB_XSIMD)
  run_sites_simd<L, Forced, Mon>(s0, n, coll, st, load, store, gaps);
#else
  run_sites<L, Forced, Mon, false>(s0, n, coll, st, load, store, gaps);
#endif
}

// One site at a time, all q populations in registers (AoS: a site's are
// adjacent, so this is the access order of its cache lines).
template <class L, bool Forced, bool Mon, class Load, class Store>
inline void run_sites_scalar(long s0, long n, const Collision& coll, Stats& st, Load load, Store store,
                             Gaps gaps) {
  constexpr int Q = L::q;
  const Collision p = coll;
  for (long s = s0; s < s0 + n; ++s) {
    double f[Q], o[Q], rho, u2;
    static_for<Q>([&](auto I) __attribute__((always_inline)) { f[I] = load(s, I); });
    collide<L, Forced>(f, o, p, rho, u2);
    static_for<Q>([&](auto I) __attribute__((always_inline)) { store(s, I) = o[I]; });
    if constexpr (Mon)
      if (!gaps.at(s0, s)) observe<Mon>(st, rho, u2);
  }
}

// The site loop of a streaming kernel: vectorised for SoA; for AoS one site
// at a time, whose q populations come from q different neighbours' cache
// lines either way (staging them through an SoA buffer, as the local kernel
// does, ran pull at 0.55 and the AA odd step at 0.85 of this here).
template <class L, bool Forced, bool Mon, bool Soa, class Load, class Store>
inline void run_streaming(long s0, long n, const Context& c, Stats& st, Load load, Store store) {
  if constexpr (Soa)
    run_sites_soa<L, Forced, Mon>(s0, n, c.coll, st, load, store, c.gaps);
  else
    run_sites_scalar<L, Forced, Mon>(s0, n, c.coll, st, load, store, c.gaps);
}

// The neighbour displacements as a local copy the loops can keep in registers.
template <int Q>
inline std::array<long, Q> offsets_of(const Context& c) {
  std::array<long, Q> nb{};
  for (int i = 0; i < Q; ++i) nb[i] = c.nb[i];
  return nb;
}

/// Collide without streaming: read direction i at s, write it to slot i
/// (Swap false: the two-grid kernel's first step) or slot opposite(i) (the AA
/// pattern's even step) of dst at s.
template <class L, bool Soa, bool Forced, bool Mon, bool Swap>
void local_run(const double* src, double* dst, long s0, long n, const Context& c, Stats& st) {
  constexpr int Q = L::q;
  const long cs = c.cs;
  auto load = [=](long s, auto I) __attribute__((always_inline))->const double& {
    return src[at<Soa, Q>(s, I, cs)];
  };
  auto store = [=](long s, auto I) __attribute__((always_inline))->double& {
    return dst[at<Soa, Q>(s, Swap ? L::opp[I] : int(I), cs)];
  };
  if constexpr (Soa)
    run_sites_soa<L, Forced, Mon>(s0, n, c.coll, st, load, store, c.gaps);
  else
    run_sites<L, Forced, Mon, true>(s0, n, c.coll, st, load, store, c.gaps);
}

/// Where the two-grid pull kernel reads and writes: f_i(x) = src_i(x - c_i),
/// collided into dst at x.
template <class L, bool Soa>
struct PullAccess {
  static constexpr int Q = L::q;
  const double* src;
  double* dst;
  long cs;
  std::array<long, Q> nb;
  template <class I>
  HALOEX_LB_INLINE const double& load(long s, I) const {
    return src[at<Soa, Q>(s + nb[L::opp[I::value]], I::value, cs)];
  }
  template <class I>
  HALOEX_LB_INLINE double& store(long s, I) const {
    return dst[at<Soa, Q>(s, I::value, cs)];
  }
};

/// Where the AA pattern's odd step reads and writes: direction i from slot
/// opposite(i) at x - c_i, and to slot i at x + c_i. Each location is read and
/// written by one site only, so the update is in place and race free.
template <class L, bool Soa>
struct AaOddAccess {
  static constexpr int Q = L::q;
  double* a;
  long cs;
  std::array<long, Q> nb;
  template <class I>
  HALOEX_LB_INLINE const double& load(long s, I) const {
    return a[at<Soa, Q>(s + nb[L::opp[I::value]], L::opp[I::value], cs)];
  }
  template <class I>
  HALOEX_LB_INLINE double& store(long s, I) const {
    return a[at<Soa, Q>(s + nb[I::value], I::value, cs)];
  }
};

/// A streaming kernel over the sites [s0, s0 + n).
template <class L, bool Soa, bool Forced, bool Mon, class Access>
void run_range(const Access& x, long s0, long n, const Context& c, Stats& st) {
  run_streaming<L, Forced, Mon, Soa>(
      s0, n, c,
      st, [&](long s, auto I) __attribute__((always_inline))->const double& { return x.load(s, I); },
      [&](long s, auto I) __attribute__((always_inline))->double& { return x.store(s, I); });
}

/// A streaming kernel over a list of sites (the wrapped ends of rows, one per
/// row, which share a neighbour table but no cache line), staged.
template <class L, bool Forced, bool Mon, class Access>
void run_list(const Access& x, const long* sites, long n, const Context& c, Stats& st) {
  run_sites<L, Forced, Mon, true>(
      0, n, c.coll,
      st, [&](long k, auto I) __attribute__((always_inline))->const double& { return x.load(sites[k], I); },
      [&](long k, auto I) __attribute__((always_inline))->double& { return x.store(sites[k], I); });
}

template <class L, bool Soa, bool Forced, bool Mon>
void pull_run(const double* src, double* dst, long s0, long n, const Context& c, Stats& st) {
  run_range<L, Soa, Forced, Mon>(PullAccess<L, Soa>{src, dst, c.cs, offsets_of<L::q>(c)}, s0, n, c, st);
}

template <class L, bool Soa, bool Forced, bool Mon>
void aa_odd_run(double* a, long s0, long n, const Context& c, Stats& st) {
  constexpr int Q = L::q;
  if constexpr (Soa) {
    // Direction i's location at site s, p[i] + s, is where i is written and
    // opposite(i) read: one pointer per direction serves both.
    const std::array<long, Q> nb = offsets_of<Q>(c);
    std::array<double*, Q> p;
    for (int i = 0; i < Q; ++i) p[i] = a + i * c.cs + nb[i];
    run_streaming<L, Forced, Mon, Soa>(
        s0, n, c,
        st, [=](long s, auto I) __attribute__((always_inline))->const double& { return p[L::opp[I]][s]; },
        [=](long s, auto I) __attribute__((always_inline))->double& { return p[I][s]; });
  } else {
    run_range<L, Soa, Forced, Mon>(AaOddAccess<L, Soa>{a, c.cs, offsets_of<Q>(c)}, s0, n, c, st);
  }
}

template <class L, bool Soa, bool Forced, bool Mon>
void pull_list(const double* src, double* dst, const long* sites, long n, const Context& c, Stats& st) {
  run_list<L, Forced, Mon>(PullAccess<L, Soa>{src, dst, c.cs, offsets_of<L::q>(c)}, sites, n, c, st);
}

template <class L, bool Soa, bool Forced, bool Mon>
void aa_odd_list(double* a, const long* sites, long n, const Context& c, Stats& st) {
  run_list<L, Forced, Mon>(AaOddAccess<L, Soa>{a, c.cs, offsets_of<L::q>(c)}, sites, n, c, st);
}

/// Incoming population i at site s for a pull from `src` holding
/// post-collision values in slot `slot_of(i)` (pull: i; AA: opposite(i)),
/// with half-way bounce-back where x - c_i is not fluid.
template <class L, bool Soa, bool AA>
inline double incoming(const double* src, long s, int i, const Context& c) {
  constexpr int Q = L::q;
  const long nb = s + c.nb[L::opp[i]];
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
    const long nb = s + c.nb[i];
    const uint8_t k = c.kind[nb];
    if (k == kind_fluid)
      a[at<Soa, Q>(nb, i, c.cs)] = o[i];
    else
      a[at<Soa, Q>(s, L::opp[i], c.cs)] = k == kind_moving ? o[i] + c.wall[L::opp[i]] : o[i];
  }
  observe<Mon>(st, rho, u2);
}

}  // namespace haloex::lb::detail
