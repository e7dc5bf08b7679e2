"""The machine's state, as the link probe of `bench halo` saw it.

Before each round `bench halo` times a 64 KiB round trip between ranks 0
and 1 (`link_probe_s`, docs/cli.md). On a virtual machine the host can move
the two vCPUs between core complexes, and every exchange between them then
takes several times as long (docs/statistics.md): the probe jumps with it
(25 against 77 us on the same guest). Points whose probe lies well above the
fastest of their report were measured in the slow state; their ranking
holds for that state only."""

from __future__ import annotations

from dataclasses import dataclass

from .stats import summarize

SLOW_LINK = 1.5  # a probe this many times the fastest point's is another state


def probe_us(r: dict) -> float | None:
    """A record's median link probe in microseconds (None without one)."""
    samples = r.get("link_probe_s")
    if not isinstance(samples, list) or not samples:
        return None
    return summarize(samples).median * 1e6


@dataclass
class LinkState:
    """The probes of one report's records."""

    fastest_us: float  # the lowest median probe of any record (above 0)
    slowest_us: float
    points: int  # records (strategy x size) with a probe
    slow_points: int  # of them at SLOW_LINK x fastest_us or more

    def slow(self, r: dict) -> float:
        """The record's probe over the fastest when that marks the slow
        state (at least SLOW_LINK), otherwise 0."""
        p = probe_us(r)
        if p is None:
            return 0.0
        ratio = p / self.fastest_us
        return ratio if ratio >= SLOW_LINK else 0.0

    def text(self) -> str:
        """The report's lines on it."""
        head = (
            f"Link probe (a 64 KiB round trip between ranks 0 and 1 before every round, median per point): "
            f"{self.fastest_us:.1f} us at its fastest"
        )
        if self.slow_points == 0:
            return head + f", at most {self.slowest_us:.1f} us: one machine state throughout."
        return (
            head + f"; {self.slow_points} of {self.points} points took {SLOW_LINK}x that or more (up to "
            f"{self.slowest_us:.1f} us): the machine changed state during these runs. Their rows are "
            "marked (slow link) and hold for that state only (docs/statistics.md)."
        )


def link_state(records: list[dict]) -> LinkState | None:
    """The state of the records that carry a link probe (None if none do)."""
    probes = [p for p in (probe_us(r) for r in records) if p is not None and p > 0]
    if not probes:
        return None
    lo = min(probes)
    slow = sum(p >= SLOW_LINK * lo for p in probes)
    return LinkState(lo, max(probes), len(probes), slow)
