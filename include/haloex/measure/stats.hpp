#pragma once
// Statistics that fit timings (Hoefler and Belli, SC15): the median with its
// distribution-free confidence interval, and comparisons of two candidates
// through the ratios of their samples taken in the same round, where drift
// on the machine cancels. The Python side (python/haloex_lab/stats.py)
// computes the same quantities; both are tested against scipy.
#include <cstddef>
#include <string>
#include <vector>

namespace haloex {

/// The confidence every interval here aims at.
inline constexpr double confidence_level = 0.95;

/// Two timings within this factor of each other count as a tie (2%).
inline constexpr double tie_tolerance = 0.02;

/// The order statistics that bound the median's interval: with the n samples
/// sorted, [x_lo, x_hi] (0-based) holds the true median with probability
/// `coverage` whatever the distribution. lo is the largest index with
/// P(Binomial(n, 1/2) <= lo) <= (1 - confidence) / 2, and hi = n - 1 - lo.
/// Below 6 samples no such pair reaches 95%: then [min, max], with the
/// coverage it has (1 - 2^(1-n)).
struct OrderInterval {
  size_t lo = 0;        ///< index of the lower bound among the sorted samples
  size_t hi = 0;        ///< index of the upper bound
  double coverage = 0;  ///< probability that [x_lo, x_hi] holds the median
};
/// The pair of order statistics for n samples (lo = hi = 0 for none).
OrderInterval median_interval(size_t n, double confidence = confidence_level);

/// Summary of a set of samples. `stddev` is the population standard
/// deviation (1/N, as the 2016 paper's error bars). The median's interval
/// always lies within [min, max].
struct Summary {
  size_t n = 0;  ///< number of samples
  /// Mean, median, population and sample standard deviations, smallest and
  /// largest sample.
  /// @{
  double mean = 0, median = 0, stddev = 0, sample_stddev = 0, min = 0, max = 0;
  /// @}
  /// The median's distribution-free interval and its coverage (0.95, or
  /// less below 6 samples).
  /// @{
  double median_low = 0, median_high = 0, coverage = 0;
  /// @}
};

/// Summarise samples (an empty set gives all zeros).
Summary summarize(std::vector<double> samples);

/// The samples' median (0 for none).
double median_of(std::vector<double> samples);

/// What a paired comparison says about A against B.
enum class Verdict {
  faster,     ///< A's time is below B's: the ratio's interval lies below 1
  slower,     ///< the interval lies above 1
  tied,       ///< the interval lies within 1/(1 + tie) .. 1 + tie
  undecided,  ///< none of these yet
};

/// "faster", "slower", "tied", "undecided".
const char* verdict_name(Verdict v);

/// A against B through the per-round ratios a[i] / b[i]: their median and
/// its interval, how many rounds A was faster in, the two-sided sign test's
/// p-value, and the verdict. Both vectors hold one sample per round, in the
/// same order (shorter one decides the rounds).
struct Comparison {
  size_t rounds = 0;                     ///< rounds compared (pairs)
  double ratio = 1;                      ///< median of the per-round ratios a[i] / b[i]
  double low = 1;                        ///< lower bound of the ratio's interval
  double high = 1;                       ///< upper bound of the ratio's interval
  double coverage = 0;                   ///< coverage of [low, high]
  size_t a_faster = 0;                   ///< rounds with a[i] < b[i]
  double p_sign = 1;                     ///< two-sided sign test's p-value
  Verdict verdict = Verdict::undecided;  ///< what the interval says
};
/// Compare A with B round by round (see Comparison); `tie` is the relative
/// band within which the two count as tied.
Comparison compare_paired(const std::vector<double>& a, const std::vector<double>& b,
                          double tie = tie_tolerance);

/// How many rounds in all would decide an undecided comparison, assuming
/// the ratio's median stays and its interval narrows as 1/sqrt(rounds):
/// enough to exclude 1, or to fit within the tie band, whichever is fewer.
/// The rounds it has for a decided one; at most 100000.
size_t rounds_to_decide(const Comparison& c, double tie = tie_tolerance);

/// The sign test's two-sided p-value for k successes in n fair trials.
double sign_test_p(size_t k, size_t n);

/// Where a set of candidates, timed in the same rounds, stands.
struct Ranking {
  size_t leader = 0;  ///< index of the lowest median among the ranked candidates
  /// True when the leader's median is known to within ±`precision` and every
  /// other ranked candidate is decidedly slower than it or tied with it.
  bool decided = false;
  size_t rounds_needed = 0;    ///< estimate for the comparison that decides last
  std::string why;             ///< what is still open, for the record and the log
  std::vector<size_t> slower;  ///< candidates decidedly slower than the leader (ranked or not)
};

/// Rank candidates (samples[c] per round, from the first round on; only
/// those with ranked[c] take part) and say whether more rounds are needed.
/// Ranked candidates decidedly slower than the leader are listed in
/// `slower`. With nothing ranked there is nothing to decide: decided. `precision` is the relative half-width
/// the leader's median interval must reach (0: none asked).
Ranking rank_candidates(const std::vector<std::vector<double>>& samples, const std::vector<bool>& ranked,
                        const std::vector<std::string>& names, double precision, double tie = tie_tolerance);

/// The order in which n candidates run in round `round`: a permutation drawn
/// from a generator seeded with the round, the same on every rank of a run.
/// Shuffled rather than rotated: a rotation keeps the cyclic order, so a
/// candidate would always run right after the same neighbour and inherit its
/// cache footprint (seen as a 1.09x between two instances of one strategy).
std::vector<size_t> round_order(size_t n, int round);

/// For candidates that are not rivals (message sizes of a ping-pong): decided
/// when every one's median is known to within ±precision; otherwise `why`
/// names the widest and `rounds_needed` estimates the rounds for it.
Ranking all_within(const std::vector<std::vector<double>>& samples, const std::vector<std::string>& names,
                   double precision);

}  // namespace haloex
