// Decomposition, plan structure and input errors, checked against
// expectations computed here from first principles.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>

#include "halo_check.hpp"
#include "haloex/bench/halo_bench.hpp"
#include "haloex/halo/strategy.hpp"
#include "world.hpp"

namespace haloex::test {
namespace {

class Decomp : public ::testing::TestWithParam<std::tuple<int, bool>> {};

// The subdomains of all ranks tile the global lattice exactly once, sizes
// differ by at most one along each dimension, and the larger blocks come first.
TEST_P(Decomp, SubdomainsTileTheLatticeOnce) {
  const auto [ndim, mixed] = GetParam();
  DecompositionSpec spec;
  spec.ndim = ndim;
  spec.global = ndim == 3 ? std::array<long, 3>{11, 9, 7} : std::array<long, 3>{13, 10, 1};
  spec.periodic = {!mixed, true, !mixed};
  Decomposition dec(MPI_COMM_WORLD, spec);
  const long total = spec.global[0] * spec.global[1] * spec.global[2];
  std::vector<int> owner(static_cast<size_t>(total), 0);
  for (long i = 0; i < dec.local_size(0); ++i)
    for (long j = 0; j < dec.local_size(1); ++j)
      for (long k = 0; k < dec.local_size(2); ++k) {
        const long g =
            ((dec.offset(0) + i) * spec.global[1] + dec.offset(1) + j) * spec.global[2] + dec.offset(2) + k;
        owner[static_cast<size_t>(g)] += 1;
      }
  std::vector<int> sum(owner.size());
  MPI_Allreduce(owner.data(), sum.data(), static_cast<int>(owner.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_TRUE(std::all_of(sum.begin(), sum.end(), [](int c) { return c == 1; }));

  int product = 1;
  for (int d = 0; d < ndim; ++d) {
    product *= dec.procs(d);
    const long small = spec.global[d] / dec.procs(d);
    const long extra = spec.global[d] % dec.procs(d);
    EXPECT_EQ(dec.local_size(d), small + (dec.coord(d) < extra ? 1 : 0));
  }
  EXPECT_EQ(product, world_size());
  for (int d = ndim; d < 3; ++d) EXPECT_EQ(dec.local_size(d), 1);
}

// Each neighbour rank sits at our coordinates plus the offset, wrapped where
// periodic, and is MPI_PROC_NULL across a non-periodic edge.
TEST_P(Decomp, NeighboursSitAtTheirOffsets) {
  const auto [ndim, mixed] = GetParam();
  DecompositionSpec spec;
  spec.ndim = ndim;
  spec.global = {16, 16, ndim == 3 ? 16 : 1};
  spec.periodic = {!mixed, true, !mixed};
  Decomposition dec(MPI_COMM_WORLD, spec);
  EXPECT_EQ(dec.offsets().size(), ndim == 3 ? 26u : 8u);
  long bad = 0;
  for (const Offset& o : dec.offsets()) {
    bool exists = true;
    std::array<int, 3> want{};
    for (int d = 0; d < ndim; ++d) {
      int c = dec.coord(d) + o[d];
      if (c < 0 || c >= dec.procs(d)) {
        if (!spec.periodic[d]) exists = false;
        c = (c + dec.procs(d)) % dec.procs(d);
      }
      want[d] = c;
    }
    const int nb = dec.neighbour(o);
    if (!exists) {
      bad += nb != MPI_PROC_NULL;
      continue;
    }
    std::array<int, 3> got{};
    MPI_Cart_coords(dec.comm(), nb, ndim, got.data());
    for (int d = 0; d < ndim; ++d) bad += got[d] != want[d];
    bad += dec.neighbour(offset_name(o)) != nb;  // readable names address the same rank
  }
  EXPECT_EQ(global_sum(bad, MPI_COMM_WORLD), 0);
}

INSTANTIATE_TEST_SUITE_P(Grids, Decomp,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Values(false, true)));

TEST(Offsets, NamesAndCodes) {
  EXPECT_EQ(offset_name({1, 0, 0}), "x+");
  EXPECT_EQ(offset_name({-1, 1, 0}), "x-y+");
  EXPECT_EQ(offset_name({1, -1, 1}), "x+y-z+");
  EXPECT_EQ(offset_from_name("x-y+z-"), (Offset{-1, 1, -1}));
  EXPECT_EQ(offset_from_name("y+"), (Offset{0, 1, 0}));
  EXPECT_THROW(offset_from_name("y+x-"), InputError);
  EXPECT_THROW(offset_from_name("q+"), InputError);
  EXPECT_EQ(offset_code({0, -1, 1}, 3), "MNP");  // the 2016 paper's example
  const auto all = neighbour_offsets(3);
  EXPECT_EQ(all.size(), 26u);
  EXPECT_EQ(offset_code(all.front(), 3), "NNN");
  EXPECT_EQ(offset_code(all.back(), 3), "PPP");
  for (const Offset& o : all) EXPECT_EQ(offset_from_name(offset_name(o)), o);
}

TEST(Errors, ProcessGridMustMatchRanks) {
  DecompositionSpec spec;
  spec.global = {16, 16, 16};
  spec.procs = {world_size() + 1, 1, 1};
  try {
    Decomposition dec(MPI_COMM_WORLD, spec);
    FAIL() << "accepted a grid of the wrong size";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ranks but the run has"), std::string::npos) << e.what();
  }
}

TEST(Errors, MoreRanksThanSites) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  DecompositionSpec spec;
  spec.global = {1, 16, 16};
  spec.procs = {world_size(), 1, 1};
  try {
    Decomposition dec(MPI_COMM_WORLD, spec);
    FAIL() << "accepted more ranks than sites";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("only 1 sites"), std::string::npos) << e.what();
  }
}

TEST(Errors, HaloWiderThanSubdomain) {
  DecompositionSpec spec;
  spec.global = {3L * world_size(), 8, 8};
  spec.procs = {world_size(), 1, 1};
  Decomposition dec(MPI_COMM_WORLD, spec);
  EXPECT_NO_THROW(Field<double>(dec, 1, 3));
  try {
    Field<double> f(dec, 1, 4);
    FAIL() << "accepted a halo wider than the subdomain";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("thinnest subdomain has only 3 sites along x"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Field<double>(dec, 1, 0), InputError);
  EXPECT_THROW(Field<double>(dec, 0, 1), InputError);
  DecompositionSpec four_d;
  four_d.ndim = 4;
  EXPECT_THROW(Decomposition(MPI_COMM_WORLD, four_d), InputError);
}

TEST(Errors, UnknownStrategyListsTheValidOnes) {
  DecompositionSpec spec;
  spec.global = {8, 8, 8};
  Decomposition dec(MPI_COMM_WORLD, spec);
  Field<double> f(dec, 1, 1);
  Plan plan(dec, {FieldSpec::of(f)});
  try {
    make_strategy("fastest", plan);
    FAIL() << "accepted an unknown strategy";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const std::string& n : strategy_names()) EXPECT_NE(msg.find(n), std::string::npos) << msg;
  }
  EXPECT_EQ(strategy_names().size(), 16u);
}

TEST(Errors, BeginEndMisuse) {
  DecompositionSpec spec;
  spec.global = {8, 8, 8};
  Decomposition dec(MPI_COMM_WORLD, spec);
  Field<double> f(dec, 2, 1);
  Plan plan(dec, {FieldSpec::of(f)});
  auto s = make_strategy("direct", plan);
  FieldView v = f.view();
  EXPECT_THROW(s->end(), Error);
  s->begin({&v, 1});
  EXPECT_THROW(s->begin({&v, 1}), Error);
  s->end();
  Field<double> other(dec, 3, 1);  // a field the plan was not built for
  FieldView w = other.view();
  EXPECT_THROW(s->begin({&w, 1}), Error);
}

// --- Plan structure against the 2016 paper's counts -------------------------

TEST(PlanShape, FullCubicHaloBytesMatchTheFormula) {
  // L^3 per rank, halo 1, 19 doubles: (6L^2 + 12L + 8) * 19 * 8 bytes arrive.
  const long L = 12;
  DecompositionSpec spec;
  std::array<int, 3> p{0, 0, 0};
  MPI_Dims_create(world_size(), 3, p.data());
  spec.global = {L * p[0], L * p[1], L * p[2]};
  Decomposition dec(MPI_COMM_WORLD, spec);
  Field<double> f(dec, 19, 1);
  Plan plan(dec, {FieldSpec::of(f)});
  EXPECT_EQ(static_cast<double>(plan.halo_bytes()), cubic_halo_bytes(L, 19, 8));
  EXPECT_EQ(cubic_halo_bytes(L, 19, 8), (6.0 * 144 + 144 + 8) * 152);
  // The staged pattern moves the same bytes in 2 messages per dimension.
  size_t staged = 0;
  for (const Stage& st : plan.staged())
    for (const Link& l : st.links) staged += l.recv.bytes;
  EXPECT_EQ(staged, plan.halo_bytes());
}

TEST(PlanShape, ReducedD3Q19Needs18MessagesOf5PerFace) {
  if (world_size() != 8) GTEST_SKIP() << "needs a 2x2x2 grid (8 ranks)";
  const long L = 6;
  DecompositionSpec spec;
  spec.global = {2 * L, 2 * L, 2 * L};
  Decomposition dec(MPI_COMM_WORLD, spec);
  std::vector<Offset> vel{{0, 0, 0}};
  for (const Offset& o : neighbour_offsets(3))
    if (std::abs(o[0]) + std::abs(o[1]) + std::abs(o[2]) <= 2) vel.push_back(o);
  ASSERT_EQ(vel.size(), 19u);
  Field<double> f(dec, 19, 1);
  Plan full(dec, {FieldSpec::of(f)});
  Plan reduced(dec, {FieldSpec::of(f, crossing_components(vel))});
  EXPECT_EQ(full.direct_messages(), 26);
  EXPECT_EQ(reduced.direct_messages(), 18);
  // 6 faces x 5 populations x L^2 + 12 edges x 1 x L, 8 bytes each.
  EXPECT_EQ(reduced.halo_bytes(), static_cast<size_t>((6 * 5 * L * L + 12 * L) * 8));
  for (const Link& l : reduced.direct().links) {
    const int nonzero = (l.offset[0] != 0) + (l.offset[1] != 0) + (l.offset[2] != 0);
    ASSERT_EQ(l.recv.parts.size(), 1u);
    EXPECT_EQ(l.recv.parts[0].comps.size(), nonzero == 1 ? 5u : 1u) << offset_name(l.offset);
  }
}

}  // namespace
}  // namespace haloex::test
