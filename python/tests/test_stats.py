"""Statistics against hand-computed values: the t quantiles against closed
forms and against the C++ side's table, never against scipy itself."""

import math
from statistics import NormalDist

import pytest

from haloex_lab.stats import summarize, t_quantile_975

# t(0.975, 3) to 12 digits: the root of cdf_t3(x) = 0.975 (tables print
# 3.182446; test_t_quantiles_closed_forms checks it against cdf_t3).
T975_3 = 3.18244630528


def closed_t975(nu: int) -> float:
    """The 97.5% quantile of Student's t where it has a closed form: nu = 1
    (Cauchy), nu = 2, and nu = 4 (a cubic's trigonometric root)."""
    p = 0.975
    if nu == 1:
        return math.tan(math.pi * (p - 0.5))
    if nu == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    a = 4 * p * (1 - p)
    q = math.cos(math.acos(math.sqrt(a)) / 3) / math.sqrt(a)
    return 2 * math.sqrt(q - 1)


def cdf_t3(x: float) -> float:
    """Student's t distribution function for 3 degrees of freedom."""
    u = x / math.sqrt(3)
    return 0.5 + (u / (1 + u * u) + math.atan(u)) / math.pi


def cpp_t_quantile_975(dof: int) -> float:
    """The C++ side's t quantile (src/bench/stats.cpp): a 3-decimal table to
    30 degrees of freedom, then linear in 1/dof through t(60), t(120) and the
    normal limit."""
    table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
    table += [2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]
    table += [2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
    if dof <= 30:
        return table[dof - 1]
    x = 1.0 / dof
    if dof <= 60:
        return 2.000 + (2.042 - 2.000) * (x - 1 / 60) / (1 / 30 - 1 / 60)
    if dof <= 120:
        return 1.980 + (2.000 - 1.980) * (x - 1 / 120) / (1 / 60 - 1 / 120)
    return 1.960 + (1.980 - 1.960) * x / (1 / 120)


def test_four_samples():
    s = summarize([4.0, 1.0, 3.0, 2.0])
    assert (s.n, s.mean, s.median, s.min, s.max) == (4, 2.5, 2.5, 1.0, 4.0)
    # deviations 1.5, 0.5, 0.5, 1.5: squares sum to 5
    assert s.std == pytest.approx(math.sqrt(5 / 4), abs=1e-15)
    assert s.sample_std == pytest.approx(math.sqrt(5 / 3), abs=1e-15)
    half = T975_3 * math.sqrt(5 / 3) / 2  # t(0.975, 3) s / sqrt(4)
    assert s.ci95_low == pytest.approx(2.5 - half, abs=1e-11)
    assert s.ci95_high == pytest.approx(2.5 + half, abs=1e-11)


def test_five_samples_median_and_ci():
    s = summarize([10, 12, 11, 13, 14])
    assert s.median == 12 and s.mean == 12
    # sample variance (4+0+1+1+4)/4 = 2.5; t(0.975, 4) from its closed form
    assert s.ci95_high - s.mean == pytest.approx(closed_t975(4) * math.sqrt(2.5 / 5), abs=1e-12)


def test_single_sample_and_empty():
    s = summarize([7])
    assert s.median == 7 and s.std == 0 and s.ci95_low == s.ci95_high == 7
    with pytest.raises(ValueError):
        summarize([])


def test_t_quantiles_closed_forms():
    for nu in (1, 2, 4):
        assert t_quantile_975(nu) == pytest.approx(closed_t975(nu), rel=1e-12), nu
    assert cdf_t3(t_quantile_975(3)) == pytest.approx(0.975, abs=1e-12)
    assert t_quantile_975(3) == pytest.approx(T975_3, abs=1e-11)
    # Many degrees of freedom: the normal quantile, 1.959964 (t is above it
    # by about z (1 + z^2) / (4 dof)).
    z = NormalDist().inv_cdf(0.975)
    for dof in (10**5, 10**7):
        assert t_quantile_975(dof) == pytest.approx(z + z * (1 + z * z) / (4 * dof), abs=1e-8), dof
    assert t_quantile_975(0) == 0.0


def test_t_quantiles_match_the_cpp_side():
    """Python and C++ confidence intervals agree: the C++ table (3 decimals)
    and its interpolation linear in 1/dof are within 5.1e-4 of the quantile
    used here at every number of degrees of freedom."""
    for dof in [*range(1, 130), 500, 10_000, 10**7]:
        assert t_quantile_975(dof) == pytest.approx(cpp_t_quantile_975(dof), abs=5.1e-4), dof


def test_confidence_interval_overlap():
    a, b, c = summarize([1.0, 1.1, 0.9]), summarize([1.05, 1.15, 0.95]), summarize([5.0, 5.1, 4.9])
    assert a.ci_overlaps(b) and b.ci_overlaps(a)
    assert not a.ci_overlaps(c)
