#pragma once
// Which sites a sweep hands to which kernel, on which threads (internal
// header): runs of plain sites to the vectorised kernel, sites next to a
// solid to the one-site kernel, the wrapped ends of rows a batch at a time
// to the list kernel. With run.sweep = flat, consecutive plain rows of a
// plane go to the kernel as one run across the halo sites between them.
#include <omp.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/lb/config.hpp"
#include "haloex/lb/geometry.hpp"
#include "kernels.hpp"
#include "neighbours.hpp"

namespace haloex::lb::detail {

// A thread's wrapped row ends waiting for the list kernel, by class: one
// site per row, a row apart, so they are updated a batch at a time rather
// than one by one (each alone would take the scalar remainder path).
struct EndBatches {
  static constexpr int batch = 32;
  long sites[64][batch];
  int count[64] = {};
  template <class List>
  void add(int cls, long s, List& list, Stats& st) {
    sites[cls][count[cls]++] = s;
    if (count[cls] == batch) flush(cls, list, st);
  }
  template <class List>
  void flush(int cls, List& list, Stats& st) {
    if (count[cls] > 0) list(sites[cls], count[cls], cls, st);
    count[cls] = 0;
  }
};

// What one thread of a sweep accumulates, a cache line apart from the next
// thread's.
struct alignas(64) ThreadPart {
  Stats st;
  std::unique_ptr<EndBatches> ends;
  long rows = 0;        // rows done (counted for MPI progress)
  double kernel_s = 0;  // inside kernel calls (Sweeper::time_kernels)
};

/// What a sweep does to rows [b0, b1) of plane a right before and right
/// after the kernels update them (RowWrap's copies); empty: nothing.
struct RowHooks {
  std::function<void(long a, long b0, long b1)> before, after;
};

class Sweeper {
 public:
  Sweeper(const FieldShape& sh, const SiteMap& map, const NeighbourTables& nbt, const LbConfig& cfg)
      : sh_(sh),
        map_(map),
        nbt_(nbt),
        tasks_(cfg.schedule == Schedule::taskloop),
        flat_(cfg.sweep == Sweep::flat),
        progress_rows_(cfg.mpi_progress_rows) {}

  /// The exchange whose MPI progress the main thread drives during the
  /// sweeps (run.mpi_progress_rows), or null.
  void drive(Strategy* s) { in_flight_ = s; }
  /// Clock every kernel call; kernel_seconds() sums them (mean over threads).
  void time_kernels(bool on) { timed_ = on; }
  double kernel_seconds() const { return kernel_s_; }
  void reset_kernel_seconds() { kernel_s_ = 0; }

  /// Run `plain(s, n, nb, gaps, st)` over runs of plain sites, `site(s, nb,
  /// st)` over sites next to a solid and `list(sites, n, cls, st)` over
  /// batches of wrapped row ends, each with the neighbour table of its class;
  /// threads over rows (or, flat, stretches of rows). Local sweeps read no
  /// neighbour (`boundary_is_plain`): every run is plain and whole. Returns
  /// the monitoring statistics. `hooks` run around each stretch or row.
  template <class Plain, class Site, class List>
  Stats sweep(const std::vector<Box>& boxes, Plain plain_in, Site site_in, List list_in,
              bool boundary_is_plain, const RowHooks& hooks = {}) {
    const int rd = map_.row_dim();
    const long rn = sh_.local[rd];
    // Row ends of another class (wrapped or walled) leave the run.
    const bool peel_first = !boundary_is_plain && nbt_.site_class(rd, 0) != 0;
    const bool peel_last = !boundary_is_plain && nbt_.site_class(rd, rn - 1) != 0;
    const bool peel = peel_first || peel_last;
    std::vector<ThreadPart> parts(static_cast<size_t>(omp_get_max_threads()));
    int team = 1;
    // (The one-site kernel is clocked a row's run at a time, in one_row.)
    auto plain = clocked(plain_in, parts);
    auto list = clocked(list_in, parts);
    auto row_alone = [&](const Box& b, long a, long bb) {
      ThreadPart& part = parts[static_cast<size_t>(omp_get_thread_num())];
      one_row(b, a, bb, part, peel_first, peel_last, boundary_is_plain, plain, site_in, list);
      progress(part, 1);
    };
    auto row = [&](const Box& b, long a, long bb) {
      if (hooks.before) hooks.before(a, bb, bb + 1);
      row_alone(b, a, bb);
      if (hooks.after) hooks.after(a, bb, bb + 1);
    };
    auto rows = [&](const Box& b, long a, long b0, long b1) {
      ThreadPart& part = parts[static_cast<size_t>(omp_get_thread_num())];
      if (hooks.before) hooks.before(a, b0, b1);
      stretch(b, a, b0, b1, part, boundary_is_plain, plain, row_alone);
      if (hooks.after) hooks.after(a, b0, b1);
    };
#pragma omp parallel
    {
      const int me = omp_get_thread_num();
#pragma omp single nowait
      team = omp_get_num_threads();
      // (Before this thread reaches a point where it may run a task.)
      if (peel) parts[static_cast<size_t>(me)].ends = std::make_unique<EndBatches>();
      for (const Box& b : boxes) {
        if (flat_ && !peel && b.lo[rd] == 0 && b.hi[rd] == rn)
          share_stretches(b, rows);
        else
          share_rows(b, row);
      }
      // (The barrier waits for every task too.)
#pragma omp barrier
      ThreadPart& part = parts[static_cast<size_t>(me)];
      if (part.ends)
        for (int c = 0; c < 64; ++c) part.ends->flush(c, list, part.st);
    }
    Stats total;
    for (const ThreadPart& p : parts) {
      total.merge(p.st);
      kernel_s_ += p.kernel_s / static_cast<double>(team);
    }
    return total;
  }

