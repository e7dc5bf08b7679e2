#include "haloex/lb/solver.hpp"

#include <omp.h>

#include <array>
#include <cmath>
#include <numbers>
#include <optional>

#include "halo_part.hpp"
#include "haloex/core/exact_sum.hpp"
#include "haloex/core/large_count.hpp"
#include "haloex/field/field.hpp"
#include "haloex/halo/plan.hpp"
#include "haloex/lb/geometry.hpp"
#include "kernel_set.hpp"
#include "kernels.hpp"
#include "neighbours.hpp"
#include "row_wrap.hpp"
#include "sweeper.hpp"
#include "wall_guard.hpp"

namespace haloex::lb {

namespace {

using detail::Context;
using detail::Gaps;
using detail::HaloPart;
using detail::KernelSet;
using detail::pick;
using detail::Stats;
using detail::WallGuard;
using detail::wrapped_dims;

DecompositionSpec spec_of(const LbConfig& c) {
  DecompositionSpec s;
  s.ndim = c.ndim();
  for (int d = 0; d < 3; ++d) {
    s.global[d] = d < s.ndim ? c.size[d] : 1;
    s.procs[d] = d < s.ndim ? c.procs[d] : 1;
    s.periodic[d] = d < s.ndim ? c.periodic[d] : true;
  }
  return s;
}

// [0,1) and [n-1,n) slabs and the inner range [1,n-1) along one dimension
// split over several processes; along a dimension this rank has to itself
// the halo is complete after begin() (a Strategy guarantee), so all of it is
// inner. Splitting such a dimension anyway made interior overlap 0.60-0.67 of
// none at 64^3 on 2 ranks: the shell's row ends are single sites a row apart
// in every one of 19 arrays.
struct Split {
  std::vector<std::pair<long, long>> shell;
  std::pair<long, long> inner;
};
Split split(long n, bool remote) {
  Split s;
  if (!remote) {
    s.inner = {0, n};
  } else if (n <= 2) {
    s.inner = {0, 0};
    s.shell.push_back({0, n});
  } else {
    s.inner = {1, n - 1};
    s.shell.push_back({0, 1});
    s.shell.push_back({n - 1, n});
  }
  return s;
}

// The faces of this rank that are resting walls the kernels take from their
// neighbour tables (SoA only: there a slot shift stands for bounce-back; see
// neighbours.hpp). A moving wall keeps the one-site path, which adds its
// velocity.
detail::WallFaces table_walls(const LbConfig& c, const Decomposition& dec) {
  detail::WallFaces w{0, 0, 0};
  if (c.layout != Layout::soa || !c.wall_tables) return w;
  Offset moving{0, 0, 0};
  if (!c.moving_wall.empty()) moving = offset_from_name(c.moving_wall);
  for (int d = 0; d < c.ndim(); ++d) {
    if (c.periodic[d]) continue;
    if (dec.offset(d) == 0 && moving[d] != -1) w[d] |= 1;
    if (dec.offset(d) + dec.local_size(d) == c.size[d] && moving[d] != 1) w[d] |= 2;
  }
  return w;
}

}  // namespace

// The boxes a sweep covers: the whole interior, or (interior overlap) the
// inner sites, which read no halo another process fills, and the shell.
struct SweepBoxes {
  std::vector<Box> all, inner, shell;
};

struct Solver::Impl {
  LbConfig cfg;
  VelocitySet vs;
  Decomposition dec;
  bool aa;  // run.kernel = aa
  Overlap overlap;

  // The lattice: populations, what each site is, how to reach its neighbours.
  Field<double> f0;
  detail::NeighbourTables nbt;
  std::optional<Field<double>> f1;  // the second grid of the pull kernel
  int cur = 0;                      // pull: which grid holds the state
  std::vector<uint8_t> kinds;
  std::vector<uint8_t> map_kinds;  // kinds with the solids behind table walls as fluid: the site map's view
  std::vector<long> offsets;
  SiteMap map;
  long fluid_global = 0;

  // The kernels: their context and the function table.
  std::vector<double> wall;
  Context ctx;
  KernelSet kern[2];  // without / with monitoring
  SweepBoxes boxes;
  detail::Sweeper sweeper;
  detail::RowWrap row_wrap;  // a flat sweep's copies of the row dimension's periodic halo (or inactive)

  // The halo and the AA pattern's bookkeeping around it.
  HaloPart halo;
  WallGuard guard;  // the AA write-back's (wall_guard.hpp)

