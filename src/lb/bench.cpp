#include "haloex/lb/bench.hpp"

#include <cmath>

#include <omp.h>
#include <filesystem>
#include <fstream>
#include <string>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>

#include "haloex/core/mpi.hpp"
#include "haloex/field/field.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/lb/files.hpp"
#include "haloex/lb/solver.hpp"
#include "haloex/measure/counters.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

namespace fs = std::filesystem;

namespace {

// The bandwidth probe: an in-place read-modify-write sweep over an array as
// large as the LB state, each thread touching the part it sweeps (first touch).
class RmwSweep {
 public:
  explicit RmwSweep(size_t n) : n_(static_cast<long>(n)), a_(allocate_aligned<double>(n)) {
    double* a = a_.get();
    const long nn = n_;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < nn; ++i) a[i] = 1.0;
  }
  // Bytes per second over `sweeps` sweeps, all ranks at once (aggregate).
  // ways == 1: the plain streaming sweep. ways == q: the array is split into
  // q equal arrays and each cache line of every one is updated in turn, the
  // order in which a vectorised SoA kernel touches its q direction arrays.
  double measure(MPI_Comm comm, int sweeps, int ways) {
    double* a = a_.get();
    const long len = n_ / ways / 8 * 8;  // whole cache lines per array
    mpi_check(MPI_Barrier(comm), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    for (int s = 0; s < sweeps; ++s) {
      if (ways == 1) {
#pragma omp parallel for simd schedule(static)
        for (long i = 0; i < len; ++i) a[i] = a[i] * 0.5 + 0.5;
      } else {
#pragma omp parallel for schedule(static)
        for (long b = 0; b < len; b += 8)
          for (int k = 0; k < ways; ++k) {
            double* p = a + k * len + b;
#pragma omp simd
            for (int j = 0; j < 8; ++j) p[j] = p[j] * 0.5 + 0.5;
          }
      }
    }
    const double tmax = max_over(comm, MPI_Wtime() - t0);
    return 2.0 * 8.0 * static_cast<double>(len) * ways * sweeps * comm_size(comm) / tmax;
  }

 private:
  long n_;
  std::unique_ptr<double[], AlignedFree> a_;
};

// The last-level cache of CPU 0 in bytes, from sysfs (0 when it does not
// say): a lattice that fits in it gives a cache figure, not a memory one.
// Not sysconf(_SC_LEVEL3_CACHE_SIZE): on an AMD EPYC guest glibc reported
// 256 MiB for the 32 MiB that sysfs and lscpu show.
long last_level_cache_bytes() {
  long best_level = 0, bytes = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream lf(dir + "level"), sf(dir + "size");
    long level = 0, size = 0;
    std::string unit;
    if (!(lf >> level) || !(sf >> size)) continue;
    sf >> unit;  // "K" or "M", right after the number
    const long scale = unit == "M" ? 1048576 : unit == "K" ? 1024 : 1;
    if (level >= best_level) best_level = level, bytes = size * scale;
  }
  return bytes;
}

bool is_sweep(const std::string& config) { return config.rfind("stream", 0) == 0; }

// Every configuration of the options at one size, in the order of the axes.
std::vector<lb::LbConfig> configurations(const LbBenchOptions& opt, const lb::LbConfig& base) {
  std::vector<lb::LbConfig> out;
  for (auto k : opt.kernels)
    for (auto l : opt.layouts)
      for (const auto& s : opt.strategies)
        for (auto o : opt.overlaps)
          for (long p : o == lb::Overlap::interior ? opt.mpi_progress_rows : std::vector<long>{0})
            for (auto c : opt.collisions)
              for (auto sc : opt.schedules)
                for (auto g : opt.geometries)
                  for (auto sw : opt.sweeps)
                    for (long every : opt.output_every) {
                      lb::LbConfig x = base;
                      x.sweep = sw;
                      x.kernel = k;
                      x.layout = l;
                      x.strategy = s;
                      x.overlap = o;
                      x.mpi_progress_rows = p;
                      x.collision = c;
                      x.schedule = sc;
                      if (g == LbGeometry::channel) x.periodic = {true, false, base.size[2] == 1};
                      x.output_every = every;
                      // One folder per configuration, so that deleting a
                      // sample's files touches nothing else.
                      x.output_dir =
                          (fs::path(opt.output_dir) / ("bench-lb-" + std::to_string(out.size()))).string();
                      out.push_back(x);
                    }
  return out;
}

