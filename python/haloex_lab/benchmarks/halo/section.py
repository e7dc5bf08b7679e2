"""The halo benchmark's part of the report (the 2016 paper's chapters 4 and
5): the machine's noise, the recommendation, each sweep against subdomain
size, communication against work, cubic against non-cubic subdomains, and
strong scaling."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ...link_state import LinkState, link_state
from ...plots import figure_link
from . import figures
from .noise import Calibration, calibration, physics_flags
from .points import halo_sweeps, setup_text, speedups, strong_series
from .recommend import Recommendation, format_recommendations, recommendations


def _analysed(records: list[dict]) -> tuple[dict, dict, Calibration | None, LinkState | None, list]:
    """The sweeps, the strong-scaling series, the calibration, the link
    state and the recommendations of one machine's records."""
    sweeps, strong = halo_sweeps(records), strong_series(records)
    cal = calibration(records)
    link = link_state(records)
    return sweeps, strong, cal, link, recommendations(sweeps, strong, cal, link)


def recommendation(records: list[dict]) -> str:
    """The recommendation table (markdown, empty without halo points) that
    `haloex-lab report` prints."""
    *_, cal, _link, recs = _analysed(records)
    return format_recommendations(recs, cal) if recs else ""


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """The halo part of the report for the records of one machine; the
    noise section is always there (it says when there is no calibration)."""
    sweeps, strong, cal, link, recs = _analysed(records)
    md = _noise_section(cal, physics_flags(sweeps), link)
    if recs:
        md += _recommendation_section(recs, cal)
    if sweeps:
        md += _sweep_sections(sweeps, figdir, formats)
        md += _comm_work_sections(sweeps, figdir, formats)
    if strong:
        md += _strong_sections(strong, figdir, formats)
    return md


def _noise_section(cal, flags: list[str], link=None) -> list[str]:
    """The machine's noise (from the campaign's calibration points) and the
    points that break what physics says, before any result."""
    md = ["## Noise", ""]
    if cal:
        md.append(
            f"Calibration ({cal.what}, {cal.rounds} rounds, {cal.records} record(s)): two rounds of the same "
            f"exchange typically differ by {100 * cal.noise:.1f}% (median |ln ratio| of consecutive rounds). "
            "Recommendation rows whose leader varies by more than twice that are marked."
        )
    else:
        md.append('No calibration point in these records (a campaign point named "calibration" gives one).')
    if link:
        md += ["", link.text()]
    if flags:
        md += [
            "",
            "Points that break physics (more bytes in less time, the medians' intervals apart): the machine "
            "changed state between these sizes, so compare strategies within a size, not sizes with each "
            "other (docs/statistics.md):",
            "",
            *[f"- {f}" for f in flags],
        ]
    return [*md, ""]


def _recommendation_section(recs: list[Recommendation], cal: Calibration | None) -> list[str]:
    return [
        "## Recommendation",
        "",
        "Fastest strategy per subdomain size by median time, then every other strategy against it "
        "through the per-round ratios of the same rounds (median ratio and its 95% interval): "
        "\"B takes x% longer [low, high], longer in k/n rounds\" is B's time over the leader's; "
        "strategies within 2% of the "
        "leader are named with it as a set; `auto` is not ranked, it runs what it chose. An undecided "
        "row says how many rounds would decide it.",
        "",
        format_recommendations(recs, cal),
    ]


def _halo_table(series: dict, x_key: str, x_name: str) -> str:
    lines = [
        f"| {x_name} | strategy | median us | median's 95% interval us | std us | B_eff GB/s | Mupd/core/s "
        "| vs staged |",
        "|---:|---|---:|---|---:|---:|---:|---:|",
    ]
    staged = {p.record[x_key]: p.time.median for p in series.get("staged", [])}
    rows = [p for pts in series.values() for p in pts]
    rows.sort(key=lambda p: (p.record[x_key], p.time.median))
    for p in rows:
        t = p.time
        rel = t.median / staged[p.record[x_key]] if p.record[x_key] in staged else float("nan")
        lines.append(
            f"| {p.record[x_key]} | {p.strategy} | {t.median * 1e6:.2f} | [{t.median_low * 1e6:.2f}, "
            f"{t.median_high * 1e6:.2f}] | {t.std * 1e6:.2f} | "
            f"{p.record['halo_bytes'] / t.median / 1e9:.2f} | "
            f"{p.updates.median / 1e6:.2f} | {rel:.3f} |"
        )
    return "\n".join(lines) + "\n"


