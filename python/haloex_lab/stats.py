"""Statistics that fit timings (Hoefler and Belli, SC15), the same
definitions as the C++ side (src/measure/stats.cpp):

- the median with its distribution-free 95% interval from order
  statistics, which always lies within the samples' range;
- the population standard deviation, for error bars (the 2016 paper's
  eq. 3.1);
- comparisons of two candidates through the ratios of their samples taken
  in the same round (drift on the machine cancels), with the median ratio's
  interval, the sign test, and a verdict: faster, slower, tied (within 2%)
  or undecided, with an estimate of the rounds that would decide it.

Binomial sums term by term in logs, as on the C++ side; tests check them
against hand-computed values and scipy."""

from __future__ import annotations

import math
from dataclasses import dataclass

CONFIDENCE = 0.95
TIE = 0.02  # two timings within 2% of each other are a tie
MAX_ROUNDS = 100_000


def _binom_half_cdf(k: int, n: int) -> float:
    """P(Binomial(n, 1/2) <= k), term by term as the C++ side sums it:
    C(n, i+1) = C(n, i) (n - i) / (i + 1), in logs."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    log_term, total = -n * math.log(2.0), 0.0
    for i in range(k + 1):
        total += math.exp(log_term)
        log_term += math.log(n - i) - math.log(i + 1)
    return min(total, 1.0)


def median_interval(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """(lo, hi, coverage): 0-based ranks of the sorted samples that bound the
    median's interval. lo is the largest index with P(B <= lo) <= (1 -
    confidence) / 2 for B ~ Binomial(n, 1/2); below 6 samples none reaches
    95%, and [min, max] is given with the coverage it has. O(lo): the
    cumulative sum grows term by term."""
    if n <= 0:
        return 0, 0, 0.0
    half_alpha = (1 - confidence) / 2
    log_term = -n * math.log(2.0)
    cdf = math.exp(log_term)
    lo = 0
    while 2 * (lo + 1) < n:
        log_term += math.log(n - lo) - math.log(lo + 1)
        if cdf + math.exp(log_term) > half_alpha:
            break
        cdf += math.exp(log_term)
        lo += 1
    return lo, n - 1 - lo, 1 - 2 * cdf


def _median(v: list[float]) -> float:
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    median: float
    std: float  # population (1/N)
    sample_std: float  # 1/(N-1)
    median_low: float  # the median's interval, within [min, max]
    median_high: float
    coverage: float  # of that interval: 0.95, or less below 6 samples
    min: float
    max: float


def summarize(samples) -> Summary:
    """Summary of a non-empty sequence of numbers."""
    v = sorted(float(x) for x in samples)
    n = len(v)
    if n == 0:
        raise ValueError("no samples to summarise")
    mean = sum(v) / n
    ss = sum((x - mean) ** 2 for x in v)
    lo, hi, cov = median_interval(n)
    return Summary(
        n,
        mean,
        _median(v),
        math.sqrt(ss / n),
        math.sqrt(ss / (n - 1)) if n > 1 else 0.0,
        v[lo],
        v[hi],
        cov,
        v[0],
        v[-1],
    )


def sign_test_p(k: int, n: int) -> float:
    """Two-sided sign test: k successes in n fair trials."""
    if n == 0:
        return 1.0
    return min(1.0, 2 * min(_binom_half_cdf(k, n), 1 - _binom_half_cdf(k - 1, n)))


@dataclass(frozen=True)
class Comparison:
    """A against B through the per-round ratios a[i] / b[i]."""

    rounds: int
    ratio: float  # median of the ratios
    low: float
    high: float
    coverage: float
    a_faster: int  # rounds with a[i] < b[i]
    p_sign: float
    verdict: str  # "faster", "slower", "tied", "undecided"

    def rounds_to_decide(self, tie: float = TIE) -> int:
        """Rounds in all that would decide an undecided comparison, if the
        median ratio stays and the interval narrows as 1/sqrt(rounds):
        enough to exclude 1 or to fit within the tie band, whichever is
        fewer. The rounds it has when decided."""
        if self.verdict != "undecided":
            return self.rounds
        if not (self.low > 0 and self.ratio > 0):
            return MAX_ROUNDS  # a zero time: nothing to scale
        m = abs(math.log(self.ratio))
        w = max(0.5 * (math.log(self.high) - math.log(self.low)), 1e-12)

        def scaled(need: float) -> int:
            if need <= 0:
                return MAX_ROUNDS
            return min(MAX_ROUNDS, math.ceil(max(self.rounds, 6) * (w / need) ** 2))

        apart = scaled(m) if m > 0 else MAX_ROUNDS
        return max(min(apart, scaled(math.log(1 + tie) - m)), self.rounds + 1)


def compare_paired(a, b, tie: float = TIE) -> Comparison:
    """A's samples against B's, taken in the same rounds (sample i of each
    from round i). A tie comes first: a difference within `tie` is not worth
    acting on, however sure it is."""
    r = [x / y for x, y in zip(a, b, strict=False) if y > 0]
    if not r:
        return Comparison(0, 1.0, 1.0, 1.0, 0.0, 0, 1.0, "undecided")
    s = summarize(r)
    faster = sum(x < 1 for x in r)
    p = sign_test_p(faster, sum(x != 1 for x in r))
    verdict = "undecided"
    if s.coverage + 1e-12 >= CONFIDENCE:
        if s.median_low >= 1 / (1 + tie) and s.median_high <= 1 + tie:
            verdict = "tied"
        elif s.median_high < 1:
            verdict = "faster"
        elif s.median_low > 1:
            verdict = "slower"
    return Comparison(len(r), s.median, s.median_low, s.median_high, s.coverage, faster, p, verdict)
