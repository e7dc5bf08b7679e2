#include "haloex/bench/coll_bench.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "haloex/bench/busy_wait.hpp"
#include "haloex/bench/collectives.hpp"
#include "haloex/core/error.hpp"
#include "haloex/measure/record.hpp"

namespace haloex {

std::vector<int> comm_sizes(int world, const std::vector<int>& requested) {
  std::vector<int> out = requested;
  if (out.empty()) {
    for (int p = 1; p < world; p *= 2) out.push_back(p);
    out.push_back(world);
  }
  for (int p : out)
    if (p < 1 || p > world)
      throw InputError("communicator size " + std::to_string(p) + " is outside 1.." + std::to_string(world) +
                       " (the run has " + std::to_string(world) + " ranks)");
  return out;
}

Comm first_ranks(MPI_Comm comm, int p) {
  Comm sub;
  const int rank = comm_rank(comm);
  mpi_check(MPI_Comm_split(comm, rank < p ? 0 : MPI_UNDEFINED, rank, sub.out()), "MPI_Comm_split");
  return sub;
}

double delay_benefit(double t0_s, double delta_s, double t_delta_s) {
  return (t0_s + delta_s - t_delta_s) / t_delta_s;
}

namespace {

// What each rank reports of one run: start and end on the global clock, its
// local time, the delay it waited and whether it was late.
struct RunReport {
  double start, end, local, waited, late;
};

static_assert(sizeof(RunReport) == 5 * sizeof(double), "RunReport travels as 5 doubles");

// Every rank's report of one run, on rank 0 of comm (one gather per run).
std::vector<RunReport> gather(MPI_Comm comm, const RunReport& mine) {
  std::vector<RunReport> all(comm_rank(comm) == 0 ? static_cast<size_t>(comm_size(comm)) : 0);
  mpi_check(MPI_Gather(&mine, 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, comm), "MPI_Gather");
  return all;
}

// Line every rank of comm up before a run; returns whether this rank came
// late to a window start.
bool synchronise(MPI_Comm comm, const GlobalClock& clock, const CollBenchOptions& opt) {
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  if (opt.sync != "window") return false;
  double start = comm_rank(comm) == 0 ? clock.global_now() + opt.window_s : 0.0;
  mpi_check(MPI_Bcast(&start, 1, MPI_DOUBLE, 0, comm), "MPI_Bcast");
  const bool late = clock.global_now() > start;
  while (clock.global_now() < start) {}
  return late;
}

// The delays to run, none first (t0, which each delay is compared with),
// each once; throws InputError for options that cannot run on `procs`.
std::vector<double> checked_delays(const CollBenchOptions& opt, const std::vector<int>& procs) {
  if (opt.sync != "barrier" && opt.sync != "window")
    throw InputError("--sync must be barrier or window, got '" + opt.sync + "'");
  if (opt.runs < 1 || opt.warmup < 0) throw InputError("--runs must be at least 1 and --warmup at least 0");
  if (opt.sizes.empty()) throw InputError("-m/--sizes: no message size given");
  std::vector<double> delays{0.0};
  for (double d : opt.delays_s) {
    if (d < 0) throw InputError("--delays: a delay cannot be negative");
    if (std::find(delays.begin(), delays.end(), d) == delays.end()) delays.push_back(d);
  }
  const int min_procs = *std::min_element(procs.begin(), procs.end());
  if (opt.delayed_rank < 0 || opt.delayed_rank >= min_procs)
    throw InputError("--delayed-rank " + std::to_string(opt.delayed_rank) +
                     " is not a rank of every communicator (" + std::to_string(min_procs) +
                     " ranks is the smallest)");
  return delays;
}

// The options of one run turned into what every communicator uses.
struct CollSetup {
  const CollBenchOptions& opt;
  const GlobalClock& clock;
  std::vector<double> delays;
  int rank;  // in the run's communicator
};

// One run's reports of every rank into its result (rank 0): the span from
// the first start to the last end, each rank's times, the delay the delayed
// rank really waited and how many ranks came late.
void add_run(CollBenchResult& r, const std::vector<RunReport>& all, int delayed_rank) {
  std::vector<double> starts, ends, locals;
  int lates = 0;
  for (const RunReport& q : all) {
    starts.push_back(q.start);
    ends.push_back(q.end);
    locals.push_back(q.local);
    lates += q.late > 0;
  }
  r.time_s.push_back(*std::max_element(ends.begin(), ends.end()) -
                     *std::min_element(starts.begin(), starts.end()));
  r.start_s.push_back(std::move(starts));
  r.end_s.push_back(std::move(ends));
  r.local_s.push_back(std::move(locals));
  r.delay_actual_s.push_back(all[static_cast<size_t>(delayed_rank)].waited);
  r.late_ranks.push_back(lates);
}

// The results of one collective at one size, one per delay, into the
// report (rank 0): each delay's times compared with those without one.
void add_results(const CollSetup& setup, const CollectiveSpec& spec, int p, size_t bytes,
                 std::vector<CollBenchResult>& res, CollBenchReport& report) {
  const double t0_median = summarize(res[0].time_s).median;
  for (size_t d = 0; d < res.size(); ++d) {
    CollBenchResult& r = res[d];
    r.collective = spec.name;
    r.mpi_name = spec.mpi_name();
    r.nonblocking = spec.nonblocking;
    r.procs = p;
    r.bytes = bytes;
    r.delay_s = setup.delays[d];
    r.summary = summarize(r.time_s);
    r.t0_median_s = t0_median;
    r.benefit = d == 0 ? 0.0 : delay_benefit(r.t0_median_s, r.delay_s, r.summary.median);
    report.results.push_back(std::move(r));
  }
}

// One collective at one message size on communicator c of p ranks: the
// warm-up, then opt.runs runs of every delay, the delays interleaved so
// t0 and t_delta see the same machine. Collective over c.
void measure_size(const CollSetup& setup, const CollectiveSpec& spec, MPI_Comm c, int p, size_t bytes,
                  CollBenchReport& report) {
  const CollBenchOptions& opt = setup.opt;
  const GlobalClock& clock = setup.clock;
  const std::vector<double>& delays = setup.delays;
  const int rank = setup.rank;
  CollectiveRun run(spec, c, bytes);
  for (int w = 0; w < opt.warmup; ++w) run.start(), run.wait();
  // A lone rank has nobody to be late for: delays need 2 ranks.
  const size_t ndelays = p > 1 ? delays.size() : 1;
  std::vector<CollBenchResult> res(ndelays);
  for (int k = 0; k < opt.runs; ++k) {
    for (size_t d = 0; d < ndelays; ++d) {
      run.poison();
      const bool late = synchronise(c, clock, opt);
      double waited = 0;
      if (rank == opt.delayed_rank && delays[d] > 0) waited = busy_wait(delays[d]);
      const double t_start = clock.local_now();
      run.start();
      run.wait();
      const double t_end = clock.local_now();
      std::string what;
      if (run.check(&what) > 0) throw Error("wrong result: " + what);
      const auto all = gather(
          c, {clock.to_global(t_start), clock.to_global(t_end), t_end - t_start, waited, late ? 1.0 : 0.0});
      if (rank != 0) continue;
      add_run(res[d], all, opt.delayed_rank);
    }
  }
  if (rank != 0) return;
  add_results(setup, spec, p, run.bytes(), res, report);
}

// Every collective at every size on the first p ranks of comm; the other
// ranks wait for them without taking a core. Collective over comm.
void measure_procs(MPI_Comm comm, const CollSetup& setup, const std::vector<CollectiveSpec>& specs, int p,
                   double t_begin, CollBenchReport& report, std::ostream& log) {
  const CollBenchOptions& opt = setup.opt;
  const bool talk = opt.progress && setup.rank == 0;
  Comm sub = first_ranks(comm, p);
  if (sub.get() != MPI_COMM_NULL) {
    const MPI_Comm c = sub.get();
    for (const CollectiveSpec& spec : specs) {
      if (talk)
        log << "[bench coll] " << spec.mpi_name() << " on " << p << " ranks (" << MPI_Wtime() - t_begin
            << " s so far)\n"
            << std::flush;
      for (size_t bytes : opt.sizes) {
        if (spec.kind == CollKind::barrier && bytes != opt.sizes.front()) continue;  // moves no data
        measure_size(setup, spec, c, p, bytes, report);
      }
    }
  }
  // Ranks outside this communicator wait here without taking a core.
  MPI_Request done = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibarrier(comm, &done), "MPI_Ibarrier");
  wait_politely(done);
}

}  // namespace

