// `haloex bench clock`, `bench coll` and `bench overlap`: the collective
// benchmarks of the CRESTA paper (global clock, delayed start, overlap).
#include <mpi.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "haloex/bench/coll_bench.hpp"
#include "haloex/bench/overlap_bench.hpp"
#include "haloex/bench/pingpong_bench.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/measure/options.hpp"

namespace haloex::cli {

namespace {

// "0,10,100" microseconds as seconds.
std::vector<double> parse_microseconds(const std::string& text, const std::string& what) {
  std::vector<double> out;
  for (const std::string& w : split_names(text)) {
    size_t used = 0;
    double v = -1;
    try {
      v = std::stod(w, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != w.size() || !(v >= 0) || v > 1e8)
      throw InputError(what + ": '" + w + "' is not a number of microseconds (0 to 1e8)");
    out.push_back(v * 1e-6);
  }
  if (out.empty()) throw InputError(what + ": empty list");
  return out;
}

std::vector<int> parse_procs(const std::string& text) {
  std::vector<int> out;
  if (text.empty()) return out;
  for (long p : parse_long_list(text, "--procs")) out.push_back(static_cast<int>(p));
  return out;
}

}  // namespace

void add_bench_clock(CLI::App& bench, Runner& run) {
  struct Args {
    int exchanges = 100;
    double drift_after = 0;
    std::string json;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = bench.add_subcommand(
      "clock",
      "Estimate every rank's clock skew against rank 0 (the global clock) with the CRESTA paper's\n"
      "modified ping-pong: sigma = t'_r - t0 - (lambda_p + Delta)/2, from the exchange with the\n"
      "shortest round trip lambda_p; Delta is the cost of reading the clock. Prints the estimate,\n"
      "the mean and standard deviation over the exchanges (the paper's Table 1), the error bound\n"
      "(half the shortest round trip) and, with --drift-after, the linear drift between two estimates.");
  cmd->add_option("-n,--exchanges", a->exchanges, "Ping-pongs per rank")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--drift-after", a->drift_after,
                  "Estimate again after this many seconds and report the drift between the two (0: no drift)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] {
    run = [a](const ThreadChoice&) {
      std::vector<SkewEstimate> est = GlobalClock::measure(MPI_COMM_WORLD, a->exchanges).estimates();
      if (a->drift_after > 0) {
        if (!a->quiet && comm_rank(MPI_COMM_WORLD) == 0)
          std::cerr << "[bench clock] first estimate done; the second follows in " << a->drift_after
                    << " s\n";
        std::this_thread::sleep_for(std::chrono::duration<double>(a->drift_after));
        const GlobalClock later = GlobalClock::measure(MPI_COMM_WORLD, a->exchanges);
        if (comm_rank(MPI_COMM_WORLD) == 0) measure_drift(est, later.estimates());
      }
      print_results("# haloex bench clock: skew of each rank's MPI_Wtime against rank 0's, " +
                        std::to_string(a->exchanges) + " exchanges per rank\n" + format_clock_table(est),
                    clock_records(MPI_COMM_WORLD, est), a->json);
      return 0;
    };
  });
}

namespace {

struct CollArgs {
  CollBenchOptions opt;
  std::string collectives = "all", sizes = "8", procs, delays = "0";
  double window_us = 500;
  std::string json;
  bool quiet = false;
};

// What is timed: the collectives, message sizes, communicators and delays.
void add_coll_cases(CLI::App& cmd, CollArgs& a) {
  cmd.add_option(
         "-c,--collectives", a.collectives,
         "barrier, bcast, reduce, allreduce, alltoall, their i-forms (ibarrier, ...), or all, blocking,\n"
         "nonblocking")
      ->capture_default_str();
  cmd.add_option("-m,--sizes", a.sizes,
                 "Message bytes per rank (alltoall: per destination): MIN:MAX or a list")
      ->capture_default_str();
  cmd.add_option("--procs", a.procs, "Communicator sizes (default: powers of two and all ranks)");
  cmd.add_option("-d,--delays", a.delays, "Delays in microseconds (0 is always measured)")
      ->capture_default_str();
  cmd.add_option("--delayed-rank", a.opt.delayed_rank, "The rank that enters late")->capture_default_str();
}

// How each is timed: runs, warm-up, synchronisation and the clock.
void add_coll_timing(CLI::App& cmd, CollArgs& a) {
  cmd.add_option("-x,--warmup", a.opt.warmup, "Untimed runs per configuration")
      ->check(CLI::Range(0, 10000000))
      ->capture_default_str();
  cmd.add_option("-i,--runs,--iterations", a.opt.runs, "Timed runs per configuration and delay")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd.add_option("--sync", a.opt.sync,
                 "barrier (MPI_Barrier before each run) or window (every rank spins until a global start\n"
                 "time set by rank 0; ranks arriving after it are counted as late)")
      ->check(CLI::IsMember({"barrier", "window"}))
      ->capture_default_str();
  cmd.add_option("--window-us", a.window_us, "window: start this many microseconds after rank 0 sets it")
      ->check(CLI::Range(1.0, 1e7))
      ->capture_default_str();
  cmd.add_option("--clock-exchanges", a.opt.clock_exchanges, "Ping-pongs per rank for the clock skew")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
}

// The benchmark, its table and its records.
int run_bench_coll(const CollArgs& a) {
  CollBenchOptions o = a.opt;
  o.collectives = split_names(a.collectives);
  o.sizes = parse_message_sizes(a.sizes);
  o.procs = parse_procs(a.procs);
  o.delays_s = parse_microseconds(a.delays, "-d/--delays");
  o.window_s = a.window_us * 1e-6;
  o.progress = !a.quiet;
  const CollBenchReport r = run_coll_bench(MPI_COMM_WORLD, o, std::cerr);
  print_results("# haloex bench coll: global time (latest end - earliest start), median of " +
                    std::to_string(o.runs) + " runs, delayed rank " + std::to_string(o.delayed_rank) +
                    ", sync " + o.sync + "\n# clock skew against rank 0:\n" + format_clock_table(r.clock) +
                    format_coll_table(r.results),
                coll_records(MPI_COMM_WORLD, o, r), a.json);
  return 0;
}

}  // namespace

void add_bench_coll(CLI::App& bench, Runner& run) {
  auto a = std::make_shared<CollArgs>();
  auto* cmd = bench.add_subcommand(
      "coll",
      "Time collectives on the global clock (latest end minus earliest start over the ranks) on\n"
      "communicators of the first p ranks. With --delays, one rank (--delayed-rank) busy-waits delta\n"
      "after the synchronisation before it enters; the table then gives t_delta, t0 and the delay\n"
      "benefit b = (t0 + delta - t_delta) / t_delta (b > 0: the collective hid part of the delay).\n"
      "Every result is checked against independently computed values; a wrong one stops the run.");
  add_coll_cases(*cmd, *a);
  add_coll_timing(*cmd, *a);
  add_json_and_quiet(*cmd, a->json, a->quiet,
                     "Write results (clock and collectives) as JSON lines to this file");
  cmd->callback([&run, a] { run = [a](const ThreadChoice&) { return run_bench_coll(*a); }; });
}

void add_bench_overlap(CLI::App& bench, Runner& run) {
  struct Args {
    OverlapOptions opt;
    std::string collectives = "ialltoall,iallreduce", sizes = "8:64K", procs;
    std::string json;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = bench.add_subcommand(
      "overlap",
      "Overlap availability of non-blocking collectives: T_coll (start, wait), T_comp (a p x p\n"
      "matrix-vector product repeated to last about T_coll) and T_overlap (start, compute, wait),\n"
      "interleaved and averaged over iterations and ranks. Reports the paper's beta =\n"
      "(T_coll + T_comp - T_overlap) / T_overlap and, from the same times, OSU's overlap % =\n"
      "100 max(0, 1 - (T_overlap - T_comp)/T_coll) and IMB's = 100 max(0, min(1, (T_coll + T_comp -\n"
      "T_overlap) / min(T_coll, T_comp))).");
  cmd->add_option("-c,--collectives", a->collectives,
                  "Non-blocking collectives (ibarrier, ibcast, ireduce, ...)")
      ->capture_default_str();
  cmd->add_option("-m,--sizes", a->sizes,
                  "Message bytes per rank (ialltoall: per destination): MIN:MAX or a list")
      ->capture_default_str();
  cmd->add_option("--procs", a->procs, "Communicator sizes (default: powers of two from 2, and all ranks)");
  cmd->add_option("-i,--iterations", a->opt.iterations,
                  "Iterations (0: 100 below 8 kB, 10 from 8 kB, as the paper)")
      ->check(CLI::Range(0, 10000000))
      ->capture_default_str();
  cmd->add_option("-x,--warmup", a->opt.warmup, "Untimed runs per configuration")
      ->check(CLI::Range(0, 10000000))
      ->capture_default_str();
  cmd->add_option("--test-calls", a->opt.test_calls,
                  "MPI_Test calls spread over the computation (drive progress)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] {
    run = [a](const ThreadChoice&) {
      OverlapOptions o = a->opt;
      o.collectives = split_names(a->collectives);
      o.sizes = parse_message_sizes(a->sizes);
      o.procs = parse_procs(a->procs);
      o.progress = !a->quiet;
      const auto results = run_overlap_bench(MPI_COMM_WORLD, o, std::cerr);
      print_results("# haloex bench overlap: means over iterations and ranks, " +
                        std::to_string(o.test_calls) + " MPI_Test calls during the computation\n" +
                        format_overlap_table(results),
                    overlap_records(MPI_COMM_WORLD, o, results), a->json);
      return 0;
    };
  });
}

}  // namespace haloex::cli
