"""The output benchmark (`bench io`): bandwidth per rank count, format,
I/O grid and lattice size (the ARCHER2 paper's Table 1), a figure and the
report's table."""

from __future__ import annotations

from pathlib import Path

import matplotlib.ticker
import numpy as np
import pandas as pd

from ..plots import figure_link, plt, save, style
from ..stats import summarize


def figure(records: list[dict], out: Path, formats) -> list[str]:
    """Median output bandwidth against lattice size, one line per (ranks,
    I/O grid), with the min-max range of the episodes."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5), constrained_layout=True)

    def key_of(r):
        return r["ranks"], r["format"], "x".join(map(str, r["io_grid"])), r["ncomp"], r.get("hints", "none")

    for i, key in enumerate(sorted({key_of(r) for r in records})):
        rs = sorted((r for r in records if key_of(r) == key), key=lambda r: r["size"])
        L = [r["size"] for r in rs]
        med = np.array([np.median(r["bandwidth_Bps"]) / 1e9 for r in rs])
        lo = med - np.array([np.min(r["bandwidth_Bps"]) / 1e9 for r in rs])
        hi = np.array([np.max(r["bandwidth_Bps"]) / 1e9 for r in rs]) - med
        ax.errorbar(
            L,
            med,
            yerr=[lo, hi],
            label=f"{key[0]} ranks, {key[1]}, io_grid {key[2]}, {key[3]} per site"
            + ("" if key[4] == "none" else f", hints {key[4]}"),
            **style(i),
        )
    ax.set(xscale="log", xlabel="L (L^3 sites)", ylabel="GB/s (median, min-max)", title="Output bandwidth")
    ax.set_xticks(sorted({r["size"] for r in records}))
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.legend(fontsize=7)
    return save(fig, out, "io_bandwidth", formats)


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """Output bandwidth per ranks and lattice size: the ARCHER2 paper's Table 1."""
    io = [r for r in records if r.get("benchmark") == "io"]
    if not io:
        return []
    # Rows (ranks, format, I/O grid, ncomp), a column per size; a cell is the
    # median of the first record's episodes there.
    gbps = pd.DataFrame(
        {
            "ranks": r["ranks"],
            "format": r["format"],
            "io_grid": "x".join(map(str, r["io_grid"])),
            "ncomp": r["ncomp"],
            "hints": r.get("hints", "none"),
            "size": r["size"],
            "GBps": summarize(r["bandwidth_Bps"]).median / 1e9,
        }
        for r in io
    ).pivot_table(
        index=["ranks", "format", "io_grid", "ncomp", "hints"], columns="size", values="GBps", aggfunc="first"
    )
    md = [
        "## Output bandwidth (the ARCHER2 paper's Table 1)",
        "",
        "Median GB/s over the episodes of one output (ncomp doubles per site, written through MPI-IO in "
        "global order, synced to storage and renamed); rows are rank counts, I/O grids and MPI-IO hints "
        "(as asked; the records also keep what the file system reported for them).",
        "",
        figure_link(figure(io, figdir, formats), "output bandwidth"),
        "| ranks | format | io_grid | ncomp | hints | " + " | ".join(f"{L}^3" for L in gbps.columns) + " |",
        "|---:|---|---|---:|---|" + "---:|" * len(gbps.columns),
    ]
    for key, row in gbps.iterrows():
        cells = ["-" if pd.isna(v) else f"{v:.2f}" for v in row]
        md.append("| " + " | ".join(map(str, key)) + " | " + " | ".join(cells) + " |")
    return [*md, ""]
