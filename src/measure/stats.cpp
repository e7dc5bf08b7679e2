#include "haloex/measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

namespace haloex {

namespace {

// P(Binomial(n, 1/2) <= k), term by term with C(n, i+1) = C(n, i) (n - i) /
// (i + 1) in logs: O(k), and n in the tens of thousands neither overflows
// nor underflows (the first terms underflow to 0, harmlessly).
double binomial_half_cdf(size_t k, size_t n) {
  if (k >= n) return 1.0;
  const double nn = static_cast<double>(n);
  double log_term = -nn * std::log(2.0), sum = 0;
  for (size_t i = 0; i <= k; ++i) {
    sum += std::exp(log_term);
    const double x = static_cast<double>(i);
    log_term += std::log(nn - x) - std::log(x + 1);
  }
  return std::min(sum, 1.0);
}

constexpr size_t max_rounds_estimate = 100000;

// Rounds for an interval of half-width width_now to narrow to width_needed
// (as 1/sqrt(rounds)); always more than the n it has.
size_t scaled_rounds(size_t n, double width_now, double width_needed) {
  const double r = static_cast<double>(std::max<size_t>(n, 6)) * std::pow(width_now / width_needed, 2);
  if (!(width_needed > 0) || !std::isfinite(r)) return max_rounds_estimate;
  return std::max(n + 1,
                  static_cast<size_t>(std::min(std::ceil(r), static_cast<double>(max_rounds_estimate))));
}

}  // namespace

OrderInterval median_interval(size_t n, double confidence) {
  OrderInterval out;
  if (n == 0) return out;
  const double alpha_half = (1 - confidence) / 2;
  // The cumulative sum term by term: lo is the last k with P(B <= k) <= alpha/2.
  const double nn = static_cast<double>(n);
  double log_term = -nn * std::log(2.0), cdf = std::exp(log_term);
  size_t lo = 0;
  while (2 * (lo + 1) < n) {
    const double x = static_cast<double>(lo);
    log_term += std::log(nn - x) - std::log(x + 1);
    if (cdf + std::exp(log_term) > alpha_half) break;
    cdf += std::exp(log_term);
    ++lo;
  }
  out.lo = lo;
  out.hi = n - 1 - lo;
  out.coverage = 1 - 2 * cdf;
  return out;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

Summary summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = median_of(v);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(ss / n);
  s.sample_stddev = v.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  const OrderInterval iv = median_interval(v.size());
  s.median_low = v[iv.lo];
  s.median_high = v[iv.hi];
  s.coverage = iv.coverage;
  return s;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::tied: return "tied";
    case Verdict::undecided: break;
  }
  return "undecided";
}

double sign_test_p(size_t k, size_t n) {
  if (n == 0) return 1.0;
  const double below = binomial_half_cdf(k, n), above = k == 0 ? 1.0 : 1 - binomial_half_cdf(k - 1, n);
  return std::min(1.0, 2 * std::min(below, above));
}

Comparison compare_paired(const std::vector<double>& a, const std::vector<double>& b, double tie) {
  std::vector<double> r;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (b[i] > 0) r.push_back(a[i] / b[i]);
  Comparison c;
  c.rounds = r.size();
  if (r.empty()) return c;
  const Summary s = summarize(r);
  c.ratio = s.median, c.low = s.median_low, c.high = s.median_high, c.coverage = s.coverage;
  size_t unequal = 0;
  for (double x : r) {
    c.a_faster += x < 1 ? 1 : 0;
    unequal += x != 1 ? 1 : 0;
  }
  c.p_sign = sign_test_p(c.a_faster, unequal);
  if (c.coverage + 1e-12 < confidence_level) return c;
  // A tie comes first: a difference within the tolerance is not worth acting
  // on, however sure it is.
  if (c.low >= 1 / (1 + tie) && c.high <= 1 + tie)
    c.verdict = Verdict::tied;
  else if (c.high < 1)
    c.verdict = Verdict::faster;
  else if (c.low > 1)
    c.verdict = Verdict::slower;
  return c;
}

