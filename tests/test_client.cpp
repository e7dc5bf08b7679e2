// The library for code it did not write: a client's own split of the lattice
// (per-dimension extents, or each rank's own box in the client's rank
// order), a halo allocated deeper than the width exchanged, 2-D lattices
// kept in 3-D arrays, and element types beyond double and float. Every
// strategy against the global-index expectation (halo_check.hpp), with the
// client's split computed here independently of the library's.
#include <gtest/gtest.h>

#include <climits>
#include <complex>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "halo_check.hpp"
#include "haloex/halo/strategy.hpp"
#include "world.hpp"

namespace haloex::test {
namespace {

// The process grid as MPI_Dims_create makes it, straight from MPI.
std::array<int, 3> dims_of(int ndim) {
  std::array<int, 3> p{0, 0, 0};
  MPI_Dims_create(world_size(), ndim, p.data());
  for (int d = ndim; d < 3; ++d) p[static_cast<size_t>(d)] = 1;
  return p;
}

// A client's split: the remainder on the highest coordinates (haloex puts it
// on the lowest), so every uneven lattice is split differently.
long client_extent(long n, int p, int c) { return n / p + (c >= p - n % p ? 1 : 0); }
long client_first(long n, int p, int c) {
  long f = 0;
  for (int k = 0; k < c; ++k) f += client_extent(n, p, k);
  return f;
}

// A client's rank order: x fastest (Fortran order), not MPI's row-major.
std::array<int, 3> client_coords(int rank, const std::array<int, 3>& p) {
  return {rank % p[0], (rank / p[0]) % p[1], rank / (p[0] * p[1])};
}
int client_rank(const std::array<int, 3>& c, const std::array<int, 3>& p) {
  return c[0] + p[0] * (c[1] + p[1] * c[2]);
}

// A field of any element type with its initialisation and its check.
struct Checked {
  FieldView view;
  std::function<void()> init;
  std::function<long()> wrong;
};

template <class T>
Checked checked(Field<T>& f, const Decomposition& dec, const std::string& label) {
  return Checked{f.view(), [&f, &dec] { initialise(f, dec); },
                 [&f, &dec, label] { return count_wrong(f, dec, {}, label.c_str()); }};
}

// Exchanges the fields with `strategy` twice (begin/end, then exchange());
// the global number of wrong elements, or 0 when red-black cannot colour
// this grid.
long exchange_all(const std::string& strategy, const Decomposition& dec, const std::vector<Checked>& fields) {
  std::vector<FieldSpec> specs;
  std::vector<FieldView> views;
  for (const Checked& c : fields) {
    specs.push_back(FieldSpec{c.view.shape, {}, c.view.node ? FieldMemory::node : FieldMemory::heap});
    views.push_back(c.view);
  }
  Plan plan(dec, specs);
  std::unique_ptr<Strategy> s;
  try {
    s = make_strategy(strategy, plan);
  } catch (const InputError&) {
    if (strategy == "red-black") return 0;
    throw;
  }
  long wrong = 0;
  for (int round = 0; round < 2; ++round) {
    for (const Checked& c : fields) c.init();
    if (round == 0) {
      s->begin(views);
      s->end();
    } else {
      s->exchange(views);
    }
    for (const Checked& c : fields) wrong += c.wrong();
  }
  return global_sum(wrong, MPI_COMM_WORLD);
}

// Per-dimension extents split the client's way.
DecompositionSpec ranges_spec(int ndim, bool mixed) {
  DecompositionSpec s = spec_of(ndim, mixed);
  const std::array<int, 3> p = dims_of(ndim);
  for (int d = 0; d < ndim; ++d) {
    s.procs[static_cast<size_t>(d)] = p[static_cast<size_t>(d)];
    for (int c = 0; c < p[static_cast<size_t>(d)]; ++c)
      s.extents[static_cast<size_t>(d)].push_back(
          client_extent(s.global[static_cast<size_t>(d)], p[static_cast<size_t>(d)], c));
  }
  return s;
}

// This rank's box in the client's split and rank order.
OwnedBoxSpec owned_spec(int ndim, bool mixed) {
  const DecompositionSpec g = spec_of(ndim, mixed);
  const std::array<int, 3> p = dims_of(ndim);
  const std::array<int, 3> c = client_coords(world_rank(), p);
  OwnedBoxSpec s;
  s.ndim = ndim;
  s.global = g.global;
  s.periodic = g.periodic;
  for (size_t d = 0; d < static_cast<size_t>(ndim); ++d) {
    s.first[d] = client_first(g.global[d], p[d], c[d]);
    s.extent[d] = client_extent(g.global[d], p[d], c[d]);
  }
  return s;
}

using SplitParam = std::tuple<std::string, int, bool>;
class ClientSplit : public ::testing::TestWithParam<SplitParam> {};

TEST_P(ClientSplit, ExtentsPerDimensionAreTakenAsGiven) {
  const auto& [strategy, ndim, mixed] = GetParam();
  const DecompositionSpec spec = ranges_spec(ndim, mixed);
  Decomposition dec(MPI_COMM_WORLD, spec);
  EXPECT_EQ(dec.rank(), world_rank());  // no reordering
  for (int d = 0; d < ndim; ++d) {
    const long n = spec.global[static_cast<size_t>(d)];
    EXPECT_EQ(dec.local_size(d), client_extent(n, dec.procs(d), dec.coord(d)));
    EXPECT_EQ(dec.offset(d), client_first(n, dec.procs(d), dec.coord(d)));
  }
  Field<double> f(dec, 3, 1, Layout::aos);
  Field<float> g(dec, 2, 2, Layout::soa);
  EXPECT_EQ(exchange_all(strategy, dec, {checked(f, dec, strategy), checked(g, dec, strategy)}), 0);
}

TEST_P(ClientSplit, OwnedBoxesKeepTheClientsRankOrder) {
  const auto& [strategy, ndim, mixed] = GetParam();
  const OwnedBoxSpec spec = owned_spec(ndim, mixed);
  Decomposition dec(MPI_COMM_WORLD, spec);
  const std::array<int, 3> p = dims_of(ndim);
  const std::array<int, 3> c = client_coords(world_rank(), p);
  EXPECT_EQ(dec.rank(), world_rank());
  for (int d = 0; d < ndim; ++d) {
    EXPECT_EQ(dec.procs(d), p[static_cast<size_t>(d)]);
    EXPECT_EQ(dec.coord(d), c[static_cast<size_t>(d)]);
    EXPECT_EQ(dec.offset(d), spec.first[static_cast<size_t>(d)]);
    EXPECT_EQ(dec.local_size(d), spec.extent[static_cast<size_t>(d)]);
  }
  // The x+ neighbour is whoever the client put next along x.
  std::array<int, 3> next = c;
  next[0] = (c[0] + 1) % p[0];
  const bool wall = mixed && c[0] + 1 == p[0];
  EXPECT_EQ(dec.neighbour("x+"), wall ? MPI_PROC_NULL : client_rank(next, p));
  Field<double> f(dec, 19, 1, Layout::soa);
  Field<double> g(dec, 2, 2, Layout::aos);
  EXPECT_EQ(exchange_all(strategy, dec, {checked(f, dec, strategy), checked(g, dec, strategy)}), 0);
}

TEST_P(ClientSplit, ExchangedWidthBelowTheAllocatedHalo) {
  const auto& [strategy, ndim, mixed] = GetParam();
  Decomposition dec(MPI_COMM_WORLD, owned_spec(ndim, mixed));
  HaloWidths one = HaloWidths::uniform(ndim, 3), mixed_widths = HaloWidths::uniform(ndim, 2);
  for (int d = 0; d < ndim; ++d) one.exchanged[static_cast<size_t>(d)] = 1;
  mixed_widths.exchanged[0] = 1;  // x one plane, the others two
  Field<double> f(dec, 5, one, Layout::aos);
  Field<double> g(dec, 4, one, Layout::soa);
  Field<float> h(dec, 3, mixed_widths, Layout::aos);
  EXPECT_EQ(exchange_all(strategy, dec,
                         {checked(f, dec, strategy), checked(g, dec, strategy), checked(h, dec, strategy)}),
            0);
}

TEST_P(ClientSplit, ElementTypesOfOneFourEightAndSixteenBytes) {
  const auto& [strategy, ndim, mixed] = GetParam();
  Decomposition dec(MPI_COMM_WORLD, ranges_spec(ndim, mixed));
  Field<std::uint8_t> b(dec, 3, 1, Layout::aos);
  Field<std::int32_t> i(dec, 2, 1, Layout::soa);
  Field<std::int64_t> l(dec, 1, 2, Layout::aos);
  Field<std::complex<float>> cf(dec, 2, 1, Layout::aos);
  Field<std::complex<double>> cd(dec, 3, 1, Layout::soa);
  Field<double> d(dec, 1, 1, Layout::aos);
  EXPECT_EQ(exchange_all(strategy, dec,
                         {checked(b, dec, strategy), checked(i, dec, strategy), checked(l, dec, strategy),
                          checked(cf, dec, strategy), checked(cd, dec, strategy), checked(d, dec, strategy)}),
            0);
}

INSTANTIATE_TEST_SUITE_P(AllStrategies, ClientSplit,
                         ::testing::Combine(::testing::ValuesIn(strategy_names()), ::testing::Values(2, 3),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           std::string n = std::get<0>(info.param) + "_" +
                                           std::to_string(std::get<1>(info.param)) + "d" +
                                           (std::get<2>(info.param) ? "_wall" : "_periodic");
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// A lattice one site thick along z (a 2-D system in a 3-D code), periodic
// there with one rank: a halo two planes deep holds the one plane twice, and
// along x and y, where subdomains are thicker, the usual images.
TEST_P(ClientSplit, HaloWiderThanAPeriodicDimensionWithOneRank) {
  const auto& [strategy, ndim, mixed] = GetParam();
  if (ndim != 3) GTEST_SKIP() << "3-D only";
  DecompositionSpec spec;
  spec.ndim = 3;
  std::array<int, 3> p{0, 0, 1};
  MPI_Dims_create(world_size(), 2, p.data());
  spec.global =
      world_size() > 8 ? std::array<long, 3>{3L * p[0] - 1, 3L * p[1] - 1, 1} : std::array<long, 3>{11, 9, 1};
  spec.procs = p;
  spec.periodic = {!mixed, true, true};
  Decomposition dec(MPI_COMM_WORLD, spec);
  Field<double> f(dec, 3, HaloWidths::uniform(3, 2), Layout::aos);
  HaloWidths deep = HaloWidths::uniform(3, 2);
  deep.alloc[2] = deep.exchanged[2] = 3;  // three images of the one plane
  Field<float> g(dec, 2, deep, Layout::soa);
  EXPECT_EQ(exchange_all(strategy, dec, {checked(f, dec, strategy), checked(g, dec, strategy)}), 0);
  EXPECT_THROW(Field<double>(dec, 1, 2), InputError);  // without widths: the old rule, the halo must fit
}

// A test's name from its strategy's (gtest allows no '-').
std::string by_strategy(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

class PlanesOfA2dLattice : public ::testing::TestWithParam<std::string> {};

// A 2-D lattice in the 3-D arrays of a 3-D code: the planes above and below
// keep their sentinels, the lattice's plane gets its halo.
TEST_P(PlanesOfA2dLattice, OnlyTheLatticesPlaneIsExchanged) {
  Decomposition dec(MPI_COMM_WORLD, owned_spec(2, false));
  HaloWidths w = HaloWidths::uniform(2, 2);
  w.alloc[2] = 2;
  Field<double> f(dec, 9, w, Layout::aos);
  Field<double> g(dec, 9, w, Layout::soa);
  EXPECT_EQ(f.shape().alloc[2], 5);
  EXPECT_EQ(exchange_all(GetParam(), dec, {checked(f, dec, GetParam()), checked(g, dec, GetParam())}), 0);
}

INSTANTIATE_TEST_SUITE_P(AllStrategies, PlanesOfA2dLattice, ::testing::ValuesIn(strategy_names()),
                         by_strategy);

class SitesPastTheBox : public ::testing::TestWithParam<std::string> {};

// Sites allocated past the box (a client's own buffers, as Ludwig's
// Lees-Edwards planes), a different number on each rank, in SoA (each
// component's block longer) and AoS, on the heap and in node memory (where
// shm reads a neighbour's field in place and must use its count): the halo
// is right and the extra sites keep their sentinel.
TEST_P(SitesPastTheBox, HaloRightAndExtraSitesUntouched) {
  Decomposition dec(MPI_COMM_WORLD, ranges_spec(3, false));
  const long extra = 3 + 7 * (world_rank() % 3);
  EXPECT_THROW((void)FieldShape::make(dec, ElementType::f64, 1, 1, Layout::soa).with_extra_sites(-1),
               InputError);
  EXPECT_THROW(
      (void)FieldShape::make(dec, ElementType::f64, 19, 1, Layout::soa).with_extra_sites(LONG_MAX / 8),
      InputError);  // more elements than a long counts
  for (FieldMemory memory : {FieldMemory::heap, FieldMemory::node}) {
    Field<double> soa(dec, FieldShape::make(dec, ElementType::f64, 5, 1, Layout::soa).with_extra_sites(extra),
                      memory);
    Field<float> aos(dec, FieldShape::make(dec, ElementType::f32, 3, 2, Layout::aos).with_extra_sites(extra),
                     memory);
    ASSERT_EQ(soa.shape().comp_stride, soa.shape().nsites + extra);
    ASSERT_EQ(static_cast<long>(aos.size()), (aos.shape().nsites + extra) * 3);
    const auto untouched = [&](auto& f) {
      const FieldShape& sh = f.shape();
      long changed = 0;
      for (long site = sh.nsites; site < sh.nsites + extra; ++site)
        for (int c = 0; c < sh.ncomp; ++c)
          changed += f.data()[site * sh.site_stride + c * sh.comp_stride] != -7;
      return changed;
    };
    const auto fill = [&](auto& f) {
      const FieldShape& sh = f.shape();
      for (long site = sh.nsites; site < sh.nsites + extra; ++site)
        for (int c = 0; c < sh.ncomp; ++c) f.data()[site * sh.site_stride + c * sh.comp_stride] = -7;
    };
    fill(soa);
    fill(aos);
    EXPECT_EQ(exchange_all(GetParam(), dec, {checked(soa, dec, GetParam()), checked(aos, dec, GetParam())}),
              0)
        << to_string(memory) << " memory";
    EXPECT_EQ(global_sum(untouched(soa) + untouched(aos), MPI_COMM_WORLD), 0)
        << to_string(memory) << " memory";
  }
}

INSTANTIATE_TEST_SUITE_P(AllStrategies, SitesPastTheBox, ::testing::ValuesIn(strategy_names()), by_strategy);

// Each bad description throws the same InputError on every rank (a check
// that passed on some ranks would leave them waiting in MPI).
template <class Make>
void refused_everywhere(Make&& make, const std::string& words) {
  int mine = 0;
  try {
    make();
  } catch (const InputError& e) {
    mine = std::string(e.what()).find(words) != std::string::npos ? 1 : 2;
    if (mine == 2) ADD_FAILURE() << "message '" << e.what() << "' lacks '" << words << "'";
  }
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(all, 1) << "not refused on every rank: " << words;
}

TEST(ClientSplitRefused, GapsOverlapsAndOtherLatticesAreNamed) {
  OwnedBoxSpec gap = owned_spec(3, false);
  if (gap.first[0] + gap.extent[0] == gap.global[0] && gap.extent[0] > 1) gap.extent[0] -= 1;
  refused_everywhere([&] { Decomposition d(MPI_COMM_WORLD, gap); }, "no rank owns x sites");
  OwnedBoxSpec outside = owned_spec(3, false);
  if (world_rank() == 0) outside.extent[1] = outside.global[1] + 1;
  refused_everywhere([&] { Decomposition d(MPI_COMM_WORLD, outside); }, "reaches outside");
  if (world_size() > 1) {
    OwnedBoxSpec whole = owned_spec(3, false);
    whole.first = {0, 0, 0};
    whole.extent = whole.global;
    refused_everywhere([&] { Decomposition d(MPI_COMM_WORLD, whole); }, "own the same box");
    OwnedBoxSpec other = owned_spec(3, false);
    if (world_rank() == 1) other.global[2] += 1;
    refused_everywhere([&] { Decomposition d(MPI_COMM_WORLD, other); }, "another lattice");
  }
  DecompositionSpec sum = ranges_spec(3, false);
  sum.extents[0].back() += 1;
  refused_everywhere([&] { Decomposition d(MPI_COMM_WORLD, sum); }, "add up to");
}

TEST(ClientSplitRefused, WidthsThatDoNotFit) {
  Decomposition dec(MPI_COMM_WORLD, owned_spec(3, false));
  HaloWidths w = HaloWidths::uniform(3, 1);
  w.exchanged[1] = 2;  // more than allocated
  EXPECT_THROW(Field<double>(dec, 1, w), InputError);
  // Thicker than a subdomain along x, a wall (periodic with one rank, it would fit).
  Decomposition walls(MPI_COMM_WORLD, owned_spec(3, true));
  HaloWidths deep = HaloWidths::uniform(3, 1);
  deep.exchanged[0] = deep.alloc[0] = walls.min_local_size(0) + 1;
  refused_everywhere([&] { Field<double> f(walls, 1, deep); }, "thinnest subdomain");
  HaloWidths planes = HaloWidths::uniform(3, 1);
  planes.alloc[2] = 2;
  planes.exchanged[2] = 0;  // fine in 3-D: a deeper allocation along z
  EXPECT_NO_THROW(Field<double>(dec, 1, planes));
  Decomposition flat(MPI_COMM_WORLD, owned_spec(2, false));
  HaloWidths zx = HaloWidths::uniform(2, 1);
  zx.alloc[2] = zx.exchanged[2] = 1;
  EXPECT_THROW(Field<double>(flat, 1, zx), InputError);
}

}  // namespace
}  // namespace haloex::test
