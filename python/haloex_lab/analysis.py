"""From raw records to the quantities the report shows: per-record
summaries, the groups that make one sweep or one scaling series, and the
recommendation of the fastest strategy per subdomain size."""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from dataclasses import dataclass

from .link_state import LinkState
from .stats import Comparison, Summary, compare_paired, summarize

CALLS = 2000  # the 2016 paper reports the time for 2000 calls of the halo routine


def _tuple(v):
    return tuple(v) if isinstance(v, list) else v


def machine(r: dict) -> tuple:
    """Where a record ran, as far as it decides whether two results are
    comparable: the machine (host names without their trailing node
    numbers, so nid001 and nid002 are one machine), how many of its nodes
    the run spanned (ranks on one node and on two talk differently), the
    MPI library, the launcher and the MPI settings of the environment
    (OMPI_MCA_*, MPICH_*, ...). Records written before haloex recorded
    placement give their host and MPI library only."""
    p = r.get("placement") or {}
    hosts = p.get("hosts") or [r.get("host", "?")]
    stems = tuple(sorted({re.sub(r"[-_]?\d+$", "", h) or h for h in hosts}))
    env = tuple(sorted((p.get("mpi_env") or {}).items()))
    return (stems, len(set(hosts)), r.get("mpi_library", "?"), p.get("launcher", "?"), env)


def machine_text(key: tuple) -> str:
    stems, nodes, lib, launcher, env = key
    settings = " ".join(f"{k}={v}" for k, v in env) or "no MPI settings"
    lib = lib.split(",")[0]  # "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
    where = f"{'+'.join(stems)}" + (f" ({nodes} nodes)" if nodes > 1 else "")
    return f"{where}, {lib}, launcher {launcher}, {settings}"


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


@dataclass
class Recommendation:
    """The fastest strategy at one size, decided through paired rounds.

    `verdict`: "decided" (the leader is faster than every other), "tied"
    (the leader and `tied` within 2% of each other, every other slower),
    "undecided" (some strategy, `open_with`, is neither slower than the
    leader nor tied with it yet), or "only one". `against` compares the
    runner-up outside the tied set (or the open one) with the leader: its
    ratio is the runner-up's time over the leader's, per round."""

    label: str
    fastest: str
    median_s: float
    verdict: str
    tied: list[str]
    runner_up: str
    against: Comparison | None
    rounds: int
    rounds_needed: int  # for an undecided row: rounds in all that would decide it
    open_with: str = ""
    auto_chose: str = ""
    noisy: bool = False  # the leader's spread exceeds the campaign's calibration
    auto_vs_best: Comparison | None = None  # auto's samples over the leader's, same rounds
    leader: HaloPoint | None = None  # the fastest strategy's point
    slow_link: float = 0.0  # the leader's link probe over the report's fastest, when in the slow state

    @property
    def decided(self) -> bool:
        return self.verdict in ("decided", "tied")


def _paired(points: list[HaloPoint]) -> bool:
    """Samples of one invocation, one per round from the first round on:
    sample i of every strategy is from round i, so they pair (a strategy
    that left the race early, decidedly slower, has fewer)."""
    return len({run_of(p.record) for p in points}) == 1


def run_of(r: dict) -> str:
    """The invocation a record came from: its run_id, or for records written
    before haloex recorded one, its date (to the second)."""
    return r.get("run_id") or r.get("date_utc", "")


def recommend(points: list[HaloPoint], label: str) -> Recommendation | None:
    """Rank the strategies of one size by median, then compare every other
    with the leader through the ratios of the same rounds. `auto` is not
    ranked: it runs the strategy it chose, which is."""
    if not points:
        return None
    auto = [p for p in points if p.strategy == "auto"]
    chose = auto[0].record.get("resolved_strategy", "") if auto else ""
    ranked = sorted((p for p in points if p.strategy != "auto"), key=lambda p: p.time.median)
    if not ranked:
        return None
    best = ranked[0]
    rounds = max(len(p.record["time_per_call_s"]) for p in ranked)
    rec = _recommend_ranked(ranked, label, rounds, chose)
    best = next(p for p in ranked if p.strategy == rec.fastest)
    rec.leader = best
    if auto and _paired([auto[0], best]):
        rec.auto_vs_best = compare_paired(auto[0].record["time_per_call_s"], best.record["time_per_call_s"])
    return rec


