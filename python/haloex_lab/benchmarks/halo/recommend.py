"""The recommendation: the fastest strategy per subdomain size of every
sweep (and per rank count of every strong-scaling series), decided through
the ratios of samples taken in the same rounds, and its table."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ...link_state import LinkState
from ...stats import Comparison, compare_paired
from .noise import Calibration
from .points import HaloPoint, run_of


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
