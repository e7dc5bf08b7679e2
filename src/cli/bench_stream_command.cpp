// `haloex bench stream`: options, then the benchmark, the table and the records.
#include <memory>

#include "commands.hpp"
#include "haloex/bench/stream_bench.hpp"

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
