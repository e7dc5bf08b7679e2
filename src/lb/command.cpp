// `haloex lb case.toml`: the command's options; the run itself is lb::run_case
// (haloex/lb/run.hpp).
#include <iostream>
#include <memory>

#include "haloex/lb/config.hpp"
#include "haloex/lb/run.hpp"
#include "haloex/measure/options.hpp"

namespace haloex::cli {

namespace {

struct LbArgs {
  std::string case_file;
  std::vector<std::string> sets;
  std::string summary;
  std::string restart;
  bool quiet = false;
  bool keys = false;
};

// The case as read: the file, its --set overrides and -o.
lb::LbConfig read_input(const LbArgs& a) {
  if (a.case_file.empty())
    throw InputError("lb: give a case file, e.g. haloex lb examples/periodic_box.toml");
  lb::LbConfig cfg = lb::read_lb_config(a.case_file, a.sets);
  if (!a.summary.empty()) cfg.summary = a.summary;
  return cfg;
}

int run_lb(const LbArgs& a, const ThreadChoice& threads) {
  if (a.keys) {
    if (comm_rank(MPI_COMM_WORLD) == 0) std::cout << lb::lb_config_reference();
    return 0;
  }
  lb::run_case(read_input(a), {a.restart, a.quiet}, threads, MPI_COMM_WORLD);
  return 0;
}

}  // namespace

void add_lb(CLI::App& app, Runner& run) {
  auto a = std::make_shared<LbArgs>();
  auto* cmd = app.add_subcommand(
      "lb",
      "Run a lattice Boltzmann case from a TOML file (see examples/*.toml and --keys).\n"
      "Under mpirun the lattice is split over the ranks; OMP_NUM_THREADS threads per rank.");
  cmd->add_option("case", a->case_file, "TOML case file");
  cmd->add_option("--set", a->sets, "Override keys, e.g. --set run.steps=500 run.strategy=direct");
  cmd->add_option("-o,--summary", a->summary, "Write a JSON summary here (overrides output.summary)")
      ->check(output_file());
  cmd->add_option(
      "--restart", a->restart,
      "Continue from a checkpoint: its .json file, or a directory (the newest complete one in it);\n"
      "any number of ranks; run.steps stays the step the run ends at");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress lines");
  cmd->add_flag("--keys", a->keys, "List every case-file key with its meaning and default, and exit");
  cmd->callback([&run, a] { run = [a](const ThreadChoice& t) { return run_lb(*a, t); }; });
}

}  // namespace haloex::cli
