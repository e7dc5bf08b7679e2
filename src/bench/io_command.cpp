// `haloex bench io`: options, then the benchmark, the table and the records.
#include <memory>

#include "haloex/bench/io_bench.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/io/io_grid.hpp"
#include "haloex/measure/options.hpp"

namespace haloex::cli {

namespace {

struct IoArgs {
  IoBenchOptions opt;
  std::string sizes = "32,64,128", format = "binary", grids = "1x1x1", json;
  std::vector<std::string> hints{"none"};
  bool quiet = false;
};

// The benchmark, its table and its records, the lists parsed and checked first.
int run_bench_io(const IoArgs& a) {
  IoBenchOptions o = a.opt;
  o.progress = !a.quiet;
  o.format = parse_io_format(a.format);
  o.sizes = parse_long_list(a.sizes, "--sizes");
  for (long L : o.sizes)
    if (L < 1) throw InputError("--sizes: L must be >= 1");
  o.grids.clear();
  for (const std::string& g : split_names(a.grids)) o.grids.push_back(parse_io_grid(g));
  if (o.grids.empty()) throw InputError("--io-grid: give at least one grid, e.g. 1x1x1");
  o.hints.clear();
  for (const std::string& h : a.hints) o.hints.push_back(parse_io_hints(h, "--hints"));
  if (o.hints.empty()) throw InputError("--hints: give at least one set, or none");
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto results = run_io_bench(MPI_COMM_WORLD, o, std::cerr);
  print_results("# haloex bench io\n" + format_io_table(o, size, results),
                io_records(MPI_COMM_WORLD, o, results), a.json);
  return 0;
}

}  // namespace

void add_bench_io(CLI::App& bench, Runner& run) {
  auto a = std::make_shared<IoArgs>();
  auto* cmd = bench.add_subcommand(
      "io",
      "Output bandwidth of the io layer: an L^3 lattice of --ncomp doubles per site written as one\n"
      "file or one per I/O-grid block, synced and renamed, -i times per size and grid (grids\n"
      "interleaved). Run at several rank counts for the ARCHER2 paper's Table 1.");
  cmd->add_option("-m,-L,--sizes", a->sizes, "Lattice sizes L (L^3 sites), list or range first:last:step")
      ->capture_default_str();
  cmd->add_option("--ncomp", a->opt.ncomp,
                  "Doubles per site (5: the paper's order parameter; 19: D3Q19 state)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--format", a->format, "binary, ascii or hdf5")
      ->check(CLI::IsMember({"binary", "ascii", "hdf5"}))
      ->capture_default_str();
  cmd->add_option("--io-grid", a->grids,
                  "I/O grids to compare, e.g. 1x1x1,2x1x1 (each must divide the process grid)")
      ->capture_default_str();
  cmd->add_option("-i,--iterations", a->opt.episodes, "Output episodes per size and grid")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("-x,--warmup", a->opt.warmup, "Untimed episodes first")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--hints", a->hints,
                  "MPI-IO hint sets to compare, each 'key=value,...' or 'none' (e.g. --hints none "
                  "striping_factor=4,cb_nodes=2); interleaved like the I/O grids, recorded with what the "
                  "file system reported")
      ->capture_default_str();
  cmd->add_option("--dir", a->opt.dir, "Directory written to (each episode's files are deleted after it)")
      ->capture_default_str();
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] { run = [a](const ThreadChoice&) { return run_bench_io(*a); }; });
}

}  // namespace haloex::cli
