"""The collective benchmarks (bench clock, coll, overlap, monitor; the
CRESTA paper): their records turned into the tables and figures the report
prints (the global clock, delay benefit with blocking and non-blocking side
by side, overlap availability, and the LB monitoring cost) and the report's
sections. Every number is recomputed from the records' raw samples."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import matplotlib.ticker
import numpy as np

from ..plots import figure_link, plt, save, style


def kind(r: dict) -> str:
    """The operation without its non-blocking prefix: "iallreduce" -> "allreduce"."""
    return r["collective"][1:] if r["nonblocking"] else r["collective"]


def delay_benefit(t0: float, delta: float, t_delta: float) -> float:
    """b = (t0 + delta - t_delta) / t_delta (the CRESTA paper's eq. 3)."""
    return (t0 + delta - t_delta) / t_delta


@dataclass
class DelayRow:
    kind: str
    ranks: int  # of the job (a communicator of procs <= ranks ran while the others sat idle)
    procs: int
    bytes: int
    delay_s: float
    t0_s: dict  # "blocking"/"nonblocking" -> median time at delay 0
    t_delta_s: dict  # ... at this delay
    benefit: dict  # ... b

    def cell(self, form: str, what: str) -> float | None:
        return getattr(self, what).get(form)


def _median_times(records: list[dict]) -> dict:
    """(kind, form, job ranks, procs, bytes, delay) -> median global time, from the samples."""
    out = {}
    for r in records:
        form = "nonblocking" if r["nonblocking"] else "blocking"
        out[(kind(r), form, r["ranks"], r["procs"], r["message_bytes"], r["delay_s"])] = statistics.median(
            r["time_s"]
        )
    return out


def delay_rows(records: list[dict]) -> list[DelayRow]:
    """One row per (operation, communicator size, message size, delay > 0)."""
    coll = [r for r in records if r.get("benchmark") == "coll"]
    med = _median_times(coll)
    rows: dict = {}
    for (k, form, n, p, b, d), t in med.items():
        if d == 0 or (k, form, n, p, b, 0.0) not in med:
            continue
        row = rows.setdefault((k, n, p, b, d), DelayRow(k, n, p, b, d, {}, {}, {}))
        t0 = med[(k, form, n, p, b, 0.0)]
        row.t0_s[form], row.t_delta_s[form] = t0, t
        row.benefit[form] = delay_benefit(t0, d, t)
    return [rows[k] for k in sorted(rows)]


def delay_series(records: list[dict]) -> dict:
    """(kind, bytes, job ranks) -> form -> delay -> sorted [(procs, median time, b or None)]."""
    coll = [r for r in records if r.get("benchmark") == "coll"]
    med = _median_times(coll)
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for (k, form, n, p, b, d), t in sorted(med.items()):
        t0 = med.get((k, form, n, p, b, 0.0))
        ben = delay_benefit(t0, d, t) if d > 0 and t0 else None
        out[(k, b, n)][form][d].append((p, t, ben))
    return out


@dataclass
class OverlapRow:
    mpi_name: str
    ranks: int  # of the job: more than procs means other ranks sat idle
    procs: int
    bytes: int
    test_calls: int
    coll_s: float
    comp_s: float
    overlap_s: float

    @property
    def beta(self) -> float:
        return (self.coll_s + self.comp_s - self.overlap_s) / self.overlap_s

    @property
    def osu_percent(self) -> float:
        return 100 * max(0.0, 1 - (self.overlap_s - self.comp_s) / self.coll_s)

    @property
    def imb_percent(self) -> float:
        return 100 * max(
            0.0, min(1.0, (self.coll_s + self.comp_s - self.overlap_s) / min(self.coll_s, self.comp_s))
        )


def overlap_rows(records: list[dict]) -> list[OverlapRow]:
    """Means over iterations and ranks of the raw times, per record."""

    def mean(rows):
        return statistics.fmean(v for row in rows for v in row)

    out = [
        OverlapRow(
            r["mpi_name"],
            r["ranks"],
            r["procs"],
            r["message_bytes"],
            r.get("test_calls", 0),
            mean(r["coll_s"]),
            mean(r["comp_s"]),
            mean(r["overlap_s"]),
        )
        for r in records
        if r.get("benchmark") == "overlap"
    ]
    return sorted(out, key=lambda o: (o.mpi_name, o.test_calls, o.ranks, o.procs, o.bytes))


def clock_table(records: list[dict]) -> str:
    clocks = [r for r in records if r.get("benchmark") == "clock"]
    if not clocks:
        return ""
    lines = [
        "| run (UTC) | job ranks | rank | skew s (shortest round trip) | mean skew s | std dev us "
        "| shortest round trip us | bound us |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(clocks, key=lambda r: (r.get("date_utc", ""), r["ranks"], r["rank"])):
        lines.append(
            f"| {str(r.get('date_utc', ''))[:19]} | {r['ranks']} | {r['rank']} | {r['skew_s']:+.6f} "
            f"| {r['mean_skew_s']:+.6f} | {r['stddev_skew_s'] * 1e6:.2f} "
            f"| {r['min_round_trip_s'] * 1e6:.2f} | {r['bound_s'] * 1e6:.2f} |"
        )
    return "\n".join(lines) + "\n"


def delay_table(rows: list[DelayRow]) -> str:
    lines = [
        "| operation | job ranks | procs | bytes | delay us | t0 us | t_delta us | b "
        "| t0 us (I) | t_delta us (I) | b (I) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def f(row, form, what, scale, fmt):
        v = row.cell(form, what)
        return "-" if v is None else format(v * scale, fmt)

    for w in rows:
        lines.append(
            f"| {w.kind} | {w.ranks} | {w.procs} | {w.bytes} | {w.delay_s * 1e6:g} | "
            + " | ".join(
                f"{f(w, form, 't0_s', 1e6, '.2f')} | {f(w, form, 't_delta_s', 1e6, '.2f')} | "
                f"{f(w, form, 'benefit', 1, '+.3f')}"
                for form in ("blocking", "nonblocking")
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


def overlap_table(rows: list[OverlapRow]) -> str:
    lines = [
        "| operation | job ranks | procs | bytes | MPI_Test calls | T_coll us | T_comp us | T_overlap us "
        "| beta | OSU % | IMB % |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for o in rows:
        lines.append(
            f"| {o.mpi_name} | {o.ranks} | {o.procs} | {o.bytes} | {o.test_calls} | {o.coll_s * 1e6:.2f} | "
            f"{o.comp_s * 1e6:.2f} | {o.overlap_s * 1e6:.2f} | {o.beta:+.3f} | {o.osu_percent:.1f} | "
            f"{o.imb_percent:.1f} |"
        )
    return "\n".join(lines) + "\n"


def monitor_table(records: list[dict]) -> str:
    mon = [r for r in records if r.get("benchmark") == "monitor"]
    if not mon:
        return ""
    lines = [
        "| ranks | L | config | reductions/sample | T_sim ms | T_LB ms | T_halo ms | T_wait ms | T_mon ms | "
        "MSUPS | T_sim / off |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    med = statistics.median
    for r in mon:
        off = next(
            (
                o
                for o in mon
                if o["config"] == "off"
                and o.get("date_utc") == r.get("date_utc")
                and o["ranks"] == r["ranks"]
                and o["size"] == r["size"]
            ),
            None,
        )
        ratio = "-" if off is None else f"{med(r['sim_s_per_step']) / med(off['sim_s_per_step']):.3f}"
        lines.append(
            f"| {r['ranks']} | {r['size']} | {r['config']} | {r['reductions_per_sample']} | "
            + " | ".join(
                f"{med(r[q]) * 1e3:.4f}"
                for q in (
                    "sim_s_per_step",
                    "lb_s_per_step",
                    "halo_s_per_step",
                    "wait_s_per_step",
                    "mon_s_per_step",
                )
            )
            + f" | {med(r['sups']) / 1e6:.2f} | {ratio} |"
        )
    return "\n".join(lines) + "\n"


def _forms(axes, series: dict, what: int, ylabel: str, title: str, log: bool):
    for a, form in zip(axes, ("blocking", "nonblocking"), strict=True):
        for i, (delay, pts) in enumerate(sorted(series.get(form, {}).items())):
            pts = [p for p in pts if p[what] is not None]
            if not pts:
                continue
            a.plot(
                [p[0] for p in pts],
                [p[what] * (1e6 if what == 1 else 1) for p in pts],
                label=f"delta = {delay * 1e6:g} us",
                **{k: v for k, v in style(i).items() if k != "capsize"},
            )
        a.set_xscale("log", base=2)
        a.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        a.set(xlabel="processes", ylabel=ylabel, title=f"{title} ({form})")
        if log:
            a.set_yscale("log")
        else:
            a.axhline(0, color="0.5", lw=0.8)
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)


def delay_figure(series: dict, op: str, nbytes: int, out: Path, name: str, formats) -> list[str]:
    """The CRESTA paper's figures 4-8 for one operation: the collective time
    t_delta against processes per delay (top) and the delay benefit b
    (bottom), blocking left, non-blocking right."""
    fig, ax = plt.subplots(2, 2, figsize=(12, 8), constrained_layout=True)
    title = f"{op}, {nbytes} B" if nbytes else op
    _forms(ax[0], series, 1, "t_delta (us)", title, log=True)
    _forms(ax[1], series, 2, "delay benefit b", title, log=False)
    return save(fig, out, name, formats)


def overlap_figure(rows: list, out: Path, formats) -> list[str]:
    """The CRESTA paper's figure 11: beta against message size per
    communicator size, one panel per operation."""
    ops = sorted({(o.mpi_name, o.test_calls) for o in rows})
    fig, ax = plt.subplots(1, len(ops), figsize=(6 * len(ops), 4.5), constrained_layout=True, squeeze=False)
    for a, (op, tests) in zip(ax[0], ops, strict=True):
        mine = [o for o in rows if o.mpi_name == op and o.test_calls == tests]
        for i, (n, p) in enumerate(sorted({(o.ranks, o.procs) for o in mine})):
            pts = sorted((o.bytes, o.beta) for o in mine if (o.ranks, o.procs) == (n, p))
            a.plot(
                [x for x, _ in pts],
                [y for _, y in pts],
                label=f"{p} of {n} ranks",
                **{k: v for k, v in style(i).items() if k != "capsize"},
            )
        a.axhline(0, color="0.5", lw=0.8)
        a.set(
            xscale="log",
            xlabel="message size (bytes)",
            ylabel="beta = (T_coll + T_comp - T_overlap) / T_overlap",
            title=f"{op}" + (f", {tests} MPI_Test calls" if tests else ""),
        )
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    return save(fig, out, "overlap_beta", formats)


def monitor_figure(records: list[dict], out: Path, formats) -> list[str]:
    """Time per step of each monitoring configuration, split into the LB
    update, the halo, the reduction's wait and the rest (medians)."""
    med = np.median
    runs = sorted({(r["ranks"], r["size"]) for r in records})
    fig, ax = plt.subplots(1, len(runs), figsize=(6 * len(runs), 4.5), constrained_layout=True, squeeze=False)
    for a, (ranks, size) in zip(ax[0], runs, strict=True):
        rs = [r for r in records if (r["ranks"], r["size"]) == (ranks, size)]
        names = [r["config"] for r in rs]
        bottom = np.zeros(len(rs))
        parts = [("lb_s_per_step", "T_LB"), ("halo_s_per_step", "halo"), ("wait_s_per_step", "T_wait")]
        for i, (q, label) in enumerate(parts):
            v = np.array([med(r[q]) * 1e3 for r in rs])
            a.bar(names, v, bottom=bottom, label=label, color=plt.cm.tab10(i))
            bottom += v
        rest = np.maximum(np.array([med(r["sim_s_per_step"]) * 1e3 for r in rs]) - bottom, 0)
        a.bar(names, rest, bottom=bottom, label="rest of T_sim", color="0.8")
        a.set(ylabel="ms per step", title=f"LB monitoring, L = {size}, {ranks} ranks")
        a.tick_params(axis="x", rotation=20)
        a.legend(fontsize=7)
    return save(fig, out, "monitor", formats)


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """Global clock, delayed start, overlap availability and LB monitoring."""
    return [
        *_clock_section(records),
        *_delay_section(records, figdir, formats),
        *_overlap_section(records, figdir, formats),
        *_monitor_section(records, figdir, formats),
    ]


def _clock_section(records: list[dict]) -> list[str]:
    clocks = clock_table(records)
    if not clocks:
        return []
    return [
        "## Global clock",
        "",
        "Each rank's clock skew against rank 0 (the modified ping-pong of the CRESTA paper): the "
        "estimate from the exchange with the shortest round trip, the mean and standard deviation over "
        "all exchanges, and the estimate's bound (half the shortest round trip).",
        "",
        clocks,
    ]


def _delay_section(records: list[dict], figdir: Path, formats) -> list[str]:
    series = delay_series(records)
    rows = delay_rows(records)
    if not series:
        return []
    md = [
        "## Collectives with a delayed rank",
        "",
        "Times on the global clock: latest end minus earliest start over the ranks, median of the runs. "
        "One rank enters delta late; b = (t0 + delta - t_delta) / t_delta is the delay benefit (0: the "
        "delay was simply added; > 0: the collective hid part of it). (I) marks the non-blocking form, "
        "started and waited for at once.",
        "",
    ]
    for (op, nbytes, ranks), s in sorted(series.items()):
        if any(d > 0 for form in s.values() for d in form):
            names = delay_figure(
                s,
                f"{op}, {ranks}-rank job",
                nbytes,
                figdir,
                f"coll_delay_{op}_{nbytes}_np{ranks}",
                formats,
            )
            md += [figure_link(names, f"{op} with a delayed rank")]
    if rows:
        md += [delay_table(rows)]
    return md


def _overlap_section(records: list[dict], figdir: Path, formats) -> list[str]:
    orows = overlap_rows(records)
    if not orows:
        return []
    names = overlap_figure(orows, figdir, formats)
    return [
        "## Overlap availability of non-blocking collectives",
        "",
        "Means over iterations and ranks of T_coll (start, wait), T_comp (p x p matrix-vector products "
        "calibrated to about T_coll) and T_overlap (start, compute, wait). beta = (T_coll + T_comp - "
        "T_overlap) / T_overlap (the CRESTA paper); OSU % = 100 max(0, 1 - (T_overlap - T_comp) / "
        "T_coll); IMB % = 100 max(0, min(1, (T_coll + T_comp - T_overlap) / min(T_coll, T_comp))).",
        "",
        figure_link(names, "overlap benefit beta"),
        overlap_table(orows),
    ]


def _monitor_section(records: list[dict], figdir: Path, formats) -> list[str]:
    mon = [r for r in records if r.get("benchmark") == "monitor"]
    if not mon:
        return []
    names = monitor_figure(mon, figdir, formats)
    return [
        "## LB monitoring reductions",
        "",
        "Per step: T_sim (slowest rank's wall time), T_LB (collision and streaming, statistics "
        "included), T_halo, T_wait (in the reduction's MPI calls), T_mon (T_LB above the unmonitored "
        "run), medians.",
        "",
        figure_link(names, "LB monitoring"),
        monitor_table(mon),
    ]
