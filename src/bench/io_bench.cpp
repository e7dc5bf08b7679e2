#include "haloex/bench/io_bench.hpp"

#include <filesystem>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "haloex/io/field_io.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

namespace fs = std::filesystem;

std::vector<IoBenchResult> run_io_bench(MPI_Comm comm, const IoBenchOptions& opt, std::ostream& log) {
  const int rank = comm_rank(comm);
  std::vector<IoBenchResult> out;
  for (long L : opt.sizes) {
    DecompositionSpec spec;
    spec.global = {L, L, L};
    const Decomposition dec(comm, spec);
    std::vector<std::unique_ptr<FieldIo>> ios;
    for (const auto& g : opt.grids)
      for (const IoHints& h : opt.hints) {
        IoOptions io_opt{opt.format, g};
        io_opt.hints = h;
        ios.push_back(std::make_unique<FieldIo>(dec, IoElement{IoType::f64, opt.ncomp, {}, "bench"}, io_opt));
        // Values that differ per site, so no layer can compress or skip them.
        double* v = ios.back()->aggregator().values<double>();
        const long n = ios.back()->aggregator().sites() * opt.ncomp;
        for (long i = 0; i < n; ++i) v[i] = static_cast<double>(rank) + 1e-6 * static_cast<double>(i);
        IoBenchResult r;
        r.size = L;
        r.grid = g;
        r.hints = h;
        r.procs = {dec.procs(0), dec.procs(1), dec.procs(2)};
        out.push_back(r);
      }
    const size_t first = out.size() - ios.size();
    for (int e = -opt.warmup; e < opt.episodes; ++e)
      for (size_t k = 0; k < ios.size(); ++k) {
        const std::string stem =
            (fs::path(opt.dir) / ("bench-" + std::to_string(L) + "-" + std::to_string(k))).string();
        const IoEvent ev = ios[k]->write(stem, e);
        IoBenchResult& r = out[first + k];
        if (e >= 0) {
          r.bytes = ev.bytes;
          r.hints_applied = ev.hints_applied;
          r.time_s.push_back(ev.elapsed_s);
          r.bandwidth_Bps.push_back(ev.bandwidth_Bps());
        }
        // Remove the episode's files so that the disk holds one at a time.
        if (rank == 0)
          for (const auto& f : fs::directory_iterator(opt.dir))
            if (f.path().filename().string().rfind(fs::path(stem).filename().string() + ".", 0) == 0)
              fs::remove(f.path());
        MPI_Barrier(comm);
      }
    for (size_t k = first; k < out.size(); ++k) {
      out[k].bandwidth = summarize(out[k].bandwidth_Bps);
      if (opt.progress && rank == 0)
        log << "# L=" << L << " io_grid " << extents_text(out[k].grid, 3) << " hints "
            << io_hints_text(out[k].hints) << ": median " << out[k].bandwidth.median / 1e9 << " GB/s\n"
            << std::flush;
    }
  }
  if (rank == 0) {
    std::error_code ec;
    fs::remove(opt.dir, ec);  // only when empty: never a directory the user had
  }
  return out;
}

std::string format_io_table(const IoBenchOptions& opt, int ranks, const std::vector<IoBenchResult>& results) {
  std::ostringstream out;
  out << "# " << to_string(opt.format) << " output of " << opt.ncomp << " float64 per site, " << ranks
      << " ranks, " << opt.episodes << " episodes (+" << opt.warmup
      << " warm-up) per row, each synced to storage "
      << "and renamed; directory " << opt.dir << "\n";
  out << std::right << std::setw(6) << "L" << std::setw(8) << "procs" << std::setw(9) << "io_grid"
      << std::setw(7) << "files" << std::setw(11) << "MB/event" << std::setw(11) << "median_ms"
      << std::setw(13) << "median_GB/s" << std::setw(10) << "min_GB/s" << std::setw(10) << "max_GB/s"
      << "  hints\n";
  for (const IoBenchResult& r : results) {
    const Summary t = summarize(r.time_s);
    out << std::setw(6) << r.size << std::setw(8) << extents_text(r.procs, 3) << std::setw(9)
        << extents_text(r.grid, 3) << std::setw(7) << r.grid[0] * r.grid[1] * r.grid[2] << std::fixed
        << std::setprecision(2) << std::setw(11) << static_cast<double>(r.bytes) / 1e6 << std::setw(11)
        << t.median * 1e3 << std::setprecision(3) << std::setw(13) << r.bandwidth.median / 1e9
        << std::setw(10) << r.bandwidth.min / 1e9 << std::setw(10) << r.bandwidth.max / 1e9
        << std::defaultfloat << "  " << io_hints_text(r.hints) << "\n";
  }
  return out.str();
}

std::vector<nlohmann::json> io_records(MPI_Comm comm, const IoBenchOptions& opt,
                                       const std::vector<IoBenchResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "io");
  std::vector<nlohmann::json> out;
  for (const IoBenchResult& r : results) {
    nlohmann::json j = meta;
    j["size"] = r.size;
    j["global"] = {r.size, r.size, r.size};
    j["process_grid"] = r.procs;
    j["io_grid"] = r.grid;
    j["files"] = r.grid[0] * r.grid[1] * r.grid[2];
    j["format"] = to_string(opt.format);
    j["ncomp"] = opt.ncomp;
    j["hints"] = io_hints_text(r.hints);
    j["hints_applied"] = r.hints_applied;
    j["bytes"] = r.bytes;
    put_samples(j, "time_s", r.time_s);
    put_samples(j, "bandwidth_Bps", r.bandwidth_Bps);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
