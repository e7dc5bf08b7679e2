// See run.hpp: a case from start to end, with its outputs, checkpoints,
// progress line, results and JSON summary.
#include "haloex/lb/run.hpp"

#include <mpi.h>
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "haloex/core/timers.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/io/io_grid.hpp"
#include "haloex/io/metadata.hpp"
#include "haloex/lb/files.hpp"
#include "haloex/lb/solver.hpp"
#include "haloex/measure/record.hpp"

namespace haloex::lb {

namespace {

std::string triple(const std::array<double, 3>& v, int n) {
  std::ostringstream os;
  os << "[";
  for (int d = 0; d < n; ++d) os << (d ? ", " : "") << v[d];
  os << "]";
  return os.str();
}

void print_header(const Solver& solver, const LbConfig& cfg, const std::string& pinned) {
  const Decomposition& dec = solver.decomposition();
  std::cout << "# haloex lb: " << cfg.source << "\n# " << cfg.velocity_set << " " << dec.describe() << ", "
            << solver.fluid_sites() << " fluid sites, " << dec.size() << " ranks x " << omp_get_max_threads()
            << " threads (from " << threads_source() << "), pinned: " << pinned << "\n# kernel "
            << to_string(cfg.kernel) << ", layout " << to_string(cfg.layout) << " in "
            << to_string(cfg.field_memory) << " memory, strategy " << cfg.strategy
            << (cfg.strategy == "auto" ? " > " + std::string(solver.strategy().resolved_name())
                                       : std::string())
            << " (" << solver.halo_kind() << " halo), overlap " << to_string(cfg.overlap) << ", schedule "
            << to_string(cfg.schedule) << "\n# " << to_string(cfg.collision) << " tau " << cfg.tau
            << " (viscosity " << (cfg.tau - 0.5) / 3 << "), force " << triple(cfg.force, cfg.ndim()) << ", "
            << cfg.steps << " steps, monitor " << cfg.monitor_mode << " every " << cfg.monitor_every << "\n"
            << (cfg.strategy == "auto" ? "# halo: " + auto_choice_text(solver.strategy()) + "\n"
                                       : std::string())
            << std::flush;
}

// Where the run starts: step 0, or the checkpoint --restart names (loaded
// into the solver before anything else touches the state).
struct Start {
  long step = 0;
  std::string from;  // the checkpoint's metadata file, or empty
};

Start restart(const RunOptions& a, Solver& solver, const LbConfig& cfg) {
  Start s;
  if (a.restart.empty()) return s;
  std::string err;
  try {
    s.from = find_checkpoint(a.restart);
  } catch (const InputError& e) {
    err = e.what();
  }
  throw_if_any(solver.decomposition().comm(), err);
  s.step = restart_from(solver, s.from);
  // run.steps is the step the run ends at, so a restarted run reaches the same end.
  if (s.step > cfg.steps)
    throw InputError("restart: the checkpoint is at step " + std::to_string(s.step) +
                     ", beyond run.steps = " + std::to_string(cfg.steps));
  if (solver.decomposition().rank() == 0)
    std::cout << "# restarted from " << s.from << " at step " << s.step << "\n" << std::flush;
  return s;
}

// The outputs and checkpoints written during the run, for the summary and
// (unless quiet) one line each on rank 0.
struct IoLog {
  bool say = false;
  nlohmann::json events = nlohmann::json::array();

  void add(const std::vector<IoRecord>& recs) {
    for (const IoRecord& r : recs) {
      const IoEvent& e = r.event;
      events.push_back({{"name", r.name},
                        {"step", r.step},
                        {"metadata", e.metadata_path},
                        {"bytes", e.bytes},
                        {"files", e.files},
                        {"begin_s", e.begin_s},
                        {"end_s", e.end_s},
                        {"elapsed_s", e.elapsed_s},
                        {"bandwidth_Bps", e.bandwidth_Bps()}});
      if (say)
        std::printf("# wrote %s: %ld bytes in %d file%s, %.3g ms (%.3g ms waited), %.3g MB/s\n",
                    e.metadata_path.c_str(), e.bytes, e.files, e.files == 1 ? "" : "s", e.elapsed_s * 1e3,
                    (e.begin_s + e.end_s) * 1e3, e.bandwidth_Bps() / 1e6);
    }
    std::fflush(stdout);
  }
};

// A progress line on stderr every cfg.progress_s seconds (rank 0; one line
// rewritten in place on a terminal), with the rate so far and the time left.
class Progress {
 public:
  Progress(const Solver& solver, const LbConfig& cfg, long start, bool quiet)
      : sites_(static_cast<double>(solver.fluid_sites())),
        every_(cfg.progress_s),
        start_(start),
        end_(cfg.steps),
        on_(solver.decomposition().rank() == 0 && !quiet && cfg.progress_s > 0),
        tty_(isatty(STDERR_FILENO)) {}

