"""Summary statistics of benchmark samples, the same definitions as the C++
side (src/bench/stats.cpp): population standard deviation for error bars
(the 2016 paper's eq. 3.1), Student-t 95% confidence interval of the mean.

The t quantile is scipy's; the C++ side, without scipy, uses a table to 30
degrees of freedom and interpolation beyond it, within 5e-4 of this one."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import t as student_t


def t_quantile_975(dof: int) -> float:
    """The 97.5% quantile of Student's t with `dof` degrees of freedom (the
    two-sided 95% interval); 0 for no degrees of freedom (one sample)."""
    return float(student_t.ppf(0.975, dof)) if dof > 0 else 0.0


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
