#include "haloex/bench/monitor_bench.hpp"

#include <cstdio>
#include <memory>
#include <ostream>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/lb/solver.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

void parse_monitor_config(const std::string& config, std::string& mode, long& every) {
  const auto slash = config.find('/');
  mode = config.substr(0, slash);
  every = 1;
  if (mode != "off" && mode != "blocking" && mode != "nonblocking")
    throw InputError("monitor configuration '" + config + "': the mode must be off, blocking or nonblocking");
  if (slash == std::string::npos) return;
  const std::string n = config.substr(slash + 1);
  size_t used = 0;
  try {
    every = std::stol(n, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != n.size() || every < 1 || mode == "off")
    throw InputError("monitor configuration '" + config +
                     "': write blocking/N or nonblocking/N with N >= 1 (reduce every N steps)");
}

namespace {

// The solver of one configuration: a uniform flow on a size^d lattice,
// monitored as `r` says.
std::unique_ptr<lb::Solver> make_solver(MPI_Comm comm, const MonitorBenchOptions& opt,
                                        const MonitorBenchResult& r) {
  lb::LbConfig c;
  c.velocity_set = opt.velocity_set;
  const int ndim = lb::velocity_set(opt.velocity_set).ndim;
  c.size = {opt.size, opt.size, ndim == 3 ? opt.size : 1};
  c.init = "uniform";
  c.velocity = {0.01, 0.005, ndim == 3 ? 0.002 : 0.0};
  c.strategy = opt.strategy;
  c.overlap = lb::parse_choice<lb::Overlap>(opt.overlap, "--overlap");
  c.monitor_mode = r.mode;
  c.monitor_every = r.every;
  c.source = "bench monitor";
  return std::make_unique<lb::Solver>(c, comm);
}

// The statistics of every configuration's samples, and its time against
// "off" (the first).
void summarize_results(std::vector<MonitorBenchResult>& res) {
  for (MonitorBenchResult& r : res) {
    r.sim = summarize(r.sim_s);
    r.lb = summarize(r.lb_s);
    r.halo = summarize(r.halo_s);
    r.wait = summarize(r.wait_s);
    r.mon = summarize(r.mon_s);
    r.rate = summarize(r.sups);
    r.ratio_to_off = r.sim.median / res[0].sim.median;
  }
}

}  // namespace

std::vector<MonitorBenchResult> run_monitor_bench(MPI_Comm comm, const MonitorBenchOptions& opt,
                                                  std::ostream& log) {
  if (opt.steps < 1 || opt.repeats < 1 || opt.warmup < 0)
    throw InputError("--steps and --repeats must be at least 1, --warmup at least 0");
  // "off" always runs first: T_mon and the ratios are measured against it.
  std::vector<std::string> configs{"off"};
  for (const std::string& c : opt.configs)
    if (c != "off") configs.push_back(c);
  std::vector<MonitorBenchResult> res(configs.size());
  std::vector<std::unique_ptr<lb::Solver>> solvers;
  for (size_t k = 0; k < configs.size(); ++k) {
    MonitorBenchResult& r = res[k];
    r.config = configs[k];
    parse_monitor_config(r.config, r.mode, r.every);
    solvers.push_back(make_solver(comm, opt, r));
    solvers.back()->advance(opt.warmup);
  }
  const int rank = comm_rank(comm);
  const double sites = static_cast<double>(solvers.front()->fluid_sites());
  const double steps = opt.steps;
  for (int s = 0; s < opt.repeats; ++s) {
    if (opt.progress && rank == 0)
      log << "[bench monitor] sample " << s + 1 << "/" << opt.repeats << "\n" << std::flush;
    for (size_t k = 0; k < configs.size(); ++k) {
      lb::Solver& solver = *solvers[k];
      solver.reset_timers();
      const long before = solver.monitor().reductions();
      mpi_check(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      solver.advance(opt.steps);
      const double sim = max_over(comm, MPI_Wtime() - t0) / steps;
      const Timers& t = solver.timers();
      MonitorBenchResult& r = res[k];
      r.sim_s.push_back(sim);
      r.lb_s.push_back(mean_over(comm, t.seconds(lb::t_update)) / steps);
      r.halo_s.push_back(mean_over(comm, t.seconds(lb::t_halo_begin) + t.seconds(lb::t_halo_end)) / steps);
      r.wait_s.push_back(mean_over(comm, t.seconds(lb::t_monitor)) / steps);
      r.mon_s.push_back(r.lb_s.back() - res[0].lb_s.back());
      r.sups.push_back(sites / sim);
      r.reductions = solver.monitor().reductions() - before;
    }
  }
  if (rank != 0) return {};
  summarize_results(res);
  return res;
}

std::string format_monitor_table(const std::vector<MonitorBenchResult>& results) {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %6s %11s %11s %11s %11s %11s %10s %8s\n", "config", "reduc",
                "T_sim_ms", "T_LB_ms", "T_halo_ms", "T_wait_ms", "T_mon_ms", "MSUPS", "ratio");
  s += line;
  for (const MonitorBenchResult& r : results) {
    std::snprintf(line, sizeof line, "%-16s %6ld %11.4f %11.4f %11.4f %11.4f %+11.4f %10.2f %8.3f\n",
                  r.config.c_str(), r.reductions, r.sim.median * 1e3, r.lb.median * 1e3, r.halo.median * 1e3,
                  r.wait.median * 1e3, r.mon.median * 1e3, r.rate.median / 1e6, r.ratio_to_off);
    s += line;
  }
  return s;
}

std::vector<nlohmann::json> monitor_records(MPI_Comm comm, const MonitorBenchOptions& opt,
                                            const std::vector<MonitorBenchResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "monitor");
  std::vector<nlohmann::json> out;
  for (const MonitorBenchResult& r : results) {
    nlohmann::json j = meta;
    j["config"] = r.config;
    j["monitor_mode"] = r.mode;
    j["monitor_every"] = r.every;
    j["velocity_set"] = opt.velocity_set;
    j["size"] = opt.size;
    j["strategy"] = opt.strategy;
    j["overlap"] = opt.overlap;
    j["steps_per_sample"] = opt.steps;
    j["reductions_per_sample"] = r.reductions;
    put_samples(j, "sim_s_per_step", r.sim_s);
    put_samples(j, "lb_s_per_step", r.lb_s);
    put_samples(j, "halo_s_per_step", r.halo_s);
    put_samples(j, "wait_s_per_step", r.wait_s);
    put_samples(j, "mon_s_per_step", r.mon_s);
    put_samples(j, "sups", r.sups);
    j["ratio_to_off"] = r.ratio_to_off;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