  // Time stepping, monitoring and timing.
  Monitor monitor;
  Timers timers{{"update (collide+stream)", "halo begin", "halo end", "  pack+copy", "  unpack", "  mpi+wait",
                 "map rebuild", "monitor"}};
  long steps = 0;
  long aa_phase = 0;  // the AA pattern's even (local) step falls on steps = aa_phase mod 2
  enum class State { pre, post_pull, post_even } state = State::pre;

  Impl(const LbConfig& c, MPI_Comm comm)
      : cfg(c),
        vs(velocity_set(c.velocity_set)),
        dec(comm, spec_of(c)),
        aa(c.kernel == Kernel::aa),
        overlap(c.overlap),
        f0(dec, vs.q, 1, c.layout, c.field_memory),
        nbt(f0.shape(), vs, wrapped_dims(c, dec), table_walls(c, dec), c.kernel == Kernel::aa),
        sweeper(f0.shape(), map, nbt, c),
        halo(c, vs, dec, f0),
        monitor(dec.comm(), parse_monitor_mode(c.monitor_mode), c.mach_limit) {
    if (!aa) f1.emplace(dec, vs.q, 1, c.layout, c.field_memory);
    const FieldShape& sh = f0.shape();
    kinds = site_kinds(cfg, dec, sh, read_mask_file(cfg));
    map_kinds = kinds_behind_walls_fluid(nbt.walls());
    for (const Offset& v : vs.c)
      offsets.push_back(v[0] * sh.stride[0] + v[1] * sh.stride[1] + v[2] * sh.stride[2]);
    for (int i = 0; i < vs.q; ++i) {
      double cu = 0;
      for (int d = 0; d < 3; ++d) cu += vs.c[i][d] * cfg.wall_velocity[d];
      wall.push_back(2.0 * vs.w[i] * cfg.rho0 * cu / cs2);
    }
    ctx.cs = sh.comp_stride;
    ctx.nb = nbt.bulk();
    ctx.kind = kinds.data();
    ctx.wall = wall.data();
    const double tau_m = cfg.collision == Collision::trt ? 0.5 + cfg.magic / (cfg.tau - 0.5) : cfg.tau;
    ctx.coll.omega_p = 1.0 / cfg.tau;
    ctx.coll.omega_m = 1.0 / tau_m;
    ctx.coll.keep_p = 1.0 - 0.5 * ctx.coll.omega_p;
    ctx.coll.keep_m = 1.0 - 0.5 * ctx.coll.omega_m;
    for (int d = 0; d < 3; ++d) ctx.coll.force[d] = cfg.force[d];
    const bool forced = cfg.force[0] != 0 || cfg.force[1] != 0 || cfg.force[2] != 0;
    const bool soa = cfg.layout == Layout::soa;
    for (int mon = 0; mon < 2; ++mon)
      kern[mon] =
          with_velocity_set(cfg.velocity_set, [&](auto l) { return pick<decltype(l)>(soa, forced, mon); });

    map.build(sh, vs.ndim, map_kinds, offsets);
    long fluid = map.fluid_sites();
    mpi_check(MPI_Allreduce(&fluid, &fluid_global, 1, MPI_LONG, MPI_SUM, dec.comm()), "MPI_Allreduce");
    make_boxes();
    if (detail::sweep_wraps_rows(cfg, dec)) row_wrap = detail::RowWrap(sh, vs, map, nbt, kinds, aa);

    halo.start(cfg);
    if (aa) guard.build(f0.shape(), vs, nbt, dec, kinds, [&](auto f) { for_each_fluid(f); });
    initialise();
  }

  // The site kinds with the resting solids behind the table walls counted
  // as fluid: a site whose only solid neighbours lie there is plain, its
  // bounce-back in the tables.
  std::vector<uint8_t> kinds_behind_walls_fluid(const detail::WallFaces& walls) const {
    const FieldShape& sh = f0.shape();
    std::vector<uint8_t> k = kinds;
    const Box b = sh.allocated();
    for (long i = b.lo[0]; i < b.hi[0]; ++i)
      for (long j = b.lo[1]; j < b.hi[1]; ++j)
        for (long l = b.lo[2]; l < b.hi[2]; ++l) {
          const long p[3] = {i, j, l};
          bool behind = false;
          for (int d = 0; d < 3; ++d)
            behind = behind || ((walls[d] & 1) && p[d] < 0) || ((walls[d] & 2) && p[d] >= sh.local[d]);
          const size_t s = static_cast<size_t>(sh.site(i, j, l));
          if (behind && k[s] == site_solid) k[s] = site_fluid;
        }
    return k;
  }

