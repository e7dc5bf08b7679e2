// `haloex bench halo`: options, then the benchmark, the table and the records.
#include <mpi.h>

#include <iostream>
#include <memory>

#include "haloex/bench/halo_bench.hpp"
#include "haloex/bench/options.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/measure/options.hpp"
#include "haloex/measure/record.hpp"

namespace haloex::cli {

namespace {

struct HaloBenchArgs {
  std::string sizes = "32";
  std::string shape = "cubic";
  long global = 0;
  std::string plan = "full";
  std::string velocity_set = "D3Q19";
  std::string pack_threads = "auto";
  std::string field_memory = "heap";
  double work_us = 0;
  int dims = 3;
  std::string procs = "0,0,0";
  std::string periodic = "1,1,1";
  int ncomp = 19;
  int halo = 1;
  std::string dtype = "double";
  std::string layout = "aos";
  int iterations = 2000;
  int repeats = 5;
  int warmup = 20;
  std::string ci = "0";
  double budget_s = 60;
  std::string strategies;
  std::string json;
  bool quiet = false;
  bool check = false;
};

// Per-dimension lists may be given for 3 dimensions and used for 2.
template <class T>
std::array<T, max_dims> per_dim(const std::string& text, int ndim, const std::string& what) {
  const std::vector<long> v = parse_long_list(text, what);
  if (static_cast<int>(v.size()) < ndim)
    throw InputError(what + " '" + text + "' needs " + std::to_string(ndim) + " entries");
  std::array<T, max_dims> out{};
  for (int d = 0; d < ndim; ++d) out[d] = static_cast<T>(v[d]);
  return out;
}

HaloBenchOptions to_options(const HaloBenchArgs& a) {
  HaloBenchOptions o;
  o.ndim = a.dims;
  o.sizes = parse_long_list(a.sizes, "--sizes");
  o.shape = a.shape;
  o.global = a.global;
  o.plan = a.plan;
  o.velocity_set = a.velocity_set;
  o.pack_threads = parse_pack_threads(a.pack_threads);
  o.field_memory = parse_field_memory(a.field_memory);
  o.work_s = a.work_us * 1e-6;
  o.procs = per_dim<int>(a.procs, a.dims, "--procs");
  const auto per = per_dim<long>(a.periodic, a.dims, "--periodic");
  for (int d = 0; d < a.dims; ++d) {
    if (per[d] != 0 && per[d] != 1)
      throw InputError("--periodic entries must be 0 or 1, got '" + a.periodic + "'");
    o.periodic[d] = per[d] == 1;
  }
  o.ncomp = a.ncomp;
  o.halo = a.halo;
  o.type = parse_element_type(a.dtype);
  o.layout = parse_layout(a.layout);
  o.iterations = a.iterations;
  o.repeats = a.repeats;
  o.warmup = a.warmup;
  o.precision = parse_precision(a.ci);
  o.budget_s = a.budget_s;
  o.strategies = split_names(a.strategies);
  o.progress = !a.quiet;
  o.check = a.check;
  if (o.check && o.field_memory == FieldMemory::folded)
    throw InputError("--check cannot check a field in folded memory: every rank shares its values");
  return o;
}

// --check's verdict on rank 0: one line per strategy that filled a halo
// wrongly, and exit code 1 (0 when all were right or nothing was checked).
int check_failures(const std::vector<HaloBenchResult>& results) {
  int status = 0;
  for (const HaloBenchResult& r : results) {
    if (r.check_wrong <= 0 && r.check_after_timing_wrong <= 0) continue;
    std::cerr << "haloex: error: bench halo --check: " << r.strategy << " at L=" << r.size << " left "
              << r.check_wrong << " wrong halo values over its checked exchanges (of "
              << static_cast<long>(r.check_elements) << " each), " << r.check_after_timing_wrong
              << " after the timed exchanges\n";
    status = 1;
  }
  return status;
}

// The lattice: sizes or a global lattice, the plan, the field's memory and
// the work between begin and end.
void add_lattice_options(CLI::App& cmd, HaloBenchArgs& a) {
  cmd.add_option("-m,-L,--sizes", a.sizes,
                 "Subdomain edge L per rank: a list and/or ranges first:last:step (e.g. 16:88:8 or 16,32,64)")
      ->capture_default_str();
  cmd.add_option("--shape", a.shape, "Subdomain shape: cubic (L^d) or noncubic (L x 1.5L x 2L, L even)")
      ->check(CLI::IsMember({"cubic", "noncubic"}))
      ->capture_default_str();
  cmd.add_option("--global", a.global,
                 "Strong scaling: a fixed N^d global lattice split over the ranks (--sizes is then unused)")
      ->check(CLI::Range(1L, 1L << 40));
  add_plan_options(cmd, a.plan, a.pack_threads);
  cmd.add_option("--velocity-set", a.velocity_set, "Velocity set of the reduced plan (--ncomp must be its q)")
      ->capture_default_str();
  cmd.add_option(
         "--field-memory", a.field_memory,
         "Where the field lives: heap (private; 'shm' packs through a shared window), node (a window\n"
         "shared with the node's ranks, so 'shm' copies halos straight from the neighbour's field) or\n"
         "folded (a build for SMPI only: every rank's field and message buffers in one block of memory,\n"
         "so thousands of simulated ranks fit; the values are meaningless, for timing only)")
      ->check(CLI::IsMember({"node", "heap", "folded"}))
      ->capture_default_str();
  cmd.add_option("--work-us", a.work_us, "Busy work between begin() and end(), microseconds (0: none)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
}

// The strategies and the field: grid, periodicity, values per site, halo
// width, type and layout, and the check after timing.
void add_field_options(CLI::App& cmd, HaloBenchArgs& a) {
  cmd.add_option("-s,--strategies", a.strategies,
                 "Comma-separated strategies (default: every one that can run on this grid)");
  cmd.add_option("--dims", a.dims, "Lattice dimensions")->check(CLI::IsMember({2, 3}))->capture_default_str();
  cmd.add_option("--procs", a.procs, "Process grid, 0 = let MPI_Dims_create choose")->capture_default_str();
  cmd.add_option("--periodic", a.periodic, "Periodicity per dimension (1 or 0)")->capture_default_str();
  cmd.add_option("--ncomp", a.ncomp, "Values per site")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd.add_option("--halo", a.halo, "Halo width")->check(CLI::Range(1, 64))->capture_default_str();
  cmd.add_option("--dtype", a.dtype, "Element type")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd.add_option("--layout", a.layout, "Component layout")
      ->check(CLI::IsMember({"aos", "soa"}))
      ->capture_default_str();
  cmd.add_flag("--check", a.check,
               "Check every halo value after each strategy's timed exchanges against the global-index\n"
               "encoding (re-encoded before each of them); exit 1 if any is wrong");
}

// The benchmark, its table and its records; 1 when --check found a wrong halo.
int run_bench_halo(const HaloBenchArgs& a) {
  const HaloBenchOptions opt = to_options(a);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto results = run_halo_bench(MPI_COMM_WORLD, opt, std::cerr);
  const auto records = halo_bench_records(MPI_COMM_WORLD, opt, results);
  print_results("# haloex bench halo: " + std::to_string(size) + " ranks, " + std::to_string(opt.ndim) +
                    "-D, fields in " + to_string(opt.field_memory) +
                    " memory, per-call times of one exchange" + (opt.global > 0 ? " (strong scaling)" : "") +
                    "\n" + format_halo_table(opt, results),
                records, a.json);
  return check_failures(results);
}

}  // namespace

void add_bench_halo(CLI::App& bench, Runner& run) {
  auto a = std::make_shared<HaloBenchArgs>();
  auto* cmd = bench.add_subcommand(
      "halo",
      "Time N calls of each halo strategy, repeated and interleaved, on an L^d (or L x 1.5L x 2L)\n"
      "subdomain per rank, or on a fixed global lattice split over the ranks (strong scaling);\n"
      "print median/mean/std per call, effective bandwidth (bytes the plan moves / time), updates\n"
      "per core per second, the ratio to 'staged' and where the time went (pack, MPI, unpack), and\n"
      "write every raw sample as JSON lines (-o).\n"
      "With --work-us, also time begin + busy work + end: the share of the exchange hidden.");
  add_lattice_options(*cmd, *a);
  add_repetition_options(*cmd, a->iterations, a->repeats, a->warmup,
                         {"Exchanges timed per sample",
                          "Rounds: every strategy once per round, interleaved (with --ci: the fewest)",
                          "Untimed exchanges per strategy before timing"});
  add_precision_options(*cmd, a->ci, a->budget_s);
  add_field_options(*cmd, *a);
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] { run = [a](const ThreadChoice&) { return run_bench_halo(*a); }; });
}

}  // namespace haloex::cli
