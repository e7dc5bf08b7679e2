#include "haloex/bench/halo_bench.hpp"

#include <omp.h>

#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "haloex/bench/record.hpp"
#include "haloex/halo/strategy.hpp"

namespace haloex {

double cubic_halo_bytes(long L, int ncomp, size_t element_bytes) {
  const double l = static_cast<double>(L);
  return (6 * l * l + 12 * l + 8) * ncomp * static_cast<double>(element_bytes);
}

namespace {

DecompositionSpec spec_for(MPI_Comm comm, const HaloBenchOptions& opt, long L) {
  DecompositionSpec spec;
  spec.ndim = opt.ndim;
  spec.periodic = opt.periodic;
  spec.procs = resolve_process_grid(comm_size(comm), opt.ndim, opt.procs);
  for (int d = 0; d < opt.ndim; ++d) spec.global[d] = L * spec.procs[d];
  return spec;
}

struct Candidate {
  std::string name;
  std::unique_ptr<Strategy> strategy;
};

template <class T>
void fill(Field<T>& f) {
  // Any finite values: the benchmark measures movement, not arithmetic.
  T* p = f.data();
  for (size_t i = 0; i < f.size(); ++i) p[i] = static_cast<T>(i % 1000) * T(0.001);
}

}  // namespace

std::vector<HaloBenchResult> run_halo_bench(MPI_Comm comm, const HaloBenchOptions& opt, std::ostream& log) {
  if (opt.iterations < 1) throw InputError("--iterations must be at least 1");
  if (opt.repeats < 1) throw InputError("--repeats must be at least 1");
  if (opt.warmup < 0) throw InputError("--warmup must not be negative");
  if (opt.sizes.empty()) throw InputError("give at least one subdomain size");
  for (long L : opt.sizes)
    if (L < 1) throw InputError("subdomain size " + std::to_string(L) + " must be at least 1");

  const int rank = comm_rank(comm);
  const int threads = omp_get_max_threads();
  const bool explicit_list = !opt.strategies.empty();
  const std::vector<std::string> names = explicit_list ? opt.strategies : strategy_names();
  std::vector<HaloBenchResult> results;

  for (long L : opt.sizes) {
    Decomposition dec(comm, spec_for(comm, opt, L));
    // One field per element type keeps the exchange code path the real one.
    std::unique_ptr<Field<double>> fd;
    std::unique_ptr<Field<float>> ff;
    FieldView view;
    if (opt.type == ElementType::f64) {
      fd = std::make_unique<Field<double>>(dec, opt.ncomp, opt.halo, opt.layout);
      fill(*fd);
      view = fd->view();
    } else {
      ff = std::make_unique<Field<float>>(dec, opt.ncomp, opt.halo, opt.layout);
      fill(*ff);
      view = ff->view();
    }
    Plan plan(dec, {FieldSpec{view.shape, {}}});

    std::vector<Candidate> cands;
    for (const std::string& n : names) {
      try {
        cands.push_back({n, make_strategy(n, plan)});
      } catch (const InputError& e) {
        if (explicit_list) throw;
        if (rank == 0) log << "skipping " << n << ": " << e.what() << "\n";
      }
    }

    const std::span<const FieldView> fields(&view, 1);
    for (Candidate& c : cands)
      for (int i = 0; i < opt.warmup; ++i) c.strategy->exchange(fields);

    std::vector<std::vector<double>> samples(cands.size());
    for (int r = 0; r < opt.repeats; ++r) {
      if (opt.progress && rank == 0)
        log << "[bench halo] L=" << L << " repeat " << r + 1 << "/" << opt.repeats << "\n" << std::flush;
      // Interleave strategies within each repeat, so drifts in machine load
      // spread over all of them rather than biasing one.
      for (size_t s = 0; s < cands.size(); ++s) {
        MPI_Barrier(dec.comm());
        const double t0 = MPI_Wtime();
        for (int i = 0; i < opt.iterations; ++i) cands[s].strategy->exchange(fields);
        const double local = MPI_Wtime() - t0;
        double slowest = 0;
        MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, dec.comm());
        samples[s].push_back(slowest / opt.iterations);
      }
    }

    double bytes = static_cast<double>(plan.halo_bytes()), bytes_sum = 0;
    MPI_Reduce(&bytes, &bytes_sum, 1, MPI_DOUBLE, MPI_SUM, 0, dec.comm());
    int msgs = plan.direct_messages(), msgs_max = 0;
    MPI_Reduce(&msgs, &msgs_max, 1, MPI_INT, MPI_MAX, 0, dec.comm());
    if (rank != 0) continue;

    const double sites = static_cast<double>(dec.local_volume());
    double staged_median = 0;
    const size_t first = results.size();
    for (size_t s = 0; s < cands.size(); ++s) {
      HaloBenchResult res;
      res.strategy = cands[s].name;
      res.size = L;
      res.time_per_call_s = samples[s];
      res.summary = summarize(samples[s]);
      res.halo_bytes = bytes_sum / dec.size();
      res.messages = msgs_max;
      res.beff_bytes_per_s = effective_bandwidth(res.halo_bytes, res.summary.median);
      res.updates_per_core_per_s = updates_per_core(sites, res.summary.median, threads);
      if (res.strategy == "staged") staged_median = res.summary.median;
      results.push_back(std::move(res));
    }
    if (staged_median > 0)
      for (size_t i = first; i < results.size(); ++i) results[i].ratio_to_staged = results[i].summary.median / staged_median;
  }
  return results;
}

