"""The machine's noise as the halo benchmark sees it: calibration points
(a campaign point named "calibration": the same exchange repeated), the
round-to-round variation of a point's samples, and the points that break
physics (more bytes in less time; docs/statistics.md)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass


def is_calibration(r: dict) -> bool:
    """A campaign point named "calibration...": the same exchange repeated,
    to measure the machine's noise, not a point of any sweep."""
    return str(r.get("point_name", "")).lower().startswith("calibration")


def round_noise(samples) -> float:
    """Round-to-round variation of one candidate's samples: the median of
    |ln(x[i+1] / x[i])| over consecutive rounds (0.05: two rounds typically
    5% apart). Robust to a few outliers, and blind to a slow drift, which
    paired comparisons cancel anyway."""
    steps = sorted(abs(math.log(b / a)) for a, b in itertools.pairwise(samples) if a > 0 and b > 0)
    if not steps:
        return 0.0
    n = len(steps)
    return steps[n // 2] if n % 2 else 0.5 * (steps[n // 2 - 1] + steps[n // 2])


@dataclass
class Calibration:
    """The machine's noise, from the calibration points of a campaign."""

    noise: float  # median round_noise over the calibration records
    records: int
    rounds: int
    what: str  # e.g. "staged at 16x16x16 on 2 ranks"

    def exceeded_by(self, samples) -> bool:
        """A point is noisy when its own round-to-round variation is above
        twice the calibration's (and at least 2%)."""
        return round_noise(samples) > max(2 * self.noise, 0.02)


def calibration(records: list[dict]) -> Calibration | None:
    cal = [r for r in records if is_calibration(r) and r.get("time_per_call_s")]
    if not cal:
        return None
    noise = sorted(round_noise(r["time_per_call_s"]) for r in cal)
    r0 = cal[0]
    ext = "x".join(map(str, r0.get("local_extent", [r0.get("local_size", "?")])))
    what = f"{r0.get('strategy')} at {ext} on {r0.get('ranks')} ranks"
    return Calibration(noise[len(noise) // 2], len(cal), len(r0["time_per_call_s"]), what)


def physics_flags(sweeps: dict) -> list[str]:
    """Points where more bytes took less time: within one sweep and
    strategy, a larger subdomain whose median interval lies wholly below a
    smaller one's. Not noise within a run: the machine changed state
    between the sizes (docs/statistics.md)."""
    out = []
    for (shape, ranks, _grid, _setup), series in sorted(sweeps.items(), key=lambda kv: str(kv[0])):
        for name, pts in sorted(series.items()):
            for small, large in itertools.pairwise(pts):
                if large.time.median_high < small.time.median_low:
                    out.append(
                        f"`{name}` ({shape}, {ranks} ranks): L = {large.record['local_size']} took "
                        f"{large.time.median * 1e6:.1f} us, less than L = {small.record['local_size']} "
                        f"({small.time.median * 1e6:.1f} us)"
                    )
    return out
