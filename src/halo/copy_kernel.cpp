#include "haloex/halo/copy_kernel.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>

#include <omp.h>

namespace haloex {

long Walk::elements() const {
  long e = table.empty() ? 1 : static_cast<long>(table.size());
  for (long x : n) e *= x;
  return e;
}

namespace {

// Components with a constant step can be one more loop; others need a table.
bool constant_step(const std::vector<int>& c) {
  for (size_t i = 2; i < c.size(); ++i)
    if (c[i] - c[i - 1] != c[1] - c[0]) return false;
  return true;
}

}  // namespace

std::vector<Walk> field_walks(const FieldShape& s, const Box& box, const std::vector<int>& comps) {
  const long ss = s.site_stride, cs = s.comp_stride;
  const long site0 = s.site(box.lo[0], box.lo[1], box.lo[2]);
  const std::vector<long> ext{box.extent(0), box.extent(1), box.extent(2)};
  const std::vector<long> sites{s.stride[0] * ss, s.stride[1] * ss, ss};
  const long nc = static_cast<long>(comps.size());
  const long step = nc > 1 ? (comps[1] - comps[0]) * cs : cs;
  if (constant_step(comps)) {
    Walk w;
    w.base = site0 * ss + comps[0] * cs;
    if (s.layout == Layout::aos) {
      w.n = {ext[0], ext[1], ext[2], nc};
      w.stride = {sites[0], sites[1], sites[2], step};
    } else {
      w.n = {nc, ext[0], ext[1], ext[2]};
      w.stride = {step, sites[0], sites[1], sites[2]};
    }
    return {w};
  }
  if (s.layout == Layout::aos) {
    Walk w{ext, sites, site0 * ss, {}};
    for (int c : comps) w.table.push_back(c * cs);
    return {w};
  }
  std::vector<Walk> out;
  out.reserve(comps.size());
  for (int c : comps) out.push_back(Walk{ext, sites, site0 * ss + c * cs, {}});
  return out;
}

Walk contiguous_like(const Walk& w, long base) {
  Walk c;
  c.n = w.n;
  c.stride.assign(w.n.size(), 0);
  c.base = base;
  long step = w.table.empty() ? 1 : static_cast<long>(w.table.size());
  for (size_t i = w.n.size(); i-- > 0;) {
    c.stride[i] = step;
    step *= w.n[i];
  }
  c.table.resize(w.table.size());
  std::iota(c.table.begin(), c.table.end(), 0L);
  return c;
}

CopyKernel::CopyKernel(const Walk& src, const Walk& dst, size_t element_bytes)
    : src_base_(src.base),
      dst_base_(dst.base),
      src_table_(src.table),
      dst_table_(dst.table),
      elem_(element_bytes) {
  if (src.n != dst.n || src.table.size() != dst.table.size() || src.stride.size() != src.n.size() ||
      dst.stride.size() != dst.n.size())
    throw Error("copy kernel: the two sides of a copy visit different loops");
  if (elem_ != 1 && elem_ != 4 && elem_ != 8 && elem_ != 16)
    throw Error("copy kernel: elements must be 1, 4, 8 or 16 bytes, not " + std::to_string(elem_));
  // Loops of one iteration go; a loop that continues the one inside it on
  // both sides (outer stride = inner stride * inner count) merges with it.
  std::vector<Loop> loops;
  for (size_t i = 0; i < src.n.size(); ++i) {
    if (src.n[i] == 0) {  // nothing to copy
      loops.assign(1, Loop{0, 1, 1});
      break;
    }
    if (src.n[i] == 1) continue;
    loops.push_back(Loop{src.n[i], src.stride[i], dst.stride[i]});
  }
  for (size_t i = loops.size(); i-- > 1;) {
    Loop& out = loops[i - 1];
    const Loop& in = loops[i];
    if (out.src == in.src * in.n && out.dst == in.dst * in.n) {
      out = Loop{out.n * in.n, in.src, in.dst};
      loops.erase(loops.begin() + static_cast<long>(i));
    }
  }
  if (loops.empty()) loops.push_back(Loop{1, 1, 1});
  if (loops.size() > outer_.size() + 1)
    throw Error("copy kernel: more loops than a box and its components have");
  inner_ = loops.back();
  loops.pop_back();
  // Outer loops fill the array from the inside, so unused ones are outermost.
  const size_t pad = outer_.size() - loops.size();
  for (size_t i = 0; i < loops.size(); ++i) outer_[pad + i] = loops[i];
  choose();
}

CopyKernel CopyKernel::reversed() const {
  CopyKernel k = *this;
  for (Loop& l : k.outer_) std::swap(l.src, l.dst);
  std::swap(k.inner_.src, k.inner_.dst);
  std::swap(k.src_base_, k.dst_base_);
  std::swap(k.src_table_, k.dst_table_);
  std::swap(k.pair_src_, k.pair_dst_);
  k.choose();
  if (k.paired_) k.name_ += "x2";
  return k;
}

std::optional<CopyKernel> CopyKernel::paired_with(const CopyKernel& o) const {
  auto same = [](const Loop& x, const Loop& y) { return x.n == y.n && x.src == y.src && x.dst == y.dst; };
  if (paired_ || o.paired_ || elem_ != o.elem_ || fn_ != o.fn_ || !same(inner_, o.inner_) ||
      src_table_ != o.src_table_ || dst_table_ != o.dst_table_)
    return std::nullopt;
  for (size_t i = 0; i < outer_.size(); ++i)
    if (!same(outer_[i], o.outer_[i])) return std::nullopt;
  CopyKernel k = *this;
  k.paired_ = true;
  k.pair_src_ = o.src_base_ - src_base_;
  k.pair_dst_ = o.dst_base_ - dst_base_;
  k.name_ += "x2";
  return k;
}

size_t CopyKernel::bytes() const {
  long e = inner_.n * (src_table_.empty() ? 1 : static_cast<long>(src_table_.size())) * (paired_ ? 2 : 1);
  for (const Loop& l : outer_) e *= l.n;
  return static_cast<size_t>(e) * elem_;
}

void CopyKernel::run(const std::byte* src, std::byte* dst) const { fn_(*this, src, dst); }

// The loop bodies, on unsigned integers of the element's width: a copy moves
// bits, never values (no NaN canonicalisation, no denormal flushing).
template <class U>
struct KernelBodies {
  using K = CopyKernel;

