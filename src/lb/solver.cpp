#include "haloex/lb/solver.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <optional>

#include "gather.hpp"
#include "halo_part.hpp"
#include "haloex/field/field.hpp"
#include "haloex/halo/plan.hpp"
#include "haloex/lb/geometry.hpp"
#include "kernel_set.hpp"
#include "kernels.hpp"
#include "neighbours.hpp"
#include "row_wrap.hpp"
#include "sites.hpp"
#include "sweeper.hpp"
#include "wall_guard.hpp"

namespace haloex::lb {

namespace {

using detail::Context;
using detail::Gaps;
using detail::HaloPart;
using detail::KernelSet;
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

}  // namespace

// The populations' field. SoA keeps each direction's sites in a block of
// their own; where a block's length in bytes falls within two cache lines of
// a multiple of 4 KiB, the q directions' same sites share L1 sets and alias
// to the load-store unit (which compares address bits 0-11), and the blocks
// are padded to 3 lines past a multiple. Measured, one thread, AA, box: at
// 126^3 (blocks of exactly 16 MiB) 41.1 MLUPS unpadded against 96.8, at
// 128^3 (64 bytes past) 96.3 against 103.6. Other paddings helped one size
// and hurt another (11 lines: 104.6 at 128^3, 84 at 126^3), and sizes whose
// blocks end far from a multiple ran as fast unpadded (64^3, 96^3).
FieldShape populations_shape(const Decomposition& dec, int q, Layout layout) {
  const FieldShape sh = FieldShape::make(dec, ElementType::f64, q, 1, layout);
  const long page = 4096 / 8, line = 64 / 8;  // in doubles
  const long past = sh.nsites % page;
  if (layout != Layout::soa || (past >= 2 * line && past <= page - 2 * line)) return sh;
  return sh.with_extra_sites((3 * line - past + page) % page);
}

struct Solver::Impl {
  LbConfig cfg;
  VelocitySet vs;
  Decomposition dec;
  bool aa;  // run.kernel = aa
  Overlap overlap;

  // The lattice: populations, how to reach each site's neighbours, what
  // each site is.
  Field<double> f0;
  detail::NeighbourTables nbt;
  std::optional<Field<double>> f1;  // the second grid of the pull kernel
  int cur = 0;                      // pull: which grid holds the state
  detail::Sites sites;

  // The kernels and the sweeps that call them.
  detail::Kernels kern;
  detail::SweepBoxes boxes;
  detail::Sweeper sweeper;
  detail::RowWrap row_wrap;  // a flat sweep's copies of the row dimension's periodic halo (or inactive)

  // The halo and the AA pattern's bookkeeping around it.
  HaloPart halo;
  WallGuard guard;  // the AA write-back's (wall_guard.hpp)

  // Time stepping, monitoring and timing.
  Monitor monitor;
  Timers timers{{"update (collide+stream)", "halo begin", "halo end", "  pack+copy", "  unpack", "  mpi+wait",
                 "map rebuild", "monitor", "update: kernels only"}};
  long steps = 0;
  long aa_phase = 0;  // the AA pattern's even (local) step falls on steps = aa_phase mod 2
  enum class State { pre, post_pull, post_even } state = State::pre;

  Impl(const LbConfig& c, MPI_Comm comm)
      : cfg(c),
        vs(velocity_set(c.velocity_set)),
        dec(comm, spec_of(c)),
        aa(c.kernel == Kernel::aa),
        overlap(c.overlap),
        f0(dec, populations_shape(dec, vs.q, c.layout), c.field_memory),
        nbt(f0.shape(), vs, wrapped_dims(c, dec), detail::table_walls(c, dec), c.kernel == Kernel::aa),
        sites(c, vs, dec, f0.shape(), nbt),
        kern(c, vs, f0.shape(), nbt.bulk(), sites.kinds().data()),
        boxes(detail::sweep_boxes(f0.shape(), vs.ndim, dec)),
        sweeper(f0.shape(), sites.map(), nbt, c),
        halo(c, vs, dec, f0),
        monitor(dec.comm(), parse_monitor_mode(c.monitor_mode), c.mach_limit) {
    if (!aa) f1.emplace(dec, f0.shape(), c.field_memory);
    if (detail::sweep_wraps_rows(cfg, dec))
      row_wrap = detail::RowWrap(f0.shape(), vs, sites.map(), nbt, sites.kinds(), aa);
    halo.start(cfg);
    // (Only when the write-back moves anything: on one rank it moves nothing,
    // and saving every wall's bounce-back values took about 6% of a 128^3
    // channel's step.)
    if (aa && halo.rev_plan->halo_bytes() > 0)
      guard.build(f0.shape(), vs, nbt, dec, sites.kinds(), [&](auto f) { sites.for_each_fluid(f); });
    initialise();
  }