LbGeometry geometry_of(const lb::LbConfig& c) {
  return c.periodic[1] ? LbGeometry::box : LbGeometry::channel;
}

std::string config_name(const lb::LbConfig& c) {
  using lb::to_string;
  // (interior+pN: MPI progress every N rows)
  const std::string progress = c.mpi_progress_rows > 0 ? "+p" + std::to_string(c.mpi_progress_rows) : "";
  // (/outN: field output every N steps)
  const std::string output = c.output_every > 0 ? "/out" + std::to_string(c.output_every) : "";
  // (/flat or /rows: a sweep other than the default)
  const std::string sweep = c.sweep != lb::LbConfig{}.sweep ? "/" + to_string(c.sweep) : "";
  return to_string(c.kernel) + "/" + haloex::to_string(c.layout) + "/" + c.strategy + "/" +
         to_string(c.overlap) + progress + "/" + to_string(c.collision) + "/" + to_string(c.schedule) + "/" +
         haloex::to_string(geometry_of(c)) + sweep + output;
}

// Advance `steps` steps, writing the fields whenever the step count is a
// multiple of the output interval, and complete the last write: the sample
// pays for every output it starts.
void advance_with_output(lb::Solver& s, LbOutput& out, long steps, long every) {
  while (steps > 0) {
    const long n = std::min(steps, every - s.steps_done() % every);
    s.advance(n);
    steps -= n;
    if (s.steps_done() % every == 0) out.write();
  }
  out.finish();
}

// Samples per configuration of the share of the step outside the kernels.
constexpr int outside_repeats = 3;

// One sample of `steps` steps with the kernel calls clocked: the share of
// its time outside them, on the rank where that is largest (field output,
// when configured, is left out of this sample).
double outside_share(lb::Solver& s, MPI_Comm comm, long steps) {
  s.time_kernels(true);
  s.reset_timers();
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  s.advance(steps);
  const double mine = MPI_Wtime() - t0;
  const double kernels = s.timers().seconds(lb::t_kernels);
  s.time_kernels(false);
  return max_over(comm, 1.0 - kernels / mine);
}

// Instructions per site update of one more sample of `steps` steps, summed
// over ranks and threads; NaN where a rank's counters are not readable (no
// sample then: the check is collective, so every rank skips it alike).
double instructions_per_update(lb::Solver& s, MPI_Comm comm, long steps, InstructionCounter& counter) {
  int readable = counter.available() ? 1 : 0;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &readable, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (!readable) return std::nan("");
  counter.start();
  s.advance(steps);
  const std::optional<double> mine = counter.stop();
  double v[2] = {mine.value_or(0), mine ? 0.0 : 1.0};  // instructions, ranks without a count
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  const double sites = static_cast<double>(s.fluid_sites());
  if (v[1] > 0) return std::nan("");
  return v[0] / (sites * static_cast<double>(steps));
}

// Delete the files one configuration's outputs wrote (rank 0), so that the
// disk holds one sample's at a time.
void remove_outputs(MPI_Comm comm, const std::string& dir) {
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  if (comm_rank(comm) == 0) {
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(dir, ec)) fs::remove(f.path(), ec);
  }
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
}

}  // namespace

std::string to_string(LbGeometry g) { return g == LbGeometry::box ? "box" : "channel"; }

LbGeometry parse_lb_geometry(const std::string& name, const std::string& what) {
  if (name == "box") return LbGeometry::box;
  if (name == "channel") return LbGeometry::channel;
  throw InputError(what + " must be \"box\" or \"channel\", got \"" + name + "\"");
}

