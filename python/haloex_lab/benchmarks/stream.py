"""The memory bandwidth benchmark (`bench stream`): STREAM copy and triad,
the report's table."""

from __future__ import annotations

from pathlib import Path

from ..stats import summarize


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """A row per ranks x threads and kernel (no figure)."""
    st = [r for r in records if r["benchmark"] == "stream"]
    if not st:
        return []
    md = [
        "## Memory bandwidth (STREAM copy and triad)",
        "",
        "| ranks x threads | kernel | median GB/s | median's 95% interval GB/s |",
        "|---|---|---:|---|",
    ]
    for r in sorted(st, key=lambda r: (r["ranks"], r["threads_per_rank"], r["kernel"])):
        s = summarize(r["bandwidth_bytes_per_s"])
        md.append(
            f"| {r['ranks']} x {r['threads_per_rank']} | {r['kernel']} | {s.median / 1e9:.2f} | "
            f"[{s.median_low / 1e9:.2f}, {s.median_high / 1e9:.2f}] |"
        )
    md.append("")
    return md
