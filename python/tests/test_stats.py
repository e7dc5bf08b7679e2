"""Statistics against hand-computed values."""

import math

import pytest

from haloex_lab.stats import summarize, t_quantile_975


def test_four_samples():
    s = summarize([4.0, 1.0, 3.0, 2.0])
    assert (s.n, s.mean, s.median, s.min, s.max) == (4, 2.5, 2.5, 1.0, 4.0)
    # deviations 1.5, 0.5, 0.5, 1.5: squares sum to 5
    assert s.std == pytest.approx(math.sqrt(5 / 4), abs=1e-15)
    assert s.sample_std == pytest.approx(math.sqrt(5 / 3), abs=1e-15)
    half = 3.182 * math.sqrt(5 / 3) / 2  # t(0.975, 3) s / sqrt(4)
    assert s.ci95_low == pytest.approx(2.5 - half, abs=1e-12)
    assert s.ci95_high == pytest.approx(2.5 + half, abs=1e-12)


def test_five_samples_median_and_ci():
    s = summarize([10, 12, 11, 13, 14])
    assert s.median == 12 and s.mean == 12
    # sample variance (4+0+1+1+4)/4 = 2.5; t(0.975, 4) = 2.776
    assert s.ci95_high - s.mean == pytest.approx(2.776 * math.sqrt(2.5 / 5), abs=1e-12)


def test_single_sample_and_empty():
    s = summarize([7])
    assert s.median == 7 and s.std == 0 and s.ci95_low == s.ci95_high == 7
    with pytest.raises(ValueError):
        summarize([])


def test_t_quantiles_against_scipy():
    """The typed-in table against scipy.stats (the truth): tabulated degrees
    of freedom to the table's 3 decimals, the interpolation (linear in 1/dof)
    beyond them to 5e-4. (Linear in dof, as before, was 5.6e-3 off at 36.)"""
    from scipy.stats import t  # a test dependency (python[test])

    for dof in range(1, 31):
        assert t_quantile_975(dof) == pytest.approx(t.ppf(0.975, dof), abs=5.1e-4), dof
    for dof in [*range(31, 130), 500, 10_000, 10**7]:
        assert t_quantile_975(dof) == pytest.approx(t.ppf(0.975, dof), abs=5e-4), dof
    assert t_quantile_975(0) == 0.0


def test_confidence_interval_overlap():
    a, b, c = summarize([1.0, 1.1, 0.9]), summarize([1.05, 1.15, 0.95]), summarize([5.0, 5.1, 4.9])
    assert a.ci_overlaps(b) and b.ci_overlaps(a)
    assert not a.ci_overlaps(c)
