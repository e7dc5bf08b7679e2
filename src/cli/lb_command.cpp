// `haloex lb case.toml`: run a lattice Boltzmann case, with a progress line,
// a timer table and a JSON summary.
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "haloex/bench/record.hpp"
#include "haloex/core/threads.hpp"
#include "haloex/io/lb_io.hpp"
#include "haloex/lb/solver.hpp"

namespace haloex::cli {

namespace {

struct Args {
  std::string case_file;
  std::vector<std::string> sets;
  std::string summary;
  std::string restart;
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
              << " threads (from " << threads_source() << ")\n# kernel " << cfg.kernel << ", layout "
              << to_string(cfg.layout) << " in " << to_string(cfg.field_memory) << " memory, strategy "
              << cfg.strategy
              << (cfg.strategy == "auto" ? " > " + std::string(solver.strategy().resolved_name()) : std::string())
              << " (" << solver.halo_kind() << " halo), overlap " << cfg.overlap << "\n# "
              << cfg.collision << " tau " << cfg.tau << " (viscosity " << (cfg.tau - 0.5) / 3 << "), force "
              << triple(cfg.force, nd) << ", " << cfg.steps << " steps, monitor " << cfg.monitor_mode << " every "
              << cfg.monitor_every << "\n"
              << (cfg.strategy == "auto" ? "# halo: " + auto_choice_text(solver.strategy()) + "\n" : std::string())
              << std::flush;

  // Restart before anything else touches the state; run.steps is the step
  // the run ends at, so a restarted run reaches the same end.
  long start = 0;
  std::string restarted_from;
  if (!a.restart.empty()) {
    std::string err;
    try {
      restarted_from = find_checkpoint(a.restart);
    } catch (const InputError& e) {
      err = e.what();
    }
    throw_if_any(comm, err);
    start = restart_from(solver, restarted_from);
    if (start > cfg.steps)
      throw InputError("restart: the checkpoint is at step " + std::to_string(start) + ", beyond run.steps = " +
                       std::to_string(cfg.steps));
    if (root) std::cout << "# restarted from " << restarted_from << " at step " << start << "\n" << std::flush;
  }
  if (cfg.checkpoint_every > 0) IoGrid(dec, cfg.checkpoint_io_grid);  // a bad grid fails now, not at step N
  std::optional<LbOutput> output;
  if (cfg.output_every > 0) output.emplace(solver, cfg);
  nlohmann::json io_events = nlohmann::json::array();
  auto report = [&](const std::vector<IoRecord>& recs) {
    for (const IoRecord& r : recs) {
      const IoEvent& e = r.event;
      io_events.push_back({{"name", r.name}, {"step", r.step}, {"metadata", e.metadata_path}, {"bytes", e.bytes},
                           {"files", e.files}, {"begin_s", e.begin_s}, {"end_s", e.end_s},
                           {"elapsed_s", e.elapsed_s}, {"bandwidth_Bps", e.bandwidth_Bps()}});
      if (root && !a.quiet)
        std::printf("# wrote %s: %ld bytes in %d file%s, %.3g ms (%.3g ms waited), %.3g MB/s\n",
                    e.metadata_path.c_str(), e.bytes, e.files, e.files == 1 ? "" : "s", e.elapsed_s * 1e3,
                    (e.begin_s + e.end_s) * 1e3, e.bandwidth_Bps() / 1e6);
    }
    std::fflush(stdout);
  };
  auto due = [](long step, long every) { return every > 0 && step % every == 0; };
  if (output && start == 0) output->write();

  const lb::Totals before = solver.totals();
  solver.reset_timers();
  const bool tty = isatty(STDERR_FILENO);
  const long steps = cfg.steps - start;
  const double t0 = MPI_Wtime();
  double last_print = t0;
  auto progress = [&](long now_step) {
    const long done = now_step - start;
    if (!root || a.quiet || cfg.progress_s <= 0) return;
    const double now = MPI_Wtime();
    if (now - last_print < cfg.progress_s && done != steps) return;
    if (done == steps && now - t0 < cfg.progress_s) return;  // short runs stay quiet
    last_print = now;
    const double mlups = static_cast<double>(solver.fluid_sites()) * static_cast<double>(done) / (now - t0) / 1e6;
    const double eta = (now - t0) / static_cast<double>(done) * static_cast<double>(steps - done);
    std::fprintf(stderr, "%sstep %ld/%ld  %.2f MLUPS  ETA %.0f s%s", tty ? "\r" : "", now_step, cfg.steps, mlups, eta,
                 tty ? (done == steps ? "\n" : "") : "\n");
    std::fflush(stderr);
  };
  // Advance to the next output or checkpoint, write it, go on.
  for (long step = start; step < cfg.steps;) {
    long next = cfg.steps;
    for (long every : {cfg.output_every, cfg.checkpoint_every})
      if (every > 0) next = std::min(next, (step / every + 1) * every);
    solver.advance(next - step, progress);
    step = next;
    if (output && due(step, cfg.output_every)) output->write();
    if (due(step, cfg.checkpoint_every))
      report({write_checkpoint(solver, cfg.checkpoint_dir, cfg.checkpoint_io_grid, cfg.checkpoint_keep)});
    if (output) report(output->take_events());
  }
  if (output) {
    output->finish();
    report(output->take_events());
  }
  const double elapsed = MPI_Wtime() - t0;
  const Timers& timers = solver.timers();
  const auto rows = timers.reduce(comm);
  const lb::Totals after = solver.totals();
  const double mlups = static_cast<double>(solver.fluid_sites()) * static_cast<double>(steps) / elapsed / 1e6;
  const lb::MonitorStats& m = solver.monitor().last();
  nlohmann::json meta = run_metadata(comm, "lb");

  if (root) {
    std::cout << "# done: " << steps << " steps in " << elapsed << " s: " << mlups << " MLUPS\n";
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
      j["config"] = lb::config_json(cfg);
      j["process_grid"] = {dec.procs(0), dec.procs(1), dec.procs(2)};
      j["halo"] = solver.halo_kind();
      j["resolved_strategy"] = std::string(solver.strategy().resolved_name());
      if (cfg.strategy == "auto") j["auto_choice"] = auto_choice_text(solver.strategy());
      j["fluid_sites"] = solver.fluid_sites();
      j["steps"] = steps;
      j["start_step"] = start;
      j["restarted_from"] = restarted_from;
      j["io_events"] = io_events;
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
  cmd->add_option("--restart", a->restart,
                  "Continue from a checkpoint: its .json file, or a directory (the newest complete one in it);\n"
                  "any number of ranks; run.steps stays the step the run ends at");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress lines");
  cmd->add_flag("--keys", a->keys, "List every case-file key with its meaning and exit");
  cmd->callback([&run, a] { run = [a] { return run_lb(*a); }; });
}

}  // namespace haloex::cli
