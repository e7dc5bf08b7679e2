// `haloex bench monitor`: the LB monitoring reduction's cost, blocking,
// non-blocking and every N steps.
#include <mpi.h>

#include <iostream>
#include <memory>

#include "haloex/bench/monitor_bench.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/measure/options.hpp"

namespace haloex::cli {

void add_bench_monitor(CLI::App& bench, Runner& run) {
  struct Args {
    MonitorBenchOptions opt;
    std::string configs = "off,blocking,nonblocking,blocking/10,nonblocking/10";
    std::string json;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = bench.add_subcommand(
      "monitor",
      "Run one LB case with its monitoring reduction (min/max density and max speed, a user-defined\n"
      "MPI_Op on a duplicated communicator) off, blocking every step (MPI_Allreduce), non-blocking\n"
      "(MPI_Iallreduce completed one step later) and every N steps (mode/N); configurations\n"
      "interleaved. Per step: T_sim (slowest rank's wall time), T_LB (collision and streaming),\n"
      "T_halo, T_wait (in the reduction's MPI calls), T_mon (T_LB above the unmonitored run: the\n"
      "statistics are computed inside the update kernel), and SUPS = sites / T_sim.");
  cmd->add_option("-m,-L,--size,--sizes", a->opt.size, "Lattice edge L (L^3 sites; L^2 for D2Q9)")
      ->check(CLI::Range(2L, 1L << 20))
      ->capture_default_str();
  cmd->add_option("--velocity-set", a->opt.velocity_set, "D2Q9, D3Q15, D3Q19 or D3Q27")
      ->check(CLI::IsMember({"D2Q9", "D3Q15", "D3Q19", "D3Q27"}))
      ->capture_default_str();
  cmd->add_option("-s,--strategy,--strategies", a->opt.strategy, "Halo strategy")->capture_default_str();
  cmd->add_option("--overlap", a->opt.overlap, "none, interior or map")
      ->check(CLI::IsMember({"none", "interior", "map"}))
      ->capture_default_str();
  cmd->add_option("--configs", a->configs, "off, blocking, nonblocking, blocking/N, nonblocking/N")
      ->capture_default_str();
  add_repetition_options(*cmd, a->opt.steps, a->opt.repeats, a->opt.warmup,
                         {"Steps per sample", "Samples per configuration", "Untimed steps per configuration",
                          "-i,--steps,--iterations"});
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] {
    run = [a](const ThreadChoice&) {
      MonitorBenchOptions o = a->opt;
      o.configs = split_names(a->configs);
      o.progress = !a->quiet;
      const auto results = run_monitor_bench(MPI_COMM_WORLD, o, std::cerr);
      print_results("# haloex bench monitor: " + o.velocity_set + " " + std::to_string(o.size) + "^d on " +
                        std::to_string(comm_size(MPI_COMM_WORLD)) + " ranks, " + o.strategy +
                        ", medians of per-step times over " + std::to_string(o.repeats) + " samples\n" +
                        format_monitor_table(results),
                    monitor_records(MPI_COMM_WORLD, o, results), a->json);
      return 0;
    };
  });
}

}  // namespace haloex::cli
