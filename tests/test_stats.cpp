// Statistics and benchmark formulas against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "haloex/bench/halo_bench.hpp"
#include "haloex/bench/stats.hpp"

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
  const double half = 3.182 * std::sqrt(5.0 / 3) / 2.0;  // t(0.975, 3) s / sqrt(4)
  EXPECT_NEAR(s.ci95_low, 2.5 - half, 1e-12);
  EXPECT_NEAR(s.ci95_high, 2.5 + half, 1e-12);
}

TEST(Stats, OddCountAndSingleSample) {
  EXPECT_DOUBLE_EQ(summarize({5.0, 1.0, 9.0}).median, 5.0);
  const Summary one = summarize({7.0});
  EXPECT_DOUBLE_EQ(one.median, 7.0);
  EXPECT_DOUBLE_EQ(one.stddev, 0.0);
  EXPECT_DOUBLE_EQ(one.ci95_low, 7.0);
  EXPECT_EQ(summarize({}).n, 0u);
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
