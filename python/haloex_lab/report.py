"""`haloex-lab report`: a markdown report with tables and figures from a
folder of result files, in the manner of the 2016 paper's chapters 4 and 5.

The report is the run's metadata, then each benchmark's section in the
order of SECTIONS (benchmarks/__init__.py says what a section gives); records
from different machines or MPI configurations get a part each."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pandas as pd

from .benchmarks import coll, io, lb, ludwig, peers, pingpong, rrze, stencil, stream
from .benchmarks.halo import section as halo
from .machines import machine, machine_text
from .results import load_results, write_atomically

# The report's sections, in order: each benchmark's module (benchmarks/).
SECTIONS = (halo, stencil, pingpong, lb, stream, coll, io, peers, ludwig, rrze)


def _metadata(records: list[dict]) -> str:
    keys = ["host", "mpi_library", "mpi_standard", "haloex_version", "git_commit", "compiler", "build_type"]
    lines = ["| key | value |", "|---|---|"]
    for k in keys:
        values = sorted({str(r.get(k)) for r in records if k in r})
        lines.append(f"| {k} | {', '.join(values)} |")
    dates = sorted(r["date_utc"] for r in records if "date_utc" in r)
    if dates:
        lines.append(f"| runs | {dates[0]} .. {dates[-1]} |")
    counts = pd.Series([r["benchmark"] for r in records]).value_counts().sort_index()
    lines.append("| records | " + ", ".join(f"{b}: {n}" for b, n in counts.items()) + " |")
    return "\n".join(lines) + "\n"


def build_report(where: Path, out: Path | None = None, formats=("png",)) -> tuple[Path, str]:
    """Write report.md and figures/ under `out` (default: the results folder,
    or the file's folder). Returns the report's path and the recommendation
    table (markdown).

    Records from different machines or MPI configurations (machines.machine)
    are never drawn as one curve: each configuration gets its own part of the
    report, with its figures in figures/m1/, figures/m2/, ..."""
    where = Path(where)
    records = load_results(where)
    out = Path(out) if out else (where if where.is_dir() else where.parent)
    figdir = out / "figures"
    formats = list(formats)
    md = [
        "# haloex benchmark report",
        "",
        f"From {len(records)} records in `{where}`.",
        "",
        "Times are per call of one halo exchange, slowest rank. Tables give medians with the median's "
        "distribution-free 95% interval (order statistics: it always lies within the samples); error bars "
        "in the figures are one standard deviation of the samples (the 2016 paper's convention), around "
        "the mean. Strategies are compared through the ratios of their samples taken in the same round "
        "(docs/statistics.md).",
        "",
        "## Run",
        "",
        _metadata(records),
    ]
    groups = defaultdict(list)
    for r in records:
        groups[machine(r)].append(r)
    if len(groups) == 1:
        body, rec_table = _sections(records, figdir, formats)
    else:
        body, rec_table = _parts(groups, figdir, formats)
    md += body
    path = out / "report.md"
    write_atomically(path, "\n".join(md) + "\n")
    return path, rec_table


def _parts(groups: dict, figdir: Path, formats) -> tuple[list[str], str]:
    """Records of several machines or configurations: a table of them, then
    a part each, with its figures in figures/m1/, figures/m2/, ..."""
    md = [
        "## Machines and configurations",
        "",
        "These results come from different machines or MPI configurations; each has its own part "
        "below, and no curve joins two of them.",
        "",
        "| part | machine, MPI library, launcher, MPI settings | records |",
        "|---|---|---:|",
    ]
    keys = sorted(groups, key=str)
    md += [f"| m{i} | {machine_text(k)} | {len(groups[k])} |" for i, k in enumerate(keys, 1)]
    md.append("")
    tables = []
    for i, k in enumerate(keys, 1):
        body, table = _sections(groups[k], figdir / f"m{i}", formats)
        # The sections link figures/NAME; this part's figures are in figures/mI/.
        md += [f"# Part m{i}: {machine_text(k)}", ""]
        md += [line.replace("](figures/", f"](figures/m{i}/") for line in body]
        if table:
            tables.append(f"On {machine_text(k)}:\n\n{table}")
    return md, "\n".join(tables)


def _sections(records: list[dict], figdir: Path, formats) -> tuple[list[str], str]:
    """The report's sections for records of one machine and configuration,
    and the recommendation table."""
    md = []
    for bench in SECTIONS:
        md += bench.section(records, figdir, formats)
    return md, halo.recommendation(records)