  // A position in the outer loops, stepped row by row with additions only.
  struct Cursor {
    const U* s;
    U* d;
    long c = 0, b = 0;

    Cursor(const K& k, const std::byte* sb, std::byte* db, long row) {
      const auto& o = k.outer_;
      c = row % o[2].n, b = row / o[2].n % o[1].n;
      const long a = row / (o[2].n * o[1].n);
      s = reinterpret_cast<const U*>(sb) + k.src_base_ + a * o[0].src + b * o[1].src + c * o[2].src;
      d = reinterpret_cast<U*>(db) + k.dst_base_ + a * o[0].dst + b * o[1].dst + c * o[2].dst;
    }
  };

  // The outer loops' strides and trip counts, as locals the stores through
  // the destination cannot make the compiler reload.
  struct Steps {
    long n1, n2, s2, d2, s1, d1, s0, d0;  // s1, d1, s0, d0: the steps at a wrap

    explicit Steps(const K& k) {
      const auto& o = k.outer_;
      n1 = o[1].n, n2 = o[2].n, s2 = o[2].src, d2 = o[2].dst;
      s1 = o[1].src - n2 * s2, d1 = o[1].dst - n2 * d2;
      s0 = o[0].src - n1 * o[1].src, d0 = o[0].dst - n1 * o[1].dst;
    }
    void step(Cursor& at) const {
      at.s += s2, at.d += d2;
      if (++at.c < n2) return;
      at.c = 0, at.s += s1, at.d += d1;
      if (++at.b < n1) return;
      at.b = 0, at.s += s0, at.d += d0;
    }
  };

  // The lines of a row `ahead_` rows on, requested before they are copied
  // (see CopyKernel::ahead_). Always inlined: GCC takes a function that only
  // prefetches for one without effects, and drops the calls to it.
  [[gnu::always_inline]] static void request(const K& k, const Cursor& at) {
    const long bytes = k.ahead_bytes_;
    for (int twice = 0; twice < (k.paired_ ? 2 : 1); ++twice) {
      const char* p = reinterpret_cast<const char*>(at.s + (twice ? k.pair_src_ : 0));
      for (long i = 0; i < bytes; i += 64) __builtin_prefetch(p + i, 0, 3);
      __builtin_prefetch(p + bytes - 1, 0, 3);
    }
  }

