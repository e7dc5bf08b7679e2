// `haloex bench lb`: options, then the benchmark, the table and the records.
#include <mpi.h>

#include <iostream>
#include <memory>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi_hints.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/lb/bench.hpp"
#include "haloex/lb/velocity_set.hpp"
#include "haloex/measure/options.hpp"
#include "haloex/measure/record.hpp"

namespace haloex::cli {

namespace {

struct LbBenchArgs {
  std::string sizes = "64";
  std::string velocity_set = "D3Q19";
  std::string kernels = "aa,pull";
  std::string layouts = "soa";
  std::string strategies = "auto";
  std::string overlaps = "none";
  std::string progress_rows = "0";
  std::string collisions = "bgk";
  std::string schedules = "worksharing";
  std::string sweeps = lb::to_string(lb::LbConfig{}.sweep);
  std::string geometries = "box";
  std::string threads;
  std::string monitor = "off";
  std::string output_every = "0";
  std::string output_format = "binary";
  std::string dir = "haloex-bench-lb";
  std::string hints = "none";
  int steps = 20, repeats = 5, warmup = 2;
  std::string ci = "0";
  double budget_s = 60;
  std::string json;
  bool quiet = false;
};

// Each entry of a comma-separated list parsed by `parse`, at least one.
template <class Parse>
auto parse_list(const std::string& text, const std::string& option, Parse parse) {
  std::vector<decltype(parse(std::string(), option))> out;
  for (const std::string& w : split_names(text)) out.push_back(parse(w, option));
  if (out.empty()) throw InputError(option + " needs at least one entry");
  return out;
}

// The lattices and configurations to time: sizes, velocity set, kernels,
// layouts, strategies, overlap, collision, schedule, sweep, geometry, threads.
void add_configuration_options(CLI::App& cmd, LbBenchArgs& a) {
  cmd.add_option("-m,-L,--sizes", a.sizes,
                 "Global lattices, comma-separated: an edge L (L^3) or NXxNYxNZ (e.g. 64,128x64x64)")
      ->capture_default_str();
  cmd.add_option("--velocity-set", a.velocity_set, "D2Q9, D3Q15, D3Q19 or D3Q27")->capture_default_str();
  cmd.add_option("-k,--kernels", a.kernels, "Kernels: aa (in place), pull (two grids)")
      ->capture_default_str();
  cmd.add_option("--layouts", a.layouts, "Layouts: soa, aos")->capture_default_str();
  cmd.add_option("-s,--strategies", a.strategies, "Halo strategies")->capture_default_str();
  cmd.add_option("--overlap", a.overlaps, "Overlap modes: none, interior, map")->capture_default_str();
  cmd.add_option("--mpi-progress-rows", a.progress_rows,
                 "With interior overlap: rows of the main thread between MPI progress calls while the "
                 "interior is updated, comma-separated (0: off; e.g. 0,16,64)")
      ->capture_default_str();
  cmd.add_option("--collision", a.collisions,
                 "Collision operators: bgk, trt (the peer kernels of RRZE lbm-benchmark-kernels time TRT)")
      ->capture_default_str();
  cmd.add_option(
         "--schedule", a.schedules,
         "How threads share a sweep: worksharing (omp for), taskloop (omp taskloop, one task per thread)")
      ->capture_default_str();
  cmd.add_option("--sweep", a.sweeps,
                 "How a sweep calls the kernels: rows (once per run of a row), flat (once per stretch of "
                 "rows, across the halo sites between them; the row dimension's periodic halo is copied)")
      ->capture_default_str();
  cmd.add_option("--geometry", a.geometries,
                 "Lattices: box (all fluid, periodic), channel (periodic in x, walls on the other faces)")
      ->capture_default_str();
  cmd.add_option(
      "-t,--threads", a.threads,
      "OpenMP thread counts to run, e.g. 1,2 (default: OMP_NUM_THREADS, or each rank's share of its CPUs)");
}

// What else runs during the timed steps: monitoring and field output.
void add_output_options(CLI::App& cmd, LbBenchArgs& a) {
  cmd.add_option("--monitor", a.monitor, "Monitoring during the timed steps: off, nonblocking, blocking")
      ->check(CLI::IsMember({"off", "nonblocking", "blocking"}))
      ->capture_default_str();
  cmd.add_option("--output-every", a.output_every,
                 "Steps between field outputs (density, velocity, mask) during the timed steps, "
                 "comma-separated (0: none; e.g. 0,10,50: the step rate with and without output)")
      ->capture_default_str();
  cmd.add_option("--output-format", a.output_format, "Output format: binary, ascii, hdf5")
      ->check(CLI::IsMember({"binary", "ascii", "hdf5"}))
      ->capture_default_str();
  cmd.add_option("--dir", a.dir,
                 "Directory the outputs are written to (each sample's files are deleted after it)")
      ->capture_default_str();
  cmd.add_option("--hints", a.hints,
                 "MPI-IO hints of the outputs, 'key=value,...' or 'none' (e.g. striping_factor=4,cb_nodes=2)")
      ->capture_default_str();
}

// The options as the benchmark takes them, every list parsed and checked.
LbBenchOptions options_of(const LbBenchArgs& a) {
  LbBenchOptions o;
  const int ndim = lb::velocity_set(a.velocity_set).ndim;
  o.sizes.clear();
  for (const std::string& w : split_names(a.sizes)) o.sizes.push_back(parse_lb_size(w, ndim, "--sizes"));
  if (o.sizes.empty()) throw InputError("--sizes needs at least one entry");
  o.velocity_set = a.velocity_set;
  o.kernels = parse_list(a.kernels, "--kernels", lb::parse_choice<lb::Kernel>);
  o.layouts = parse_list(a.layouts, "--layouts",
                         [](const std::string& w, const std::string&) { return parse_layout(w); });
  o.strategies =
      parse_list(a.strategies, "--strategies", [](const std::string& w, const std::string&) { return w; });
  o.overlaps = parse_list(a.overlaps, "--overlap", lb::parse_choice<lb::Overlap>);
  o.mpi_progress_rows = parse_long_list(a.progress_rows, "--mpi-progress-rows");
  for (long p : o.mpi_progress_rows)
    if (p < 0) throw InputError("--mpi-progress-rows entries must be >= 0 (0: off)");
  o.collisions = parse_list(a.collisions, "--collision", lb::parse_choice<lb::Collision>);
  o.schedules = parse_list(a.schedules, "--schedule", lb::parse_choice<lb::Schedule>);
  o.geometries = parse_list(a.geometries, "--geometry", parse_lb_geometry);
  o.sweeps = parse_list(a.sweeps, "--sweep", lb::parse_choice<lb::Sweep>);
  for (long t : a.threads.empty() ? std::vector<long>{} : parse_long_list(a.threads, "--threads")) {
    if (t < 1 || t > 1024) throw InputError("--threads entries must be between 1 and 1024");
    o.threads.push_back(static_cast<int>(t));
  }
  o.monitor = a.monitor;
  o.output_every = parse_long_list(a.output_every, "--output-every");
  for (long e : o.output_every)
    if (e < 0) throw InputError("--output-every entries must be >= 0 (0: no output)");
  o.output_format = a.output_format;
  o.output_dir = a.dir;
  o.output_hints = parse_io_hints(a.hints, "--hints");
  o.steps = a.steps;
  o.repeats = a.repeats;
  o.warmup = a.warmup;
  o.precision = parse_precision(a.ci);
  o.budget_s = a.budget_s;
  o.progress = !a.quiet;
  return o;
}

// The benchmark, its table and its records.
int run_bench_lb(const LbBenchArgs& a, const ThreadChoice& threads) {
  const LbBenchOptions o = options_of(a);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto results = run_lb_bench(MPI_COMM_WORLD, o, threads, std::cerr);
  const auto records = lb_bench_records(MPI_COMM_WORLD, o, results);
  print_results(
      "# haloex bench lb: " + o.velocity_set + ", " + std::to_string(size) + " ranks, median of " +
          (o.precision > 0 ? "the rounds until decided (--ci)," : std::to_string(o.repeats) + " samples") +
          " of " + std::to_string(o.steps) + " steps; MLUPS over fluid sites; ratio to the first config\n" +
          format_lb_table(results),
      records, a.json);
  return 0;
}

}  // namespace

void add_bench_lb(CLI::App& bench, Runner& run) {
  auto a = std::make_shared<LbBenchArgs>();
  auto* cmd = bench.add_subcommand(
      "lb",
      "Time LB steps (MLUPS) of each kernel/layout/strategy/overlap configuration on an L^3 lattice,\n"
      "interleaved with two in-place read-modify-write sweeps that measure the memory bandwidth in the\n"
      "same run: over one array (the roofline, bandwidth / (2 x q x 8 bytes) per update: 'fraction')\n"
      "and over q arrays, a cache line of each in turn as an SoA kernel reads them ('q-frac').\n"
      "Each kernel's own roofline: 'kernel' is q-frac with the time outside the kernel calls taken\n"
      "away (near 1: memory limits it; well below: its instructions do), 'instr/upd' the instructions\n"
      "per site update from the hardware counters (n/a where the machine exposes none).");
  add_configuration_options(*cmd, *a);
  add_output_options(*cmd, *a);
  add_repetition_options(*cmd, a->steps, a->repeats, a->warmup,
                         {"Steps per sample", "Samples per configuration", "Untimed steps per configuration",
                          "-i,--steps,--iterations"});
  add_precision_options(*cmd, a->ci, a->budget_s);
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] { run = [a](const ThreadChoice& threads) { return run_bench_lb(*a, threads); }; });
}

}  // namespace haloex::cli