  // Visit every fluid site of the interior, x slowest: f(s, n, p) with s
  // the site, n its place in that order counting solid sites too (as the
  // gathered arrays do) and p its local coordinates.
  template <class F>
  void for_each_fluid(F f) const {
    const FieldShape& sh = f0.shape();
    const Box b = sh.interior();
    long n = 0;
    for (long i = b.lo[0]; i < b.hi[0]; ++i)
      for (long j = b.lo[1]; j < b.hi[1]; ++j)
        for (long l = b.lo[2]; l < b.hi[2]; ++l, ++n) {
          const long s = sh.site(i, j, l);
          if (kinds[static_cast<size_t>(s)] == site_fluid) f(s, n, std::array<long, 3>{i, j, l});
        }
  }

  void make_boxes() {
    const FieldShape& sh = f0.shape();
    boxes.all = {sh.interior()};
    // Inner sites read and write no halo; the shell is the rest, as slabs.
    Box in = sh.interior();
    std::array<Split, 3> splits;
    for (int d = 0; d < vs.ndim; ++d) {
      splits[d] = split(sh.local[d], dec.procs(d) > 1);
      in.lo[d] = splits[d].inner.first;
      in.hi[d] = splits[d].inner.second;
    }
    boxes.inner.clear();
    if (!in.empty()) boxes.inner.push_back(in);
    boxes.shell.clear();
    for (int d = 0; d < vs.ndim; ++d) {
      const Split& s = splits[d];
      for (auto [lo, hi] : s.shell) {
        Box b = sh.interior();
        for (int e = 0; e < d; ++e) b.lo[e] = in.lo[e], b.hi[e] = in.hi[e];
        b.lo[d] = lo;
        b.hi[d] = hi;
        if (!b.empty()) boxes.shell.push_back(b);
      }
      if (s.inner.first >= s.inner.second) break;  // the slabs already cover this dimension
    }
  }

  void initialise() {
    const FieldShape& sh = f0.shape();
    double* a = f0.data();
    const double k = 2.0 * std::numbers::pi / static_cast<double>(cfg.size[1]);
    const bool shear_wave = cfg.init == "shear_wave";
    for_each_fluid([&](long s, long, const std::array<long, 3>& p) {
      double u[3] = {cfg.velocity[0], cfg.velocity[1], cfg.velocity[2]};
      if (shear_wave) u[0] += cfg.amplitude * std::sin(k * static_cast<double>(p[1] + dec.offset(1)));
      const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
      for (int q = 0; q < vs.q; ++q) {
        const double cu = vs.c[q][0] * u[0] + vs.c[q][1] * u[1] + vs.c[q][2] * u[2];
        a[s * sh.site_stride + q * sh.comp_stride] =
            vs.w[q] * cfg.rho0 * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * u2);
      }
    });
  }

  double* grid(int g) { return g == 0 ? f0.data() : f1->data(); }
  FieldView view(int g) { return g == 0 ? f0.view() : f1->view(); }

  // The kernel context with another neighbour table (and a flat run's gaps).
  Context with(const long* nb, Gaps gaps = {}) const {
    Context c = ctx;
    c.nb = nb;
    c.gaps = gaps;
    return c;
  }

  // RowWrap's copies around the rows a sweep updates in grid g: the AA odd
  // step's outgoing populations returned before (when a write-back is
  // pending), the halo refilled after.
  detail::RowHooks wrap_hooks(double* g, bool write_back) const {
    detail::RowHooks h;
    if (!row_wrap.active()) return h;
    if (write_back) h.before = [this, g](long a, long b0, long b1) { row_wrap.write_back(g, a, b0, b1); };
    h.after = [this, g](long a, long b0, long b1) { row_wrap.fill(g, a, b0, b1); };
    return h;
  }

  Stats sweep_local(const std::vector<Box>& boxes, const KernelSet& k, bool swap) {
    const double* src = grid(aa ? 0 : cur);
    double* dst = grid(aa ? 0 : 1 - cur);
    auto fn = swap ? k.local_swap : k.local_same;
    return sweeper.sweep(
        boxes,
        [&](long s, long n, const long*, Gaps g, Stats& st) { fn(src, dst, s, n, with(ctx.nb, g), st); },
        [](long, const long*, Stats&) {}, [](const long*, long, int, Stats&) {}, true,
        wrap_hooks(dst, swap && halo.reverse_pending));
  }

