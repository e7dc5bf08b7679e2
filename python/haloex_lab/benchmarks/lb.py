"""The lattice Boltzmann benchmark (`bench lb`): the saturation exercise
(MLUPS against lattice size on fixed resources), worksharing against
tasks, the application's strong and weak scaling (the 2016 paper's chapter
6) and the step rate with output, each with its figure and the report's
section."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..plots import figure_link, plt, save, style
from ..stats import summarize


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """Saturation and worksharing or tasks (any bench lb records), then
    scaling and output cost where the records make such series."""
    md = []
    lb = [r for r in records if r["benchmark"] == "lb"]
    if lb:
        md += _saturation_section(lb, figdir, formats)
        md += _schedule_section(lb, figdir, formats)
    md += _scaling_section(records, figdir, formats)
    md += _output_cost_section(records)
    return md


def lattice_sites(r: dict) -> float:
    # Records before 0.4 lack lattice_sites; they were all 3-D.
    return r.get("lattice_sites", float(r["size"]) ** 3)


def _saturation_section(lb: list[dict], figdir: Path, formats) -> list[str]:
    """MLUPS against lattice size on fixed resources, with the roofline."""
    names = saturation_figure(lb, figdir, formats)
    md = [
        "## Lattice Boltzmann saturation",
        "",
        "MLUPS against lattice size on fixed resources (ranks x threads), with the memory roofline the "
        "benchmark measured in the same run.",
        "",
        figure_link(names, "LB saturation"),
        "| ranks x threads | size | config | median MLUPS | median's 95% interval | roofline fraction |",
        "|---|---:|---|---:|---|---:|",
    ]
    for r in sorted(
        (r for r in lb if "mlups_samples" in r),
        key=lambda r: (r["ranks"], r["threads_per_rank"], r["size"], r["config"]),
    ):
        s = summarize(r["mlups_samples"])
        md.append(
            f"| {r['ranks']} x {r['threads_per_rank']} | {r['size']} | {r['config']} | {s.median:.1f} | "
            f"[{s.median_low:.1f}, {s.median_high:.1f}] | "
            f"{r.get('roofline_fraction', float('nan')):.3f} |"
        )
    md.append("")
    return md


def saturation_figure(records: list[dict], out: Path, formats) -> list[str]:
    """The saturation exercise: MLUPS against lattice sites on fixed resources,
    one line per ranks x threads and kernel/layout configuration."""
    fig, ax = plt.subplots(figsize=(8, 5))
    lines: dict = {}
    for r in records:
        if "mlups_samples" in r:
            key = (r["ranks"], r["threads_per_rank"], r["config"])
            lines.setdefault(key, []).append(r)
    for i, (key, rs) in enumerate(sorted(lines.items())):
        rs.sort(key=lattice_sites)
        samples = [np.array(r["mlups_samples"]) for r in rs]
        ax.errorbar(
            [lattice_sites(r) for r in rs],
            [s.mean() for s in samples],
            yerr=[s.std() for s in samples],
            label=f"{key[0]} rank(s) x {key[1]} thread(s) {key[2]}",
            **style(i),
        )
    ax.set(xscale="log", xlabel="lattice sites", ylabel="MLUPS", title="LB saturation exercise")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return save(fig, out, "lb_saturation", formats)


def _schedule_section(lb: list[dict], figdir: Path, formats) -> list[str]:
    """Taskloop against worksharing where a run timed both on the same
    configuration: the ratio of medians, sample by sample (interleaved)."""
    by: dict = {}
    for r in lb:
        if "mlups_samples" in r and "schedule" in r:
            rest = {
                k: r.get(k)
                for k in (
                    "ranks",
                    "threads_per_rank",
                    "size",
                    "kernel",
                    "layout",
                    "strategy",
                    "overlap",
                    "collision",
                    "geometry",
                    "date_utc",
                    "git_commit",
                )
            }
            by.setdefault(json.dumps(rest, sort_keys=True), {})[r["schedule"]] = r
    rows, pairs = [], {}
    for both in by.values():
        if "worksharing" not in both or "taskloop" not in both:
            continue
        ws, tl = both["worksharing"], both["taskloop"]
        ratios = [t / w for t, w in zip(tl["mlups_samples"], ws["mlups_samples"], strict=True)]
        key = (ws["ranks"], ws["threads_per_rank"], f"{ws['kernel']}/{ws['layout']}")
        pairs.setdefault(key, []).append((lattice_sites(ws), ratios))
        rows.append(
            (
                ws["ranks"],
                ws["threads_per_rank"],
                ws["size"],
                key[2],
                summarize(ws["mlups_samples"]).median,
                summarize(tl["mlups_samples"]).median,
                summarize(ratios).median,
            )
        )
    if not rows:
        return []
    names = schedules_figure(pairs, figdir, formats)
    md = [
        "### Worksharing or tasks",
        "",
        "The same sweep shared among a rank's threads by `omp for` or by `omp taskloop` (one task per "
        "thread), timed interleaved; the ratio is the median of the per-sample ratios.",
        "",
        figure_link(names, "LB schedules"),
        "| ranks x threads | size | kernel/layout | worksharing MLUPS | taskloop MLUPS "
        "| taskloop / worksharing |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for ra, th, size, kl, w, t, q in sorted(rows):
        md.append(f"| {ra} x {th} | {size} | {kl} | {w:.1f} | {t:.1f} | {q:.3f} |")
    return [*md, ""]


def schedules_figure(pairs: dict, out: Path, formats) -> list[str]:
    """Worksharing against taskloop (the 2023 ARCHER2 paper's Figure 5): the
    taskloop rate over the worksharing rate against lattice sites, one line
    per ranks x threads and layout; `pairs` maps (ranks, threads, layout) to
    [(sites, ratio samples)]."""
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, (key, pts) in enumerate(sorted(pairs.items())):
        pts = sorted(pts)
        ax.errorbar(
            [p[0] for p in pts],
            [np.median(p[1]) for p in pts],
            yerr=[np.std(p[1]) for p in pts],
            label=f"{key[0]} rank(s) x {key[1]} thread(s) {key[2]}",
            **style(i),
        )
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set(
        xscale="log",
        xlabel="lattice sites",
        ylabel="taskloop MLUPS / worksharing MLUPS",
        title="LB sweep shared by tasks or by worksharing",
    )
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return save(fig, out, "lb_schedules", formats)


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


def _scaling_section(records: list[dict], figdir: Path, formats) -> list[str]:
    """The 2016 paper's chapter 6: the whole LB application on more ranks."""
    groups = lb_scaling(records)
    if not groups:
        return []
    md = [
        "## LB application scaling (the 2016 paper's chapter 6)",
        "",
        "`bench lb` on one global lattice (strong) or the same sites per rank (weak), each halo "
        "configuration on several rank counts: median MLUPS, and the parallel efficiency "
        "E(p) = M(p) / (M(p0) p / p0) against each configuration's own fewest-ranks run and against the "
        "common base (the blocking `sendrecv` halo without overlap where measured).",
        "",
    ]
    for i, ((kind, what, threads), (base, series)) in enumerate(sorted(groups.items(), key=str)):
        lattice = f"global lattice {what}" if kind == "strong" else f"{what} sites per rank"
        title = f"{kind} scaling, {lattice}, {threads} thread(s) per rank"
        names = scaling_figure(series, base, title, figdir, f"lb_scaling_{kind}_{i}", formats)
        md += [
            f"### {title}",
            "",
            figure_link(names, title),
            "| config | ranks | MLUPS | E own | E common |",
            "|---|---:|---:|---:|---:|",
        ]
        for s in series:
            for p, m, a, b in zip(s.ranks, s.mlups, s.own, s.common, strict=True):
                md.append(f"| {s.config} | {p} | {m:.1f} | {a:.3f} | {b:.3f} |")
        md.append("")
    return md


def scaling_figure(series: list, base: str, title: str, out: Path, name: str, formats) -> list[str]:
    """The 2016 paper's chapter 6: MLUPS and parallel efficiency (against
    each configuration's own base and against `base`) against ranks."""
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.6), constrained_layout=True)
    for i, s in enumerate(series):
        st = style(i)
        kw = {"marker": st["marker"], "color": st["color"], "markersize": 4}
        ax[0].plot(s.ranks, s.mlups, label=s.config, **kw)
        ax[1].plot(s.ranks, s.own, label=s.config, **kw)
        ax[2].plot(s.ranks, s.common, label=s.config, **kw)
    ranks = sorted({r for s in series for r in s.ranks})
    for a in ax[1:]:
        a.plot(ranks, [1.0] * len(ranks), ":", color="grey", label="ideal")
    ax[0].set(xlabel="ranks", ylabel="MLUPS (median)", title="LB update rate")
    ax[1].set(xlabel="ranks", ylabel="E(p) = M(p) / (M(p0) p / p0)", title="efficiency, own base")
    ax[2].set(xlabel="ranks", ylabel="E(p)", title=f"efficiency against {base}")
    for a in ax:
        a.grid(alpha=0.3)
        a.set_xticks(ranks)
    ax[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    return save(fig, out, name, formats)


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


def _output_cost_section(records: list[dict]) -> list[str]:
    """The LB step rate with field output every N steps against without."""
    costs = output_costs(records)
    if not costs:
        return []
    md = [
        "## LB step rate with output",
        "",
        "`bench lb --output-every N`: density, velocity and the mask written every N steps during the "
        "timed steps (each sample completes its last write), against the same configuration without output.",
        "",
        "| lattice | ranks | config | every | MLUPS | without | ratio | ms per output | MB per output |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in costs:
        md.append(
            f"| {c.lattice} | {c.ranks} | {c.config} | {c.every} | {c.mlups:.1f} | {c.mlups_without:.1f} | "
            f"{c.ratio:.3f} | {c.write_s * 1e3:.1f} | {c.bytes_per_write / 1e6:.1f} |"
        )
    return [*md, ""]
