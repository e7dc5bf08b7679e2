// `haloex stencil`: the 2-D fourth-order diffusion application, with any halo
// strategy or the serial reference, a timing line and a .npy of the result.
#include <mpi.h>
#include <omp.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/core/threads.hpp"
#include "haloex/field/field_checksum.hpp"
#include "haloex/io/npy.hpp"
#include "haloex/stencil/diffusion.hpp"

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

template <class T>
int run_stencil(const StencilArgs& a, const ThreadChoice& threads) {
  stencil::DiffusionConfig cfg = a.cfg;
  if (a.serial) cfg.strategy = "serial";
  cfg.procs = parse_grid_2d(a.procs);
  if (a.serial && (cfg.procs[0] > 1 || cfg.procs[1] > 1))
    throw InputError("--serial runs on one rank; --procs " + a.procs + " does not apply");
  stencil::Diffusion<T> app(MPI_COMM_WORLD, cfg);
  const Decomposition& dec = app.decomposition();
  MPI_Comm comm = dec.comm();
  const bool root = dec.rank() == 0;
  const std::string pinned = pin_team(threads, omp_get_max_threads());
  if (root)
    std::cout << "# haloex stencil: " << cfg.nx << "x" << cfg.ny << "x" << cfg.nz << " (" << a.precision
              << "), process grid " << extents_text(std::array<int, 3>{dec.procs(0), dec.procs(1), 1}, 2)
              << ", "
              << (a.serial ? "serial reference (periodic halo by plain copies)" : "strategy " + cfg.strategy)
              << ", " << a.iterations << " iterations, " << omp_get_max_threads()
              << " threads per rank (from " << threads_source() << "), pinned: " << pinned << "\n"
              << std::flush;

  // Chunks of a tenth, so that a long run reports progress (rank 0 alone
  // looks at the clock: no collective depends on it).
  const long chunk = std::max(1L, a.iterations / 10);
  const double start = MPI_Wtime();
  for (long done = 0; done < a.iterations;) {
    const long n = std::min(chunk, a.iterations - done);
    app.run(n);
    done += n;
    const double elapsed = MPI_Wtime() - start;
    if (root && !a.quiet && elapsed > 2.0)
      std::fprintf(stderr, "iteration %ld/%ld  %.1f s  ETA %.0f s\n", done, a.iterations, elapsed,
                   elapsed / static_cast<double>(done) * static_cast<double>(a.iterations - done));
  }
  const stencil::DiffusionTimes& t = app.times();
  const double total = max_over(comm, t.total_s), halo = max_over(comm, t.halo_s),
               work = max_over(comm, t.work_s);
  const uint64_t checksum = field_checksum(dec, app.field().view());
  if (root) {
    std::printf("%5s %7s %7s %7s %10s %12s %12s %12s\n", "ranks", "nx", "ny", "nz", "iterations", "total_s",
                "halo_s", "work_s");
    std::printf("%5d %7ld %7ld %7ld %10ld %12.6f %12.6f %12.6f\n", dec.size(), cfg.nx, cfg.ny, cfg.nz,
                a.iterations, total, halo, work);
    std::printf("# times: slowest rank; halo = exchange (%s), work = the 13-point update\n",
                a.serial ? "plain copies" : cfg.strategy.c_str());
    // Equal for every process grid and strategy exactly when the fields are
    // bit-identical: a run checks itself against --serial.
    std::printf("# field checksum 0x%016llx (every value and its site)\n",
                static_cast<unsigned long long>(checksum));
    std::fflush(stdout);
  }
  if (!a.out.empty()) {
    const FieldView v = app.field().view();
    write_npy(a.out, dec, v);
    if (root)
      std::cout << "# wrote " << a.out << ": numpy array of shape (" << cfg.nx << ", " << cfg.ny << ", "
                << cfg.nz << "), " << (sizeof(T) == 8 ? "float64" : "float32") << ", index [x, y, z]\n";
  }
  return 0;
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
      return a->precision == "double" ? run_stencil<double>(*a, t) : run_stencil<float>(*a, t);
    };
  });
}

}  // namespace haloex::cli
