// See run.hpp: the diffusion application from start to end.
#include "haloex/stencil/run.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "haloex/core/mpi.hpp"
#include "haloex/field/field_checksum.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/io/npy.hpp"

namespace haloex::stencil {

namespace {

template <class T>
void run(DiffusionConfig cfg, const RunOptions& a, const ThreadChoice& threads, MPI_Comm world) {
  if (a.serial) cfg.strategy = "serial";
  Diffusion<T> app(world, cfg);
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
  const DiffusionTimes& t = app.times();
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
}

}  // namespace

void run_case(const DiffusionConfig& cfg, const RunOptions& opt, const ThreadChoice& threads, MPI_Comm comm) {
  if (opt.precision == "double")
    run<double>(cfg, opt, threads, comm);
  else
    run<float>(cfg, opt, threads, comm);
}

}  // namespace haloex::stencil