def _paired_leader(ranked: list[HaloPoint]) -> HaloPoint:
    """The lowest median leads, unless another strategy is decidedly faster
    than it in the rounds both ran (medians over different numbers of rounds
    can disagree with the pairs when strategies left the race at different
    times); then the one the pairs favour most leads, and so on."""
    best = ranked[0]
    for _ in ranked:
        faster = [
            (c.ratio, p)
            for p in ranked
            if p is not best
            and (c := compare_paired(p.record["time_per_call_s"], best.record["time_per_call_s"])).verdict
            == "faster"
        ]
        if not faster:
            break
        best = min(faster, key=lambda x: x[0])[1]
    return best


def _recommend_ranked(ranked: list[HaloPoint], label: str, rounds: int, chose: str) -> Recommendation:
    best = ranked[0]
    if len(ranked) == 1:
        return Recommendation(
            label, best.strategy, best.time.median, "only one", [], "-", None, rounds, 0, auto_chose=chose
        )
    if not _paired(ranked):
        c = None
        return Recommendation(
            label,
            best.strategy,
            best.time.median,
            "undecided",
            [],
            ranked[1].strategy,
            c,
            rounds,
            0,
            "not measured in the same rounds",
            chose,
        )
    best = _paired_leader(ranked)
    ranked = [best, *(p for p in ranked if p is not best)]
    tied, slower, undecided = [], [], []
    for p in ranked[1:]:
        c = compare_paired(p.record["time_per_call_s"], best.record["time_per_call_s"])
        {"tied": tied, "slower": slower}.get(c.verdict, undecided).append((p.strategy, c))
    if undecided:
        name, c = undecided[0]
        need = max(x.rounds_to_decide() for _, x in undecided)
        return Recommendation(
            label,
            best.strategy,
            best.time.median,
            "undecided",
            [n for n, _ in tied],
            name,
            c,
            rounds,
            need,
            name,
            chose,
        )
    name, c = slower[0] if slower else ("-", None)
    return Recommendation(
        label,
        best.strategy,
        best.time.median,
        "tied" if tied else "decided",
        [n for n, _ in tied],
        name,
        c,
        rounds,
        rounds,
        "",
        chose,
    )


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


def recommendations(
    sweeps: dict, strong: dict, cal: Calibration | None = None, link: LinkState | None = None
) -> list[Recommendation]:
    """One recommendation per subdomain size of every sweep (halo_sweeps) and
    per rank count of every strong-scaling series (strong_series); with a
    calibration, rows whose leader varies more than the machine's noise are
    marked, and with link probes, rows measured in the slow state."""
    out = []
    # Sweeps of several fields side by side: each row names its field.
    several = len({key[3] for key in sweeps} | {key[1] for key in strong}) > 1
    for (shape, ranks, _grid, setup), series in sorted(sweeps.items(), key=lambda kv: str(kv[0])):
        field = f", {setup[0]} x {setup[1]} {setup[2]}" if several else ""
        by_size: dict = defaultdict(list)
        for pts in series.values():
            for p in pts:
                by_size[
                    tuple(p.record["local_extent"])
                    if "local_extent" in p.record
                    else (p.record["local_size"],)
                ].append(p)
        for ext, pts in sorted(by_size.items()):
            label = f"{'x'.join(map(str, ext))} ({shape}, {ranks} ranks{field})"
            out.append(recommend(pts, label))
    for (glob, _setup), series in sorted(strong.items(), key=lambda kv: str(kv[0])):
        by_ranks: dict = defaultdict(list)
        for pts in series.values():
            for p in pts:
                by_ranks[p.record["ranks"]].append(p)
        for ranks, pts in sorted(by_ranks.items()):
            ext = pts[0].record.get("local_extent", [])
            label = f"{'x'.join(map(str, ext))} (global {'x'.join(map(str, glob))}, {ranks} ranks)"
            out.append(recommend(pts, label))
    out = [r for r in out if r]
    for r in out:
        if cal:
            r.noisy = r.leader is not None and cal.exceeded_by(r.leader.record["time_per_call_s"])
        if link and r.leader is not None:
            r.slow_link = link.slow(r.leader.record)
    return out


