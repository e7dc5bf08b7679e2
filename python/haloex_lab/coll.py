"""The collective benchmarks' records (bench clock, coll, overlap, monitor)
turned into the tables the report prints: delay benefit with blocking and
non-blocking side by side, overlap availability, and the LB monitoring cost.
Every number is recomputed from the records' raw samples."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass


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
