#include "haloex/stencil/bench.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <ostream>
#include <variant>

#include "haloex/core/mpi.hpp"
#include "haloex/halo/memory_bound.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/measure/record.hpp"
#include "haloex/measure/sweep.hpp"
#include "haloex/stencil/diffusion.hpp"

namespace haloex {

namespace {

using AnyDiffusion =
    std::variant<std::unique_ptr<stencil::Diffusion<double>>, std::unique_ptr<stencil::Diffusion<float>>>;

struct Candidate {
  std::string name;
  AnyDiffusion app;  // empty pointer on ranks that do not take part (serial)
  StencilBenchResult result;
};

template <class T>
AnyDiffusion make_app(MPI_Comm comm, const stencil::DiffusionConfig& cfg) {
  return std::make_unique<stencil::Diffusion<T>>(comm, cfg);
}

// The options of one run turned into what every lattice uses.
struct StencilRun {
  const StencilBenchOptions& opt;
  Repetition rep;
  int rank, ranks;
  std::vector<std::string> names;
};

// Candidate `n` on the nx x ny x nz lattice: `serial` on rank 0 alone, every
// other strategy on all ranks of comm. Collective.
Candidate make_candidate(MPI_Comm comm, const StencilRun& run, long nz, const std::string& n) {
  const StencilBenchOptions& opt = run.opt;
  stencil::DiffusionConfig cfg;
  cfg.nx = opt.nx;
  cfg.ny = opt.ny;
  cfg.nz = nz;
  cfg.procs = opt.procs;
  cfg.strategy = n;
  Candidate c{n, {}, {}};
  auto make = [&](MPI_Comm on) {
    c.app = opt.type == ElementType::f64 ? make_app<double>(on, cfg) : make_app<float>(on, cfg);
  };
  if (n != "serial") {
    make(comm);
    return c;
  }
  // Built on rank 0 alone: the others must learn whether it failed (and
  // then leave it out, or fail, together).
  std::string why;
  if (run.rank == 0) try {
      make(MPI_COMM_SELF);
    } catch (const InputError& e) {
      why = e.what();
    }
  int failed = why.empty() ? 0 : 1;
  mpi_check(MPI_Bcast(&failed, 1, MPI_INT, 0, comm), "MPI_Bcast");
  if (failed) throw InputError(run.rank == 0 ? why : "the serial reference cannot run (see rank 0)");
  return c;
}

// The ranking of the total times so far. The serial reference is not a
// choice, and `auto` runs one of the others: neither is ranked, both run to
// the end, as references.
Ranking rank_total_times(const std::vector<Candidate>& cands, const RoundsRule& rule, double precision) {
  std::vector<std::vector<double>> samples;
  std::vector<bool> ranked;
  std::vector<std::string> names;
  for (size_t i = 0; i < cands.size(); ++i) {  // (left the race: as in bench halo)
    samples.push_back(cands[i].result.total_s);
    ranked.push_back(cands[i].name != "serial" && cands[i].name != "auto" && rule.active(i));
    names.push_back(cands[i].name);
  }
  return rank_candidates(samples, ranked, names, precision);
}

// The interleaved rounds on one lattice (collective): before each round the
// copy bandwidth, in it each candidate's run of opt.iterations steps, whose
// times (the slowest rank's) go to its result.
StencilBandwidth sweep_lattice(MPI_Comm comm, const StencilRun& run, long nz, std::vector<Candidate>& cands,
                               std::ostream& log) {
  const StencilBenchOptions& opt = run.opt;
  // The roofline probe: at least the two fields and 256 MiB per array over
  // all ranks, so it streams from memory, not from a large cache.
  const size_t field_elems = static_cast<size_t>((opt.nx / std::max(1, run.ranks) + 4) * (opt.ny + 4) * nz);
  CopySweep copy(std::max(2 * field_elems, (size_t{256} << 20) / 8 / static_cast<size_t>(run.ranks)));
  copy.measure(comm, 1);
  StencilBandwidth bw;
  bw.nz = nz;

  auto run_once = [&](Candidate& c, bool record) {
    mpi_check(MPI_Barrier(comm), "MPI_Barrier");
    double t[6] = {0, 0, 0, 0, 0, 0};
    std::visit(
        [&](auto& app) {
          if (!app) return;
          app->reset();
          app->run(opt.iterations);
          t[0] = app->times().total_s;
          t[1] = app->times().halo_s;
          t[2] = app->times().work_s;
          if (const Strategy* s = app->strategy(); s && s->times().exchanges > 0) {
            const HaloTimes& h = s->times();
            const double n = static_cast<double>(h.exchanges);
            t[3] = h.pack_s / n, t[4] = h.mpi_s() / n, t[5] = h.unpack_s / n;
            c.result.resolved_strategy = s->resolved_name();
            c.result.auto_choice = auto_choice_text(*s);
          }
        },
        c.app);
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, t, 6, MPI_DOUBLE, MPI_MAX, comm),
              "MPI_Allreduce");  // serial: rank 0's
    if (!record) return;
    c.result.total_s.push_back(t[0]);
    c.result.halo_s.push_back(t[1]);
    c.result.work_s.push_back(t[2]);
    if (c.name == "serial") return;
    c.result.pack_s.push_back(t[3]);
    c.result.mpi_s.push_back(t[4]);
    c.result.unpack_s.push_back(t[5]);
  };
  RoundsRule rule(run.rep, comm, cands.size());
  const auto before_round = [&](int r) {
    progress_line(log, run.rank == 0 && opt.progress, "stencil",
                  std::to_string(opt.nx) + "x" + std::to_string(opt.ny) + "x" + std::to_string(nz),
                  rule.round_text(r));
    bw.copy_bytes_per_s.push_back(copy.measure(comm, 3));
  };
  const auto rank_now = [&] { return rank_total_times(cands, rule, opt.precision); };
  interleave(run.rep, cands, before_round, run_once, rule, rank_now);
  for (Candidate& c : cands) c.result.rounds = rule.outcome();
  bw.summary = summarize(bw.copy_bytes_per_s);
  return bw;
}