size_t rounds_to_decide(const Comparison& c, double tie) {
  if (c.verdict != Verdict::undecided) return c.rounds;
  if (!(c.low > 0 && c.ratio > 0)) return max_rounds_estimate;  // a zero time: nothing to scale
  // In logs the interval is about symmetric around the median ratio.
  const double m = std::abs(std::log(c.ratio));
  const double w = std::max(0.5 * (std::log(c.high) - std::log(c.low)), 1e-12);
  const size_t apart = m > 0 ? scaled_rounds(c.rounds, w, m) : max_rounds_estimate;
  const size_t within = scaled_rounds(c.rounds, w, std::log(1 + tie) - m);
  return std::max(std::min(apart, within), c.rounds + 1);
}

Ranking rank_candidates(const std::vector<std::vector<double>>& samples, const std::vector<bool>& ranked,
                        const std::vector<std::string>& names, double precision, double tie) {
  Ranking out;
  std::vector<double> med(samples.size());
  bool any = false;
  for (size_t c = 0; c < samples.size(); ++c) {
    if (!ranked[c]) continue;
    med[c] = median_of(samples[c]);
    if (!any || med[c] < med[out.leader]) out.leader = c;
    any = true;
  }
  out.decided = !any;  // nothing to rank: nothing to decide
  if (!any) return out;
  std::ostringstream why;
  const Summary lead = summarize(samples[out.leader]);
  if (precision > 0 && !(lead.median > 0)) {
    out.rounds_needed = max_rounds_estimate;
    why << names[out.leader] << "'s median is not positive";
  } else if (precision > 0) {
    const double half = std::max(lead.median - lead.median_low, lead.median_high - lead.median) / lead.median;
    if (lead.coverage + 1e-12 < confidence_level || half > precision) {
      out.rounds_needed = scaled_rounds(lead.n, half, precision);
      why << names[out.leader] << "'s median known to ±" << std::lround(100 * half) << "%";
    }
  }
  for (size_t c = 0; c < samples.size(); ++c) {
    if (c == out.leader) continue;
    if (!ranked[c]) continue;  // references (serial, auto) run to the end
    const Comparison cmp = compare_paired(samples[c], samples[out.leader], tie);
    if (cmp.verdict == Verdict::slower) out.slower.push_back(c);
    if (cmp.verdict == Verdict::slower || cmp.verdict == Verdict::tied) continue;
    const size_t need = rounds_to_decide(cmp, tie);
    if (need > out.rounds_needed) {
      out.rounds_needed = need;
      why.str("");
      why << names[c] << " / " << names[out.leader] << " " << cmp.ratio << " [" << cmp.low << ", " << cmp.high
          << "]";
    }
  }
  out.decided = out.rounds_needed == 0;
  out.why = why.str();
  return out;
}

Ranking all_within(const std::vector<std::vector<double>>& samples, const std::vector<std::string>& names,
                   double precision) {
  Ranking out;
  double widest = 0;
  for (size_t c = 0; c < samples.size(); ++c) {
    const Summary s = summarize(samples[c]);
    if (s.n == 0 || !(s.median > 0)) continue;
    const double half = std::max(s.median - s.median_low, s.median_high - s.median) / s.median;
    const bool short_of = s.coverage + 1e-12 < confidence_level || half > precision;
    if (!short_of || half < widest) continue;
    widest = half;
    out.rounds_needed = scaled_rounds(s.n, half, precision);
    out.why = names[c] + "'s median known to ±" + std::to_string(std::lround(100 * half)) + "%";
  }
  out.decided = out.rounds_needed == 0;
  return out;
}

std::vector<size_t> round_order(size_t n, int round) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  // Fisher-Yates on mt19937, whose output the standard fixes (std::shuffle's
  // use of it is left to the library).
  std::mt19937 rng(0x9e3779b9u + static_cast<unsigned>(round));
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order;
}

}  // namespace haloex
