"""What every figure of the report shares (matplotlib, drawn off-screen):
a marker and colour per series, strategies in one order, saving in the
asked formats (PNG, and SVG on request), and the markdown line that shows
a figure. Each benchmark's module (benchmarks/) draws its own figures with
these; every figure function returns the file names it wrote."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

__all__ = ["MARKERS", "figure_link", "plt", "save", "strategy_order", "style"]


MARKERS = "osD^v<>pPX*h"


def style(i: int) -> dict:
    return {"marker": MARKERS[i % len(MARKERS)], "color": plt.cm.tab20(i % 20), "markersize": 4, "capsize": 2}


def save(fig, out: Path, name: str, formats: list[str]) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for fmt in formats:
        path = out / f"{name}.{fmt}"
        fig.savefig(path, dpi=120, bbox_inches="tight")
        names.append(path.name)
    plt.close(fig)
    return names


def strategy_order(series: dict) -> list[str]:
    # staged first (the reference), then the others by name.
    return sorted(series, key=lambda s: (s != "staged", s))


def figure_link(names: list[str], alt: str) -> str:
    png = next(n for n in names if n.endswith(".png"))
    return f"![{alt}](figures/{png})\n"