  Stats sweep_pull(const std::vector<Box>& boxes, const KernelSet& k) {
    const double* src = grid(cur);
    double* dst = grid(1 - cur);
    return sweeper.sweep(
        boxes,
        [&](long s, long n, const long* nb, Gaps g, Stats& st) { k.pull(src, dst, s, n, with(nb, g), st); },
        [&](long s, const long* nb, Stats& st) { k.pull_site(src, dst, s, with(nb), st); },
        [&](const long* s, long n, int cls, Stats& st) {
          k.pull_list(src, dst, s, n, with(nbt.table(cls)), st);
        },
        false, wrap_hooks(dst, false));
  }

  Stats sweep_odd(const std::vector<Box>& boxes, const KernelSet& k) {
    double* a = grid(0);
    return sweeper.sweep(
        boxes, [&](long s, long n, const long* nb, Gaps g, Stats& st) { k.aa_odd(a, s, n, with(nb, g), st); },
        [&](long s, const long* nb, Stats& st) { k.aa_odd_site(a, s, with(nb), st); },
        [&](const long* s, long n, int cls, Stats& st) { k.aa_odd_list(a, s, n, with(nbt.table(cls)), st); },
        false);
  }

  // One exchange wrapped around the update in the configured overlap mode.
  template <class Update>
  Stats exchange_and_update(Strategy& strat, FieldView v, Update update, bool write_back = false) {
    const FieldView views[1] = {v};
    const bool interior = overlap == Overlap::interior;
    Stats st;
    strat.begin(views);
    if (write_back) guard.restore(f0.data(), 0);  // its only writers, the local copies, are done
    if (interior) {
      ScopedTimer t(timers, t_update);
      sweeper.drive(cfg.mpi_progress_rows > 0 ? &strat : nullptr);
      st = update(boxes.inner);
      sweeper.drive(nullptr);
    } else if (overlap == Overlap::map) {
      ScopedTimer t(timers, t_map);
      map.build(f0.shape(), vs.ndim, map_kinds, offsets);
    }
    strat.end();
    if (write_back) guard.restore(f0.data(), 1);
    ScopedTimer t(timers, t_update);
    st.merge(update(interior ? boxes.shell : boxes.all));
    return st;
  }

  void step() {
    const bool mon = monitor.mode() != Monitor::Mode::off && steps % cfg.monitor_every == 0;
    const KernelSet& k = kern[mon ? 1 : 0];
    Stats st;
    if (!aa) {
      if (state == State::pre) {
        // The initial populations are pre-collision: collide in place of a
        // stream, as the AA pattern's first (even) step does.
        ScopedTimer t(timers, t_update);
        st = sweep_local(boxes.all, k, false);
      } else {
        st = exchange_and_update(*halo.fwd, view(cur),
                                 [&](const std::vector<Box>& b) { return sweep_pull(b, k); });
      }
      cur = 1 - cur;
      state = State::post_pull;
    } else if ((steps - aa_phase) % 2 == 0) {
      if (halo.reverse_pending) {
        st = exchange_and_update(
            *halo.rev, view(0), [&](const std::vector<Box>& b) { return sweep_local(b, k, true); }, true);
        halo.reverse_pending = false;
      } else {
        ScopedTimer t(timers, t_update);
        st = sweep_local(boxes.all, k, true);
      }
      state = State::post_even;
    } else {
      st =
          exchange_and_update(*halo.fwd, view(0), [&](const std::vector<Box>& b) { return sweep_odd(b, k); });
      guard.save(f0.data());
      halo.reverse_pending = true;  // outgoing populations sit in the halo
      state = State::pre;
    }
    ScopedTimer t(timers, t_monitor);
    if (mon) {
      MonitorStats m;
      m.rho_min = st.rho_min;
      m.rho_max = st.rho_max;
      m.u2_max = st.u2_max;
      m.nan_sites = st.nan_sites;
      m.step = steps;
      monitor.submit(m);
    } else {
      monitor.complete();
    }
    ++steps;
  }

