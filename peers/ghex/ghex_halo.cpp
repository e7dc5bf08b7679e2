// ghex_halo: a benchmark driver for GHEX 0.9.0 (https://github.com/ghex-org/GHEX), the peer that
// `make peers` runs side by side with haloex.
//
// Job: a 3-D block of L^3 interior sites per rank, periodic in all dimensions, halo width 1, the full
// 26-neighbour halo (faces, edges and corners), `ncomp` doubles per site, either AoS (component
// fastest) or SoA (component slowest). The process grid comes from MPI_Dims_create; rank r sits at
// (cx, cy, cz) with r = (cx * py + cy) * pz + cz, and one GHEX domain (id = rank) per rank.
//
// How the fields are handed to GHEX:
//   ncomp = 1    one 3-D field of doubles;
//   AoS, C > 1   one 3-D field whose value type is a struct of C doubles (C fixed at compile time,
//                see AosComponentCounts), the same bytes as C doubles per site;
//   SoA, C > 1   C 3-D fields of doubles, one per component plane, exchanged together;
//   --runtime-components (either layout) one 4-D field with GHEX's run-time component dimension
//                (field_descriptor's num_components). GHEX 0.9.0 gets AoS wrong on this path:
//                regular::field_descriptor::make_buffer_desc gives the message buffer a component
//                extent of num_components + 1, so the packed halo pieces overlap (co, and the remote
//                part of bulk), and the fused-component rma put copies num_components^2 values per
//                row instead of row length * num_components (bulk, same-rank halos). The default
//                paths above avoid both; the flag is kept to reproduce them.
//
// Modes: `co` is GHEX's communication_object (pack into one buffer per neighbour domain, send with
// the transport, unpack); `bulk` is its bulk_communication_object (fields registered once; halos
// whose source is this rank are copied directly, the rest go through a communication_object).
//
// Correctness first: interior sites hold v = ((gx * NY + gy) * NZ + gz) * C + c (global coordinates,
// exact in a double), halos NaN; after one exchange every cell of the block is compared with the
// encoding of its periodically wrapped global site, and again after the timed exchanges (the halos
// NaN again before them, after the warm-up). A mismatch is reported once (the lowest failing rank
// names its first bad cell) and every rank exits 3 with no timing printed.
//
// Timing: W untimed exchanges, then S samples of N exchanges each (MPI_Barrier, MPI_Wtime); a sample
// is the slowest rank's time divided by N. Rank 0 prints one JSON line to stdout.
//
// Exit codes: 0 ok, 2 bad options, 3 check failed, 4 the case cannot run (said on stderr).

#include <mpi.h>

#include <ghex/bulk_communication_object.hpp>
#include <ghex/communication_object.hpp>
#include <ghex/context.hpp>
#include <ghex/structured/pattern.hpp>
#include <ghex/structured/regular/domain_descriptor.hpp>
#include <ghex/structured/regular/field_descriptor.hpp>
#include <ghex/structured/regular/halo_generator.hpp>
#include <ghex/structured/regular/make_pattern.hpp>
#include <ghex/structured/rma_range_generator.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int kExitBadOptions = 2;
constexpr int kExitCheckFailed = 3;
constexpr int kExitCannotRun = 4;

// AoS component counts compiled as a struct value type (D2Q9, D3Q15, D3Q19, D3Q27 and a few small
// ones). Other counts in AoS exit 4; SoA takes any count.
template <int... Cs>
struct IntList {};
using AosComponentCounts = IntList<2, 3, 4, 5, 8, 9, 15, 19, 27>;
constexpr const char* kAosComponentCountsText = "2, 3, 4, 5, 8, 9, 15, 19, 27";

using Domain = ghex::structured::regular::domain_descriptor<int, std::integral_constant<int, 3>>;
using HaloGen = ghex::structured::regular::halo_generator<int, std::integral_constant<int, 3>>;
using Arr3 = std::array<int, 3>;
using Arr4 = std::array<int, 4>;
// x slowest, z fastest (3-D); the 4-D maps add the component dimension as the last index.
using Layout3 = gridtools::layout_map<0, 1, 2>;
using LayoutAos4 = gridtools::layout_map<0, 1, 2, 3>;
using LayoutSoa4 = gridtools::layout_map<1, 2, 3, 0>;
template <class T, class Map>
using Field = ghex::structured::regular::field_descriptor<T, ghex::cpu, Domain, Map>;