CollBenchReport run_coll_bench(MPI_Comm comm, const CollBenchOptions& opt, std::ostream& log) {
  const int world = comm_size(comm), rank = comm_rank(comm);
  const std::vector<CollectiveSpec> specs = find_collectives(opt.collectives);
  const std::vector<int> procs = comm_sizes(world, opt.procs);
  std::vector<double> delays = checked_delays(opt, procs);

  const GlobalClock clock = GlobalClock::measure(comm, opt.clock_exchanges);
  const CollSetup setup{opt, clock, std::move(delays), rank};
  CollBenchReport report;
  report.clock = clock.estimates();
  const double t_begin = MPI_Wtime();
  for (int p : procs) measure_procs(comm, setup, specs, p, t_begin, report, log);
  if (rank != 0) return {};
  return report;
}

std::string format_clock_table(const std::vector<SkewEstimate>& clock) {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "%6s %14s %14s %12s %14s %10s %12s %18s\n", "rank", "skew_s",
                "mean_skew_s", "stddev_us", "min_rtt_us", "delta_ns", "bound_us", "drift_ppm");
  s += line;
  for (const SkewEstimate& e : clock) {
    char drift[64] = "-";
    if (e.drift_bound > 0)
      std::snprintf(drift, sizeof drift, "%+.3f +- %.3f", e.drift_s_per_s * 1e6, e.drift_bound * 1e6);
    std::snprintf(line, sizeof line, "%6d %+14.6f %+14.6f %12.3f %14.3f %10.1f %12.3f %18s\n", e.rank,
                  e.skew_s, e.mean_s, e.stddev_s * 1e6, e.min_round_trip_s * 1e6, e.timer_delay_s * 1e9,
                  e.bound_s() * 1e6, drift);
    s += line;
  }
  return s;
}