def _percent(x: float) -> str:
    return f"{100 * (x - 1):+.0f}%"


def verdict_text(r: Recommendation) -> str:
    """What a row says, in words a user can act on."""
    c = r.against
    if r.verdict == "only one":
        return "only one strategy"
    if r.verdict == "undecided":
        if r.open_with == "not measured in the same rounds":
            return "undecided: the strategies were not measured in the same rounds"
        return (
            f"undecided: `{r.open_with}` takes {c.ratio:.3f}x [{c.low:.3f}, {c.high:.3f}] of the leader's "
            f"time; about {r.rounds_needed} rounds would decide"
        )
    lead = (
        f"`{r.fastest}`" if not r.tied else ", ".join(f"`{n}`" for n in [r.fastest, *r.tied]) + " within 2%"
    )
    if c is None:
        return f"{lead} (every other strategy tied)"
    return (
        f"{lead}; `{r.runner_up}` takes {c.ratio - 1:.0%} longer "
        f"[{_percent(c.low)}, {_percent(c.high)}], longer in {c.rounds - c.a_faster}/{c.rounds} rounds"
    )


NOISY_MACHINE = 0.05  # calibration rounds typically more than 5% apart


def format_recommendations(recs: list[Recommendation], cal: Calibration | None = None) -> str:
    """A markdown table (also readable as plain text), with how many rows
    are decided, and a warning when the calibration found the machine noisy."""
    lines = [
        "| subdomain per rank | fastest | median us | verdict (paired rounds) | rounds "
        "| auto chose (its time / the fastest's) |",
        "|---|---|---:|---|---:|---|",
    ]
    for r in recs:
        flag = " (spread above the machine's noise)" if r.noisy else ""
        if r.slow_link:
            flag += f" (slow link: probe {r.slow_link:.1f}x the fastest)"
        auto = r.auto_chose or "-"
        if r.auto_vs_best:
            auto += f" ({r.auto_vs_best.ratio:.2f}x)"
        lines.append(
            f"| {r.label} | {r.fastest} | {r.median_s * 1e6:.2f} | {verdict_text(r)}{flag} | {r.rounds} "
            f"| {auto} |"
        )
    decided = sum(r.decided for r in recs)
    lines.append("")
    lines.append(
        f"{decided} of {len(recs)} rows decided (a winner, or a set within 2% of each other, at 95% "
        "through the ratios of the same rounds); an undecided row gives the rounds that would decide it."
    )
    if cal and cal.noise > NOISY_MACHINE:
        lines.append(
            f"Warning: the machine was noisy during this run: two rounds of the calibration's exchange "
            f"typically differ by {100 * cal.noise:.0f}% (a quiet one: 1-3%). The decisions hold for the "
            "conditions of this run; run it again when the machine is quiet (docs/statistics.md)."
        )
    return "\n".join(lines) + "\n"


def comm_work_ratio(shape: str, x: float) -> float:
    """Analytic halo sites per owned site of the 2016 paper's section 4:
    cubic (6x^2 + 12x + 8) / x^3; non-cubic x, 1.5x, 2x:
    (13x^2 + 18x + 8) / 3x^3 (the faces are x*1.5x, 1.5x*2x and 2x*x)."""
    if shape == "noncubic":
        return (13 * x * x + 18 * x + 8) / (3 * x**3)
    return (6 * x * x + 12 * x + 8) / x**3


