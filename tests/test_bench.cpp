// The benchmarks' pieces against hand-computed values: shapes, halo sizes,
// overlap and size parsing; and their records, which must carry every
// metadata key and agree with their own raw samples.
#include <gtest/gtest.h>
#include <mpi.h>

#include <sstream>

#include "haloex/bench/halo_bench.hpp"
#include "haloex/bench/pingpong_bench.hpp"
#include "haloex/bench/stream_bench.hpp"
#include "haloex/core/error.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/measure/counters.hpp"
#include "haloex/measure/sweep.hpp"
#include "world.hpp"

namespace haloex::test {
namespace {

// Where the machine exposes hardware counters, a loop of a known length
// retires at least that many instructions (each iteration at least one)
// and twice the loop at least as many again; where it does not, the counter
// says why and gives no reading, never a zero.
TEST(BenchCounters, InstructionsOfAKnownLoopOrAReason) {
  InstructionCounter c(2);
  const auto loop = [&](long n) {
    c.start();
    volatile long sink = 0;
    for (long i = 0; i < n; ++i) sink = sink + i;
    return c.stop();
  };
  const auto one = loop(1000000), two = loop(2000000);
  if (!c.available()) {
    EXPECT_FALSE(c.why_not().empty());
    EXPECT_FALSE(one.has_value());
    GTEST_SKIP() << c.why_not();
  }
  ASSERT_TRUE(one && two);
  EXPECT_GE(*one, 1e6);
  EXPECT_GT(*two, *one + 0.9e6);
}

TEST(BenchFormulas, HaloSitesOfBoxes) {
  // 2x3x4: faces 2(6 + 12 + 8) = 52, edges 4(2 + 3 + 4) = 36, corners 8.
  EXPECT_DOUBLE_EQ(box_halo_sites(2, 3, 4), 96.0);
  // Non-cubic x, 1.5x, 2x at x = 4 (4x6x8): 13*16 + 18*4 + 8 = 288.
  EXPECT_DOUBLE_EQ(box_halo_sites(4, 6, 8), 288.0);
  EXPECT_DOUBLE_EQ(box_halo_sites(5, 5, 5) * 19 * 8, cubic_halo_bytes(5, 19, 8));
}

TEST(BenchFormulas, SubdomainShapes) {
  EXPECT_EQ(subdomain_extents("cubic", 7, 3), (std::array<long, 3>{7, 7, 7}));
  EXPECT_EQ(subdomain_extents("cubic", 7, 2), (std::array<long, 3>{7, 7, 1}));
  EXPECT_EQ(subdomain_extents("noncubic", 4, 3), (std::array<long, 3>{4, 6, 8}));
  EXPECT_EQ(subdomain_extents("noncubic", 4, 2), (std::array<long, 3>{4, 6, 1}));
  EXPECT_THROW(subdomain_extents("noncubic", 5, 3), InputError);
  EXPECT_THROW(subdomain_extents("round", 4, 3), InputError);
  EXPECT_THROW(subdomain_extents("cubic", 0, 3), InputError);
}

TEST(BenchFormulas, HiddenFraction) {
  // 10 us of exchange, 20 us of work, 25 us together: 5 of the 10 hidden.
  EXPECT_DOUBLE_EQ(hidden_fraction(10, 20, 25), 0.5);
  EXPECT_DOUBLE_EQ(hidden_fraction(10, 20, 30), 0.0);
  EXPECT_DOUBLE_EQ(hidden_fraction(10, 20, 20), 1.0);
}

TEST(BenchParsing, SizeListsAndRanges) {
  EXPECT_EQ(parse_long_list("16:32:8,40", "-m"), (std::vector<long>{16, 24, 32, 40}));
  EXPECT_EQ(parse_long_list("3:5", "-m"), (std::vector<long>{3, 4, 5}));
  EXPECT_THROW(parse_long_list("8:4", "-m"), InputError);
  EXPECT_THROW(parse_long_list("8:16:0", "-m"), InputError);
  EXPECT_THROW(parse_long_list("8:x", "-m"), InputError);
  EXPECT_EQ(parse_message_sizes("1:16"), (std::vector<size_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_message_sizes("0:2"), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(parse_message_sizes("4K,1M,3"), (std::vector<size_t>{4096, 1048576, 3}));
  EXPECT_THROW(parse_message_sizes("16:1"), InputError);
  EXPECT_THROW(parse_message_sizes("3X"), InputError);
  EXPECT_THROW(parse_message_sizes("-4"), InputError);
  EXPECT_DOUBLE_EQ(stream_bytes_per_element("copy"), 16.0);
  EXPECT_DOUBLE_EQ(stream_bytes_per_element("triad"), 24.0);
}

void expect_metadata(const nlohmann::json& j, const std::string& benchmark) {
  for (const char* k : {"benchmark", "haloex_version", "git_commit", "build_type", "compiler", "mpi_library",
                        "mpi_standard", "host", "date_utc", "ranks", "threads_per_rank"})
    EXPECT_TRUE(j.contains(k)) << benchmark << " record lacks " << k;
  EXPECT_EQ(j["benchmark"], benchmark);
  EXPECT_EQ(j["ranks"], world_size());
  // A record must survive a round trip through its text form.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

// The rounds rule on every rank alike: fixed rounds without --ci; with it,
// rank 0's ranking decides, slower candidates leave the race on every rank,
// and the budget ends an undecided race.
TEST(BenchRounds, RuleIsCollectiveAndCandidatesLeaveTheRace) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  RoundsRule fixed(Repetition{1, 3, 0}, comm, 2);
  int rounds = 0;
  while (fixed.another(rounds, [] { return Ranking{}; })) ++rounds;
  EXPECT_EQ(rounds, 3);
  EXPECT_EQ(fixed.outcome().stop, "fixed");

  // Rank 0's ranking: candidate 2 slower after the 2nd round, decided after
  // the 4th. Other ranks' rank_now must never be called.
  RoundsRule race(Repetition{1, 2, 0, 0.05, 1e6}, comm, 3);
  rounds = 0;
  std::vector<bool> active_in_round3;
  while (race.another(rounds, [&] {
    EXPECT_EQ(rank, 0);
    Ranking r;
    r.slower = {2};
    r.decided = rounds >= 4;
    r.rounds_needed = r.decided ? 0 : 9;
    return r;
  })) {
    if (rounds == 3)
      for (size_t c = 0; c < 3; ++c) active_in_round3.push_back(race.active(c));
    ++rounds;
  }
  EXPECT_EQ(rounds, 4);
  EXPECT_EQ(race.outcome().stop, "decided");
  EXPECT_EQ(active_in_round3, (std::vector<bool>{true, true, false}));

  RoundsRule broke(Repetition{1, 2, 0, 0.05, 1e-9}, comm, 1);
  rounds = 0;
  while (broke.another(rounds, [] { return Ranking{}; })) ++rounds;
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(broke.outcome().stop, "budget");
}

// A candidate refused on the last rank only is left out on every rank (the
// rounds' reductions then pair the same candidates everywhere), with the
// refusing rank's reason; asked for by name, it is an error on every rank.
TEST(BenchRounds, CandidatesAreTheSameOnEveryRank) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int last = world_size() - 1;
  const auto make = [&](const std::string& n) {
    if (n == "lopsided" && world_rank() == last)
      throw InputError("lopsided refuses on rank " + std::to_string(last));
    return n;
  };
  std::ostringstream log;
  const std::vector<std::string> names{"a", "lopsided", "b"};
  const std::vector<std::string> got = build_candidates<std::string>(comm, names, false, make, log, true);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b"}));
  int size = static_cast<int>(got.size()), lo = 0, hi = 0;
  MPI_Allreduce(&size, &lo, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&size, &hi, 1, MPI_INT, MPI_MAX, comm);
  EXPECT_EQ(lo, hi);
  EXPECT_EQ(log.str(), "skipping lopsided: lopsided refuses on rank " + std::to_string(last) + "\n");
  try {
    build_candidates<std::string>(comm, names, true, make, log, false);
    ADD_FAILURE() << "a candidate asked for by name and refused on one rank must throw on every rank";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "lopsided refuses on rank " + std::to_string(last));
  }
}

TEST(BenchRecords, HaloNonCubicMovesWhatThePlanSays) {
  HaloBenchOptions opt;
  opt.sizes = {4};
  opt.shape = "noncubic";
  opt.ncomp = 2;
  opt.iterations = 2;
  opt.repeats = 3;
  opt.warmup = 1;
  opt.work_s = 1e-6;
  opt.strategies = {"staged", "direct"};
  opt.progress = false;
  std::ostringstream log;
  const auto results = run_halo_bench(MPI_COMM_WORLD, opt, log);
  const auto records = halo_bench_records(MPI_COMM_WORLD, opt, results);
  if (world_rank() != 0) return;
  ASSERT_EQ(records.size(), 2u);
  for (const auto& j : records) {
    expect_metadata(j, "halo");
    // Every rank owns 4x6x8 sites and, periodic everywhere, receives a full
    // halo of 288 sites x 2 doubles whether the copies are remote or local.
    EXPECT_EQ(j["local_extent"], (std::vector<long>{4, 6, 8}));
    EXPECT_DOUBLE_EQ(j["halo_bytes"].get<double>(), 288.0 * 2 * 8);
    EXPECT_DOUBLE_EQ(j["sites_per_rank"].get<double>(), 192.0);
    const auto t = j["time_per_call_s"].get<std::vector<double>>();
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(j["overlap_time_per_call_s"].size(), 3u);
    const double med = summarize(t).median;
    EXPECT_DOUBLE_EQ(j["median_time_per_call_s"].get<double>(), med);
    EXPECT_DOUBLE_EQ(j["beff_bytes_per_s"].get<double>(), 288.0 * 2 * 8 / med);
    EXPECT_DOUBLE_EQ(j["updates_per_core_per_s"].get<double>(),
                     192.0 / med / j["threads_per_rank"].get<int>());
    EXPECT_EQ(j["shape"], "noncubic");
  }
  EXPECT_DOUBLE_EQ(records[0]["ratio_to_staged"].get<double>(), 1.0);
}

TEST(BenchRecords, HaloStrongScalingSplitsTheGlobalLattice) {
  HaloBenchOptions opt;
  opt.global = 12;
  opt.ncomp = 1;
  opt.iterations = 1;
  opt.repeats = 1;
  opt.warmup = 0;
  opt.strategies = {"staged"};
  opt.progress = false;
  std::ostringstream log;
  const auto records = halo_bench_records(MPI_COMM_WORLD, opt, run_halo_bench(MPI_COMM_WORLD, opt, log));
  if (world_rank() != 0) return;
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["global_size"], (std::vector<long>{12, 12, 12}));
  EXPECT_EQ(records[0]["scaling"], "strong");
  EXPECT_DOUBLE_EQ(records[0]["sites_per_rank"].get<double>(), 1728.0 / world_size());
}

// The pair's memory in either mode, for an eager and a rendezvous size: with
// "osu" each rank's send buffer still holds its own pattern after the round
// trips (never written) and its receive buffer holds the other rank's
// message, zeros beyond it; with "one" the one buffer of both ranks holds
// rank 0's message (rank 1 sent back what it had received).
TEST(BenchPingPong, OsuBuffersKeepTheSendBufferOneBufferSendsBack) {
  EXPECT_THROW(PingPongBuffers("two", 8, 0), InputError);
  if (world_size() < 2) return;
  const int rank = world_rank();
  const size_t bytes = 300000;  // above the eager limits of Open MPI's and MPICH's shared memory
  for (size_t n : {size_t{8}, bytes}) {
    PingPongBuffers osu("osu", bytes, rank), one("one", bytes, rank);
    ASSERT_NE(osu.send(), osu.recv());
    ASSERT_EQ(one.send(), one.recv());
    pingpong_round_trips(MPI_COMM_WORLD, osu, n, 3);
    pingpong_round_trips(MPI_COMM_WORLD, one, n, 3);
    if (rank > 1) continue;
    size_t send_written = 0, recv_wrong = 0, one_wrong = 0;
    for (size_t i = 0; i < bytes; ++i) {
      send_written += osu.send()[i] != pingpong_pattern(rank, i);
      recv_wrong += osu.recv()[i] != (i < n ? pingpong_pattern(1 - rank, i) : std::byte{0});
      one_wrong += one.recv()[i] != pingpong_pattern(i < n ? 0 : rank, i);
    }
    EXPECT_EQ(send_written, 0u) << "rank " << rank << ", " << n << " B: osu send buffer written";
    EXPECT_EQ(recv_wrong, 0u) << "rank " << rank << ", " << n << " B: osu receive buffer";
    EXPECT_EQ(one_wrong, 0u) << "rank " << rank << ", " << n << " B: the one buffer";
  }
}

TEST(BenchRecords, PingPongAndStream) {
  PingPongOptions pp;
  pp.sizes = {8, 4096};
  pp.iterations = pp.iterations_large = 5;
  pp.warmup = pp.warmup_large = 1;
  pp.repeats = 2;
  pp.progress = false;
  std::ostringstream log;
  if (world_size() < 2) {
    EXPECT_THROW(run_pingpong_bench(MPI_COMM_WORLD, pp, log), InputError);
  } else {
    const auto records = pingpong_records(MPI_COMM_WORLD, pp, run_pingpong_bench(MPI_COMM_WORLD, pp, log));
    if (world_rank() == 0) {
      ASSERT_EQ(records.size(), 2u);
      for (const auto& j : records) {
        expect_metadata(j, "pingpong");
        EXPECT_EQ(j["buffers"], "osu");  // the default
        const double med = summarize(j["latency_s"].get<std::vector<double>>()).median;
        EXPECT_DOUBLE_EQ(j["bandwidth_bytes_per_s"].get<double>(), j["message_bytes"].get<double>() / med);
      }
    }
    pp.buffers = "one";
    const auto ones = pingpong_records(MPI_COMM_WORLD, pp, run_pingpong_bench(MPI_COMM_WORLD, pp, log));
    if (world_rank() == 0) {
      ASSERT_EQ(ones.size(), 2u);
      for (const auto& j : ones) EXPECT_EQ(j["buffers"], "one");
    }
    pp.buffers = "two";
    EXPECT_THROW(run_pingpong_bench(MPI_COMM_WORLD, pp, log), InputError);
  }
  StreamOptions st;
  st.elements = 4096;
  st.iterations = 2;
  st.repeats = 2;
  st.progress = false;
  const auto records = stream_records(MPI_COMM_WORLD, st, run_stream_bench(MPI_COMM_WORLD, st, log));
  if (world_rank() != 0) return;
  ASSERT_EQ(records.size(), 2u);
  for (const auto& j : records) {
    expect_metadata(j, "stream");
    EXPECT_EQ(j["bandwidth_bytes_per_s"].size(), 2u);
    EXPECT_GT(j["median_bandwidth_bytes_per_s"].get<double>(), 0.0);
  }
}

}  // namespace
}  // namespace haloex::test
