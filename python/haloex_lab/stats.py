"""Summary statistics of benchmark samples, the same definitions as the C++
side (src/bench/stats.cpp): population standard deviation for error bars
(the 2016 paper's eq. 3.1), Student-t 95% confidence interval of the mean."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = [
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
]


def t_quantile_975(dof: int) -> float:
    """The 97.5% quantile of Student's t: a table to 30 degrees of freedom, then interpolated."""
    if dof <= 0:
        return 0.0
    if dof <= 30:
        return _T975[dof - 1]
    # Beyond the table, linear in 1/dof between t(30), t(60), t(120) and the
    # normal limit 1.960: the quantile is close to linear in 1/dof, far from
    # linear in dof (as the C++ side, src/bench/stats.cpp).
    x = 1.0 / dof
    if dof <= 60:
        return 2.000 + (2.042 - 2.000) * (x - 1 / 60) / (1 / 30 - 1 / 60)
    if dof <= 120:
        return 1.980 + (2.000 - 1.980) * (x - 1 / 120) / (1 / 60 - 1 / 120)
    return 1.960 + (1.980 - 1.960) * x / (1 / 120)


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    median: float
    std: float  # population (1/N)
    sample_std: float  # 1/(N-1)
    ci95_low: float
    ci95_high: float
    min: float
    max: float

    def ci_overlaps(self, other: Summary) -> bool:
        return self.ci95_low <= other.ci95_high and other.ci95_low <= self.ci95_high


def summarize(samples) -> Summary:
    """Summary of a non-empty sequence of numbers."""
    v = sorted(float(x) for x in samples)
    n = len(v)
    if n == 0:
        raise ValueError("no samples to summarise")
    mean = sum(v) / n
    median = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    ss = sum((x - mean) ** 2 for x in v)
    std = math.sqrt(ss / n)
    sample_std = math.sqrt(ss / (n - 1)) if n > 1 else 0.0
    half = t_quantile_975(n - 1) * sample_std / math.sqrt(n)
    return Summary(n, mean, median, std, sample_std, mean - half, mean + half, v[0], v[-1])