def element_bytes(dtype: str) -> int:
    return 4 if dtype == "float" else 8


@dataclass
class StencilPoint:
    """One strategy of one `bench stencil` case, summarised (seconds per run)."""

    record: dict
    total: Summary
    halo: Summary
    work: Summary

    @property
    def strategy(self) -> str:
        return self.record["strategy"]


def stencil_point(r: dict) -> StencilPoint:
    return StencilPoint(
        r, summarize(r["total_time_s"]), summarize(r["halo_time_s"]), summarize(r["work_time_s"])
    )


def _by_strategy(recs: list[dict], x) -> dict[str, list[StencilPoint]]:
    out: dict[str, list[StencilPoint]] = defaultdict(list)
    for r in sorted(recs, key=x):
        out[r["strategy"]].append(stencil_point(r))
    return dict(out)


def stencil_series(records: list[dict]) -> dict[str, list[tuple]]:
    """The stencil paper's three experiments, recognised from the records:
    "strong" (one nx x ny x nz on several rank counts), "weak" (the same sites
    per rank and nz on several rank counts and domain sizes) and "nz" (one
    nx x ny and rank count over several nz). Each entry is (title, x key,
    {strategy: [StencilPoint]}) with the points ordered along x."""
    st = [r for r in records if r["benchmark"] == "stencil"]

    # A run over several nz is a message-size sweep and nothing else; the
    # scaling series are sought among the other records of the same file.
    def run(r):
        return (r.get("_source"), r.get("campaign_point"), r.get("date_utc"), r["ranks"])

    nzs_of_run: dict = defaultdict(set)
    for r in st:
        nzs_of_run[run(r)].add(r["nz"])

    def key(r):
        return (
            r.get("precision"),
            r.get("iterations_per_sample"),
            r.get("threads_per_rank"),
            r.get("_source"),
        )

    groups: dict[str, list[tuple]] = {"strong": [], "weak": [], "nz": []}
    strong, weak, nz = defaultdict(list), defaultdict(list), defaultdict(list)
    for r in st:
        if len(nzs_of_run[run(r)]) > 1:
            nz[(r["nx"], r["ny"], r["ranks"], *key(r))].append(r)
        else:
            strong[(r["nx"], r["ny"], r["nz"], *key(r))].append(r)
            weak[(r["nx"] * r["ny"] / r["ranks"], r["nz"], *key(r))].append(r)
    for k, recs in sorted(strong.items(), key=lambda kv: str(kv[0])):
        if len({r["ranks"] for r in recs}) > 1:
            title = f"strong scaling, {k[0]}x{k[1]}x{k[2]}, {k[3]}, {k[4]} iterations"
            groups["strong"].append((title, "ranks", _by_strategy(recs, lambda r: r["ranks"])))
    for k, recs in sorted(weak.items(), key=lambda kv: str(kv[0])):
        if len({r["ranks"] for r in recs}) > 1 and len({r["nx"] * r["ny"] for r in recs}) > 1:
            title = f"weak scaling, {k[0]:g} columns of nz={k[1]} per rank, {k[2]}, {k[3]} iterations"
            groups["weak"].append((title, "ranks", _by_strategy(recs, lambda r: r["ranks"])))
    for k, recs in sorted(nz.items(), key=lambda kv: str(kv[0])):
        if len({r["nz"] for r in recs}) > 1:
            title = f"message size, {k[0]}x{k[1]} on {k[2]} ranks, {k[3]}, {k[4]} iterations"
            groups["nz"].append((title, "nz", _by_strategy(recs, lambda r: r["nz"])))
    return groups