// Candidate c's result from its samples: halo bytes (the mean over the
// ranks; collective, except for serial), its grid, the statistics, the
// update rate and its share of the roofline.
void summarize_candidate(MPI_Comm comm, const StencilRun& run, long nz, const StencilBandwidth& bw,
                         Candidate& c) {
  const StencilBenchOptions& opt = run.opt;
  const double values = static_cast<double>(opt.nx) * static_cast<double>(opt.ny) * static_cast<double>(nz);
  // The blocked kernel keeps lap in cache: memory sees one read of `in`
  // and one write of `out` per value (counted as STREAM does).
  const double bytes = 2.0 * static_cast<double>(element_size(opt.type));
  StencilBenchResult& x = c.result;
  x.strategy = c.name;
  x.nz = nz;
  const bool is_serial = c.name == "serial";
  double hb = 0;
  std::array<long, 2> local{0, 0};
  std::array<int, 2> procs{1, 1};
  std::visit(
      [&](auto& app) {
        if (!app) return;
        hb = app->halo_bytes();
        const Decomposition& d = app->decomposition();
        local = {d.local_size(0), d.local_size(1)};
        procs = {d.procs(0), d.procs(1)};
      },
      c.app);
  x.halo_bytes = is_serial ? 0 : mean_over(comm, hb);
  x.local = local;
  x.procs = procs;
  x.total = summarize(x.total_s);
  x.halo = summarize(x.halo_s);
  x.work = summarize(x.work_s);
  if (!x.pack_s.empty())
    x.pack = summarize(x.pack_s), x.mpi = summarize(x.mpi_s), x.unpack = summarize(x.unpack_s);
  x.updates_per_s = values * static_cast<double>(opt.iterations) / x.work.median;
  x.roofline_updates_per_s = bw.summary.median / bytes;
  if (!is_serial || run.ranks == 1) x.roofline_fraction = x.updates_per_s / x.roofline_updates_per_s;
}

