"""The 2-D diffusion stencil's benchmark (`bench stencil`): its records
summarised and grouped into the stencil paper's three experiments (strong
scaling, weak scaling, message size), their figures and the report's
section."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..plots import figure_link, plt, save, strategy_order, style
from ..stats import Summary, summarize


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


def figure(series: dict, x_key: str, title: str, out: Path, name: str, formats) -> list[str]:
    """Halo time and work time of the diffusion application per run against
    ranks or nz, one line per strategy (serial dashed). Error bars: standard
    deviation."""
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    for i, s in enumerate(strategy_order(series)):
        pts = series[s]
        x = [p.record[x_key] for p in pts]
        st = style(i)
        ls = "--" if s == "serial" else "-"
        ax[0].errorbar(
            x,
            [p.halo.mean * 1e3 for p in pts],
            yerr=[p.halo.std * 1e3 for p in pts],
            label=s,
            linestyle=ls,
            **st,
        )
        ax[1].errorbar(
            x,
            [p.work.mean * 1e3 for p in pts],
            yerr=[p.work.std * 1e3 for p in pts],
            label=s,
            linestyle=ls,
            **st,
        )
    xlabel = "ranks" if x_key == "ranks" else "nz (values per column)"
    ax[0].set(xlabel=xlabel, ylabel="halo time per run (ms)", title="halo update", yscale="log")
    ax[1].set(xlabel=xlabel, ylabel="work time per run (ms)", title="13-point update", yscale="log")
    if x_key == "nz":
        for a in ax:
            a.set_xscale("log", base=2)
    ax[0].legend(fontsize=7, ncol=2)
    fig.suptitle(title)
    return save(fig, out, name, formats)


def _table(series: dict, x_key: str) -> str:
    lines = [
        f"| {x_key} | strategy | halo ms | median's 95% interval ms | halo vs staged | work ms | total ms "
        "| speedup vs serial | roofline |",
        "|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    staged = {p.record[x_key]: p.halo.median for p in series.get("staged", [])}
    serial = {p.record[x_key]: p.total.median for p in series.get("serial", [])}
    rows = sorted((p for pts in series.values() for p in pts), key=lambda p: (p.record[x_key], p.halo.median))
    for p in rows:
        x = p.record[x_key]
        rel = f"{p.halo.median / staged[x]:.3f}" if x in staged else "-"
        sp = f"{serial[x] / p.total.median:.2f}" if x in serial else "-"
        rf = p.record.get("roofline_fraction")
        lines.append(
            f"| {x} | {p.strategy} | {p.halo.median * 1e3:.3f} | [{p.halo.median_low * 1e3:.3f}, "
            f"{p.halo.median_high * 1e3:.3f}] | {rel} | {p.work.median * 1e3:.3f} | "
            f"{p.total.median * 1e3:.3f} | {sp} | {'-' if rf is None else f'{rf:.2f}'} |"
        )
    return "\n".join(lines) + "\n"


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """A figure and a table per experiment found in the records."""
    stencil_groups = stencil_series(records)
    if not any(stencil_groups.values()):
        return []
    md = [
        "## 2-D diffusion stencil",
        "",
        "Times of one application run (all its iterations), slowest rank: the halo update and the "
        "13-point work measured apart. `serial` runs the whole domain on one rank with plain copies for "
        "its periodic halo (the reference); speedup is its total time over the strategy's. The roofline "
        "fraction is the work's update rate over the STREAM copy bandwidth measured in the same run / "
        "bytes per update.",
        "",
    ]
    names_seen = 0
    for kind in ("strong", "weak", "nz"):
        for title, x_key, series in stencil_groups[kind]:
            names = figure(series, x_key, title, figdir, f"stencil_{kind}_{names_seen}", formats)
            names_seen += 1
            md += [f"### {title}", "", figure_link(names, title), _table(series, x_key)]
    return md