  // The outer loops, shared among the team as `omp for schedule(static)
  // nowait` would share them; `body` copies one inner loop.
  template <class Body>
  [[gnu::always_inline]] static void rows(const K& k, const std::byte* sb, std::byte* db, Body body) {
    const long total = k.outer_[0].n * k.outer_[1].n * k.outer_[2].n;
    const auto [begin, end] = my_share(total);
    if (begin >= end) return;
    const Steps st(k);
    const long ahead = k.ahead_, ps = k.pair_src_, pd = k.pair_dst_;
    const bool paired = k.paired_;
    Cursor at(k, sb, db, begin), next(k, sb, db, std::min(begin + ahead, total - 1));
    for (long t = begin; t < end; ++t) {
      if (ahead && t + ahead < total) {
        request(k, next);
        st.step(next);
      }
      body(at.s, at.d);
      if (paired) body(at.s + ps, at.d + pd);
      st.step(at);
    }
  }

  // As rows(), two rows at a time: `two` copies a pair, `one` the last row
  // of an odd share.
  template <class Two, class One>
  [[gnu::always_inline]] static void row_pairs(const K& k, const std::byte* sb, std::byte* db, Two two,
                                               One one) {
    const long total = k.outer_[0].n * k.outer_[1].n * k.outer_[2].n;
    const auto [begin, end] = my_share(total);
    if (begin >= end) return;
    const Steps st(k);
    const long ahead = k.ahead_, ps = k.pair_src_, pd = k.pair_dst_;
    const bool paired = k.paired_;
    Cursor at(k, sb, db, begin), next(k, sb, db, std::min(begin + ahead, total - 1));
    long t = begin;
    for (; t + 1 < end; t += 2) {
      for (long r = t; r < t + 2; ++r)
        if (ahead && r + ahead < total) {
          request(k, next);
          st.step(next);
        }
      Cursor second = at;
      st.step(second);
      two(at.s, at.d, second.s, second.d);
      if (paired) two(at.s + ps, at.d + pd, second.s + ps, second.d + pd);
      st.step(second);
      at = second;
    }
    if (t == end) return;
    one(at.s, at.d);
    if (paired) one(at.s + ps, at.d + pd);
  }

  // Rows [first, last) of `total` for this thread of the enclosing team.
  static std::pair<long, long> my_share(long total) {
    const long team = omp_get_num_threads(), me = omp_get_thread_num();
    const long each = total / team, extra = total % team;
    const long first = me * each + std::min(me, extra);
    return {first, first + each + (me < extra ? 1 : 0)};
  }

  // Contiguous rows of a run-time length: a vector loop, started where the
  // destination's 32-byte vectors start. Unaligned, every other vector store
  // of a row starting one double into a line splits across two lines; the
  // local copy, whose two sides share their offset, then has both aligned
  // (on Zen 3, 19 doubles a site: the L = 32 SoA y face's local copy went
  // from 0.49 to 0.93 of a copy of its lines, one value a site at L = 128
  // from 0.63 to 1.06). Not memcpy: for the AoS x and y faces' rows (4.8
  // and 9.7 KiB at L = 32 and 64) this loop was as fast as glibc's or up to
  // 1.5 times as fast in 11 of 12 cases.
  static void run_rows(const K& k, const std::byte* s, std::byte* d) {
    const long n = k.inner_.n;
    rows(k, s, d, [n](const U* __restrict a, U* __restrict b) {
      const long head = std::min(n, to_vector_start(b));
      for (long i = 0; i < head; ++i) b[i] = a[i];
#pragma omp simd
      for (long i = head; i < n; ++i) b[i] = a[i];
    });
  }

  // Rows shorter than 1 KiB, two at a time, a line of one and a line of the
  // other in turn. One row at a time spends the start of every row waiting
  // for its first lines; two in flight overlap that wait (on Zen 3, 19
  // doubles a site: the SoA x and y faces at L = 32, rows of 256 bytes, went
  // 1.26-1.39 times as fast, the SoA y face's pack at L = 64 1.17 times; at
  // L = 128, rows of 1 KiB, pairs were 0.73-0.84 times as fast, so longer rows
  // go one at a time).
  static void run_row_pairs(const K& k, const std::byte* s, std::byte* d) {
    constexpr long line = sizeof(U) < 64 ? 64 / sizeof(U) : 1;
    const long n = k.inner_.n;
    auto two = [n](const U* __restrict a, U* __restrict b, const U* __restrict a2, U* __restrict b2) {
      long i = 0;
      for (; i + line <= n; i += line) {
#pragma GCC unroll 8
        for (long j = 0; j < line; ++j) b[i + j] = a[i + j];
#pragma GCC unroll 8
        for (long j = 0; j < line; ++j) b2[i + j] = a2[i + j];
      }
      for (; i < n; ++i) b[i] = a[i], b2[i] = a2[i];
    };
    auto one = [n](const U* __restrict a, U* __restrict b) {
#pragma omp simd
      for (long i = 0; i < n; ++i) b[i] = a[i];
    };
    row_pairs(k, s, d, two, one);
  }