  void initialise() {
    const FieldShape& sh = f0.shape();
    double* a = f0.data();
    const double k = 2.0 * std::numbers::pi / static_cast<double>(cfg.size[1]);
    const bool shear_wave = cfg.init == "shear_wave";
    sites.for_each_fluid([&](long s, long, const std::array<long, 3>& p) {
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
        [&](long s, long n, const long*, Gaps g, Stats& st) {
          fn(src, dst, s, n, kern.with(kern.ctx.nb, g), st);
        },
        [](long, const long*, Stats&) {}, [](const long*, long, int, Stats&) {}, true,
        wrap_hooks(dst, swap && halo.reverse_pending));
  }

  Stats sweep_pull(const std::vector<Box>& boxes, const KernelSet& k) {
    const double* src = grid(cur);
    double* dst = grid(1 - cur);
    return sweeper.sweep(
        boxes,
        [&](long s, long n, const long* nb, Gaps g, Stats& st) {
          k.pull(src, dst, s, n, kern.with(nb, g), st);
        },
        [&](long s, const long* nb, Stats& st) { k.pull_site(src, dst, s, kern.with(nb), st); },
        [&](const long* s, long n, int cls, Stats& st) {
          k.pull_list(src, dst, s, n, kern.with(nbt.table(cls)), st);
        },
        false, wrap_hooks(dst, false));
  }

  Stats sweep_odd(const std::vector<Box>& boxes, const KernelSet& k) {
    double* a = grid(0);
    return sweeper.sweep(
        boxes,
        [&](long s, long n, const long* nb, Gaps g, Stats& st) { k.aa_odd(a, s, n, kern.with(nb, g), st); },
        [&](long s, const long* nb, Stats& st) { k.aa_odd_site(a, s, kern.with(nb), st); },
        [&](const long* s, long n, int cls, Stats& st) {
          k.aa_odd_list(a, s, n, kern.with(nbt.table(cls)), st);
        },
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
      sites.rebuild_map();
    }
    strat.end();
    if (write_back) guard.restore(f0.data(), 1);
    ScopedTimer t(timers, t_update);
    st.merge(update(interior ? boxes.shell : boxes.all));
    return st;
  }

  void step() {
    const bool mon = monitor.mode() != Monitor::Mode::off && steps % cfg.monitor_every == 0;
    const KernelSet& k = kern.set[mon ? 1 : 0];
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
    const KernelSet& k = kern.set[0];
    const int g = aa ? 0 : cur;
    if (state != State::pre) {
      // Post-collision state: stream once more (reading only) to get f(t).
      const FieldView v[1] = {view(g)};
      halo.fwd->exchange(v);
    }
    const double* src = grid(g);
    std::vector<double> out(static_cast<size_t>(sh.interior().volume() * q), 0.0);
    sites.for_each_fluid([&](long s, long n, const std::array<long, 3>& p) {
      const Context sc = kern.with(nbt.site_at(p[0], p[1], p[2]));
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
long Solver::fluid_sites() const { return impl_->sites.fluid_global(); }
long Solver::slow_path_sites() const { return impl_->sites.map().boundary_sites(); }
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
  m.sites.for_each_fluid([&](long s, long n, const std::array<long, 3>&) {
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
  m.sites.for_each_fluid([&](long, long n, const std::array<long, 3>&) { out[static_cast<size_t>(n)] = 0; });
  return out;
}

std::vector<double> Solver::global_populations(int root) {
  return detail::gather_populations(impl_->dec, impl_->populations(), impl_->vs.q, root);
}

Totals Solver::totals() { return detail::totals_of(impl_->populations(), impl_->vs, impl_->dec.comm()); }

uint64_t Solver::state_checksum() {
  return detail::checksum_of(impl_->dec, impl_->populations(), impl_->vs.q);
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
  m.timers.set(t_kernels, m.sweeper.kernel_seconds(), m.timers.calls(t_update));
  return m.timers;
}

void Solver::time_kernels(bool on) { impl_->sweeper.time_kernels(on); }

void Solver::reset_timers() {
  impl_->timers.reset();
  impl_->sweeper.reset_kernel_seconds();
  impl_->halo.fwd->reset_times();
  if (impl_->halo.rev) impl_->halo.rev->reset_times();
}

}  // namespace haloex::lb
