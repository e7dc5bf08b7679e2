// Counts above MPI's int limit: the datatypes that describe them, messages
// that carry them, and every halo strategy and the MPI-IO and .npy writers
// with the limit forced down to a few bytes, so that the path a 2 GiB
// message takes runs on small data (Open MPI 4.1 is MPI-3.1: the derived
// types; an MPI-4 library: the _c calls).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "halo_check.hpp"
#include "haloex/core/large_count.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/io/field_io.hpp"
#include "haloex/io/npy.hpp"
#include "world.hpp"

namespace haloex::test {
namespace {

// Byte i of a message: depends on every byte of i, so a chunk or remainder
// delivered at the wrong place shows.
std::byte pattern(size_t i, int salt) {
  return static_cast<std::byte>((i ^ (i >> 8) ^ (i >> 16) ^ (i >> 24)) * 31 + static_cast<size_t>(salt));
}

std::vector<std::byte> message(size_t n, int salt) {
  std::vector<std::byte> m(n);
  for (size_t i = 0; i < n; ++i) m[i] = pattern(i, salt);
  return m;
}

const size_t limits[] = {2, 3, 7, 8, 64, 1000, mpi_int_count_max};
const size_t sizes[] = {1,  2,  3,  6,  7,  8,   9,   15,   16,   17,    48,
                        49, 50, 63, 64, 65, 100, 511, 4096, 4099, 100003};

TEST(LargeCountType, SizeAndExtentAreExactlyNElements) {
  for (MPI_Datatype elem : {MPI_BYTE, MPI_DOUBLE, MPI_FLOAT}) {
    int esize = 0;
    MPI_Type_size(elem, &esize);
    for (size_t limit : limits)
      for (size_t n : sizes) {
        SCOPED_TRACE("n " + std::to_string(n) + " limit " + std::to_string(limit) + " element size " +
                     std::to_string(esize));
        const Datatype t = large_contiguous_type(n, elem, limit);
        MPI_Count size = 0, lb = -1, extent = 0, true_lb = -1, true_extent = 0;
        MPI_Type_size_x(t.get(), &size);
        MPI_Type_get_extent_x(t.get(), &lb, &extent);
        MPI_Type_get_true_extent_x(t.get(), &true_lb, &true_extent);
        const auto want = static_cast<MPI_Count>(n) * esize;
        EXPECT_EQ(size, want);
        EXPECT_EQ(lb, 0);
        EXPECT_EQ(extent, want);
        EXPECT_EQ(true_lb, 0);
        EXPECT_EQ(true_extent, want);
        const LargeCount c(n, elem, limit);
        EXPECT_EQ(c.large(), n > limit);
        EXPECT_EQ(c.elements(), n);
        EXPECT_LE(static_cast<size_t>(c.count()), limit);
        MPI_Type_size_x(c.type(), &size);
        EXPECT_EQ(size * c.count(), want);
      }
  }
}

// The sizes real 2 GiB messages and files have, with no memory behind them.
TEST(LargeCountType, BeyondTwoGiBWithTheDefaultLimit) {
  for (size_t n : {size_t{2147483647}, size_t{2147483648}, size_t{2200000000}, size_t{3} * 2147483647 + 5,
                   size_t{1} << 40}) {
    const LargeCount c(n);
    EXPECT_EQ(c.large(), n > mpi_int_count_max) << n;
    MPI_Count size = 0, extent = 0, lb = 0;
    MPI_Type_size_x(c.type(), &size);
    MPI_Type_get_extent_x(c.type(), &lb, &extent);
    EXPECT_EQ(static_cast<size_t>(size) * static_cast<size_t>(c.count()), n);
    if (c.large()) EXPECT_EQ(static_cast<size_t>(extent), n);
  }
  const LargeCount d(size_t{300000000}, MPI_DOUBLE);  // 2.4 GB of doubles fit an int count
  EXPECT_FALSE(d.large());
}

TEST(LargeCountType, RefusesLimitsAnIntCallCannotTake) {
  EXPECT_THROW(LargeCount(10, MPI_BYTE, 0), Error);
  EXPECT_THROW(LargeCount(10, MPI_BYTE, 1), Error);
  EXPECT_THROW(LargeCount(10, MPI_BYTE, mpi_int_count_max + 1), Error);
  EXPECT_THROW(large_contiguous_type(0, MPI_BYTE), Error);
}

// A message from this rank to itself and one around the ring, each through
// every call wrapper; the receiver's buffer has a guard band that must stay.
TEST(LargeCountMessage, EveryByteArrivesInPlace) {
  const int p = world_size(), me = world_rank();
  const int next = (me + 1) % p, prev = (me + p - 1) % p;
  constexpr size_t guard = 16;
  const std::byte fence{0xA5};
  long wrong = 0;
  auto check = [&](const std::vector<std::byte>& got, size_t n, int salt, const std::string& what) {
    for (size_t i = 0; i < n; ++i)
      if (got[i] != pattern(i, salt)) {
        if (wrong++ < 5) ADD_FAILURE() << what << ": byte " << i << " of " << n << " is wrong";
      }
    for (size_t i = n; i < n + guard; ++i)
      if (got[i] != fence) {
        if (wrong++ < 5)
          ADD_FAILURE() << what << ": byte " << i << " past the end of " << n << " was written";
      }
  };
  for (size_t limit : {size_t{2}, size_t{7}, size_t{8}, size_t{64}, mpi_int_count_max})
    for (size_t n :
         {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{100}, size_t{4097}, size_t{100003}}) {
      const std::string tag = "n " + std::to_string(n) + " limit " + std::to_string(limit);
      const LargeCount c(n, MPI_BYTE, limit);
      const std::vector<std::byte> out = message(n, me);
      std::vector<std::byte> in(n + guard, fence);
      // To self: Sendrecv.
      mpi_check(large_sendrecv(out.data(), c, 0, 1, in.data(), c, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE),
                "sendrecv");
      check(in, n, me, "sendrecv to self, " + tag);
      // Around the ring: Irecv + Isend and Issend.
      for (bool sync : {false, true}) {
        std::fill(in.begin(), in.end(), fence);
        MPI_Request r[2];
        mpi_check(large_irecv(in.data(), c, prev, 2, MPI_COMM_WORLD, &r[0]), "irecv");
        mpi_check(large_isend(out.data(), c, next, 2, MPI_COMM_WORLD, &r[1], sync), "isend");
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        check(in, n, prev, std::string(sync ? "issend" : "isend") + " around the ring, " + tag);
      }
      // Persistent requests, started twice.
      MPI_Request r[2];
      mpi_check(large_recv_init(in.data(), c, prev, 3, MPI_COMM_WORLD, &r[0]), "recv_init");
      mpi_check(large_send_init(out.data(), c, next, 3, MPI_COMM_WORLD, &r[1]), "send_init");
      for (int round = 0; round < 2; ++round) {
        std::fill(in.begin(), in.end(), fence);
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        check(in, n, prev, "persistent, " + tag);
      }
      MPI_Request_free(&r[0]);
      MPI_Request_free(&r[1]);
      // Blocking Send/Recv, even ranks first (a ring of one: to self, buffered by Isend).
      std::fill(in.begin(), in.end(), fence);
      MPI_Request self = MPI_REQUEST_NULL;
      if (p == 1) {
        mpi_check(large_isend(out.data(), c, next, 4, MPI_COMM_WORLD, &self), "isend");
        mpi_check(large_recv(in.data(), c, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
        MPI_Wait(&self, MPI_STATUS_IGNORE);
      } else if (me % 2 == 0) {
        mpi_check(large_send(out.data(), c, next, 4, MPI_COMM_WORLD), "send");
        mpi_check(large_recv(in.data(), c, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
      } else {
        std::vector<std::byte> held(n + guard, fence);
        mpi_check(large_recv(held.data(), c, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
        mpi_check(large_send(out.data(), c, next, 4, MPI_COMM_WORLD), "send");
        in = held;
      }
      check(in, n, prev, "send/recv around the ring, " + tag);
      // A sender with the derived type and a receiver with plain bytes (and
      // back): one message whatever either side's limit.
      std::fill(in.begin(), in.end(), fence);
      const LargeCount plain(n);
      mpi_check(large_sendrecv(out.data(), c, next, 5, in.data(), plain, prev, 5, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE),
                "sendrecv");
      check(in, n, prev, "derived to plain, " + tag);
      std::fill(in.begin(), in.end(), fence);
      mpi_check(large_sendrecv(out.data(), plain, next, 6, in.data(), c, prev, 6, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE),
                "sendrecv");
      check(in, n, prev, "plain to derived, " + tag);
    }
  // Doubles: a count of elements, not bytes.
  for (size_t limit : {size_t{2}, size_t{5}, mpi_int_count_max}) {
    const size_t n = 1001;
    std::vector<double> out(n), in(n + 2, -1.0);
    for (size_t i = 0; i < n; ++i) out[i] = 0.5 + static_cast<double>(i + 10000 * static_cast<size_t>(me));
    const LargeCount c(n, MPI_DOUBLE, limit);
    mpi_check(
        large_sendrecv(out.data(), c, next, 7, in.data(), c, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "sendrecv");
    for (size_t i = 0; i < n; ++i)
      wrong += in[i] != 0.5 + static_cast<double>(i + 10000 * static_cast<size_t>(prev));
    wrong += in[n] != -1.0 || in[n + 1] != -1.0;
  }
  EXPECT_EQ(global_sum(wrong, MPI_COMM_WORLD), 0);
}

// ---- halo strategies with a tiny limit -------------------------------------

bool red_black_impossible(const std::string& strategy, const DecompositionSpec& s) {
  if (strategy != "red-black") return false;
  std::array<int, 3> procs = s.procs;
  MPI_Dims_create(world_size(), s.ndim, procs.data());
  for (int d = 0; d < s.ndim; ++d)
    if (s.periodic[d] && procs[d] > 1 && procs[d] % 2) return true;
  return false;
}

constexpr size_t tiny = 8;  // bytes: every halo message is above it

// Two exchanges on one strategy object (reused requests and types), checked
// against the global-index expectation; the global number of wrong elements.
template <class T>
long exchange_with_limit(const std::string& strategy, const DecompositionSpec& spec, int ncomp, int halo,
                         Layout layout, const ComponentPredicate& pred, int shm_node_size = -1) {
  Decomposition dec(MPI_COMM_WORLD, spec);
  Field<T> f(dec, ncomp, halo, layout);
  PlanOptions po;
  po.mpi_count_limit = tiny;
  Plan plan(dec, {FieldSpec::of(f, pred)}, po);
  auto s = shm_node_size >= 0 ? make_shm(plan, ShmOptions{shm_node_size}) : make_strategy(strategy, plan);
  FieldView v = f.view();
  long wrong = 0;
  for (int round = 1; round <= 2; ++round) {
    initialise(f, dec, 100.0 * round);
    s->exchange({&v, 1});
    wrong += count_wrong(f, dec, Expect(pred), strategy.c_str(), {}, 100.0 * round);
  }
  return global_sum(wrong, MPI_COMM_WORLD);
}

TEST(LargeCountHalo, EveryStrategyFillsEveryHaloWithAnEightByteLimit) {
  for (const std::string& name : strategy_names())
    for (int ndim : {2, 3})
      for (bool mixed : {false, true})
        for (Layout layout : {Layout::aos, Layout::soa}) {
          const DecompositionSpec spec = spec_of(ndim, mixed);
          if (red_black_impossible(name, spec)) continue;
          SCOPED_TRACE(name + " " + std::to_string(ndim) + "-D " + (mixed ? "mixed " : "periodic ") +
                       to_string(layout));
          EXPECT_EQ(exchange_with_limit<double>(name, spec, 19, 1, layout, {}), 0);
          EXPECT_EQ(exchange_with_limit<float>(name, spec, 3, 2, layout, {}), 0);
        }
}

TEST(LargeCountHalo, ReducedSelectionsAndShmBetweenNodes) {
  auto pick = [](const Offset& o, int c) { return (offset_index(o) * 7 + c * 3) % 5 < 2; };
  for (const std::string& name : strategy_names()) {
    const DecompositionSpec spec = spec_of(3, true);
    if (red_black_impossible(name, spec)) continue;
    // A selection the staged pattern cannot serve is refused by those strategies.
    try {
      EXPECT_EQ(exchange_with_limit<double>(name, spec, 6, 1, Layout::aos, pick), 0) << name;
    } catch (const InputError&) {}
  }
  // shm's messages between nodes: every rank a node of its own, or pairs.
  for (int node_size : {1, 2})
    for (Layout layout : {Layout::aos, Layout::soa}) {
      SCOPED_TRACE("shm node_size " + std::to_string(node_size));
      EXPECT_EQ(exchange_with_limit<double>("shm", spec_of(3, false), 19, 1, layout, {}, node_size), 0);
    }
}

TEST(LargeCountHalo, APlanRefusesAnImpossibleLimit) {
  Decomposition dec(MPI_COMM_WORLD, spec_of(3, false));
  Field<double> f(dec, 1, 1, Layout::aos);
  for (size_t bad : {size_t{0}, size_t{1}, mpi_int_count_max + 1}) {
    PlanOptions po;
    po.mpi_count_limit = bad;
    EXPECT_THROW(Plan(dec, {FieldSpec::of(f)}, po), InputError) << bad;
  }
}

// ---- MPI-IO and .npy with a tiny limit ------------------------------------

std::string scratch_dir(const std::string& name) { return test::scratch_dir("lc", name); }

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool everyone(bool ok) {
  int v = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

Decomposition io_lattice() {
  DecompositionSpec spec;
  spec.global = {10, 9, 7};
  return Decomposition(MPI_COMM_WORLD, spec);
}

// Written with a 7-byte limit, the files equal those of the default limit
// byte for byte, and reading them back with the tiny limit gives every value.
TEST(LargeCountIo, MpiioRoundTripsBitForBit) {
  const std::string dir = scratch_dir("mpiio");
  const Decomposition dec = io_lattice();
  const int ncomp = 3;
  Field<double> f(dec, ncomp, 1, Layout::aos);
  initialise(f, dec);
  for (IoFormat format : {IoFormat::binary, IoFormat::ascii})
    for (std::array<int, 3> grid : {std::array<int, 3>{1, 1, 1}, std::array<int, 3>{dec.procs(0), 1, 1}}) {
      const std::string tag = to_string(format) + " " + extents_text(grid, 3);
      SCOPED_TRACE(tag);
      FieldIo small(dec, {IoType::f64, ncomp, {}}, {format, grid, 7});
      FieldIo plain(dec, {IoType::f64, ncomp, {}}, {format, grid});
      small.write_begin(dir + "/small", 1, f.view());
      small.write_end();
      plain.write_begin(dir + "/plain", 1, f.view());
      plain.write_end();
      bool same = true;
      if (dec.rank() == 0)
        for (int file = 0; file < small.grid().files(); ++file) {
          const std::string a =
              file_bytes(dir + "/" + data_file_name("small", file, small.grid().files(), format));
          const std::string b =
              file_bytes(dir + "/" + data_file_name("plain", file, plain.grid().files(), format));
          same = same && !a.empty() && a == b;
        }
      EXPECT_TRUE(everyone(same)) << "the files differ from those written with the default limit";
      Field<double> back(dec, ncomp, 1, Layout::soa);
      std::fill(back.elements().begin(), back.elements().end(), -7.0);
      small.read(dir + "/small.json", back.view());
      long wrong = 0;
      for (long i = 0; i < dec.local_size(0); ++i)
        for (long j = 0; j < dec.local_size(1); ++j)
          for (long k = 0; k < dec.local_size(2); ++k)
            for (int c = 0; c < ncomp; ++c) {
              const double a = f(i, j, k, c), b = back(i, j, k, c);
              wrong += std::memcmp(&a, &b, sizeof a) != 0;  // NOLINT(bugprone-suspicious-memory-comparison)
            }
      EXPECT_EQ(global_sum(wrong, MPI_COMM_WORLD), 0);
    }
  if (world_rank() == 0) std::filesystem::remove_all(dir);
}

TEST(LargeCountIo, NpyWithATinyLimitEqualsTheDefault) {
  const std::string dir = scratch_dir("npy");
  const Decomposition dec = io_lattice();
  Field<float> f(dec, 2, 1, Layout::soa);
  initialise(f, dec);
  write_npy(dir + "/small.npy", dec, f.view(), 3);
  write_npy(dir + "/plain.npy", dec, f.view());
  bool same = true;
  if (dec.rank() == 0) {
    const std::string a = file_bytes(dir + "/small.npy");
    same = !a.empty() && a == file_bytes(dir + "/plain.npy");
    std::filesystem::remove_all(dir);
  }
  EXPECT_TRUE(everyone(same));
  EXPECT_THROW(write_npy(dir + "/bad.npy", dec, f.view(), 1), Error);
}

}  // namespace
}  // namespace haloex::test