// The results of one lattice into the report, each compared with staged's
// halo time and serial's total time when they ran.
void add_lattice(MPI_Comm comm, const StencilRun& run, long nz, const StencilBandwidth& bw,
                 std::vector<Candidate>& cands, StencilBenchReport& report) {
  const StencilBenchResult* staged = nullptr;
  const StencilBenchResult* serial = nullptr;
  for (Candidate& c : cands) {
    summarize_candidate(comm, run, nz, bw, c);
    if (c.name == "staged") staged = &c.result;
    if (c.name == "serial") serial = &c.result;
  }
  for (Candidate& c : cands) {
    StencilBenchResult& x = c.result;
    if (staged) x.halo_ratio_to_staged = x.halo.median / staged->halo.median;
    if (serial) x.speedup_vs_serial = serial->total.median / x.total.median;
    report.results.push_back(x);
  }
  report.bandwidth.push_back(bw);
}

}  // namespace

StencilBenchReport run_stencil_bench(MPI_Comm comm, const StencilBenchOptions& opt, std::ostream& log) {
  const Repetition rep{opt.iterations, opt.repeats, opt.warmup, opt.precision, opt.budget_s};
  check_repetition(rep);
  if (opt.nz.empty()) throw InputError("give at least one --nz");
  const int rank = comm_rank(comm), ranks = comm_size(comm);
  const StencilRun run{opt, rep, rank, ranks, candidate_names(opt.strategies, {"serial"}, strategy_names())};
  StencilBenchReport report;
  for (long nz : opt.nz) {
    const auto make = [&](const std::string& n) { return make_candidate(comm, run, nz, n); };
    std::vector<Candidate> cands = build_candidates<Candidate>(comm, run.names, !opt.strategies.empty(), make,
                                                               log, rank == 0 && opt.progress);
    const StencilBandwidth bw = sweep_lattice(comm, run, nz, cands, log);
    add_lattice(comm, run, nz, bw, cands, report);
  }
  if (rank != 0) return {};
  return report;
}

std::string format_stencil_table(const StencilBenchOptions& opt, int ranks, const StencilBenchReport& r) {
  std::string s;
  char line[320];
  std::snprintf(
      line, sizeof line,
      "# %ld iterations per sample, %d rounds, strategies interleaved; times of one run, slowest rank\n"
      "# roofline: STREAM copy bandwidth of all %d ranks measured in the same run / %d bytes per update\n",
      opt.iterations, r.results.empty() ? opt.repeats : r.results.front().rounds.rounds, ranks,
      static_cast<int>(2 * element_size(opt.type)));
  s += line;
  if (opt.precision > 0 && !r.results.empty()) {
    const RoundsOutcome& o = r.results.front().rounds;
    s += "# rounds until decided (--ci): " +
         (o.stop == "decided" ? std::string("decided") : "undecided, stopped by " + o.stop) +
         (o.ranking.why.empty() ? "" : ": " + o.ranking.why) + "\n";
  }
  long nz = -1;
  for (const StencilBenchResult& x : r.results) {
    if (x.nz != nz) {
      nz = x.nz;
      std::array<int, 2> grid{1, 1};  // the parallel strategies' grid (serial has its own 1x1)
      for (const StencilBenchResult& y : r.results)
        if (y.nz == nz && y.strategy != "serial") grid = y.procs;
      for (const StencilBandwidth& b : r.bandwidth)
        if (b.nz == nz) {
          std::snprintf(line, sizeof line,
                        "\n%ldx%ldx%ld on %dx%d ranks; copy bandwidth %.2f GB/s (median)\n", opt.nx, opt.ny,
                        nz, grid[0], grid[1], b.summary.median / 1e9);
          s += line;
        }
      std::snprintf(line, sizeof line, "%-20s %10s %10s %10s %7s %9s %10s %9s %10s %9s %9s %9s\n", "strategy",
                    "total_ms", "halo_ms", "work_ms", "halo_%", "halo/stg", "work_MLUPS", "roofline",
                    "speedup", "pack_us", "mpi_us", "unpack_us");
      s += line;
    }
    auto opt_num = [](double v, const char* fmt) {
      char b[32];
      if (v <= 0) return std::string("-");
      std::snprintf(b, sizeof b, fmt, v);
      return std::string(b);
    };
    const std::string label = x.resolved_strategy.empty() || x.resolved_strategy == x.strategy
                                  ? x.strategy
                                  : x.strategy + ">" + x.resolved_strategy;
    auto us = [&](const std::vector<double>& v, const Summary& m) {
      return v.empty() ? std::string("-") : opt_num(m.median * 1e6 + 1e-9, "%.2f");
    };
    std::snprintf(line, sizeof line, "%-20s %10.3f %10.3f %10.3f %7.1f %9s %10.1f %9s %10s %9s %9s %9s\n",
                  label.c_str(), x.total.median * 1e3, x.halo.median * 1e3, x.work.median * 1e3,
                  100.0 * x.halo.median / x.total.median, opt_num(x.halo_ratio_to_staged, "%.3f").c_str(),
                  x.updates_per_s / 1e6, opt_num(x.roofline_fraction, "%.2f").c_str(),
                  opt_num(x.speedup_vs_serial, "%.2f").c_str(), us(x.pack_s, x.pack).c_str(),
                  us(x.mpi_s, x.mpi).c_str(), us(x.unpack_s, x.unpack).c_str());
    s += line;
  }
  return s;
}