namespace {

// What every thread count of one lattice size shares: the options, the
// velocity set, the lattice and every configuration to run on it.
struct SizeCase {
  const LbBenchOptions& opt;
  const lb::VelocitySet& vs;
  std::array<long, 3> L;
  std::string Ltext;  // the lattice as the progress lines name it
  std::vector<lb::LbConfig> configs;
};

// The settings every configuration on an L lattice starts from.
lb::LbConfig base_config(const LbBenchOptions& opt, const lb::VelocitySet& vs, const std::array<long, 3>& L) {
  lb::LbConfig base;
  base.velocity_set = opt.velocity_set;
  base.size = L;
  base.init = "uniform";
  base.velocity = {0.01, 0.005, vs.ndim == 3 ? 0.002 : 0.0};
  base.monitor_mode = opt.monitor;
  base.tau = 0.8;
  base.source = "bench lb";
  base.output_format = opt.output_format;
  base.output_hints = opt.output_hints;
  return base;
}

// One solver per configuration, each warmed up, and its field output when
// the configuration writes one.
struct Contestants {
  std::vector<std::unique_ptr<lb::Solver>> solvers;
  std::vector<std::unique_ptr<LbOutput>> outputs;  // (null: no output)
};

Contestants make_contestants(MPI_Comm comm, const std::vector<lb::LbConfig>& configs, int warmup) {
  Contestants t;
  for (const lb::LbConfig& c : configs) {
    t.solvers.push_back(std::make_unique<lb::Solver>(c, comm));
    t.solvers.back()->advance(warmup);
    t.outputs.push_back(c.output_every > 0 ? std::make_unique<LbOutput>(*t.solvers.back(), c) : nullptr);
  }
  return t;
}

// A note on rank 0 when the lattice state on this node fits in about the
// last-level cache: the figures are then a cache's, not the memory's.
void note_cache_figure(MPI_Comm comm, const SizeCase& sc, long local_sites, int node_ranks,
                       std::ostream& log) {
  // The AA kernel's state on every rank of this node, against the cache
  // they share (the pull kernel's is twice as large).
  const double node_state = 8.0 * sc.vs.q * static_cast<double>(local_sites) * node_ranks;
  const long llc = last_level_cache_bytes();
  if (comm_rank(comm) == 0 && llc > 0 && node_state <= 2.0 * static_cast<double>(llc))
    log << "# note: L=" << sc.Ltext << ": the lattice state on this node (" << node_state / 1048576.0
        << " MiB) is within twice the " << llc / 1048576
        << " MiB last-level cache: a cache figure, not a memory one\n"
        << std::flush;
}

// The two bandwidth sweeps' results before their samples: the plain sweep
// (the roofline the fractions refer to) and the q-array sweep (what this
// machine gives q concurrent streams).
std::array<LbBenchResult, 2> sweep_results(const SizeCase& sc, int threads, const std::string& pinned) {
  const std::string qname = "stream-q" + std::to_string(sc.vs.q);
  std::array<LbBenchResult, 2> sres;
  for (int w = 0; w < 2; ++w) {
    sres[w].size = sc.L;
    sres[w].threads = threads;
    sres[w].config = w == 0 ? "stream" : qname;
    sres[w].pinned = pinned;
  }
  return sres;
}

// The ranking of the configurations so far: rivals, ranked by time per
// update, 1 / MLUPS.
Ranking rank_per_update(const std::vector<LbBenchResult>& res, const std::vector<lb::LbConfig>& configs,
                        const RoundsRule& rule, double precision) {
  std::vector<std::vector<double>> per_update(res.size());
  std::vector<std::string> names;
  for (size_t k = 0; k < res.size(); ++k) {
    for (double m : res[k].samples) per_update[k].push_back(1 / m);
    names.push_back(config_name(configs[k]));
  }
  std::vector<bool> ranked(res.size());  // (left the race: as in bench halo)
  for (size_t k = 0; k < res.size(); ++k) ranked[k] = rule.active(k);
  return rank_candidates(per_update, ranked, names, precision);
}

// The interleaved rounds (collective): before each, the two bandwidth
// sweeps; in it, each configuration still in the race runs opt.steps steps
// (with its field output, when it writes one), giving MLUPS and the halo
// time per step, both the slowest rank's.
void run_rounds(MPI_Comm comm, const SizeCase& sc, int threads, Contestants& team, RmwSweep& stream,
                std::array<LbBenchResult, 2>& sres, std::vector<LbBenchResult>& res, RoundsRule& rule,
                std::ostream& log) {
  const LbBenchOptions& opt = sc.opt;
  const std::vector<lb::LbConfig>& configs = sc.configs;
  const bool talk = comm_rank(comm) == 0 && opt.progress;
  const auto& solvers = team.solvers;
  const auto& outputs = team.outputs;
  const auto rank_now = [&] { return rank_per_update(res, configs, rule, opt.precision); };
  for (int r = 0; rule.another(r, rank_now); ++r) {
    if (talk)
      log << "# L=" << sc.Ltext << " threads=" << threads << ": round " << rule.round_text(r) << "\n"
          << std::flush;
    sres[0].samples.push_back(stream.measure(comm, 5, 1));
    sres[1].samples.push_back(stream.measure(comm, 5, sc.vs.q));
    for (size_t k = 0; k < configs.size(); ++k) {
      if (!rule.active(k)) continue;  // decidedly slower than the leader: it has its answer
      lb::Solver& s = *solvers[k];
      s.reset_timers();
      mpi_check(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      if (outputs[k])
        advance_with_output(s, *outputs[k], opt.steps, configs[k].output_every);
      else
        s.advance(opt.steps);
      const double tmax = max_over(comm, MPI_Wtime() - t0);
      if (outputs[k]) {
        // One output is several quantities' events at the same step.
        long last_step = -1;
        for (const IoRecord& e : outputs[k]->take_events()) {
          if (e.step != last_step) ++res[k].output_writes, res[k].output_s.push_back(0);
          last_step = e.step;
          res[k].output_bytes += static_cast<double>(e.event.bytes);
          res[k].output_s.back() += e.event.elapsed_s;
        }
        remove_outputs(comm, configs[k].output_dir);
      }
      const Timers& tm = s.timers();
      const double hmax =
          max_over(comm, (tm.seconds(lb::t_halo_begin) + tm.seconds(lb::t_halo_end)) / opt.steps);
      res[k].samples.push_back(static_cast<double>(s.fluid_sites()) * opt.steps / tmax / 1e6);
      res[k].halo_s_per_step.push_back(hmax);
    }
  }
}

// The sweeps' and the configurations' results of one size and thread
// count into `out`: each configuration against the two rooflines and the
// first configuration.
void add_results(const SizeCase& sc, int threads, const std::string& pinned, const Contestants& team,
                 const RoundsOutcome& rounds, std::array<LbBenchResult, 2>& sres,
                 std::vector<LbBenchResult>& res, std::vector<LbBenchResult>& out) {
  const double bytes = 2.0 * 8.0 * sc.vs.q;
  for (LbBenchResult& x : sres) {
    x.summary = summarize(x.samples);
    x.rounds = rounds;
    x.bytes_per_update = bytes;
    x.roofline_mlups = x.summary.median / bytes / 1e6;
    out.push_back(x);
  }
  for (size_t k = 0; k < sc.configs.size(); ++k) {
    LbBenchResult& x = res[k];
    x.size = sc.L;
    x.threads = threads;
    x.config = config_name(sc.configs[k]);
    x.lb = sc.configs[k];
    x.auto_choice = auto_choice_text(team.solvers[k]->strategy());
    x.pinned = pinned;
    x.summary = summarize(x.samples);
    x.rounds = rounds;
    x.bytes_per_update = bytes;
    x.roofline_mlups = sres[0].roofline_mlups;
    x.fraction = x.summary.median / sres[0].roofline_mlups;
    x.fraction_q = x.summary.median / sres[1].roofline_mlups;
    x.halo_median_s = summarize(x.halo_s_per_step).median;
    x.outside_median = summarize(x.outside_samples).median;
    x.kernel_fraction_q = x.fraction_q / (1 - x.outside_median);
    x.ratio_to_first = x.summary.median / res[0].summary.median;
    if (x.output_writes > 0) x.output_bytes /= static_cast<double>(x.output_writes);
    out.push_back(x);
  }
}

// Every configuration of one size with `threads` threads per rank, its
// results (and the sweeps') into `out`. Collective.
void run_threads(MPI_Comm comm, const SizeCase& sc, int threads, const ThreadChoice& choice, int node_ranks,
                 std::vector<LbBenchResult>& out, std::ostream& log) {
  const LbBenchOptions& opt = sc.opt;
  const int rank = comm_rank(comm);
  omp_set_num_threads(threads);
  // Pinned before the solvers touch their memory first.
  const std::string pinned = pin_team(choice, threads);
  if (rank == 0 && opt.progress)
    log << "# threads=" << threads << " pinned: " << pinned << "\n" << std::flush;
  Contestants team = make_contestants(comm, sc.configs, opt.warmup);
  const long local_sites = team.solvers.front()->decomposition().local_volume();
  note_cache_figure(comm, sc, local_sites, node_ranks, log);
  // At least the LB state and at least 2 GiB over all ranks, so that the
  // sweep measures memory rather than a large last-level cache.
  const size_t state = static_cast<size_t>(local_sites) * static_cast<size_t>(sc.vs.q);
  const size_t floor = (size_t{2} << 30) / 8 / static_cast<size_t>(comm_size(comm));
  RmwSweep stream(std::max(state, floor));
  stream.measure(comm, 1, 1);  // warm-up
  std::array<LbBenchResult, 2> sres = sweep_results(sc, threads, pinned);
  std::vector<LbBenchResult> res(sc.configs.size());
  const Repetition rep{opt.steps, opt.repeats, opt.warmup, opt.precision, opt.budget_s};
  check_repetition(rep);
  RoundsRule rule(rep, comm, sc.configs.size());
  run_rounds(comm, sc, threads, team, stream, sres, res, rule, log);
  // Where the time goes, from samples of their own with the kernel calls
  // clocked (their clock reads stay out of the MLUPS samples).
  for (size_t k = 0; k < sc.configs.size(); ++k)
    for (int r = 0; r < outside_repeats; ++r)
      res[k].outside_samples.push_back(outside_share(*team.solvers[k], comm, opt.steps));
  InstructionCounter counter(threads);
  if (!counter.available() && rank == 0 && opt.progress)
    log << "# note: instructions per update: n/a, " << counter.why_not() << "\n" << std::flush;
  for (size_t k = 0; k < sc.configs.size(); ++k)
    res[k].instructions_per_update = instructions_per_update(*team.solvers[k], comm, opt.steps, counter);
  add_results(sc, threads, pinned, team, rule.outcome(), sres, res, out);
  for (const lb::LbConfig& c : sc.configs)
    if (c.output_every > 0 && rank == 0) {
      std::error_code ec;
      fs::remove(c.output_dir, ec);
    }
}

}  // namespace

std::vector<LbBenchResult> run_lb_bench(MPI_Comm comm, const LbBenchOptions& opt, const ThreadChoice& choice,
                                        std::ostream& log) {
  const int rank = comm_rank(comm);
  const lb::VelocitySet vs = lb::velocity_set(opt.velocity_set);
  std::vector<int> thread_counts = opt.threads;
  if (thread_counts.empty()) thread_counts.push_back(omp_get_max_threads());
  std::vector<LbBenchResult> out;
  const int node_ranks = comm_size(node_comm(comm).get());
  for (const std::array<long, 3>& L : opt.sizes) {
    const SizeCase sc{opt, vs, L, lb_size_text(L, vs.ndim), configurations(opt, base_config(opt, vs, L))};
    for (int threads : thread_counts) run_threads(comm, sc, threads, choice, node_ranks, out, log);
  }
  if (rank == 0) {
    std::error_code ec;
    fs::remove(opt.output_dir, ec);  // only when empty: never a directory the user had
  }
  return rank == 0 ? out : std::vector<LbBenchResult>{};
}

std::array<long, 3> parse_lb_size(const std::string& text, int ndim, const std::string& what) {
  std::vector<long> v;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t x = std::min(text.find('x', at), text.size());
    const std::string part = text.substr(at, x - at);
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || errno == ERANGE || n < 1 || n > 1L << 24)
      throw InputError(what + ": '" + text + "' is not a lattice size (L, or NXxNY" +
                       (ndim == 3 ? "xNZ" : "") + ", each from 1 to 16777216)");
    v.push_back(n);
    at = x + 1;
  }
  if (v.size() == 1) return {v[0], v[0], ndim == 3 ? v[0] : 1};
  if (static_cast<int>(v.size()) != ndim)
    throw InputError(what + ": '" + text + "' has " + std::to_string(v.size()) + " sizes, the " +
                     std::to_string(ndim) + "-D lattice needs 1 or " + std::to_string(ndim));
  return {v[0], v[1], ndim == 3 ? v[2] : 1};
}