enum class Layout { aos, soa };
enum class Mode { co, bulk };

struct Options {
  int L = 16;
  int ncomp = 1;
  Layout layout = Layout::aos;
  Mode mode = Mode::co;
  int iterations = 100;
  int warmup = 10;
  int samples = 5;
  bool runtime_components = false;  // reproduce the GHEX 0.9.0 component-extent bug
};

struct UsageError {
  std::string what;
};

int parse_int(std::string_view name, std::string_view text, int min) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw UsageError{std::string(name) + " needs an integer, got '" + std::string(text) + "'"};
  if (v < min)
    throw UsageError{std::string(name) + " must be at least " + std::to_string(min) + ", got " +
                     std::to_string(v)};
  return v;
}

constexpr const char* kUsage =
    "usage: ghex_halo [--L L] [--ncomp C] [--layout aos|soa] [--mode co|bulk] [--iterations|-i N]\n"
    "                 [--warmup|-x W] [--samples|-s S] [--runtime-components]";

// Picks one of `names` (exactly); returns its index.
int parse_choice(std::string_view name, std::string_view text,
                 std::initializer_list<std::string_view> names) {
  int i = 0;
  for (const auto n : names) {
    if (n == text) return i;
    ++i;
  }
  std::string list;
  for (const auto n : names) list += (list.empty() ? "" : " or ") + std::string(n);
  throw UsageError{std::string(name) + " must be " + list + ", got '" + std::string(text) + "'"};
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") throw UsageError{"help"};
    if (arg == "--runtime-components") {
      o.runtime_components = true;
      continue;
    }
    static constexpr std::string_view kTakesValue[] = {
        "--L", "--ncomp", "--layout", "--mode", "--iterations", "-i", "--warmup", "-x", "--samples", "-s"};
    if (std::find(std::begin(kTakesValue), std::end(kTakesValue), arg) == std::end(kTakesValue))
      throw UsageError{"unknown option '" + std::string(arg) + "'"};
    if (i + 1 >= argc) throw UsageError{std::string(arg) + " needs a value"};
    const std::string_view val = argv[++i];
    if (arg == "--L") o.L = parse_int(arg, val, 1);
    if (arg == "--ncomp") o.ncomp = parse_int(arg, val, 1);
    if (arg == "--iterations" || arg == "-i") o.iterations = parse_int(arg, val, 1);
    if (arg == "--warmup" || arg == "-x") o.warmup = parse_int(arg, val, 0);
    if (arg == "--samples" || arg == "-s") o.samples = parse_int(arg, val, 1);
    if (arg == "--layout") o.layout = parse_choice(arg, val, {"aos", "soa"}) == 0 ? Layout::aos : Layout::soa;
    if (arg == "--mode") o.mode = parse_choice(arg, val, {"co", "bulk"}) == 0 ? Mode::co : Mode::bulk;
  }
  return o;
}

// Where this rank's block sits in the global lattice.
struct Geometry {
  int rank = 0, size = 1;
  int L = 0, C = 1;
  Arr3 procs{0, 0, 0};  // process grid (MPI_Dims_create)
  Arr3 coords{};        // this rank's position in it
  Arr3 global{};        // global lattice extents NX, NY, NZ
  int nh() const { return L + 2; }
  long sites() const { return long(nh()) * nh() * nh(); }
  // Index of local site (x, y, z), each in [-1, L], in a C-ordered (x slowest) halo'd block.
  long site(int x, int y, int z) const { return (long(x + 1) * nh() + (y + 1)) * nh() + (z + 1); }
  Domain domain() const {
    Arr3 first, last;
    for (int d = 0; d < 3; ++d) first[d] = coords[d] * L, last[d] = first[d] + L - 1;
    return Domain{rank, first, last};
  }
  // The test value of global site g (wrapped periodically) and component c.
  double encode(Arr3 g, int c) const {
    for (int d = 0; d < 3; ++d) g[d] = (g[d] % global[d] + global[d]) % global[d];
    return double(((long(g[0]) * global[1] + g[1]) * global[2] + g[2]) * C + c);
  }
};