  // Bring the state to rest: no write-back outstanding, no reduction pending.
  void settle() {
    if (halo.reverse_pending) {
      const FieldView v[1] = {view(0)};
      halo.rev->exchange(v);
      if (row_wrap.active()) row_wrap.write_back_all(f0.data());
      guard.restore(f0.data(), 0), guard.restore(f0.data(), 1);
      halo.reverse_pending = false;
    }
    ScopedTimer t(timers, t_monitor);
    monitor.complete();
  }

  std::vector<double> populations() {
    settle();
    const FieldShape& sh = f0.shape();
    const int q = vs.q;
    const KernelSet& k = kern[0];
    const int g = aa ? 0 : cur;
    if (state != State::pre) {
      // Post-collision state: stream once more (reading only) to get f(t).
      const FieldView v[1] = {view(g)};
      halo.fwd->exchange(v);
    }
    const double* src = grid(g);
    std::vector<double> out(static_cast<size_t>(sh.interior().volume() * q), 0.0);
    for_each_fluid([&](long s, long n, const std::array<long, 3>& p) {
      const Context sc = with(nbt.site_at(p[0], p[1], p[2]));
      for (int c = 0; c < q; ++c) {
        double v;
        if (state == State::pre)
          v = src[s * sh.site_stride + c * sh.comp_stride];
        else if (state == State::post_pull)
          v = k.incoming_pull(src, s, c, sc);
        else
          v = k.incoming_aa(src, s, c, sc);
        out[static_cast<size_t>(n * q + c)] = v;
      }
    });
    return out;
  }
};

Solver::Solver(const LbConfig& config, MPI_Comm comm) {
  validate(config);
  impl_ = std::make_unique<Impl>(config, comm);
}

Solver::~Solver() = default;

const LbConfig& Solver::config() const { return impl_->cfg; }
const VelocitySet& Solver::velocities() const { return impl_->vs; }
const Decomposition& Solver::decomposition() const { return impl_->dec; }
long Solver::steps_done() const { return impl_->steps; }
const Strategy& Solver::strategy() const { return *impl_->halo.fwd; }
const std::string& Solver::halo_kind() const { return impl_->halo.kind; }
long Solver::fluid_sites() const { return impl_->fluid_global; }
long Solver::slow_path_sites() const { return impl_->map.boundary_sites(); }
const Monitor& Solver::monitor() const { return impl_->monitor; }

double Solver::halo_bytes_per_step() const { return impl_->halo.bytes_per_step(); }

void Solver::advance(long n, const std::function<void(long)>& progress) {
  for (long s = 0; s < n; ++s) {
    impl_->step();
    if (progress) progress(impl_->steps);
  }
  impl_->settle();
}

std::vector<double> Solver::local_populations() { return impl_->populations(); }

// Both kernels start from pre-collision populations as from an initial state
// (collide in place, then stream): the kernels are bit-identical to each
// other, so this is bit-identical to having gone on. The AA pattern's
// parity is shifted so that its local step comes first.
void Solver::set_populations(std::span<const double> local, long step) {
  Impl& m = *impl_;
  m.settle();
  const FieldShape& sh = m.f0.shape();
  const Box b = sh.interior();
  const int q = m.vs.q;
  if (local.size() != static_cast<size_t>(b.volume() * q))
    throw Error("set_populations: " + std::to_string(local.size()) + " values for " +
                std::to_string(b.volume()) + " sites of " + std::to_string(q) + " populations");
  double* a = m.f0.data();
  m.for_each_fluid([&](long s, long n, const std::array<long, 3>&) {
    for (int c = 0; c < q; ++c)
      a[s * sh.site_stride + c * sh.comp_stride] = local[static_cast<size_t>(n * q + c)];
  });
  m.cur = 0;
  m.state = Impl::State::pre;
  m.halo.reverse_pending = false;
  m.steps = step;
  m.aa_phase = step % 2;
}

std::vector<uint8_t> Solver::local_solid_mask() const {
  const Impl& m = *impl_;
  std::vector<uint8_t> out(static_cast<size_t>(m.f0.shape().interior().volume()), 1);
  m.for_each_fluid([&](long, long n, const std::array<long, 3>&) { out[static_cast<size_t>(n)] = 0; });
  return out;
}

