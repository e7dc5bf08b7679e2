"""Statistics against hand-computed values and against scipy (an
independent implementation of the same order-statistic interval and
sign test); the C++ side (tests/test_stats.cpp) checks the same hand values."""

import math
import random

import numpy as np
import pytest
from scipy import stats as sps

from haloex_lab.benchmarks.halo.points import HaloPoint
from haloex_lab.benchmarks.halo.recommend import format_recommendations, recommend
from haloex_lab.stats import compare_paired, median_interval, sign_test_p, summarize


def test_four_samples():
    s = summarize([4.0, 1.0, 3.0, 2.0])
    assert (s.n, s.mean, s.median, s.min, s.max) == (4, 2.5, 2.5, 1.0, 4.0)
    # deviations 1.5, 0.5, 0.5, 1.5: squares sum to 5
    assert s.std == pytest.approx(math.sqrt(5 / 4), abs=1e-15)
    assert s.sample_std == pytest.approx(math.sqrt(5 / 3), abs=1e-15)
    # four samples cannot give 95%: [min, max] covers 1 - 2/16
    assert (s.median_low, s.median_high) == (1.0, 4.0)
    assert s.coverage == pytest.approx(0.875, abs=1e-15)


def test_single_sample_and_empty():
    s = summarize([7])
    assert s.median == 7 and s.std == 0 and s.median_low == s.median_high == 7
    with pytest.raises(ValueError):
        summarize([])


def test_interval_ranks_by_hand():
    # P(B <= k) = sum_{i<=k} C(n, i) / 2^n; lo is the largest k with it <= 0.025
    assert median_interval(6) == (0, 5, pytest.approx(1 - 2 / 64))
    assert median_interval(11) == (1, 9, pytest.approx(1 - 2 * 12 / 2048))
    assert median_interval(20) == (5, 14, pytest.approx(1 - 2 * 21700 / 2**20))


def test_interval_never_leaves_the_samples():
    # the mean's t interval of these reached below zero
    s = summarize([1, 1, 1, 1, 100])
    assert 1 <= s.median_low <= s.median_high <= 100


@pytest.mark.parametrize("n", [6, 7, 10, 11, 20, 31, 50, 101, 200])
def test_interval_matches_scipy(n):
    """scipy's quantile test inverts the same binomial: its 95% interval of
    the median is ours (scipy >= 1.11)."""
    rng = random.Random(n)
    x = [rng.lognormvariate(0, 0.3) for _ in range(n)]
    ci = sps.quantile_test(x, q=float(np.median(x)), p=0.5).confidence_interval(0.95)
    s = summarize(x)
    assert (s.median_low, s.median_high) == (pytest.approx(ci.low), pytest.approx(ci.high))
    lo, hi, cov = median_interval(n)
    assert cov == pytest.approx(sps.binom.cdf(hi, n, 0.5) - sps.binom.cdf(lo, n, 0.5), abs=1e-12)
    assert cov >= 0.95


@pytest.mark.parametrize(("k", "n"), [(0, 6), (2, 10), (5, 10), (9, 11), (3, 40)])
def test_sign_test_matches_scipy(k, n):
    assert sign_test_p(k, n) == pytest.approx(sps.binomtest(k, n, 0.5).pvalue, abs=1e-12)
    assert sign_test_p(2, 10) == pytest.approx(2 * 56 / 1024, abs=1e-15)


def test_pairing_cancels_drift():
    """A is 10% faster than B in every round while the machine drifts by 3x:
    unpaired the medians' intervals overlap; paired every ratio is 0.9."""
    b = [1 + 0.2 * r for r in range(11)]
    a = [0.9 * x for x in b]
    sa, sb = summarize(a), summarize(b)
    assert sb.median_low < sa.median_high
    c = compare_paired(a, b)
    assert (c.rounds, c.a_faster, c.verdict) == (11, 11, "faster")
    assert c.ratio == pytest.approx(0.9) and c.high == pytest.approx(0.9)
    assert c.p_sign == pytest.approx(2 / 2048)
    assert compare_paired(b, a).verdict == "slower"


def test_ties_and_rounds_to_decide():
    ones = [1.0] * 11
    assert compare_paired([1.01 if r % 2 else 0.995 for r in range(11)], ones).verdict == "tied"
    m = compare_paired([1.2 if r % 2 else 0.85 for r in range(11)], ones)
    assert m.verdict == "undecided"
    # median 0.85, interval [0.85, 1.2]: in logs the half-width is
    # (ln 1.2 - ln 0.85) / 2 = 0.1724 against |ln 0.85| = 0.1625 to exclude 1
    assert m.rounds_to_decide() == math.ceil(11 * (0.5 * math.log(1.2 / 0.85) / math.log(1 / 0.85)) ** 2)
    assert compare_paired([1] * 5, [2] * 5).verdict == "undecided"  # 5 rounds cover 94%


def _point(strategy, samples, date="2026-11-25T00:00:00Z", resolved=None):
    r = {
        "benchmark": "halo",
        "strategy": strategy,
        "resolved_strategy": resolved or strategy,
        "time_per_call_s": samples,
        "halo_bytes": 1000.0,
        "local_size": 8,
        "sites_per_rank": 512,
        "date_utc": date,
    }
    return HaloPoint(r, summarize(samples), summarize(samples), summarize(samples))


def _drifting(factor, rounds=11, wobble=0.0):
    return [factor * (1 + 0.3 * r) * (1 + (wobble if r % 2 else -wobble)) for r in range(rounds)]


def test_recommendation_decides_through_pairs():
    """Drift across rounds hides a 5% difference from unpaired intervals;
    the paired rounds decide it. auto is not ranked: it says what it chose."""
    pts = [
        _point("shm", _drifting(1.0)),
        _point("staged", _drifting(1.05)),
        _point("auto", _drifting(1.0), resolved="shm"),
    ]
    r = recommend(pts, "8")
    assert (r.fastest, r.verdict, r.runner_up, r.auto_chose) == ("shm", "decided", "staged", "shm")
    assert r.against.ratio == pytest.approx(1.05)
    assert r.auto_vs_best.ratio == pytest.approx(1.0)
    text = format_recommendations([r])
    assert "`staged` takes 5% longer" in text and "1 of 1 rows decided" in text
    assert "| shm (1.00x) |" in text


def test_recommendation_tied_set_and_undecided():
    tied = recommend(
        [_point("a", _drifting(1.0)), _point("b", _drifting(1.01)), _point("c", _drifting(1.3))], "8"
    )
    assert (tied.verdict, tied.tied, tied.runner_up) == ("tied", ["b"], "c")
    open_ = recommend([_point("a", _drifting(1.0)), _point("b", _drifting(1.03, wobble=0.1))], "8")
    assert open_.verdict == "undecided" and open_.open_with == "b" and open_.rounds_needed > 11
    # records of two runs do not pair
    apart = recommend([_point("a", _drifting(1.0)), _point("b", _drifting(1.3), date="other")], "8")
    assert apart.verdict == "undecided"
