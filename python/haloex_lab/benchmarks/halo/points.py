"""`bench halo`'s records summarised: one strategy at one size as a
HaloPoint, the fixed-subdomain sweeps and strong-scaling series they make,
speedups, and the analytic halo/work ratio of the 2016 paper's section 4."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ...stats import Summary, summarize
from .noise import is_calibration

CALLS = 2000  # the 2016 paper reports the time for 2000 calls of the halo routine


def _tuple(v):
    return tuple(v) if isinstance(v, list) else v


def halo_setup(r: dict) -> tuple:
    """Everything but the size and strategy that defines a halo measurement."""
    return (
        r.get("ncomp"),
        r.get("dtype"),
        r.get("layout"),
        r.get("halo_plan", "full"),
        r.get("halo_width"),
        r.get("work_s", 0.0),
        r.get("threads_per_rank"),
        r.get("ndim"),
    )


def setup_text(setup: tuple) -> str:
    ncomp, dtype, layout, plan, width, work, threads, ndim = setup
    text = f"{ndim}-D, {ncomp} x {dtype} {layout}, {plan} plan, halo {width}, {threads} thread(s) per rank"
    return text + (f", {work * 1e6:g} us work" if work else "")


@dataclass
class HaloPoint:
    """One strategy at one size, summarised (times per call, in seconds)."""

    record: dict
    time: Summary
    beff: Summary  # bytes/s, from each sample
    updates: Summary  # updates per core per second, from each sample

    @property
    def strategy(self) -> str:
        return self.record["strategy"]


def halo_point(r: dict) -> HaloPoint:
    t = r["time_per_call_s"]
    if not t or min(t) <= 0:
        raise ValueError(f"halo record of {r.get('strategy')} has no positive samples")
    threads = r.get("threads_per_rank", 1)
    sites = r.get("sites_per_rank") or float(r["local_size"]) ** r.get("ndim", 3)
    # Records written before 0.4 lack the keys of the newer sweeps; fill in
    # what they implied (cubic subdomains, full plans).
    r = {"sites_per_rank": sites, "local_extent": [r["local_size"]] * r.get("ndim", 3), **r}
    # As in the paper, derived quantities are computed per sample before their
    # statistics are taken.
    return HaloPoint(
        r,
        summarize(t),
        summarize([r["halo_bytes"] / x for x in t]),
        summarize([sites / (x * threads) for x in t]),
    )


def halo_sweeps(records: list[dict]) -> dict[tuple, dict[str, list[HaloPoint]]]:
    """Fixed-subdomain sweeps: (shape, ranks, process grid, setup) ->
    strategy -> points sorted by subdomain edge."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r.get("benchmark") != "halo" or r.get("scaling", "fixed-subdomain") != "fixed-subdomain":
            continue
        if is_calibration(r):
            continue
        key = (r.get("shape", "cubic"), r["ranks"], _tuple(r.get("process_grid")), halo_setup(r))
        out[key][r["strategy"]].append(halo_point(r))
    for series in out.values():
        for pts in series.values():
            pts.sort(key=lambda p: p.record["local_size"])
    return out


def strong_series(records: list[dict]) -> dict[tuple, dict[str, list[HaloPoint]]]:
    """Strong scaling: (global size, setup) -> strategy -> points by ranks."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r.get("benchmark") == "halo" and r.get("scaling") == "strong":
            out[(_tuple(r["global_size"]), halo_setup(r))][r["strategy"]].append(halo_point(r))
    for series in out.values():
        for pts in series.values():
            pts.sort(key=lambda p: p.record["ranks"])
    return out


@dataclass
class Speedup:
    ranks: list[int]
    own: list[float]  # T(own base) / T(p)
    common: list[float]  # T(common base) / T(p)
    efficiency: list[float]  # own speedup / (p / p_base)


def speedups(series: dict[str, list[HaloPoint]]) -> tuple[str, dict[str, Speedup]]:
    """Speedups of each strategy against its own smallest-rank time and against
    one common base: staged at the smallest rank count (or, without staged,
    the fastest strategy there)."""
    base_ranks = min(p.record["ranks"] for pts in series.values() for p in pts)
    at_base = {s: p.time.median for s, pts in series.items() for p in pts if p.record["ranks"] == base_ranks}
    common_name = "staged" if "staged" in at_base else min(at_base, key=at_base.get)
    common = at_base[common_name]
    out = {}
    for s, pts in series.items():
        own = pts[0].time.median
        p0 = pts[0].record["ranks"]
        ranks = [p.record["ranks"] for p in pts]
        own_s = [own / p.time.median for p in pts]
        out[s] = Speedup(
            ranks,
            own_s,
            [common / p.time.median for p in pts],
            [sp / (r / p0) for sp, r in zip(own_s, ranks, strict=True)],
        )
    return f"{common_name} at {base_ranks} rank(s)", out


def run_of(r: dict) -> str:
    """The invocation a record came from: its run_id, or for records written
    before haloex recorded one, its date (to the second)."""
    return r.get("run_id") or r.get("date_utc", "")


def comm_work_ratio(shape: str, x: float) -> float:
    """Analytic halo sites per owned site of the 2016 paper's section 4:
    cubic (6x^2 + 12x + 8) / x^3; non-cubic x, 1.5x, 2x:
    (13x^2 + 18x + 8) / 3x^3 (the faces are x*1.5x, 1.5x*2x and 2x*x)."""
    if shape == "noncubic":
        return (13 * x * x + 18 * x + 8) / (3 * x**3)
    return (6 * x * x + 12 * x + 8) / x**3


def element_bytes(dtype: str) -> int:
    return 4 if dtype == "float" else 8
