#include "haloex/bench/overlap_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "haloex/bench/coll_bench.hpp"
#include "haloex/bench/collectives.hpp"
#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

OverlapMetrics overlap_metrics(const OverlapTimes& t) {
  OverlapMetrics m;
  const double saved = t.coll_s + t.comp_s - t.overlap_s;
  m.beta = saved / t.overlap_s;
  m.osu_percent = 100.0 * std::max(0.0, 1.0 - (t.overlap_s - t.comp_s) / t.coll_s);
  m.imb_percent = 100.0 * std::max(0.0, std::min(1.0, saved / std::min(t.coll_s, t.comp_s)));
  return m;
}

int overlap_iterations(size_t bytes) { return bytes < 8192 ? 100 : 10; }

MatVec::MatVec(int n) : n_(std::max(n, 1)), a_(static_cast<size_t>(n_) * n_), x_(n_), y_(n_) {
  for (int i = 0; i < n_; ++i) {
    double row = 0;
    for (int j = 0; j < n_; ++j) row += a_[i * n_ + j] = 1.0 + (i + 2 * j) % 5;
    for (int j = 0; j < n_; ++j) a_[i * n_ + j] /= row;
    x_[i] = 1.0 + i;
  }
}

void MatVec::run(long repetitions, int calls, bool (*between)(void*), void* arg) {
  const int n = n_;
  double* a = a_.data();
  double* x = x_.data();
  double* y = y_.data();
  long next = calls > 0 ? repetitions / (calls + 1) : repetitions + 1;
  int made = 0;
  for (long r = 0; r < repetitions; ++r) {
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int j = 0; j < n; ++j) s += a[i * n + j] * x[j];
      y[i] = s;
    }
    std::swap(x, y);
    if (r + 1 == next && made < calls) {
      ++made;
      if (between) between(arg);
      next = repetitions * (made + 1) / (calls + 1);
    }
  }
  if (x != x_.data()) std::copy(x, x + n, x_.data());
  observed_ = x_[0];  // a volatile store: the products cannot be optimised away
}

double MatVec::seconds_per_product(double min_s) {
  for (long reps = 64;; reps *= 2) {
    const double t0 = MPI_Wtime();
    run(reps);
    const double t = MPI_Wtime() - t0;
    if (t >= min_s) return t / static_cast<double>(reps);
  }
}

