// `haloex bench stream` whole: its options, its runner, its table and its
// records (a benchmark in one file; stream_bench.hpp is for the tests).
#include "haloex/bench/stream_bench.hpp"

#include <omp.h>

#include <iomanip>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/field/field.hpp"
#include "haloex/measure/options.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

double stream_bytes_per_element(const std::string& kernel) {
  if (kernel == "copy") return 16;
  if (kernel == "triad") return 24;
  throw InputError("unknown stream kernel '" + kernel + "' (valid: copy, triad)");
}

std::vector<StreamResult> run_stream_bench(MPI_Comm comm, const StreamOptions& opt, std::ostream& log) {
  if (opt.elements < 1024) throw InputError("--elements must be at least 1024");
  if (opt.iterations < 1 || opt.repeats < 1)
    throw InputError("--iterations and --repeats must be at least 1");
  const long n = static_cast<long>(opt.elements);
  // Huge-page aligned like the LB arrays, first touched by the threads that
  // sweep them (static schedule both times).
  auto a_ = allocate_aligned<double>(opt.elements), b_ = allocate_aligned<double>(opt.elements),
       c_ = allocate_aligned<double>(opt.elements);
  double *a = a_.get(), *b = b_.get(), *c = c_.get();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
  const std::vector<std::string> kernels{"copy", "triad"};
  auto sweep = [&](const std::string& k) {
    if (k == "copy") {
#pragma omp parallel for simd schedule(static)
      for (long i = 0; i < n; ++i) c[i] = a[i];
    } else {
      const double s = 3.0;
#pragma omp parallel for simd schedule(static)
      for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    }
  };
  const int rank = comm_rank(comm), ranks = comm_size(comm);
  for (const auto& k : kernels)
    for (int i = 0; i < opt.warmup; ++i) sweep(k);
  std::vector<std::vector<double>> samples(kernels.size());
  for (int r = 0; r < opt.repeats; ++r) {
    if (opt.progress && rank == 0)
      log << "[bench stream] repeat " << r + 1 << "/" << opt.repeats << "\n" << std::flush;
    for (size_t k = 0; k < kernels.size(); ++k) {
      mpi_check(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      for (int i = 0; i < opt.iterations; ++i) sweep(kernels[k]);
      double t = MPI_Wtime() - t0, tmax = 0;
      mpi_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm), "MPI_Reduce");
      samples[k].push_back(stream_bytes_per_element(kernels[k]) * static_cast<double>(n) * opt.iterations *
                           ranks / tmax);
    }
  }
  // Keep the results observable so the sweeps cannot be optimised away.
  volatile double sink = a[n / 2] + c[n / 3];
  (void)sink;
  std::vector<StreamResult> out;
  if (rank != 0) return out;
  for (size_t k = 0; k < kernels.size(); ++k)
    out.push_back({kernels[k], stream_bytes_per_element(kernels[k]), samples[k], summarize(samples[k])});
  return out;
}

std::string format_stream_table(const StreamOptions& opt, int ranks,
                                const std::vector<StreamResult>& results) {
  std::ostringstream out;
  out << "# " << ranks << " ranks x " << omp_get_max_threads() << " threads, " << opt.elements
      << " doubles per array and rank (" << std::fixed << std::setprecision(1)
      << static_cast<double>(opt.elements) * 8 / (1 << 20) << " MiB), " << opt.iterations << " sweeps x "
      << opt.repeats << " repeats; bytes counted as STREAM does (no write-allocate)\n";
  out << std::left << std::setw(8) << "kernel" << std::right << std::setw(14) << "median_GB/s"
      << std::setw(12) << "mean_GB/s" << std::setw(10) << "std" << std::setw(12) << "max_GB/s"
      << "\n";
  for (const StreamResult& r : results) {
    const Summary& s = r.summary;
    out << std::left << std::setw(8) << r.kernel << std::right << std::setprecision(2) << std::setw(14)
        << s.median / 1e9 << std::setw(12) << s.mean / 1e9 << std::setw(10) << s.stddev / 1e9 << std::setw(12)
        << s.max / 1e9 << "\n";
  }
  return out.str();
}

std::vector<nlohmann::json> stream_records(MPI_Comm comm, const StreamOptions& opt,
                                           const std::vector<StreamResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "stream");
  std::vector<nlohmann::json> out;
  for (const StreamResult& r : results) {
    nlohmann::json j = meta;
    j["kernel"] = r.kernel;
    j["elements_per_rank"] = opt.elements;
    j["bytes_per_element"] = r.bytes_per_element;
    j["sweeps_per_sample"] = opt.iterations;
    put_samples(j, "bandwidth_bytes_per_s", r.bandwidth_bytes_per_s);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex

// ---- the command ----

namespace haloex::cli {

void add_bench_stream(CLI::App& bench, Runner& run) {
  struct Args {
    StreamOptions opt;
    std::string json;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = bench.add_subcommand(
      "stream",
      "STREAM copy (c = a) and triad (a = b + s c) on every rank and OpenMP thread at once: the\n"
      "machine's memory bandwidth, summed over ranks, bytes counted as STREAM does.");
  cmd->add_option("-n,--elements", a->opt.elements,
                  "Doubles per array and rank (use >= 4x the last-level cache)")
      ->check(CLI::Range(size_t(1024), size_t(1) << 34))
      ->capture_default_str();
  cmd->add_option("-i,--iterations", a->opt.iterations, "Sweeps per sample")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("-r,--repeats", a->opt.repeats, "Samples per kernel")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("-x,--warmup", a->opt.warmup, "Untimed sweeps per kernel")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] {
    run = [a](const ThreadChoice&) {
      StreamOptions o = a->opt;
      o.progress = !a->quiet;
      int size = 0;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      const auto results = run_stream_bench(MPI_COMM_WORLD, o, std::cerr);
      print_results("# haloex bench stream\n" + format_stream_table(o, size, results),
                    stream_records(MPI_COMM_WORLD, o, results), a->json);
      return 0;
    };
  });
}

}  // namespace haloex::cli