  void operator()(long now_step) {
    const long done = now_step - start_, steps = end_ - start_;
    if (!on_) return;
    const double now = MPI_Wtime();
    if (now - last_ < every_ && done != steps) return;
    if (done == steps && now - t0_ < every_) return;  // short runs stay quiet
    last_ = now;
    const double mlups = sites_ * static_cast<double>(done) / (now - t0_) / 1e6;
    const double eta = (now - t0_) / static_cast<double>(done) * static_cast<double>(steps - done);
    std::fprintf(stderr, "%sstep %ld/%ld  %.2f MLUPS  ETA %.0f s%s", tty_ ? "\r" : "", now_step, end_, mlups,
                 eta, tty_ ? (done == steps ? "\n" : "") : "\n");
    std::fflush(stderr);
  }

 private:
  double sites_, every_;
  long start_, end_;
  bool on_, tty_;
  double t0_ = MPI_Wtime(), last_ = t0_;
};

// Advance from `start` to run.steps, stopping at every output and
// checkpoint to write it. Returns the elapsed seconds.
double run_steps(Solver& solver, const LbConfig& cfg, long start, bool quiet, IoLog& io) {
  const Decomposition& dec = solver.decomposition();
  if (cfg.checkpoint_every > 0) IoGrid(dec, cfg.checkpoint_io_grid);  // a bad grid fails now, not at step N
  std::optional<LbOutput> output;
  if (cfg.output_every > 0) output.emplace(solver, cfg);
  auto due = [](long step, long every) { return every > 0 && step % every == 0; };
  if (output && start == 0) output->write();

  solver.reset_timers();
  const double t0 = MPI_Wtime();
  Progress progress(solver, cfg, start, quiet);
  for (long step = start; step < cfg.steps;) {
    long next = cfg.steps;
    for (long every : {cfg.output_every, cfg.checkpoint_every})
      if (every > 0) next = std::min(next, (step / every + 1) * every);
    solver.advance(next - step, [&](long s) { progress(s); });
    step = next;
    if (output && due(step, cfg.output_every)) output->write();
    if (due(step, cfg.checkpoint_every))
      io.add({write_checkpoint(solver, cfg.checkpoint_dir, cfg.checkpoint_io_grid, cfg.checkpoint_keep)});
    if (output) io.add(output->take_events());
  }
  if (output) {
    output->finish();
    io.add(output->take_events());
  }
  return MPI_Wtime() - t0;
}

// What a run ends with: totals, monitor and timers on stdout, and the JSON
// summary when asked for (rank 0; the timers are reduced on every rank).
struct Outcome {
  Start start;
  double elapsed_s = 0;
  Totals before;
  std::string pinned;
  nlohmann::json io_events;
};

// What a finished run measured, computed on every rank.
struct Results {
  long steps = 0;
  double mlups = 0;
  Totals after;
  uint64_t state = 0;
  std::vector<Timers::Row> rows;
};

// The JSON summary of a finished run: its case, where and how it ran, its
// results and the timers reduced over the ranks.
// (Rank 0 only: what is collective, the totals, the checksum and the
// timers, comes in computed.)
void add_summary(nlohmann::json& j, const Solver& solver, const LbConfig& cfg, const Outcome& o,
                 const Results& r) {
  const Decomposition& dec = solver.decomposition();
  const MonitorStats& m = solver.monitor().last();
  j["case"] = cfg.source;
  j["config"] = config_json(cfg);
  j["process_grid"] = {dec.procs(0), dec.procs(1), dec.procs(2)};
  j["threads_pinned"] = o.pinned;
  j["halo"] = solver.halo_kind();
  j["resolved_strategy"] = std::string(solver.strategy().resolved_name());
  if (cfg.strategy == "auto") j["auto_choice"] = auto_choice_text(solver.strategy());
  j["fluid_sites"] = solver.fluid_sites();
  j["steps"] = r.steps;
  j["start_step"] = o.start.step;
  j["restarted_from"] = o.start.from;
  j["io_events"] = o.io_events;
  j["time_s"] = o.elapsed_s;
  j["mlups"] = r.mlups;
  j["halo_bytes_per_step"] = solver.halo_bytes_per_step();
  j["mass_initial"] = o.before.mass;
  j["mass_final"] = r.after.mass;
  j["momentum_final"] = r.after.momentum;
  j["state_checksum"] = checksum_text(r.state);
  j["monitor"] = {{"step", m.step},
                  {"rho_min", m.rho_min},
                  {"rho_max", m.rho_max},
                  {"u_max", std::sqrt(m.u2_max)},
                  {"reductions", solver.monitor().reductions()}};
  nlohmann::json t = nlohmann::json::array();
  for (const auto& row : r.rows)
    t.push_back({{"section", row.name},
                 {"min_s", row.min_s},
                 {"max_s", row.max_s},
                 {"mean_s", row.mean_s},
                 {"calls", row.calls}});
  j["timers"] = t;
}

void write_results(Solver& solver, const LbConfig& cfg, const Outcome& o) {
  const Decomposition& dec = solver.decomposition();
  const int nd = cfg.ndim();
  const long steps = cfg.steps - o.start.step;
  const auto rows = solver.timers().reduce(dec.comm());
  const Totals after = solver.totals();
  const uint64_t state = solver.state_checksum();
  const double mlups =
      static_cast<double>(solver.fluid_sites()) * static_cast<double>(steps) / o.elapsed_s / 1e6;
  const MonitorStats& m = solver.monitor().last();
  nlohmann::json j = run_metadata(dec.comm(), "lb");
  if (dec.rank() != 0) return;

  std::cout << "# done: " << steps << " steps in " << o.elapsed_s << " s: " << mlups << " MLUPS\n";
  std::printf("# mass %.17g (initial %.17g, relative change %.3g)\n", after.mass, o.before.mass,
              (after.mass - o.before.mass) / o.before.mass);
  std::printf("# momentum %s\n", triple(after.momentum, nd).c_str());
  // Equal for every decomposition, strategy and thread count exactly when the
  // states are bit-identical: a run checks itself against a serial one.
  std::printf("# state checksum %s (every population and its site)\n", checksum_text(state).c_str());
  if (solver.monitor().reductions() > 0)
    std::printf("# monitor (step %lld): density [%.9g, %.9g], max |u| %.6g (Mach %.4g), %ld reductions\n",
                m.step, m.rho_min, m.rho_max, std::sqrt(m.u2_max), std::sqrt(m.u2_max / cs2),
                solver.monitor().reductions());
  std::cout << Timers::format(rows) << std::flush;
  if (cfg.strategy == "auto" && cfg.auto_recheck > 0)
    std::cout << "# halo at the end: " << auto_choice_text(solver.strategy()) << "\n" << std::flush;
  if (cfg.summary.empty()) return;
  add_summary(j, solver, cfg, o, {steps, mlups, after, state, rows});
  write_json_lines(cfg.summary, {j});
  std::cout << "# wrote summary to " << cfg.summary << "\n";
}

}  // namespace

void run_case(const LbConfig& cfg, const RunOptions& opt, const ThreadChoice& threads, MPI_Comm comm) {
  Solver solver(cfg, comm);
  solver.time_kernels(true);  // the timers then say what share of the update the kernels take
  Outcome o;
  o.pinned = pin_team(threads, omp_get_max_threads());
  const bool root = solver.decomposition().rank() == 0;
  if (root) {
    print_header(solver, cfg, o.pinned);
    for (const std::string& f : remove_stale_parts(cfg))
      std::cout << "# removed " << f << ", left by an interrupted run\n";
  }
  o.start = restart(opt, solver, cfg);
  o.before = solver.totals();
  IoLog io{root && !opt.quiet};
  o.elapsed_s = run_steps(solver, cfg, o.start.step, opt.quiet, io);
  o.io_events = std::move(io.events);
  write_results(solver, cfg, o);
}

}  // namespace haloex::lb