namespace {

bool test_once(void* run) { return static_cast<CollectiveRun*>(run)->test(); }

// Every rank's samples, gathered to rank 0 of comm as [rank][iteration].
std::vector<std::vector<double>> gather_rows(MPI_Comm comm, const std::vector<double>& mine) {
  const int size = comm_size(comm), n = static_cast<int>(mine.size());
  std::vector<double> all(comm_rank(comm) == 0 ? static_cast<size_t>(size) * n : 0);
  mpi_check(MPI_Gather(mine.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, comm), "MPI_Gather");
  std::vector<std::vector<double>> rows;
  for (int r = 0; r < size && !all.empty(); ++r)
    rows.emplace_back(all.begin() + r * n, all.begin() + (r + 1) * n);
  return rows;
}

double mean_of(const std::vector<std::vector<double>>& rows) {
  double s = 0;
  size_t n = 0;
  for (const auto& row : rows)
    for (double v : row) s += v, ++n;
  return n ? s / static_cast<double>(n) : 0.0;
}

// The collectives asked for; throws InputError for a blocking one.
std::vector<CollectiveSpec> nonblocking_collectives(const std::vector<std::string>& names) {
  std::vector<CollectiveSpec> specs = find_collectives(names);
  for (const CollectiveSpec& s : specs)
    if (!s.nonblocking)
      throw InputError("bench overlap measures non-blocking collectives; '" + s.name +
                       "' is blocking (try '" + s.counterpart() + "')");
  return specs;
}

// One collective at one message size on communicator c of p ranks, `work`
// sized for p: the collective alone, the computation alone and the two
// overlapped, iteration by iteration; every rank's times on rank 0 of c.
// Collective over c.
OverlapResult measure_overlap(const OverlapOptions& opt, const CollectiveSpec& spec, MPI_Comm c, size_t bytes,
                              MatVec& work) {
  CollectiveRun run(spec, c, bytes);
  const int iters = opt.iterations > 0 ? opt.iterations : overlap_iterations(run.bytes());
  for (int w = 0; w < opt.warmup; ++w) run.start(), run.wait();
  auto timed_coll = [&] {
    run.poison();
    mpi_check(MPI_Barrier(c), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    run.start();
    run.wait();
    const double t = MPI_Wtime() - t0;
    std::string what;
    if (run.check(&what) > 0) throw Error("wrong result: " + what);
    return t;
  };
  // Calibrate: the computation lasts about as long as the collective
  // alone (OSU and IMB do the same), with one repetition count for all.
  double cal = 0;
  for (int i = 0; i < iters; ++i) cal += timed_coll();
  const double target = mean_over(c, cal / iters);
  const double product = mean_over(c, work.seconds_per_product());
  const long products = std::max(1L, std::lround(target / product));

  std::vector<double> tc, tp, to;
  for (int i = 0; i < iters; ++i) {
    tc.push_back(timed_coll());
    mpi_check(MPI_Barrier(c), "MPI_Barrier");
    double t0 = MPI_Wtime();
    work.run(products);
    tp.push_back(MPI_Wtime() - t0);
    run.poison();
    mpi_check(MPI_Barrier(c), "MPI_Barrier");
    t0 = MPI_Wtime();
    run.start();
    work.run(products, opt.test_calls, test_once, &run);
    run.wait();
    to.push_back(MPI_Wtime() - t0);
    std::string what;
    if (run.check(&what) > 0) throw Error("wrong result after overlap: " + what);
  }
  OverlapResult r;
  r.coll_s = gather_rows(c, tc);
  r.comp_s = gather_rows(c, tp);
  r.overlap_s = gather_rows(c, to);
  r.bytes = run.bytes();
  r.iterations = iters;
  r.products = products;
  r.product_s = product;
  return r;
}

// The rest of a measured result on rank 0: what ran, and the means and
// metrics of the times.
void describe_result(OverlapResult& r, const OverlapOptions& opt, const CollectiveSpec& spec, int p) {
  r.collective = spec.name;
  r.mpi_name = spec.mpi_name();
  r.procs = p;
  r.test_calls = opt.test_calls;
  r.mean = {mean_of(r.coll_s), mean_of(r.comp_s), mean_of(r.overlap_s)};
  r.metrics = overlap_metrics(r.mean);
}

}  // namespace

std::vector<OverlapResult> run_overlap_bench(MPI_Comm comm, const OverlapOptions& opt, std::ostream& log) {
  const int world = comm_size(comm), rank = comm_rank(comm);
  const std::vector<CollectiveSpec> specs = nonblocking_collectives(opt.collectives);
  // A lone rank has nothing to overlap: by default communicators start at 2.
  std::vector<int> procs = comm_sizes(world, opt.procs);
  if (opt.procs.empty() && world > 1) procs.erase(procs.begin());
  std::vector<size_t> sizes = opt.sizes;
  if (sizes.empty())
    for (size_t b = 8; b <= 65536; b *= 2) sizes.push_back(b);
  if (opt.iterations < 0 || opt.warmup < 0 || opt.test_calls < 0)
    throw InputError("--iterations, --warmup and --test-calls cannot be negative");
  const bool talk = opt.progress && rank == 0;
  const double t_begin = MPI_Wtime();
  std::vector<OverlapResult> out;

  for (int p : procs) {
    Comm sub = first_ranks(comm, p);
    if (sub.get() != MPI_COMM_NULL) {
      const MPI_Comm c = sub.get();
      MatVec work(p);
      for (const CollectiveSpec& spec : specs) {
        if (talk)
          log << "[bench overlap] " << spec.mpi_name() << " on " << p << " ranks (" << MPI_Wtime() - t_begin
              << " s so far)\n"
              << std::flush;
        for (size_t bytes : sizes) {
          if (spec.kind == CollKind::barrier && bytes != sizes.front()) continue;  // moves no data
          OverlapResult r = measure_overlap(opt, spec, c, bytes, work);
          if (rank != 0) continue;
          describe_result(r, opt, spec, p);
          out.push_back(std::move(r));
        }
      }
    }
    MPI_Request done = MPI_REQUEST_NULL;
    mpi_check(MPI_Ibarrier(comm, &done), "MPI_Ibarrier");
    wait_politely(done);
  }
  return out;
}

std::string format_overlap_table(const std::vector<OverlapResult>& results) {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %6s %9s %6s %9s %11s %11s %11s %8s %8s %8s\n", "collective",
                "procs", "bytes", "iters", "products", "T_coll_us", "T_comp_us", "T_ovl_us", "beta", "OSU_%",
                "IMB_%");
  s += line;
  for (const OverlapResult& r : results) {
    std::snprintf(line, sizeof line, "%-16s %6d %9zu %6d %9ld %11.2f %11.2f %11.2f %+8.3f %8.1f %8.1f\n",
                  r.mpi_name.c_str(), r.procs, r.bytes, r.iterations, r.products, r.mean.coll_s * 1e6,
                  r.mean.comp_s * 1e6, r.mean.overlap_s * 1e6, r.metrics.beta, r.metrics.osu_percent,
                  r.metrics.imb_percent);
    s += line;
  }
  return s;
}

std::vector<nlohmann::json> overlap_records(MPI_Comm comm, const OverlapOptions& opt,
                                            const std::vector<OverlapResult>& results) {
  const nlohmann::json meta = run_metadata(comm, "overlap");
  std::vector<nlohmann::json> out;
  for (const OverlapResult& r : results) {
    nlohmann::json j = meta;
    j["collective"] = r.collective;
    j["mpi_name"] = r.mpi_name;
    j["procs"] = r.procs;
    j["message_bytes"] = r.bytes;
    j["iterations"] = r.iterations;
    j["warmup_runs"] = opt.warmup;
    j["test_calls"] = r.test_calls;
    j["products"] = r.products;
    j["product_s"] = r.product_s;
    j["coll_s"] = r.coll_s;
    j["comp_s"] = r.comp_s;
    j["overlap_s"] = r.overlap_s;
    j["mean_coll_s"] = r.mean.coll_s;
    j["mean_comp_s"] = r.mean.comp_s;
    j["mean_overlap_s"] = r.mean.overlap_s;
    j["beta"] = r.metrics.beta;
    j["osu_overlap_percent"] = r.metrics.osu_percent;
    j["imb_overlap_percent"] = r.metrics.imb_percent;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