@dataclass
class LbScaling:
    """One LB configuration on more and more ranks: median MLUPS per rank
    count and the parallel efficiency against its own base (the fewest
    ranks) and against the common base."""

    config: str
    ranks: list[int]
    mlups: list[float]
    own: list[float]  # E(p) = M(p) / (M(p0) p / p0)
    common: list[float]  # E(p) = M(p) / (M_common(p0) p / p0)


def lb_scaling(records: list[dict]) -> dict[tuple, tuple[str, list[LbScaling]]]:
    """The chapter-6 study from `bench lb` records: strong scaling (one
    global lattice, 'strong', ...) and weak scaling (the same sites per
    rank, 'weak', ...), each config on at least two rank counts. Returns
    {(kind, lattice or sites per rank, threads): (common base, [series])};
    the common base is the blocking halo (sendrecv, no overlap) where there
    is one, else the slowest configuration at the fewest ranks."""
    lb = [
        r
        for r in records
        if r.get("benchmark") == "lb"
        and "mlups_samples" in r
        and "global_size" in r
        and not r.get("output_every")
    ]  # (the output comparison has its own table)
    groups: dict[tuple, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in lb:
        m = summarize(r["mlups_samples"]).median
        cfg, ranks, t = r["config"], r["ranks"], r["threads_per_rank"]
        groups[("strong", "x".join(map(str, r["global_size"])), t)][cfg][ranks] = m
        groups[("weak", int(r["lattice_sites"] // ranks), t)][cfg][ranks] = m
    out = {}
    for key, configs in groups.items():
        configs = {c: v for c, v in configs.items() if len(v) >= 2}
        if not configs:
            continue
        p0 = min(min(v) for v in configs.values())
        at_p0 = {c: v[p0] for c, v in configs.items() if p0 in v}
        if not at_p0:
            continue
        blocking = [c for c in at_p0 if "/sendrecv/none/" in c]
        base = blocking[0] if blocking else min(at_p0, key=at_p0.get)
        series = []
        for c, v in sorted(configs.items()):
            ranks = sorted(v)
            own0 = v[ranks[0]] * p0 / ranks[0]  # its own base, scaled to p0 ranks
            # MLUPS count the whole lattice, so for strong and weak scaling
            # alike the ideal is M(p0) p / p0.
            series.append(
                LbScaling(
                    c,
                    ranks,
                    [v[p] for p in ranks],
                    [v[p] / (own0 * p / p0) for p in ranks],
                    [v[p] / (at_p0[base] * p / p0) for p in ranks],
                )
            )
        out[key] = (base, series)
    return out


@dataclass
class OutputCost:
    """One LB configuration with field output every N steps against the
    same configuration without (the 2023 ARCHER2 paper's comparison)."""

    ranks: int
    lattice: str
    config: str  # without the /outN
    every: int
    mlups: float
    mlups_without: float
    write_s: float  # median seconds of one output, begin to end
    bytes_per_write: float

    @property
    def ratio(self) -> float:
        return self.mlups / self.mlups_without


def output_costs(records: list[dict]) -> list[OutputCost]:
    lb = [r for r in records if r.get("benchmark") == "lb" and "mlups_samples" in r and "global_size" in r]
    without = {
        (r["ranks"], r["threads_per_rank"], tuple(r["global_size"]), r["config"]): summarize(
            r["mlups_samples"]
        ).median
        for r in lb
        if not r.get("output_every")
    }
    out = []
    for r in lb:
        if not r.get("output_every"):
            continue
        plain = r["config"].rsplit("/out", 1)[0]
        base = without.get((r["ranks"], r["threads_per_rank"], tuple(r["global_size"]), plain))
        if base:
            out.append(
                OutputCost(
                    r["ranks"],
                    "x".join(map(str, r["global_size"])),
                    plain,
                    r["output_every"],
                    summarize(r["mlups_samples"]).median,
                    base,
                    r["output_time_s_median"],
                    r["output_bytes_per_write"],
                )
            )
    return sorted(out, key=lambda c: (c.lattice, c.ranks, c.config, c.every))