std::string lb_size_text(const std::array<long, 3>& s, int ndim) {
  const bool cubic = s[0] == s[1] && (ndim == 2 || s[1] == s[2]);
  return cubic ? std::to_string(s[0]) : extents_text(s, ndim);
}

std::string format_lb_table(const std::vector<LbBenchResult>& results) {
  std::string s;
  char line[288];
  std::snprintf(line, sizeof line, "%11s %7s  %-44s %10s %10s %9s %8s %8s %8s %8s %9s %12s %8s %9s\n", "L",
                "threads", "config", "MLUPS", "mean", "std", "roofline", "fraction", "q-frac", "kernel",
                "instr/upd", "halo ms/step", "outside", "ratio");
  s += line;
  for (const LbBenchResult& r : results) {
    if (is_sweep(r.config)) {
      std::snprintf(line, sizeof line,
                    "%11s %7d  %-44s %10.2f GB/s in-place RMW (median) %s; %.1f MLUPS at %.0f B/update\n",
                    lb_size_text(r.size, r.size[2] == 1 ? 2 : 3).c_str(), r.threads, r.config.c_str(),
                    r.summary.median / 1e9,
                    r.config == "stream" ? "of 1 array: roofline" : "over q arrays: q-roofline",
                    r.roofline_mlups, r.bytes_per_update);
      s += line;
      continue;
    }
    char instr[16] = "n/a";
    if (!std::isnan(r.instructions_per_update))
      std::snprintf(instr, sizeof instr, "%.1f", r.instructions_per_update);
    std::snprintf(line, sizeof line,
                  "%11s %7d  %-44s %10.2f %10.2f %9.2f %8.1f %8.3f %8.3f %8.3f %9s %12.3f %7.1f%% %9.3f\n",
                  lb_size_text(r.size, r.size[2] == 1 ? 2 : 3).c_str(), r.threads, r.config.c_str(),
                  r.summary.median, r.summary.mean, r.summary.stddev, r.roofline_mlups, r.fraction,
                  r.fraction_q, r.kernel_fraction_q, instr, r.halo_median_s * 1e3, r.outside_median * 100,
                  r.ratio_to_first);
    s += line;
  }
  return s;
}