 private:
  // `f`, clocked into the calling thread's part when timing is on.
  template <class F>
  auto clocked(F& f, std::vector<ThreadPart>& parts) const {
    return [this, &f, &parts](auto&&... a) {
      if (!timed_) return f(a...);
      const double t0 = omp_get_wtime();
      f(a...);
      parts[static_cast<size_t>(omp_get_thread_num())].kernel_s += omp_get_wtime() - t0;
    };
  }

  // The rows of box b shared by the team (inside a parallel region): by
  // `omp for`, or by one task per thread. A task runs on one thread from
  // start to end (tied, no scheduling point inside), so it may use that
  // thread's part.
  template <class Row>
  void share_rows(const Box& b, Row& row) const {
    const int o0 = map_.outer(0), o1 = map_.outer(1);
    const long a0 = b.lo[o0], a1 = b.hi[o0], b0 = b.lo[o1], b1 = b.hi[o1];
    if (!tasks_) {
#pragma omp for collapse(2) schedule(static) nowait
      for (long a = a0; a < a1; ++a)
        for (long bb = b0; bb < b1; ++bb) row(b, a, bb);
    } else {
#pragma omp single nowait
#pragma omp taskloop collapse(2) num_tasks(omp_get_num_threads()) nogroup
      for (long a = a0; a < a1; ++a)
        for (long bb = b0; bb < b1; ++bb) row(b, a, bb);
    }
  }

  // Flat: the rows of box b in stretches of about `stretch_sites` sites
  // each, shared as rows are.
  template <class Rows>
  void share_stretches(const Box& b, Rows& rows) const {
    const int o0 = map_.outer(0), o1 = map_.outer(1);
    const long a0 = b.lo[o0], a1 = b.hi[o0], b0 = b.lo[o1], b1 = b.hi[o1];
    const long per = std::max(1L, stretch_sites / sh_.local[map_.row_dim()]);
    const long n = (b1 - b0 + per - 1) / per;
    if (!tasks_) {
#pragma omp for collapse(2) schedule(static) nowait
      for (long a = a0; a < a1; ++a)
        for (long k = 0; k < n; ++k) rows(b, a, b0 + k * per, std::min(b1, b0 + (k + 1) * per));
    } else {
#pragma omp single nowait
#pragma omp taskloop collapse(2) num_tasks(omp_get_num_threads()) nogroup
      for (long a = a0; a < a1; ++a)
        for (long k = 0; k < n; ++k) rows(b, a, b0 + k * per, std::min(b1, b0 + (k + 1) * per));
    }
  }

  // Site of row coordinate 0 of row (a, bb).
  long row_start(long a, long bb) const {
    long coord[3] = {0, 0, 0};
    coord[map_.outer(0)] = a;
    coord[map_.outer(1)] = bb;
    return sh_.site(coord[0], coord[1], coord[2]);
  }

