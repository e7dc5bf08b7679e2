// The `haloex` program: MPI start-up, subcommand dispatch and the one place
// where errors become messages and exit codes.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/core/threads.hpp"
#include "haloex/lb/monitor.hpp"
#include "haloex/measure/record.hpp"
#include "registry.hpp"

namespace {

// MPI for the lifetime of the program, with MPI_THREAD_FUNNELED: OpenMP
// threads pack and unpack, only the master thread calls MPI.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    haloex::set_mpi_environment();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided_);
    // A failed MPI call returns to mpi_check, which throws an Error naming the
    // call and MPI's reason; main prints it and aborts the other ranks.
    // (Communicators haloex duplicates from the world inherit the handler.)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() { MPI_Finalize(); }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int provided() const { return provided_; }

 private:
  int provided_ = MPI_THREAD_SINGLE, rank_ = 0, size_ = 1;
};

constexpr const char* exit_statuses =
    "Exit status: 0 success; 1 a failure at run time (MPI, files, memory); 2 a usage or input error\n"
    "(bad option, value, input file or output path, found before any work starts); 3 an LB run\n"
    "stopped as unstable (density or Mach number out of bounds).";

// The deepest subcommand the parser reached: `haloex bench halo` for
// `haloex bench halo --frobnicate`.
const CLI::App* deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) at = subs.front();
  return at;
}

// One line naming what was wrong. CLI11 says only "A subcommand is
// required" for `haloex frobnicate`; the word it could not place is what
// the user needs to see.
std::string usage_problem(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* at = deepest(app);
  // (The root's name is argv[0], a path; the program calls itself haloex.)
  std::string where;
  for (const CLI::App* p = at; p != &app; p = p->get_parent()) where = " " + p->get_name() + where;
  where = "haloex" + where;
  const std::vector<std::string> extra = at->remaining();
  if (!extra.empty() && !at->get_subcommands({}).empty() && at->get_subcommands().empty()) {
    const std::string& w = extra.front();
    std::string names;
    for (const CLI::App* sub : at->get_subcommands({}))
      names += (names.empty() ? "" : ", ") + sub->get_name();
    return where + ": " + (w.rfind('-', 0) == 0 ? "unknown option '" : "unknown command '") + w +
           "' (commands: " + names + "; see " + where + " --help)";
  }
  std::string what = e.what();
  std::replace(what.begin(), what.end(), '\n', ' ');
  return where + ": " + what + " (see " + where + " --help)";
}

// The parser of every command in the registry, each setting `run` when chosen.
void add_commands(CLI::App& app, haloex::cli::Runner& run) {
  app.set_version_flag("--version", haloex::version_text());
  app.footer(exit_statuses);
  app.require_subcommand(1);
  for (const haloex::cli::CommandInfo& c : haloex::cli::commands()) c.add(app, run);
  std::string names;
  for (const haloex::cli::CommandInfo& c : haloex::cli::benchmarks())
    names += (names.empty() ? "" : ", ") + std::string(c.name);
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks (" + names + ")");
  bench->require_subcommand(1);
  for (const haloex::cli::CommandInfo& c : haloex::cli::benchmarks()) c.add(*bench, run);
}

// The chosen command, run with the threads chosen for it; every error
// becomes one message and its exit status.
int run_command(const MpiSession& mpi, const haloex::cli::Runner& run) {
  const bool root = mpi.rank() == 0;
  try {
    // Before any command starts a thread: without OMP_NUM_THREADS each rank
    // takes its share of the CPUs it may run on; with it, rank 0 warns once
    // when the setting oversubscribes a node. (After parsing, so that --help
    // and option errors stay quiet, and inside the try, so that an MPI
    // failure here is reported like any other.)
    const haloex::ThreadChoice threads = haloex::choose_threads(MPI_COMM_WORLD, std::cerr);
    if (mpi.provided() < MPI_THREAD_FUNNELED && omp_get_max_threads() > 1 && threads.source == "affinity")
      omp_set_num_threads(1);  // haloex's own choice, not the user's: fall back quietly
    if (mpi.provided() < MPI_THREAD_FUNNELED && omp_get_max_threads() > 1)
      throw haloex::InputError("the MPI library provides no MPI_THREAD_FUNNELED support but " +
                               std::to_string(omp_get_max_threads()) +
                               " OpenMP threads were asked for; set OMP_NUM_THREADS=1");
    // Every command runs pinned, one thread per CPU, unless the user
    // pinned through OpenMP; commands that change the team re-pin it.
    haloex::pin_team(threads, omp_get_max_threads());
    return run(threads);
  } catch (const haloex::lb::UnstableRun& e) {
    // Every rank saw the same reduced values: stop cleanly, once.
    if (root) std::cerr << "haloex: error: " << e.what() << std::endl;
    return 3;
  } catch (const haloex::InputError& e) {
    // Found identically on every rank: say it once, finalise cleanly.
    if (root) std::cerr << "haloex: error: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "haloex: error on rank " << mpi.rank() << ": " << e.what() << std::endl;
    if (mpi.size() > 1) MPI_Abort(MPI_COMM_WORLD, 1);  // other ranks may be waiting for this one
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(argc, argv);
  const bool root = mpi.rank() == 0;
  CLI::App app{
      "haloex: halo exchanges for structured-grid codes on MPI.\n"
      "Run under mpirun/srun for more than one rank, e.g. mpirun -np 2 haloex bench halo"};
  haloex::cli::Runner run;
  add_commands(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments; only rank 0 talks. --help and
    // --version arrive here too, as "errors" with exit code 0.
    if (e.get_exit_code() == 0) {
      std::ostringstream sink;
      return root ? app.exit(e) : app.exit(e, sink, sink);
    }
    if (root) std::cerr << "haloex: error: " << usage_problem(app, e) << std::endl;
    return 2;
  }
  return run_command(mpi, run);
}