std::string format_coll_table(const std::vector<CollBenchResult>& results) {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %6s %9s %9s %11s %11s %10s %11s %11s %8s\n", "collective", "procs",
                "bytes", "delay_us", "median_us", "mean_us", "std_us", "min_us", "t0_us", "b");
  s += line;
  for (const CollBenchResult& r : results) {
    const Summary& m = r.summary;
    char b[32] = "-";
    if (r.delay_s > 0) std::snprintf(b, sizeof b, "%+8.3f", r.benefit);
    std::snprintf(line, sizeof line, "%-16s %6d %9zu %9.1f %11.2f %11.2f %10.2f %11.2f %11.2f %8s\n",
                  r.mpi_name.c_str(), r.procs, r.bytes, r.delay_s * 1e6, m.median * 1e6, m.mean * 1e6,
                  m.stddev * 1e6, m.min * 1e6, r.t0_median_s * 1e6, b);
    s += line;
  }
  return s;
}

std::vector<nlohmann::json> clock_records(MPI_Comm comm, const std::vector<SkewEstimate>& clock) {
  const nlohmann::json meta = run_metadata(comm, "clock");
  std::vector<nlohmann::json> out;
  for (const SkewEstimate& e : clock) {
    nlohmann::json j = meta;
    j["rank"] = e.rank;
    j["skew_s"] = e.skew_s;
    j["mean_skew_s"] = e.mean_s;
    j["stddev_skew_s"] = e.stddev_s;
    j["min_round_trip_s"] = e.min_round_trip_s;
    j["timer_delay_s"] = e.timer_delay_s;
    j["bound_s"] = e.bound_s();
    if (e.drift_bound > 0) {
      j["drift_s_per_s"] = e.drift_s_per_s;
      j["drift_bound_s_per_s"] = e.drift_bound;
    }
    j["exchanges"] = e.exchanges;
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<nlohmann::json> coll_records(MPI_Comm comm, const CollBenchOptions& opt,
                                         const CollBenchReport& report) {
  std::vector<nlohmann::json> out = clock_records(comm, report.clock);
  const nlohmann::json meta = run_metadata(comm, "coll");
  for (const CollBenchResult& r : report.results) {
    nlohmann::json j = meta;
    j["collective"] = r.collective;
    j["mpi_name"] = r.mpi_name;
    j["nonblocking"] = r.nonblocking;
    j["procs"] = r.procs;
    j["message_bytes"] = r.bytes;
    j["delay_s"] = r.delay_s;
    j["delayed_rank"] = opt.delayed_rank;
    j["sync"] = opt.sync;
    if (opt.sync == "window") j["window_s"] = opt.window_s;
    j["warmup_runs"] = opt.warmup;
    put_samples(j, "time_s", r.time_s);
    j["start_s"] = r.start_s;
    j["end_s"] = r.end_s;
    j["local_time_s"] = r.local_s;
    j["delay_actual_s"] = r.delay_actual_s;
    j["late_ranks"] = r.late_ranks;
    j["t0_median_s"] = r.t0_median_s;
    if (r.delay_s > 0) j["delay_benefit"] = r.benefit;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace haloex