  // Whether row (a, bb) is one plain run from end to end.
  bool whole_plain(long a, long bb, bool boundary_is_plain) const {
    auto [first, last] = map_.row(a, bb);
    return last - first == 1 && first->r0 == 0 && first->r1 == sh_.local[map_.row_dim()] &&
           (boundary_is_plain || first->type == SiteMap::plain);
  }

  // Rows [b0, b1) of plane a: each stretch of whole plain rows of one class
  // as one run (crossing the halo sites between them, which the kernels
  // update without effect: see Gaps), any other row on its own.
  template <class Plain, class Row>
  void stretch(const Box& b, long a, long b0, long b1, ThreadPart& part, bool boundary_is_plain, Plain& plain,
               Row& row) const {
    const int o0 = map_.outer(0), o1 = map_.outer(1);
    const long rn = sh_.local[map_.row_dim()], pitch = sh_.stride[o1];
    for (long bb = b0; bb < b1;) {
      if (!whole_plain(a, bb, boundary_is_plain)) {
        row(b, a, bb++);
        continue;
      }
      const int cls = nbt_.site_class(o0, a) | nbt_.site_class(o1, bb);
      long end = bb + 1;
      while (end < b1 && nbt_.site_class(o1, end) == nbt_.site_class(o1, bb) &&
             whole_plain(a, end, boundary_is_plain))
        ++end;
      const long s0 = row_start(a, bb);
      plain(s0, (end - bb - 1) * pitch + rn, nbt_.table(cls), Gaps{rn, pitch}, part.st);
      progress(part, end - bb);
      bb = end;
    }
  }

  // One row: its runs, with the peeled ends.
  template <class Plain, class Site, class List>
  void one_row(const Box& b, long a, long bb, ThreadPart& part, bool peel_first, bool peel_last,
               bool boundary_is_plain, Plain& plain, Site& site, List& list) const {
    const int o0 = map_.outer(0), o1 = map_.outer(1), rd = map_.row_dim();
    const long rn = sh_.local[rd];
    Stats& st = part.st;
    const long row0 = row_start(a, bb);
    const int cls = nbt_.site_class(o0, a) | nbt_.site_class(o1, bb);
    const long* nb = nbt_.table(cls);
    const long* snb = nbt_.site_table(cls);  // for the one-site path, which finds solids by kind
    auto [first, last] = map_.row(a, bb);
    for (const SiteMap::Run* run = first; run != last; ++run) {
      long lo = std::max(run->r0, b.lo[rd]), hi = std::min(run->r1, b.hi[rd]);
      if (lo >= hi) continue;
      const bool fast = run->type == SiteMap::plain || boundary_is_plain;
      auto end_site = [&](long r) {
        const int c = cls | nbt_.site_class(rd, r);
        if (fast) {
          part.ends->add(c, row0 + r, list, st);
        } else {
          const double t0 = timed_ ? omp_get_wtime() : 0;
          site(row0 + r, nbt_.site_table(c), st);
          if (timed_) part.kernel_s += omp_get_wtime() - t0;
        }
      };
      if (peel_first && lo == 0) end_site(lo++);
      if (peel_last && hi == rn && lo < hi) end_site(--hi);
      if (fast && lo < hi) {
        plain(row0 + lo, hi - lo, nb, Gaps{}, st);
      } else if (lo < hi) {
        const double t0 = timed_ ? omp_get_wtime() : 0;
        for (long r = lo; r < hi; ++r) site(row0 + r, snb, st);
        if (timed_) part.kernel_s += omp_get_wtime() - t0;
      }
    }
  }

  // The main thread (which began the exchange: MPI is funneled) moves the
  // messages on now and then: once whenever its count of rows done passes a
  // multiple of run.mpi_progress_rows (with a flat sweep, between stretches).
  void progress(ThreadPart& part, long rows) const {
    if (in_flight_ == nullptr || omp_get_thread_num() != 0) return;
    const long before = part.rows;
    part.rows += rows;
    if (before / progress_rows_ != part.rows / progress_rows_) in_flight_->progress();
  }

  // Sites per flat stretch: long enough that a call's set-up vanishes, short
  // enough that a plane's stretches share out over the threads.
  static constexpr long stretch_sites = 4096;

  const FieldShape& sh_;
  const SiteMap& map_;
  const NeighbourTables& nbt_;
  bool tasks_, flat_;
  long progress_rows_;
  Strategy* in_flight_ = nullptr;
  bool timed_ = false;
  double kernel_s_ = 0;
};

}  // namespace haloex::lb::detail
