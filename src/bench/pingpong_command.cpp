// `haloex bench pingpong`: options, then the benchmark, the table and the records.
#include <memory>

#include "haloex/bench/pingpong_bench.hpp"
#include "haloex/measure/options.hpp"

namespace haloex::cli {

namespace {

struct PingPongArgs {
  std::string sizes = "1:16M";
  std::string ci = "0";
  PingPongOptions opt;
  std::string json;
  bool quiet = false;
};

// The message sizes and how many round trips each sample and warm-up takes.
void add_count_options(CLI::App& cmd, PingPongArgs& a) {
  cmd.add_option("-m,--sizes", a.sizes, "Message bytes: MIN:MAX (powers of two) or a list, suffixes K/M/G")
      ->capture_default_str();
  cmd.add_option("-i,--iterations", a.opt.iterations, "Round trips per sample below --large-bytes")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  cmd.add_option("--iterations-large", a.opt.iterations_large, "Round trips per sample from --large-bytes up")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  cmd.add_option("-x,--warmup", a.opt.warmup, "Untimed round trips below --large-bytes")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  cmd.add_option("--warmup-large", a.opt.warmup_large, "Untimed round trips from --large-bytes up")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  cmd.add_option("--large-bytes", a.opt.large_bytes, "Where large messages start")->capture_default_str();
}

// The buffers, the samples and when the rounds stop.
void add_sample_options(CLI::App& cmd, PingPongArgs& a) {
  cmd.add_option(
         "--buffers", a.opt.buffers,
         "Memory the pair uses. osu: each rank sends from a buffer it never writes and receives into\n"
         "another, as osu_latency and IMB PingPong do (the default: the options follow OSU, and the\n"
         "numbers compare with osu_latency's only with the same buffers); one: each rank sends back\n"
         "the buffer it has just received into, so every message leaves from freshly written memory,\n"
         "as a halo's packed send buffer does (on one node slower from the rendezvous sizes up)")
      ->check(CLI::IsMember({"osu", "one"}))
      ->capture_default_str();
  cmd.add_option("-r,--repeats", a.opt.repeats, "Samples per size (with --ci: the fewest)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--ci", a.ci,
                 "Repeat rounds (at least -r) until every size's median is known to within this (95% "
                 "interval, e.g. 5%), or until --budget is spent; 0: exactly -r rounds")
      ->capture_default_str();
  cmd.add_option("--budget", a.opt.budget_s, "Seconds the rounds may take with --ci")
      ->check(CLI::Range(1e-3, 1e7))
      ->capture_default_str();
}

// The benchmark, its table and its records.
int run_bench_pingpong(const PingPongArgs& a) {
  PingPongOptions o = a.opt;
  o.sizes = parse_message_sizes(a.sizes);
  o.progress = !a.quiet;
  o.precision = parse_precision(a.ci);
  const auto results = run_pingpong_bench(MPI_COMM_WORLD, o, std::cerr);
  const RoundsOutcome rounds = results.empty() ? RoundsOutcome{} : results.front().rounds;
  const std::string how =
      o.precision > 0
          ? " (" + rounds.stop + (rounds.ranking.why.empty() ? "" : ": " + rounds.ranking.why) + ")"
          : "";
  print_results("# haloex bench pingpong: ranks 0 and 1, --buffers " + o.buffers +
                    (o.buffers == "osu" ? " (send and receive buffers apart)" : " (one buffer, sent back)") +
                    ", half round-trip time, median of " + std::to_string(rounds.rounds) + " samples" + how +
                    "\n" + format_pingpong_table(results),
                pingpong_records(MPI_COMM_WORLD, o, results), a.json);
  return 0;
}

}  // namespace

void add_bench_pingpong(CLI::App& bench, Runner& run) {
  auto a = std::make_shared<PingPongArgs>();
  auto* cmd = bench.add_subcommand(
      "pingpong",
      "Bounce messages between ranks 0 and 1 (blocking send/recv, other ranks idle): half round-trip\n"
      "latency and bandwidth = bytes / latency per message size, sizes interleaved over the repeats.\n"
      "-i and -x count round trips per sample (-r samples per size; the warm-up before the first only).\n"
      "osu_latency's counts (one sample per size, large above 8 KiB): -r 1 -i 10000\n"
      "--iterations-large 1000 -x 100 --warmup-large 10 --large-bytes 8193.");
  add_count_options(*cmd, *a);
  add_sample_options(*cmd, *a);
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] { run = [a](const ThreadChoice&) { return run_bench_pingpong(*a); }; });
}

}  // namespace haloex::cli