// How a rank's block is described to GHEX. Each Block owns the memory and has `fields` (one or more
// GHEX field descriptors of one type, exchanged together) and `at(x, y, z, c)`, the double of local
// site (x, y, z) (each in [-1, L]) and component c, for filling and checking.

// ncomp = 1: one 3-D field of doubles.
struct ScalarBlock {
  using field_type = Field<double, Layout3>;
  const Geometry& g;
  std::vector<double> data;
  std::vector<field_type> fields;
  ScalarBlock(const Geometry& g_, const Domain& dom) : g(g_), data(g_.sites()) {
    fields.push_back(
        ghex::wrap_field<ghex::cpu, Layout3>(dom, data.data(), Arr3{1, 1, 1}, Arr3{g.nh(), g.nh(), g.nh()}));
  }
  double& at(int x, int y, int z, int) { return data[g.site(x, y, z)]; }
};

// AoS with C components: one 3-D field whose value type holds the C doubles of a site.
template <int C>
struct Site {
  double v[C];
};
template <int C>
struct StructAosBlock {
  using field_type = Field<Site<C>, Layout3>;
  const Geometry& g;
  std::vector<Site<C>> data;
  std::vector<field_type> fields;
  StructAosBlock(const Geometry& g_, const Domain& dom) : g(g_), data(g_.sites()) {
    static_assert(sizeof(Site<C>) == C * sizeof(double));
    fields.push_back(
        ghex::wrap_field<ghex::cpu, Layout3>(dom, data.data(), Arr3{1, 1, 1}, Arr3{g.nh(), g.nh(), g.nh()}));
  }
  double& at(int x, int y, int z, int c) { return data[g.site(x, y, z)].v[c]; }
};

// SoA with C components: C 3-D fields of doubles, one per component plane.
struct SoaFieldsBlock {
  using field_type = Field<double, Layout3>;
  const Geometry& g;
  std::vector<double> data;
  std::vector<field_type> fields;
  SoaFieldsBlock(const Geometry& g_, const Domain& dom) : g(g_), data(g_.sites() * g_.C) {
    for (int c = 0; c < g.C; ++c)
      fields.push_back(ghex::wrap_field<ghex::cpu, Layout3>(dom, data.data() + c * g.sites(), Arr3{1, 1, 1},
                                                            Arr3{g.nh(), g.nh(), g.nh()}));
  }
  double& at(int x, int y, int z, int c) { return data[c * g.sites() + g.site(x, y, z)]; }
};

// --runtime-components: one 4-D field using GHEX's run-time component dimension (num_components).
template <class Layout4>
struct RuntimeComponentsBlock {
  static constexpr bool aos = std::is_same_v<Layout4, LayoutAos4>;
  using field_type = Field<double, Layout4>;
  const Geometry& g;
  std::vector<double> data;
  std::vector<field_type> fields;
  RuntimeComponentsBlock(const Geometry& g_, const Domain& dom) : g(g_), data(g_.sites() * g_.C) {
    // offsets and extents of the component dimension are set by GHEX itself (0 and C)
    fields.emplace_back(dom, data.data(), Arr4{1, 1, 1, 0}, Arr4{g.nh(), g.nh(), g.nh(), g.C}, unsigned(g.C),
                        false);
  }
  double& at(int x, int y, int z, int c) {
    return aos ? data[g.site(x, y, z) * g.C + c] : data[c * g.sites() + g.site(x, y, z)];
  }
};

// Filling, checking, exchanging and timing.

template <class Block>
void fill(Block& b, const Geometry& g) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int x = -1; x <= g.L; ++x)
    for (int y = -1; y <= g.L; ++y)
      for (int z = -1; z <= g.L; ++z) {
        const bool interior = x >= 0 && x < g.L && y >= 0 && y < g.L && z >= 0 && z < g.L;
        const Arr3 gc{g.coords[0] * g.L + x, g.coords[1] * g.L + y, g.coords[2] * g.L + z};
        for (int c = 0; c < g.C; ++c) b.at(x, y, z, c) = interior ? g.encode(gc, c) : nan;
      }
}