  // Elements from `p` to the next 32-byte boundary.
  static long to_vector_start(const U* p) {
    constexpr std::uintptr_t vector = 32, per = sizeof(U) < vector ? vector / sizeof(U) : 1;
    const auto at = reinterpret_cast<std::uintptr_t>(p) / sizeof(U);
    return static_cast<long>((per - at % per) % per);
  }

  // Contiguous rows whose length the compiler knows: unrolled vector moves
  // instead of a library call per row. (GCC makes a memcpy of more than 128
  // bytes a call, and the call's spills cost as much as a short row's copy.)
  template <int N>
  static void run_fixed(const K& k, const std::byte* s, std::byte* d) {
    rows(k, s, d, [](const U* __restrict a, U* __restrict b) {
#pragma GCC unroll 32
      for (int i = 0; i < N; ++i) b[i] = a[i];
    });
  }

  // Few long contiguous rows: the team splits each row into chunks, so a
  // large block is copied by every thread, not by one.
  static void run_block(const K& k, const std::byte* sb, std::byte* db) {
    constexpr long chunk = 8192;  // elements: 32-64 KiB, many pages per thread
    const U* s = reinterpret_cast<const U*>(sb) + k.src_base_;
    U* d = reinterpret_cast<U*>(db) + k.dst_base_;
    const auto& o = k.outer_;
    const long n = k.inner_.n, per_row = (n + chunk - 1) / chunk;
    const long rows_total = o[0].n * o[1].n * o[2].n;
#pragma omp for schedule(static) nowait
    for (long t = 0; t < rows_total * per_row; ++t) {
      const long r = t / per_row, at = (t % per_row) * chunk;
      const long a = r / (o[1].n * o[2].n), b = (r / o[2].n) % o[1].n, c = r % o[2].n;
      const long so = a * o[0].src + b * o[1].src + c * o[2].src + at;
      const long dof = a * o[0].dst + b * o[1].dst + c * o[2].dst + at;
      std::memcpy(d + dof, s + so, sizeof(U) * std::min(chunk, n - at));
      if (k.paired_)
        std::memcpy(d + dof + k.pair_dst_, s + so + k.pair_src_, sizeof(U) * std::min(chunk, n - at));
    }
  }

  // A strided inner loop on one or both sides (a face normal to the fastest
  // dimension, a single component of many).
  template <bool SrcUnit, bool DstUnit>
  static void run_strided(const K& k, const std::byte* s, std::byte* d) {
    const long n = k.inner_.n, ss = SrcUnit ? 1 : k.inner_.src, ds = DstUnit ? 1 : k.inner_.dst;
    rows(k, s, d, [n, ss, ds](const U* __restrict a, U* __restrict b) {
      for (long i = 0; i < n; ++i) b[i * ds] = a[i * ss];
    });
  }

  // A component table applied at every step of the inner loop (an irregular
  // subset of AoS components: the reduced LB halo).
  template <int NC>
  static void run_table(const K& k, const std::byte* s, std::byte* d) {
    long st[NC], dt[NC];
    for (int q = 0; q < NC; ++q) st[q] = k.src_table_[q], dt[q] = k.dst_table_[q];
    const long n = k.inner_.n, ss = k.inner_.src, ds = k.inner_.dst;
    rows(k, s, d, [&](const U* __restrict a, U* __restrict b) {
      for (long i = 0; i < n; ++i)
        for (int q = 0; q < NC; ++q) b[i * ds + dt[q]] = a[i * ss + st[q]];
    });
  }