namespace {

// A bandwidth sweep's record fields: its arrays, bandwidth and the roofline
// it gives.
void put_sweep(nlohmann::json& j, const LbBenchOptions& opt, const LbBenchResult& r) {
  j["arrays"] = r.config == "stream" ? 1 : lb::velocity_set(opt.velocity_set).q;
  j["bandwidth_bytes_per_s_samples"] = r.samples;
  j["bandwidth_bytes_per_s_median"] = r.summary.median;
  j["roofline_mlups"] = r.roofline_mlups;
  j["bytes_per_update"] = r.bytes_per_update;
}

// A configuration's record fields: its settings, its MLUPS against the
// rooflines, where its time goes and, when it writes them, its outputs.
void put_configuration(nlohmann::json& j, const LbBenchResult& r) {
  j["kernel"] = lb::to_string(r.lb.kernel);
  j["layout"] = to_string(r.lb.layout);
  j["strategy"] = r.lb.strategy;
  j["overlap"] = lb::to_string(r.lb.overlap);
  j["mpi_progress_rows"] = r.lb.mpi_progress_rows;
  j["collision"] = lb::to_string(r.lb.collision);
  j["schedule"] = lb::to_string(r.lb.schedule);
  j["sweep"] = lb::to_string(r.lb.sweep);
  j["geometry"] = to_string(geometry_of(r.lb));
  j["periodic"] = r.lb.periodic;
  j["mlups_samples"] = r.samples;
  j["mlups_median"] = r.summary.median;
  j["mlups_mean"] = r.summary.mean;
  j["mlups_stddev"] = r.summary.stddev;
  j["mlups_median_ci95"] = {r.summary.median_low, r.summary.median_high};
  j["roofline_mlups"] = r.roofline_mlups;
  j["roofline_fraction"] = r.fraction;
  j["q_roofline_fraction"] = r.fraction_q;
  j["kernel_q_roofline_fraction"] = r.kernel_fraction_q;
  j["bytes_per_update"] = r.bytes_per_update;
  // (null: no readable hardware counter on this machine)
  j["instructions_per_update"] =
      std::isnan(r.instructions_per_update) ? nlohmann::json() : nlohmann::json(r.instructions_per_update);
  j["halo_time_per_step_s_samples"] = r.halo_s_per_step;
  j["outside_kernels_fraction_samples"] = r.outside_samples;
  j["outside_kernels_fraction_median"] = r.outside_median;
  j["halo_time_per_step_s_median"] = r.halo_median_s;
  j["ratio_to_first_config"] = r.ratio_to_first;
  j["output_every"] = r.lb.output_every;
  if (r.lb.output_every > 0) {
    j["output_format"] = r.lb.output_format;
    j["hints"] = io_hints_text(r.lb.output_hints);
    j["output_writes"] = r.output_writes;
    j["output_bytes_per_write"] = r.output_bytes;
    j["output_time_s_samples"] = r.output_s;
    j["output_time_s_median"] = summarize(r.output_s).median;
  }
}

}  // namespace