std::vector<nlohmann::json> stencil_bench_records(MPI_Comm comm, const StencilBenchOptions& opt,
                                                  const StencilBenchReport& r) {
  const nlohmann::json meta = run_metadata(comm, "stencil");
  std::vector<nlohmann::json> out;
  for (const StencilBenchResult& x : r.results) {
    nlohmann::json j = meta;
    j["strategy"] = x.strategy;
    j["nx"] = opt.nx;
    j["ny"] = opt.ny;
    j["nz"] = x.nz;
    j["lattice_sites"] =
        static_cast<double>(opt.nx) * static_cast<double>(opt.ny) * static_cast<double>(x.nz);
    j["precision"] = to_string(opt.type);
    j["iterations_per_sample"] = opt.iterations;
    put_rounds(j, opt.precision, opt.budget_s, x.rounds, true);
    j["process_grid"] = {x.procs[0], x.procs[1]};
    j["local_extent"] = {x.local[0], x.local[1], x.nz};
    j["halo_width"] = stencil::halo_width;
    j["halo_bytes"] = x.halo_bytes;
    put_samples(j, "total_time_s", x.total_s);
    put_samples(j, "halo_time_s", x.halo_s);
    put_samples(j, "work_time_s", x.work_s);
    if (!x.pack_s.empty()) {
      // Per exchange, as bench halo reports them: the halo time of a run
      // over its exchanges (one per iteration) is the call's total.
      j["resolved_strategy"] = x.resolved_strategy;
      if (!x.auto_choice.empty()) j["auto_choice"] = x.auto_choice;
      put_halo_phases(j, x.pack_s, x.mpi_s, x.unpack_s, x.halo.median / static_cast<double>(opt.iterations),
                      x.halo_bytes);
    }
    j["work_updates_per_s"] = x.updates_per_s;
    j["bytes_per_update"] = 2 * element_size(opt.type);
    for (const StencilBandwidth& b : r.bandwidth)
      if (b.nz == x.nz) put_samples(j, "copy_bandwidth_bytes_per_s", b.copy_bytes_per_s);
    j["roofline_updates_per_s"] = x.roofline_updates_per_s;
    j["roofline_fraction"] = x.roofline_fraction > 0 ? nlohmann::json(x.roofline_fraction) : nlohmann::json();
    j["halo_ratio_to_staged"] =
        x.halo_ratio_to_staged > 0 ? nlohmann::json(x.halo_ratio_to_staged) : nlohmann::json();
    j["speedup_vs_serial"] = x.speedup_vs_serial > 0 ? nlohmann::json(x.speedup_vs_serial) : nlohmann::json();
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
