// `haloex lb case.toml`: run a lattice Boltzmann case, with a progress line,
// a timer table and a JSON summary.
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "haloex/bench/record.hpp"
#include "haloex/lb/solver.hpp"

namespace haloex::cli {

namespace {

struct Args {
  std::string case_file;
  std::vector<std::string> sets;
  std::string summary;
  bool quiet = false;
  bool keys = false;
};

std::string triple(const std::array<double, 3>& v, int n) {
  std::ostringstream os;
  os << "[";
  for (int d = 0; d < n; ++d) os << (d ? ", " : "") << v[d];
  os << "]";
  return os.str();
}

nlohmann::json config_json(const lb::LbConfig& c) {
  nlohmann::json j;
  j["velocity_set"] = c.velocity_set;
  j["size"] = c.size;
  j["periodic"] = c.periodic;
  j["collision"] = c.collision;
  j["tau"] = c.tau;
  j["magic"] = c.magic;
  j["force"] = c.force;
  j["init"] = c.init;
  j["moving_wall"] = c.moving_wall;
  j["wall_velocity"] = c.wall_velocity;
  j["obstacles"] = c.obstacles.size();
  j["mask_file"] = c.mask_file;
  j["steps"] = c.steps;
  j["kernel"] = c.kernel;
  j["layout"] = to_string(c.layout);
  j["strategy"] = c.strategy;
  j["overlap"] = c.overlap;
  j["halo"] = c.halo;
  j["monitor_every"] = c.monitor_every;
  j["monitor_mode"] = c.monitor_mode;
  j["mach_limit"] = c.mach_limit;
  return j;
}

int run_lb(const Args& a) {
  if (a.keys) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::cout << lb::lb_config_reference();
    return 0;
  }
  if (a.case_file.empty()) throw InputError("lb: give a case file, e.g. haloex lb examples/periodic_box.toml");
  lb::LbConfig cfg = lb::read_lb_config(a.case_file, a.sets);
  if (!a.summary.empty()) cfg.summary = a.summary;
  lb::Solver solver(cfg, MPI_COMM_WORLD);
  const Decomposition& dec = solver.decomposition();
  MPI_Comm comm = dec.comm();
  const bool root = dec.rank() == 0;
  const int nd = cfg.ndim();
  if (root)
    std::cout << "# haloex lb: " << cfg.source << "\n# " << cfg.velocity_set << " " << dec.describe() << ", "
              << solver.fluid_sites() << " fluid sites, " << dec.size() << " ranks x " << omp_get_max_threads()
              << " threads\n# kernel " << cfg.kernel << ", layout " << to_string(cfg.layout) << ", strategy "
              << cfg.strategy << " (" << solver.halo_kind() << " halo), overlap " << cfg.overlap << "\n# "
              << cfg.collision << " tau " << cfg.tau << " (viscosity " << (cfg.tau - 0.5) / 3 << "), force "
              << triple(cfg.force, nd) << ", " << cfg.steps << " steps, monitor " << cfg.monitor_mode << " every "
              << cfg.monitor_every << "\n"
              << std::flush;

  const lb::Totals before = solver.totals();
  solver.reset_timers();
  const bool tty = isatty(STDERR_FILENO);
  const double t0 = MPI_Wtime();
  double last_print = t0;
  auto progress = [&](long done) {
    if (!root || a.quiet || cfg.progress_s <= 0) return;
    const double now = MPI_Wtime();
    if (now - last_print < cfg.progress_s && done != cfg.steps) return;
    if (done == cfg.steps && now - t0 < cfg.progress_s) return;  // short runs stay quiet
    last_print = now;
    const double mlups = static_cast<double>(solver.fluid_sites()) * static_cast<double>(done) / (now - t0) / 1e6;
    const double eta = (now - t0) / static_cast<double>(done) * static_cast<double>(cfg.steps - done);
    std::fprintf(stderr, "%sstep %ld/%ld  %.2f MLUPS  ETA %.0f s%s", tty ? "\r" : "", done, cfg.steps, mlups, eta,
                 tty ? (done == cfg.steps ? "\n" : "") : "\n");
    std::fflush(stderr);
  };
  solver.advance(cfg.steps, progress);
  const double elapsed = MPI_Wtime() - t0;
  const Timers& timers = solver.timers();
  const auto rows = timers.reduce(comm);
  const lb::Totals after = solver.totals();
  const double mlups = static_cast<double>(solver.fluid_sites()) * static_cast<double>(cfg.steps) / elapsed / 1e6;
  const lb::MonitorStats& m = solver.monitor().last();
  nlohmann::json meta = run_metadata(comm, "lb");

  if (root) {
    std::cout << "# done: " << cfg.steps << " steps in " << elapsed << " s: " << mlups << " MLUPS\n";
    std::printf("# mass %.17g (initial %.17g, relative change %.3g)\n", after.mass, before.mass,
                (after.mass - before.mass) / before.mass);
    std::printf("# momentum %s\n", triple(after.momentum, nd).c_str());
    if (solver.monitor().reductions() > 0)
      std::printf("# monitor (step %lld): density [%.9g, %.9g], max |u| %.6g (Mach %.4g), %ld reductions\n", m.step,
                  m.rho_min, m.rho_max, std::sqrt(m.u2_max), std::sqrt(m.u2_max / lb::cs2),
                  solver.monitor().reductions());
    std::cout << Timers::format(rows) << std::flush;
    if (!cfg.summary.empty()) {
      nlohmann::json j = meta;
      j["case"] = cfg.source;
      j["config"] = config_json(cfg);
      j["process_grid"] = {dec.procs(0), dec.procs(1), dec.procs(2)};
      j["halo"] = solver.halo_kind();
      j["fluid_sites"] = solver.fluid_sites();
      j["steps"] = cfg.steps;
      j["time_s"] = elapsed;
      j["mlups"] = mlups;
      j["halo_bytes_per_step"] = solver.halo_bytes_per_step();
      j["mass_initial"] = before.mass;
      j["mass_final"] = after.mass;
      j["momentum_final"] = after.momentum;
      j["monitor"] = {{"step", m.step},          {"rho_min", m.rho_min}, {"rho_max", m.rho_max},
                      {"u_max", std::sqrt(m.u2_max)}, {"reductions", solver.monitor().reductions()}};
      nlohmann::json t = nlohmann::json::array();
      for (const auto& r : rows)
        t.push_back({{"section", r.name}, {"min_s", r.min_s}, {"max_s", r.max_s}, {"mean_s", r.mean_s}, {"calls", r.calls}});
      j["timers"] = t;
      write_json_lines(cfg.summary, {j});
      std::cout << "# wrote summary to " << cfg.summary << "\n";
    }
  }
  return 0;
}

}  // namespace

void add_lb(CLI::App& app, Runner& run) {
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("lb",
                                 "Run a lattice Boltzmann case from a TOML file (see examples/*.toml and --keys).\n"
                                 "Under mpirun the lattice is split over the ranks; OMP_NUM_THREADS threads per rank.");
  cmd->add_option("case", a->case_file, "TOML case file");
  cmd->add_option("--set", a->sets, "Override keys, e.g. --set run.steps=500 run.strategy=direct");
  cmd->add_option("-o,--summary", a->summary, "Write a JSON summary here (overrides output.summary)");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress lines");
  cmd->add_flag("--keys", a->keys, "List every case-file key with its meaning and exit");
  cmd->callback([&run, a] { run = [a] { return run_lb(*a); }; });
}

}  // namespace haloex::cli