def _overlap_table(series: dict) -> list[str]:
    """Overlap with synthetic work, where the sweep measured it."""
    if not any("overlap_fraction" in p.record for pts in series.values() for p in pts):
        return []
    md = [
        "Overlap with synthetic work (share of the exchange hidden, medians):",
        "",
        "| L | strategy | exchange us | with work us | hidden |",
        "|---:|---|---:|---:|---:|",
    ]
    for pts in series.values():
        for p in pts:
            if "overlap_fraction" in p.record:
                md.append(
                    f"| {p.record['local_size']} | {p.strategy} | {p.time.median * 1e6:.2f} | "
                    f"{p.record['median_overlap_time_per_call_s'] * 1e6:.2f} | "
                    f"{p.record['overlap_fraction']:.3f} |"
                )
    md.append("")
    return md


def _sweep_sections(sweeps: dict, figdir: Path, formats) -> list[str]:
    """A figure and a table per sweep against subdomain size."""
    md = ["## Halo exchange against subdomain size", ""]
    for i, ((shape, ranks, grid, setup), series) in enumerate(
        sorted(sweeps.items(), key=lambda kv: str(kv[0]))
    ):
        grid_text = "x".join(map(str, grid)) if grid else "?"
        title = f"{shape} subdomains, {ranks} ranks ({grid_text}), {setup_text(setup)}"
        names = figures.halo_sweep(series, title, figdir, f"halo_{shape}_np{ranks}_{i}", formats)
        md += [f"### {title}", "", figure_link(names, title), _halo_table(series, "local_size", "L")]
        md += _overlap_table(series)
    return md


def _comm_work_sections(sweeps: dict, figdir: Path, formats) -> list[str]:
    """Communication against work over all sweeps, then cubic against
    non-cubic subdomains where a rank count and setup measured both."""
    names = figures.comm_work(sweeps, figdir, formats)
    md = [
        "### Communication against work",
        "",
        "Analytic halo sites per owned site (cubic (6L^2+12L+8)/L^3; non-cubic x, 1.5x, 2x: "
        "(13x^2+18x+8)/3x^3) beside what the plans really moved, and the measured exchange time per "
        "owned site.",
        "",
        figure_link(names, "communication against work"),
    ]
    pairs = defaultdict(dict)
    for (shape, ranks, _grid, setup), series in sweeps.items():
        pairs[(ranks, setup)][shape] = series
    for (ranks, setup), shapes in sorted(pairs.items(), key=lambda kv: str(kv[0])):
        if "cubic" in shapes and "noncubic" in shapes:
            title = f"cubic against non-cubic subdomains, {ranks} ranks, {setup_text(setup)}"
            names = figures.noncubic(
                shapes["cubic"], shapes["noncubic"], title, figdir, f"noncubic_np{ranks}", formats
            )
            md += [f"### {title}", "", figure_link(names, title)]
    return md


def _strong_sections(strong: dict, figdir: Path, formats) -> list[str]:
    """A figure, a table and the speedups per strong-scaling series."""
    md = ["## Strong scaling", ""]
    for i, ((glob, setup), series) in enumerate(sorted(strong.items(), key=lambda kv: str(kv[0]))):
        base, sp = speedups(series)
        gtext = "x".join(map(str, glob))
        title = f"global lattice {gtext}, {setup_text(setup)}"
        names = figures.strong(series, sp, base, title, figdir, f"strong_{gtext}_{i}", formats)
        md += [
            f"### {title}",
            "",
            figure_link(names, title),
            _halo_table(series, "ranks", "ranks"),
            f"Speedup against each strategy's own base, against {base}, and parallel efficiency:",
            "",
            "| strategy | ranks | S own | S common | E |",
            "|---|---:|---:|---:|---:|",
        ]
        for s, v in sorted(sp.items()):
            for r, a, b, e in zip(v.ranks, v.own, v.common, v.efficiency, strict=True):
                md.append(f"| {s} | {r} | {a:.3f} | {b:.3f} | {e:.3f} |")
        md.append("")
    return md
