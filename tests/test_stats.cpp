// Statistics and benchmark formulas against hand-computed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "haloex/bench/halo_bench.hpp"
#include "haloex/measure/stats.hpp"

namespace haloex::test {
namespace {

TEST(Stats, SummaryOfFourSamples) {
  const Summary s = summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_NEAR(s.stddev, std::sqrt(1.25), 1e-15);  // (2.25+0.25+0.25+2.25)/4
  EXPECT_NEAR(s.sample_stddev, std::sqrt(5.0 / 3), 1e-15);
  // Four samples cannot give 95%: [min, max] covers 1 - 2/16.
  EXPECT_DOUBLE_EQ(s.median_low, 1.0);
  EXPECT_DOUBLE_EQ(s.median_high, 4.0);
  EXPECT_NEAR(s.coverage, 0.875, 1e-12);
}

TEST(Stats, OddCountAndSingleSample) {
  EXPECT_DOUBLE_EQ(summarize({5.0, 1.0, 9.0}).median, 5.0);
  const Summary one = summarize({7.0});
  EXPECT_DOUBLE_EQ(one.median, 7.0);
  EXPECT_DOUBLE_EQ(one.stddev, 0.0);
  EXPECT_DOUBLE_EQ(one.median_low, 7.0);
  EXPECT_DOUBLE_EQ(one.median_high, 7.0);
  EXPECT_EQ(summarize({}).n, 0u);
}

// The order statistics by hand: P(B <= k) for B ~ Binomial(n, 1/2) is
// sum_{i<=k} C(n, i) / 2^n; lo is the largest k with P(B <= k) <= 0.025.
TEST(Stats, MedianIntervalRanks) {
  // n = 6: P(B <= 0) = 1/64 = 0.0156 <= 0.025, P(B <= 1) = 7/64 > 0.025.
  OrderInterval i6 = median_interval(6);
  EXPECT_EQ(i6.lo, 0u);
  EXPECT_EQ(i6.hi, 5u);
  EXPECT_NEAR(i6.coverage, 1 - 2.0 / 64, 1e-12);
  // n = 11: P(B <= 1) = 12/2048 = 0.0059, P(B <= 2) = 67/2048 = 0.0327.
  OrderInterval i11 = median_interval(11);
  EXPECT_EQ(i11.lo, 1u);
  EXPECT_EQ(i11.hi, 9u);
  EXPECT_NEAR(i11.coverage, 1 - 2 * 12.0 / 2048, 1e-12);
  // n = 20: P(B <= 5) = 21700/1048576 = 0.0207, P(B <= 6) = 60460/1048576.
  OrderInterval i20 = median_interval(20);
  EXPECT_EQ(i20.lo, 5u);
  EXPECT_EQ(i20.hi, 14u);
  EXPECT_NEAR(i20.coverage, 1 - 2 * 21700.0 / 1048576, 1e-12);
  EXPECT_EQ(median_interval(1).coverage, 0.0);
}

TEST(Stats, IntervalStaysWithinSamplesAndAboveZero) {
  // The mean's t interval of {1, 1, 1, 1, 100} reached below zero; the
  // median's cannot leave the samples.
  const Summary s = summarize({1.0, 1.0, 1.0, 1.0, 100.0});
  EXPECT_GE(s.median_low, 1.0);
  EXPECT_LE(s.median_high, 100.0);
  const Summary t = summarize({5, 3, 9, 1, 7, 2, 8, 4, 6, 10, 11});
  EXPECT_DOUBLE_EQ(t.median_low, 2.0);    // sorted[1]
  EXPECT_DOUBLE_EQ(t.median_high, 10.0);  // sorted[9]
}

TEST(Stats, SignTest) {
  // Two-sided: 2 * P(B <= 0) for n = 6 is 2/64; 2 * P(B <= 2) for n = 10
  // is 2 * 56/1024.
  EXPECT_NEAR(sign_test_p(0, 6), 2.0 / 64, 1e-12);
  EXPECT_NEAR(sign_test_p(6, 6), 2.0 / 64, 1e-12);
  EXPECT_NEAR(sign_test_p(2, 10), 2 * 56.0 / 1024, 1e-12);
  EXPECT_DOUBLE_EQ(sign_test_p(5, 10), 1.0);
}

TEST(Stats, PairedComparisonCancelsDrift) {
  // A is 10% faster than B in every round, while the machine drifts by 3x
  // across the rounds: unpaired, the medians' intervals overlap; paired,
  // every ratio is 0.9.
  std::vector<double> a, b;
  for (int r = 0; r < 11; ++r) {
    const double load = 1 + 0.2 * r;
    b.push_back(load);
    a.push_back(0.9 * load);
  }
  const Summary sa = summarize(a), sb = summarize(b);
  EXPECT_LT(sb.median_low, sa.median_high);  // unpaired: no decision
  const Comparison c = compare_paired(a, b);
  EXPECT_EQ(c.rounds, 11u);
  EXPECT_NEAR(c.ratio, 0.9, 1e-12);
  EXPECT_NEAR(c.high, 0.9, 1e-12);
  EXPECT_EQ(c.a_faster, 11u);
  EXPECT_NEAR(c.p_sign, 2.0 / 2048, 1e-12);
  EXPECT_EQ(c.verdict, Verdict::faster);
  EXPECT_EQ(compare_paired(b, a).verdict, Verdict::slower);
}

TEST(Stats, TiesAndUndecided) {
  std::vector<double> b(11, 1.0), tied, mixed;
  for (int r = 0; r < 11; ++r) tied.push_back(r % 2 ? 1.01 : 0.995);
  for (int r = 0; r < 11; ++r) mixed.push_back(r % 2 ? 1.2 : 0.85);
  EXPECT_EQ(compare_paired(tied, b).verdict, Verdict::tied);
  const Comparison m = compare_paired(mixed, b);
  EXPECT_EQ(m.verdict, Verdict::undecided);
  EXPECT_GT(rounds_to_decide(m), 11u);
  // Five rounds never decide: [min, max] covers only 94%.
  EXPECT_EQ(compare_paired({1, 1, 1, 1, 1}, {2, 2, 2, 2, 2}).verdict, Verdict::undecided);
}

TEST(Stats, RankingWaitsForTheLeadersRival) {
  // Rounds of three candidates: "x" clearly slowest, "a" and "b" 1% apart
  // with 10% noise on the ratio: undecided; ranking without "b" is decided.
  std::vector<std::vector<double>> s(3);
  for (int r = 0; r < 11; ++r) {
    s[0].push_back(1.0);
    s[1].push_back(r % 2 ? 0.91 : 1.11);
    s[2].push_back(3.0);
  }
  const std::vector<std::string> names{"a", "b", "x"};
  Ranking open = rank_candidates(s, {true, true, true}, names, 0);
  EXPECT_EQ(open.leader, 0u);
  EXPECT_FALSE(open.decided);
  EXPECT_GT(open.rounds_needed, 11u);
  EXPECT_NE(open.why.find("b / a"), std::string::npos);
  Ranking closed = rank_candidates(s, {true, false, true}, names, 0);
  EXPECT_TRUE(closed.decided);
  // The leader's median must also be known to the precision asked for.
  s[0][3] = 1.5, s[0][5] = 0.6, s[0][7] = 1.4, s[0][9] = 0.7;
  EXPECT_FALSE(rank_candidates(s, {true, false, true}, names, 0.05).decided);
}

// Every round's order is a permutation, the same for the same round (every
// rank computes its own), and over 60 rounds each of 6 candidates follows
// every other one: a rotation would give each the same predecessor always.
TEST(Stats, RoundOrderIsShuffledAlikeEverywhere) {
  const size_t n = 6;
  std::vector<std::set<size_t>> before(n);
  for (int r = 0; r < 60; ++r) {
    const std::vector<size_t> o = round_order(n, r);
    ASSERT_EQ(o, round_order(n, r));
    ASSERT_EQ(std::set<size_t>(o.begin(), o.end()).size(), n);
    ASSERT_LT(*std::max_element(o.begin(), o.end()), n);
    for (size_t k = 1; k < n; ++k) before[o[k]].insert(o[k - 1]);
  }
  for (size_t c = 0; c < n; ++c) EXPECT_EQ(before[c].size(), n - 1) << "candidate " << c;
  EXPECT_TRUE(round_order(0, 3).empty());
  EXPECT_EQ(round_order(1, 3), std::vector<size_t>{0});
}

TEST(Formulas, EffectiveBandwidthAndUpdates) {
  // L = 32, 19 doubles: (6*1024 + 384 + 8) * 152 = 993472 bytes.
  EXPECT_DOUBLE_EQ(cubic_halo_bytes(32, 19, 8), 993472.0);
  EXPECT_DOUBLE_EQ(cubic_halo_bytes(1, 1, 4), 26.0 * 4);
  // 993472 bytes in 1 ms is 993.472 MB/s; 32^3 sites in 1 ms on one core
  // is 32.768e6 updates per second, half that per core on two threads.
  EXPECT_DOUBLE_EQ(effective_bandwidth(993472.0, 1e-3), 993472000.0);
  EXPECT_DOUBLE_EQ(updates_per_core(32768.0, 1e-3, 1), 32768000.0);
  EXPECT_DOUBLE_EQ(updates_per_core(32768.0, 1e-3, 2), 16384000.0);
}

}  // namespace
}  // namespace haloex::test
