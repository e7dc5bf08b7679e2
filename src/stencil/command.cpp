// `haloex stencil`: the command's options; the run itself is stencil::run_case
// (haloex/stencil/run.hpp).
#include <memory>

#include "haloex/grid/decomposition.hpp"
#include "haloex/measure/options.hpp"
#include "haloex/stencil/run.hpp"

namespace haloex::cli {

namespace {

struct StencilArgs {
  stencil::DiffusionConfig cfg;
  long iterations = 64;
  bool serial = false;
  std::string procs = "0,0";
  std::string precision = "double";
  std::string out;
  bool quiet = false;
};

// The configuration and options as given, the process grid checked.
void run_stencil(const StencilArgs& a, const ThreadChoice& threads) {
  stencil::DiffusionConfig cfg = a.cfg;
  cfg.procs = parse_grid_2d(a.procs);
  if (a.serial && (cfg.procs[0] > 1 || cfg.procs[1] > 1))
    throw InputError("--serial runs on one rank; --procs " + a.procs + " does not apply");
  stencil::run_case(cfg, {a.iterations, a.serial, a.precision, a.out, a.quiet}, threads, MPI_COMM_WORLD);
}

}  // namespace

void add_stencil(CLI::App& app, Runner& run) {
  auto a = std::make_shared<StencilArgs>();
  auto* cmd = app.add_subcommand(
      "stencil",
      "2-D fourth-order diffusion: out = in - alpha lap(lap(in)), alpha = 1/32, on an nx x ny x nz\n"
      "field (z not decomposed) with a halo of 2, periodic in x and y, split over a 2-D process grid.\n"
      "Starts from 1 in the central block (the middle half of every dimension), 0 elsewhere.\n"
      "Prints a timing line (ranks, nx, ny, nz, iterations, total, halo and work seconds) and, with\n"
      "--out, writes the final field (halo excluded) as a .npy array indexed [x, y, z].\n"
      "--serial runs the reference on one rank with its periodic halo filled by plain copies;\n"
      "every strategy gives a result bit-identical to it in double precision.");
  cmd->add_option("--nx", a->cfg.nx, "Sites along x")->check(CLI::Range(1L, 1L << 30))->capture_default_str();
  cmd->add_option("--ny", a->cfg.ny, "Sites along y")->check(CLI::Range(1L, 1L << 30))->capture_default_str();
  cmd->add_option("--nz", a->cfg.nz, "Values per column (z, not decomposed)")
      ->check(CLI::Range(1L, 1L << 24))
      ->capture_default_str();
  cmd->add_option("-i,--iters,--iterations", a->iterations, "Iterations")
      ->check(CLI::Range(0L, 1L << 40))
      ->capture_default_str();
  cmd->add_option("-s,--strategy,--strategies", a->cfg.strategy, "Halo strategy (see haloex info)")
      ->capture_default_str();
  cmd->add_flag("--serial", a->serial, "Serial reference on one rank (periodic halo by plain copies)");
  cmd->add_option("--procs", a->procs, "Process grid x,y; 0 = let MPI_Dims_create choose")
      ->capture_default_str();
  cmd->add_option("--precision", a->precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", a->out, "Write the final field to this .npy file (missing folders are created)")
      ->check(output_file());
  cmd->add_flag("-q,--quiet", a->quiet, "No progress lines on stderr");
  cmd->callback([&run, a] {
    run = [a](const ThreadChoice& t) {
      run_stencil(*a, t);
      return 0;
    };
  });
}

}  // namespace haloex::cli