// Compares every cell of the block (the 26 halo directions and the interior) with the encoding of
// its wrapped global site. Returns an empty string or a description of the first bad cell.
template <class Block>
std::string check(Block& b, const Geometry& g) {
  for (int x = -1; x <= g.L; ++x)
    for (int y = -1; y <= g.L; ++y)
      for (int z = -1; z <= g.L; ++z) {
        const Arr3 gc{g.coords[0] * g.L + x, g.coords[1] * g.L + y, g.coords[2] * g.L + z};
        for (int c = 0; c < g.C; ++c) {
          const double v = b.at(x, y, z, c), want = g.encode(gc, c);
          if (v == want) continue;  // NaN never compares equal
          const auto dir = [&](int i) { return i < 0 ? -1 : (i >= g.L ? 1 : 0); };
          std::ostringstream s;
          s.precision(17);
          s << "rank " << g.rank << ": cell (" << x << "," << y << "," << z << ") component " << c
            << " (direction " << dir(x) << "," << dir(y) << "," << dir(z) << "; global site " << gc[0] << ","
            << gc[1] << "," << gc[2] << " wraps to ";
          for (int d = 0; d < 3; ++d)
            s << (gc[d] % g.global[d] + g.global[d]) % g.global[d] << (d < 2 ? "," : ")");
          s << " holds " << v << ", expected " << want;
          return s.str();
        }
      }
  return {};
}

struct Result {
  int exit_code = 0;
  std::vector<double> samples;
};

// Whether every rank's block passes `check`; the lowest failing rank reports.
template <class Block>
bool verified(Block& b, const Geometry& g) {
  const std::string bad = check(b, g);
  int first_bad = bad.empty() ? g.size : g.rank;
  MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_bad < g.size && first_bad == g.rank)
    std::fprintf(stderr, "ghex_halo: halo check FAILED: %s\n", bad.c_str());
  return first_bad == g.size;
}

// Exchanges once and checks, then times, then checks again: the halos are NaN again after the
// warm-up, before the timed exchanges, so the second check fails unless those exchanges filled them.
// `exchange` runs one complete (blocking) exchange.
template <class Block, class Exchange>
Result measure(Block& b, const Geometry& g, const Options& o, Exchange&& exchange) {
  Result r;
  fill(b, g);
  exchange();
  if (!verified(b, g)) return {kExitCheckFailed, {}};
  for (int w = 0; w < o.warmup; ++w) exchange();
  fill(b, g);
  for (int s = 0; s < o.samples; ++s) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < o.iterations; ++i) exchange();
    const double local = MPI_Wtime() - t0;
    double slowest = 0;
    MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    r.samples.push_back(slowest / o.iterations);
  }
  if (!verified(b, g)) return {kExitCheckFailed, {}};
  return r;
}

template <class Block, class Pattern>
Result run_block(ghex::context& ctx, const Pattern& pattern, const Geometry& g, const Options& o) {
  Block b(g, g.domain());
  using field_type = typename Block::field_type;
  if (o.mode == Mode::co) {
    // regular exchange: all fields of the block in one call (GHEX packs them into one message per
    // neighbour domain)
    auto co = ghex::make_communication_object<Pattern>(ctx);
    std::vector<decltype(pattern(b.fields[0]))> infos;
    for (auto& f : b.fields) infos.push_back(pattern(f));
    return measure(b, g, o, [&] { co.exchange(infos.begin(), infos.end()).wait(); });
  }
  // bulk exchange: fields registered once; same-rank halos are copied directly (RMA "thread" locality)
  ghex::bulk_communication_object<ghex::structured::rma_range_generator, Pattern, field_type> bco(ctx);
  for (auto& f : b.fields) bco.add_field(pattern(f));
  bco.init();
  return measure(b, g, o, [&] { bco.exchange().wait(); });
}

// Dispatches an AoS component count to its compile-time struct type.
template <class Pattern, int... Cs>
bool run_struct_aos(IntList<Cs...>, ghex::context& ctx, const Pattern& p, const Geometry& g, const Options& o,
                    Result& r) {
  return ((g.C == Cs ? (r = run_block<StructAosBlock<Cs>>(ctx, p, g, o), true) : false) || ...);
}

