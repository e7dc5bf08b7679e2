// `haloex bench pack`: options, then the benchmark, the table and the records.
#include <memory>

#include "haloex/bench/options.hpp"
#include "haloex/bench/pack_bench.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/measure/options.hpp"

namespace haloex::cli {

// What `bench pack --help` says first.
constexpr const char* pack_help =
    "Pack, unpack and local copy of one halo box of every kind (each dimension's face, every edge,\n"
    "the corner) on an L^d field per rank, each timed alone against a plain copy of the same bytes\n"
    "in the same run (ratio = copy time / time: 1 is copy speed). 'touched' counts the field's\n"
    "64-byte lines a pack reads: a strided box moves whole lines for single values, so its bound\n"
    "is a plain copy of that many bytes ('lines'); the last line names the region of 64 KiB or more\n"
    "furthest from it.";

void add_bench_pack(CLI::App& bench, Runner& run) {
  struct Args {
    PackBenchOptions opt;
    std::string sizes = "64", layouts = "aos,soa", dtype = "double", plan = "full", pack_threads = "auto";
    std::string json;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = bench.add_subcommand("pack", pack_help);
  cmd->add_option("-m,-L,--sizes", a->sizes, "Subdomain edge L: a list and/or ranges first:last:step")
      ->capture_default_str();
  cmd->add_option("--dims", a->opt.ndim, "Lattice dimensions")
      ->check(CLI::IsMember({2, 3}))
      ->capture_default_str();
  cmd->add_option("--ncomp", a->opt.ncomp, "Values per site")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--halo", a->opt.halo, "Halo width")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--dtype", a->dtype, "Element type")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cmd->add_option("--layout", a->layouts, "Component layouts, comma-separated (aos, soa)")
      ->capture_default_str();
  add_plan_options(*cmd, a->plan, a->pack_threads);
  cmd->add_option("--velocity-set", a->opt.velocity_set,
                  "Velocity set of the reduced plan (--ncomp must be its q)")
      ->capture_default_str();
  cmd->add_option("-i,--iterations", a->opt.iterations, "Calls per sample (0: enough to move about 8 MB)")
      ->check(CLI::Range(0L, 1000000000L))
      ->capture_default_str();
  cmd->add_option("-r,--repeats", a->opt.repeats, "Samples per measurement (interleaved)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("-x,--warmup", a->opt.warmup, "Untimed calls of each before timing")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  add_json_and_quiet(*cmd, a->json, a->quiet);
  cmd->callback([&run, a] {
    run = [a](const ThreadChoice&) {
      PackBenchOptions o = a->opt;
      o.sizes = parse_long_list(a->sizes, "--sizes");
      o.layouts.clear();
      for (const std::string& l : split_names(a->layouts)) o.layouts.push_back(parse_layout(l));
      if (o.layouts.empty()) throw InputError("--layout needs at least one of aos, soa");
      o.type = parse_element_type(a->dtype);
      o.plan = a->plan;
      o.pack_threads = parse_pack_threads(a->pack_threads);
      o.progress = !a->quiet;
      const auto results = run_pack_bench(MPI_COMM_WORLD, o, std::cerr);
      print_results("# haloex bench pack\n" + format_pack_table(o, results),
                    pack_bench_records(MPI_COMM_WORLD, o, results), a->json);
      return 0;
    };
  });
}

}  // namespace haloex::cli
