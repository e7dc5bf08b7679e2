"""The ping-pong benchmark (`bench pingpong`): bandwidth and latency
against message size, a figure and the report's table."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..plots import figure_link, plt, save, style
from ..stats import summarize


def figure(records: list[dict], out: Path, formats) -> list[str]:
    """Ping-pong bandwidth and latency against message size (log-log)."""
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    by_run: dict = {}
    for r in records:
        by_run.setdefault(
            (r.get("host"), r.get("mpi_library"), r.get("date_utc"), r.get("buffers", "one")), []
        ).append(r)
    for i, (key, rs) in enumerate(sorted(by_run.items(), key=lambda kv: str(kv[0]))):
        rs = sorted(rs, key=lambda r: r["message_bytes"])
        rs = [r for r in rs if r["message_bytes"] > 0]
        b = [r["message_bytes"] for r in rs]
        st = style(i)
        lat = [np.array(r["latency_s"]) for r in rs]
        bw = [r["message_bytes"] / x for r, x in zip(rs, lat, strict=True)]
        label = f"{key[0]} {str(key[2])[:10]} --buffers {key[3]}"
        ax[0].errorbar(b, [x.mean() / 1e6 for x in bw], yerr=[x.std() / 1e6 for x in bw], label=label, **st)
        ax[1].errorbar(b, [x.mean() * 1e6 for x in lat], yerr=[x.std() * 1e6 for x in lat], label=label, **st)
    ax[0].set(
        xscale="log",
        yscale="log",
        xlabel="message size (bytes)",
        ylabel="bandwidth (MB/s)",
        title="ping-pong bandwidth",
    )
    ax[1].set(
        xscale="log",
        yscale="log",
        xlabel="message size (bytes)",
        ylabel="half round trip (us)",
        title="ping-pong latency",
    )
    for a in ax:
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    return save(fig, out, "pingpong", formats)


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """The figure, and a row per message size and run."""
    pp = [r for r in records if r["benchmark"] == "pingpong"]
    if not pp:
        return []
    names = figure(pp, figdir, formats)
    md = [
        "## Ping-pong",
        "",
        figure_link(names, "ping-pong"),
        "`--buffers`: osu, send and receive buffers apart (as osu_latency); one, one buffer sent back "
        "as received (records from before the option).",
        "",
        "| bytes | --buffers | median latency us | median's 95% interval us | bandwidth MB/s |",
        "|---:|---|---:|---|---:|",
    ]
    for r in sorted(pp, key=lambda r: (r["date_utc"], r.get("buffers", "one"), r["message_bytes"])):
        s = summarize(r["latency_s"])
        bw = r["message_bytes"] / s.median / 1e6
        md.append(
            f"| {r['message_bytes']} | {r.get('buffers', 'one')} | {s.median * 1e6:.3f} | "
            f"[{s.median_low * 1e6:.3f}, {s.median_high * 1e6:.3f}] | {bw:.1f} |"
        )
    md.append("")
    return md