template <class Pattern>
Result run(ghex::context& ctx, const Pattern& p, const Geometry& g, const Options& o) {
  if (o.runtime_components) {
    if (o.layout == Layout::aos) return run_block<RuntimeComponentsBlock<LayoutAos4>>(ctx, p, g, o);
    return run_block<RuntimeComponentsBlock<LayoutSoa4>>(ctx, p, g, o);
  }
  if (g.C == 1) return run_block<ScalarBlock>(ctx, p, g, o);
  if (o.layout == Layout::soa) return run_block<SoaFieldsBlock>(ctx, p, g, o);
  Result r;
  if (run_struct_aos(AosComponentCounts{}, ctx, p, g, o, r)) return r;
  if (g.rank == 0)
    std::fprintf(stderr,
                 "ghex_halo: cannot run AoS with --ncomp %d: AoS needs a compile-time site type and this "
                 "build has ncomp = 1, %s (add the count to AosComponentCounts in ghex_halo.cpp); GHEX's "
                 "run-time component dimension gives wrong AoS halos in 0.9.0 (--runtime-components)\n",
                 g.C, kAosComponentCountsText);
  r.exit_code = kExitCannotRun;
  return r;
}

void print_json(const Geometry& g, const Options& o, const std::vector<double>& samples) {
  std::printf(
      "{\"peer\":\"ghex\",\"peer_version\":\"0.9.0\",\"mode\":\"%s\",\"L\":%d,\"ncomp\":%d,\"layout\":\"%s\","
      "\"ranks\":%d,\"procs\":[%d,%d,%d],\"iterations\":%d,\"warmup\":%d,\"checked\":true,"
      "\"time_per_call_s\":[",
      o.mode == Mode::co ? "co" : "bulk", g.L, g.C, o.layout == Layout::aos ? "aos" : "soa", g.size,
      g.procs[0], g.procs[1], g.procs[2], o.iterations, o.warmup);
  for (std::size_t i = 0; i < samples.size(); ++i) std::printf("%s%.6e", i ? "," : "", samples[i]);
  std::printf("]}\n");
  std::fflush(stdout);
}

int run_main(int argc, char** argv, int rank, int size) {
  Options o;
  try {
    o = parse_options(argc, argv);
  } catch (const UsageError& e) {
    if (rank == 0) {
      if (e.what == "help")
        std::printf("%s\n", kUsage);
      else
        std::fprintf(stderr, "ghex_halo: %s\n%s\n", e.what.c_str(), kUsage);
    }
    return e.what == "help" ? 0 : kExitBadOptions;
  }

  Geometry g;
  g.rank = rank, g.size = size, g.L = o.L, g.C = o.ncomp;
  MPI_Dims_create(size, 3, g.procs.data());
  g.coords = {rank / (g.procs[1] * g.procs[2]), (rank / g.procs[2]) % g.procs[1], rank % g.procs[2]};
  for (int d = 0; d < 3; ++d) g.global[d] = g.procs[d] * g.L;
  if (double(g.global[0]) * g.global[1] * g.global[2] * g.C >= 9007199254740992.0) {
    if (rank == 0) std::fprintf(stderr, "ghex_halo: cannot run: the test encoding exceeds 2^53\n");
    return kExitCannotRun;
  }

  try {
    ghex::context ctx(MPI_COMM_WORLD, false);  // one thread per rank
    const Arr3 gfirst{0, 0, 0}, glast{g.global[0] - 1, g.global[1] - 1, g.global[2] - 1};
    const std::array<int, 6> halos{1, 1, 1, 1, 1, 1};
    const std::array<bool, 3> periodic{true, true, true};
    HaloGen gen(gfirst, glast, halos, periodic);
    const std::vector<Domain> domains{g.domain()};
    const auto pattern = ghex::make_pattern<ghex::structured::grid>(ctx, gen, domains);
    const Result r = run(ctx, pattern, g, o);
    if (r.exit_code == 0 && rank == 0) print_json(g, o, r.samples);
    return r.exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ghex_halo: rank %d: cannot run, GHEX threw: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitCannotRun);
    return kExitCannotRun;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int code = run_main(argc, argv, rank, size);
  MPI_Finalize();
  return code;
}