  static void run_table_any(const K& k, const std::byte* s, std::byte* d) {
    const long* st = k.src_table_.data();
    const long* dt = k.dst_table_.data();
    const long nt = static_cast<long>(k.src_table_.size());
    const long n = k.inner_.n, ss = k.inner_.src, ds = k.inner_.dst;
    rows(k, s, d, [=](const U* __restrict a, U* __restrict b) {
      for (long i = 0; i < n; ++i)
        for (long q = 0; q < nt; ++q) b[i * ds + dt[q]] = a[i * ss + st[q]];
    });
  }

  using Fn = void (*)(const K&, const std::byte*, std::byte*);

  template <int... N>
  static Fn fixed_of(long n, std::integer_sequence<int, N...>) {
    Fn f = nullptr;
    ((n == N ? (f = &run_fixed<N>, 0) : 0), ...);
    return f;
  }
  template <int... N>
  static Fn table_of(long n, std::integer_sequence<int, N...>) {
    Fn f = nullptr;
    ((n == N ? (f = &run_table<N>, 0) : 0), ...);
    return f;
  }

  // Requests ahead for short rows a page or more apart in the source, where
  // the hardware prefetcher loses the stream (measured on Zen 3 with 19
  // doubles a site, against a copy of the lines touched, the AoS z face's
  // local copy went from 0.79 to 0.96 at L = 128, 0.69 to 0.77 at L = 64
  // and 0.40 to 0.61 at L = 32; its pack at L = 64 did not gain). A short
  // row's every line is requested, 16 rows ahead; a longer row's first two
  // lines 4 rows ahead, after which the hardware prefetcher follows it. A
  // strided destination's lines are not requested: for writing, that made
  // the SoA y face's unpack and the local copies slower.
  static void choose_ahead(K& k, long row_bytes) {
    constexpr long page = 4096, short_row = 256, long_row = 2048, rows_on_short = 16, rows_on_long = 4;
    const long on = row_bytes <= short_row ? rows_on_short : rows_on_long;
    if (row_bytes >= long_row || k.outer_[2].n <= on || k.outer_[2].src * static_cast<long>(sizeof(U)) < page)
      return;
    k.ahead_ = on;
    k.ahead_bytes_ = row_bytes <= short_row ? row_bytes : 128;
  }

  static void choose(K& k) {
    k.ahead_ = 0;  // only contiguous rows request ahead
    const long rows_total = k.outer_[0].n * k.outer_[1].n * k.outer_[2].n;
    const long row_bytes = k.inner_.n * static_cast<long>(sizeof(U));
    if (!k.src_table_.empty()) {
      const long nt = static_cast<long>(k.src_table_.size());
      k.fn_ = table_of(nt, std::integer_sequence<int, 2, 3, 4, 5, 6, 7, 8, 9>{});
      k.name_ = k.fn_ ? "table" + std::to_string(nt) : "table";
      if (!k.fn_) k.fn_ = &run_table_any;
    } else if (k.inner_.src == 1 && k.inner_.dst == 1) {
      // Fixed lengths: the component counts of the velocity sets and small
      // halo widths times them.
      Fn f = fixed_of(k.inner_.n, std::integer_sequence<int, 1, 2, 3, 4, 5, 6, 8, 9, 10, 15, 18, 19, 27>{});
      if (row_bytes >= 64 * 1024 && rows_total < 64) {
        k.fn_ = &run_block, k.name_ = "block";
      } else if (f) {
        k.fn_ = f, k.name_ = "fixed" + std::to_string(k.inner_.n);
      } else if (row_bytes < 1024) {
        k.fn_ = &run_row_pairs, k.name_ = "rowpairs";
      } else {
        k.fn_ = &run_rows, k.name_ = "rows";
      }
      choose_ahead(k, row_bytes);
    } else if (k.inner_.dst == 1) {
      k.fn_ = &run_strided<false, true>, k.name_ = "gather";
    } else if (k.inner_.src == 1) {
      k.fn_ = &run_strided<true, false>, k.name_ = "scatter";
    } else {
      k.fn_ = &run_strided<false, false>, k.name_ = "strided";
    }
  }
};

namespace {
// A 16-byte element (a complex double) moved as one value.
struct Bits128 {
  std::uint64_t lo, hi;
};
}  // namespace

void CopyKernel::choose() {
  switch (elem_) {
    case 16: return KernelBodies<Bits128>::choose(*this);
    case 8: return KernelBodies<std::uint64_t>::choose(*this);
    case 4: return KernelBodies<std::uint32_t>::choose(*this);
    default: return KernelBodies<std::uint8_t>::choose(*this);
  }
}

}  // namespace haloex