std::vector<double> Solver::global_populations(int root) {
  const Decomposition& dec = impl_->dec;
  MPI_Comm comm = dec.comm();
  const std::vector<double> local = impl_->populations();
  const int q = impl_->vs.q, p = dec.size();
  long box[6] = {dec.offset(0),     dec.offset(1),     dec.offset(2),
                 dec.local_size(0), dec.local_size(1), dec.local_size(2)};
  std::vector<long> boxes(static_cast<size_t>(6 * p));
  mpi_check(MPI_Gather(box, 6, MPI_LONG, boxes.data(), 6, MPI_LONG, root, comm), "MPI_Gather");
  // Point to point with large counts rather than MPI_Gatherv, whose int
  // counts and displacements stop at 2^31 - 1 doubles for the whole lattice.
  const auto count = static_cast<uint64_t>(local.size());
  std::vector<uint64_t> counts(static_cast<size_t>(p));
  std::vector<size_t> displs(static_cast<size_t>(p));
  mpi_check(MPI_Gather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, root, comm), "MPI_Gather");
  Comm own;  // a tag space of its own: no other message of comm can match
  mpi_check(MPI_Comm_dup(comm, own.out()), "MPI_Comm_dup");
  std::vector<double> all;
  if (dec.rank() == root) {
    size_t total = 0;
    for (int r = 0; r < p; ++r) displs[r] = total, total += counts[r];
    all.resize(total);
    std::copy(local.begin(), local.end(), all.begin() + static_cast<long>(displs[root]));
    std::vector<LargeCount> sizes;
    std::vector<MPI_Request> reqs;
    sizes.reserve(static_cast<size_t>(p));
    reqs.reserve(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r) {
      if (r == root || counts[r] == 0) continue;
      sizes.emplace_back(counts[r], MPI_DOUBLE);
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(large_irecv(all.data() + displs[r], sizes.back(), r, 0, own.get(), &reqs.back()),
                "MPI_Irecv");
    }
    mpi_check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  } else if (count > 0) {
    mpi_check(large_send(local.data(), LargeCount(count, MPI_DOUBLE), root, 0, own.get()), "MPI_Send");
  }
  if (dec.rank() != root) return {};
  const long ny = dec.global_size(1), nz = dec.global_size(2);
  std::vector<double> out(all.size());
  for (int r = 0; r < p; ++r) {
    const long* b = &boxes[6 * static_cast<size_t>(r)];
    size_t n = static_cast<size_t>(displs[r]);
    for (long i = 0; i < b[3]; ++i)
      for (long j = 0; j < b[4]; ++j)
        for (long l = 0; l < b[5]; ++l, n += static_cast<size_t>(q)) {
          const size_t g =
              static_cast<size_t>(((b[0] + i) * ny + (b[1] + j)) * nz + (b[2] + l)) * static_cast<size_t>(q);
          std::copy_n(all.begin() + static_cast<long>(n), q, out.begin() + static_cast<long>(g));
        }
  }
  return out;
}

Totals Solver::totals() {
  const std::vector<double> f = impl_->populations();
  const VelocitySet& vs = impl_->vs;
  ExactSum mass, mom[3];
  for (size_t s = 0; s < f.size(); s += static_cast<size_t>(vs.q))
    for (int c = 0; c < vs.q; ++c) {
      const double v = f[s + static_cast<size_t>(c)];
      mass.add(v);
      for (int d = 0; d < 3; ++d)
        if (vs.c[c][d] != 0) mom[d].add(vs.c[c][d] > 0 ? v : -v);
    }
  MPI_Comm comm = impl_->dec.comm();
  mass.allreduce(comm);
  Totals t;
  t.mass = mass.value();
  for (int d = 0; d < 3; ++d) {
    mom[d].allreduce(comm);
    t.momentum[d] = mom[d].value();
  }
  return t;
}

const Timers& Solver::timers() {
  Impl& m = *impl_;
  HaloTimes h = m.halo.fwd->times();
  if (m.halo.rev) h += m.halo.rev->times();
  m.timers.set(t_halo_begin, h.begin_s, h.exchanges);
  m.timers.set(t_halo_end, h.end_s, h.exchanges);
  m.timers.set(t_pack, h.pack_s, h.exchanges);
  m.timers.set(t_unpack, h.unpack_s, h.exchanges);
  m.timers.set(t_halo_mpi, h.mpi_s(), h.exchanges);
  return m.timers;
}

void Solver::reset_timers() {
  impl_->timers.reset();
  impl_->halo.fwd->reset_times();
  if (impl_->halo.rev) impl_->halo.rev->reset_times();
}

}  // namespace haloex::lb
