"""The halo benchmark's figures: a sweep's four panels against the
subdomain edge, communication against work, cubic against non-cubic
subdomains, and strong scaling. Each returns the file names it wrote."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...plots import plt, save, strategy_order, style
from ...stats import compare_paired
from .points import CALLS, HaloPoint, Speedup, comm_work_ratio, element_bytes, run_of


def _relative(p: HaloPoint, base: HaloPoint) -> float:
    """p's time over base's: the median of the ratios of the rounds both ran
    when they ran in one invocation (strategies that left the race early
    have fewer rounds, and medians over different rounds need not compare),
    else the ratio of the medians."""
    if run_of(p.record) == run_of(base.record):
        return compare_paired(p.record["time_per_call_s"], base.record["time_per_call_s"]).ratio
    return p.time.median / base.time.median


def halo_sweep(series: dict[str, list[HaloPoint]], title: str, out: Path, name: str, formats) -> list[str]:
    """Four panels against the subdomain edge L: time for 2000 calls, effective
    bandwidth against the halo bytes, updates per core per second, and the
    runtime relative to staged. Error bars: standard deviation."""
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5), constrained_layout=True)
    staged = {p.record["local_size"]: p for p in series.get("staged", [])}
    for i, s in enumerate(strategy_order(series)):
        pts = series[s]
        L = [p.record["local_size"] for p in pts]
        st = style(i)
        ax[0, 0].errorbar(
            L, [CALLS * p.time.mean for p in pts], yerr=[CALLS * p.time.std for p in pts], label=s, **st
        )
        ax[0, 1].errorbar(
            [p.record["halo_bytes"] / 1e6 for p in pts],
            [p.beff.mean / 1e9 for p in pts],
            yerr=[p.beff.std / 1e9 for p in pts],
            label=s,
            **st,
        )
        ax[1, 0].errorbar(
            L, [p.updates.mean / 1e6 for p in pts], yerr=[p.updates.std / 1e6 for p in pts], label=s, **st
        )
        rel = [
            (p.record["local_size"], _relative(p, staged[p.record["local_size"]]))
            for p in pts
            if p.record["local_size"] in staged
        ]
        if rel:
            ax[1, 1].plot(
                *zip(*rel, strict=True), label=s, marker=st["marker"], color=st["color"], markersize=4
            )
    ax[0, 0].set(xlabel="subdomain edge L", ylabel=f"time for {CALLS} calls (s)", title="halo exchange time")
    ax[0, 1].set(
        xlabel="halo bytes per rank and exchange (MB)",
        ylabel="B_eff (GB/s)",
        xscale="log",
        title="effective bandwidth",
    )
    ax[1, 0].set(
        xlabel="subdomain edge L", ylabel="updates per core (10^6/s)", title="rate of updates N = sites / t"
    )
    ax[1, 1].set(
        xlabel="subdomain edge L",
        ylabel="time / staged's (median of per-round ratios)",
        title="runtime relative to staged",
    )
    ax[1, 1].axhline(1.0, color="grey", lw=0.8)
    for a in ax.flat:
        a.grid(alpha=0.3)
    ax[0, 0].legend(fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    return save(fig, out, name, formats)


def comm_work(sweeps: dict, out: Path, formats) -> list[str]:
    """The analytic halo/work ratio of cubic and non-cubic subdomains beside
    the ratio the plans really moved (halo sites per owned site), and the
    measured exchange time per owned site."""
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    # Against sites per rank (the work), so that the two shapes compare at
    # equal work: x = V^(1/3) (cubic) or (V/3)^(1/3) (x, 1.5x, 2x).
    volume = np.logspace(np.log10(64), np.log10(1e6), 200)
    for shape, ls, edge in (("cubic", "-", volume ** (1 / 3)), ("noncubic", "--", (volume / 3) ** (1 / 3))):
        ax[0].plot(
            volume,
            [comm_work_ratio(shape, x) for x in edge],
            ls,
            color="black",
            lw=1,
            label=f"analytic, {shape}",
        )
    for i, ((shape, ranks, _grid, setup), series) in enumerate(
        sorted(sweeps.items(), key=lambda kv: str(kv[0]))
    ):
        pts = series.get("staged") or next(iter(series.values()))
        ncomp, dtype = setup[0], setup[1]
        V = [p.record["sites_per_rank"] for p in pts]
        moved = [
            p.record["halo_bytes"] / (ncomp * element_bytes(dtype)) / p.record["sites_per_rank"] for p in pts
        ]
        st = style(i)
        ax[0].plot(
            V, moved, st["marker"], color=st["color"], label=f"plan, {shape}, {ranks} ranks ({setup[3]})"
        )
        ax[1].plot(
            V,
            [p.time.median / p.record["sites_per_rank"] * 1e9 for p in pts],
            marker=st["marker"],
            color=st["color"],
            label=f"{pts[0].strategy}, {shape}, {ranks} ranks",
        )
    ax[0].set(
        xlabel="sites per rank (work)",
        ylabel="halo sites / owned sites",
        xscale="log",
        yscale="log",
        title="communication / work",
    )
    ax[1].set(
        xlabel="sites per rank (work)",
        ylabel="exchange time per owned site (ns)",
        xscale="log",
        yscale="log",
        title="measured exchange cost per site",
    )
    for a in ax:
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    return save(fig, out, "comm_work_ratio", formats)


def noncubic(cubic: dict, noncub: dict, title: str, out: Path, name: str, formats) -> list[str]:
    """Updates per core per second against sites per rank, cubic (solid) and
    non-cubic x 1.5x 2x (dashed) subdomains."""
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, s in enumerate(strategy_order(cubic)):
        st = style(i)
        for series, ls, tag in ((cubic, "-", "cubic"), (noncub, "--", "non-cubic")):
            pts = series.get(s, [])
            if pts:
                ax.errorbar(
                    [p.record["sites_per_rank"] for p in pts],
                    [p.updates.mean / 1e6 for p in pts],
                    yerr=[p.updates.std / 1e6 for p in pts],
                    ls=ls,
                    label=f"{s} {tag}",
                    **st,
                )
    ax.set(xlabel="sites per rank", ylabel="updates per core (10^6/s)", xscale="log", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return save(fig, out, name, formats)


def strong(
    series: dict[str, list[HaloPoint]],
    speed: dict[str, Speedup],
    base: str,
    title: str,
    out: Path,
    name: str,
    formats,
) -> list[str]:
    """Strong scaling: time for 2000 calls, speedup against each strategy's own
    base and against one common base, and parallel efficiency."""
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5), constrained_layout=True)
    for i, s in enumerate(strategy_order(series)):
        pts, sp, st = series[s], speed[s], style(i)
        ax[0, 0].errorbar(
            sp.ranks,
            [CALLS * p.time.mean for p in pts],
            yerr=[CALLS * p.time.std for p in pts],
            label=s,
            **st,
        )
        kw = {"marker": st["marker"], "color": st["color"], "markersize": 4}
        ax[0, 1].plot(sp.ranks, sp.own, label=s, **kw)
        ax[1, 0].plot(sp.ranks, sp.common, label=s, **kw)
        ax[1, 1].plot(sp.ranks, sp.efficiency, label=s, **kw)
    ranks = sorted({r for sp in speed.values() for r in sp.ranks})
    for a in (ax[0, 1], ax[1, 0]):
        a.plot(ranks, [r / ranks[0] for r in ranks], ":", color="grey", label="ideal")
    ax[0, 0].set(xlabel="ranks", ylabel=f"time for {CALLS} calls (s)", title="halo exchange time")
    ax[0, 1].set(
        xlabel="ranks", ylabel="S(p) = T(own base) / T(p)", title="speedup, each against its own base"
    )
    ax[1, 0].set(xlabel="ranks", ylabel="S(p) = T(common) / T(p)", title=f"speedup against {base}")
    ax[1, 1].set(xlabel="ranks", ylabel="E(p) = S(p) / (p / p_base)", title="parallel efficiency")
    for a in ax.flat:
        a.grid(alpha=0.3)
    ax[0, 0].legend(fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    return save(fig, out, name, formats)