std::vector<nlohmann::json> lb_bench_records(MPI_Comm comm, const LbBenchOptions& opt,
                                             const std::vector<LbBenchResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "lb");
  const int ndim = lb::velocity_set(opt.velocity_set).ndim;
  const long llc = last_level_cache_bytes();  // read from sysfs once, not per record
  std::vector<nlohmann::json> out;
  for (const LbBenchResult& r : results) {
    nlohmann::json j = meta;
    j["threads_per_rank"] = r.threads;
    if (!opt.threads.empty()) j["threads_source"] = "--threads";  // the sweep set each count itself
    j["velocity_set"] = opt.velocity_set;
    // "size": the x edge (L of a cubic lattice); "global_size": all three.
    j["size"] = r.size[0];
    j["global_size"] = r.size;
    j["lattice_sites"] = static_cast<double>(r.size[0] * r.size[1] * (ndim == 3 ? r.size[2] : 1));
    j["config"] = r.config;
    if (!r.auto_choice.empty()) j["auto_choice"] = r.auto_choice;
    j["steps_per_sample"] = opt.steps;
    put_rounds(j, opt.precision, opt.budget_s, r.rounds, false);
    j["last_level_cache_bytes"] = llc;
    j["monitor"] = opt.monitor;
    j["threads_pinned"] = r.pinned;
    if (is_sweep(r.config))
      put_sweep(j, opt, r);
    else
      put_configuration(j, r);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