std::string format_halo_table(const HaloBenchOptions& opt, const std::vector<HaloBenchResult>& results) {
  std::ostringstream out;
  long current = -1;
  for (const HaloBenchResult& r : results) {
    if (r.size != current) {
      current = r.size;
      out << (out.tellp() > 0 ? "\n" : "") << "# L = " << r.size << " per rank (" << opt.ncomp << " x "
          << to_string(opt.type) << " " << to_string(opt.layout) << ", halo " << opt.halo << ", "
          << std::fixed << std::setprecision(3) << r.halo_bytes / 1e6 << " MB halo per rank, " << opt.iterations
          << " calls x " << opt.repeats << " repeats)\n";
      out << std::left << std::setw(16) << "strategy" << std::right << std::setw(12) << "median_us" << std::setw(12)
          << "mean_us" << std::setw(10) << "std_us" << std::setw(12) << "min_us" << std::setw(12) << "B_eff_GB/s"
          << std::setw(14) << "Mupd/core/s" << std::setw(11) << "vs_staged" << "\n";
    }
    const Summary& s = r.summary;
    out << std::left << std::setw(16) << r.strategy << std::right << std::fixed << std::setprecision(2)
        << std::setw(12) << s.median * 1e6 << std::setw(12) << s.mean * 1e6 << std::setw(10) << s.stddev * 1e6
        << std::setw(12) << s.min * 1e6 << std::setw(12) << r.beff_bytes_per_s / 1e9 << std::setw(14)
        << r.updates_per_core_per_s / 1e6 << std::setw(11) << std::setprecision(3);
    if (r.ratio_to_staged > 0)
      out << r.ratio_to_staged;
    else
      out << "-";
    out << "\n";
  }
  return out.str();
}

std::vector<nlohmann::json> halo_bench_records(MPI_Comm comm, const HaloBenchOptions& opt,
                                               const std::vector<HaloBenchResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "halo");
  std::vector<nlohmann::json> out;
  for (const HaloBenchResult& r : results) {
    nlohmann::json j = meta;
    const DecompositionSpec spec = spec_for(comm, opt, r.size);
    const std::vector<int> procs(spec.procs.begin(), spec.procs.begin() + opt.ndim);
    j["strategy"] = r.strategy;
    j["ndim"] = opt.ndim;
    j["process_grid"] = procs;
    j["global_size"] = std::vector<long>(spec.global.begin(), spec.global.begin() + opt.ndim);
    j["local_size"] = r.size;
    j["periodic"] = std::vector<bool>(opt.periodic.begin(), opt.periodic.begin() + opt.ndim);
    j["ncomp"] = opt.ncomp;
    j["halo_width"] = opt.halo;
    j["dtype"] = to_string(opt.type);
    j["layout"] = to_string(opt.layout);
    j["calls_per_sample"] = opt.iterations;
    j["warmup_calls"] = opt.warmup;
    j["time_per_call_s"] = r.time_per_call_s;
    j["median_time_per_call_s"] = r.summary.median;
    j["mean_time_per_call_s"] = r.summary.mean;
    j["stddev_time_per_call_s"] = r.summary.stddev;
    j["ci95_time_per_call_s"] = {r.summary.ci95_low, r.summary.ci95_high};
    j["min_time_per_call_s"] = r.summary.min;
    j["max_time_per_call_s"] = r.summary.max;
    j["halo_bytes"] = r.halo_bytes;
    j["messages"] = r.messages;
    j["beff_bytes_per_s"] = r.beff_bytes_per_s;
    j["updates_per_core_per_s"] = r.updates_per_core_per_s;
    j["ratio_to_staged"] = r.ratio_to_staged;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
