// `haloex bench stencil`: options, then the benchmark, the table and the records.
#include <mpi.h>

#include <iostream>
#include <memory>

#include "haloex/core/mpi.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/measure/options.hpp"
#include "haloex/stencil/bench.hpp"

namespace haloex::cli {

namespace {

struct StencilBenchArgs {
  StencilBenchOptions opt;
  std::string nz = "64";
  std::string procs = "0,0";
  std::string precision = "double";
  std::string ci = "0";
  std::string strategies;
  std::string json;
  bool quiet = false;
};

}  // namespace

void add_bench_stencil(CLI::App& bench, Runner& run) {
  auto a = std::make_shared<StencilBenchArgs>();
  auto* cmd = bench.add_subcommand(
      "stencil",
      "Run the 2-D diffusion application (haloex stencil) with every halo strategy and the serial\n"
      "reference, interleaved and repeated; print per-run total, halo and work time (slowest rank),\n"
      "the halo time relative to 'staged', the speedup over serial, and the work's update rate\n"
      "against the memory roofline (STREAM copy bandwidth measured in the same run / bytes per\n"
      "update). Strong scaling: the same sizes on more ranks; weak scaling: sizes grown with the\n"
      "ranks (campaigns/stencil-*.toml); message-size sweep: a list of --nz.");
  cmd->add_option("--nx", a->opt.nx, "Sites along x")->check(CLI::Range(1L, 1L << 30))->capture_default_str();
  cmd->add_option("--ny", a->opt.ny, "Sites along y")->check(CLI::Range(1L, 1L << 30))->capture_default_str();
  cmd->add_option("--nz", a->nz, "Values per column: a list and/or ranges (e.g. 1,2,4,8,16,32,64)")
      ->capture_default_str();
  add_repetition_options(
      *cmd, a->opt.iterations, a->opt.repeats, a->opt.warmup,
      {"Iterations per sample (one application run)", "Samples per strategy (strategies interleaved)",
       "Untimed runs per strategy before timing", "-i,--iters,--iterations"});
  add_precision_options(*cmd, a->ci, a->opt.budget_s);
  cmd->add_option(
      "-s,--strategies", a->strategies,
      "Comma-separated strategies, 'serial' included (default: serial and every strategy that can run)");
  cmd->add_option("--procs", a->procs, "Process grid x,y; 0 = let MPI_Dims_create choose")
      ->capture_default_str();
  cmd->add_option("--precision", a->precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] {
    run = [a](const ThreadChoice&) {
      StencilBenchOptions opt = a->opt;
      opt.nz = parse_long_list(a->nz, "--nz");
      opt.procs = parse_grid_2d(a->procs);
      opt.type = parse_element_type(a->precision);
      opt.precision = parse_precision(a->ci);
      opt.strategies = split_names(a->strategies);
      opt.progress = !a->quiet;
      const int ranks = comm_size(MPI_COMM_WORLD);
      const StencilBenchReport r = run_stencil_bench(MPI_COMM_WORLD, opt, std::cerr);
      const auto records = stencil_bench_records(MPI_COMM_WORLD, opt, r);
      print_results("# haloex bench stencil: " + std::to_string(ranks) + " ranks, " + std::to_string(opt.nx) +
                        "x" + std::to_string(opt.ny) + " sites, " + a->precision + "\n" +
                        format_stencil_table(opt, ranks, r),
                    records, a->json);
      return 0;
    };
  });
}

}  // namespace haloex::cli
