"""`haloex-lab model`: a latency-bandwidth (Hockney) model of the halo
exchange, fitted to the ping-pong and copy bandwidth measured in the same
results, set against the measured halo times.

    t(m) = alpha + m / beta                       (one message of m bytes)
    T    = k alpha + B / beta + c B / copy_bw     (one exchange)

fitted by least squares (relative error) on each message size range, split
where the fit is best (below and above the eager/rendezvous switch); B is
the halo bytes per rank, k the messages in sequence (2 ndim for the staged
family, which waits stage by stage; the direct family's messages are all in
flight at once, so k is their count times the per-message overhead, taken
as alpha), c the copies (pack and unpack: 2; shm reads the neighbour's
field directly: 1; staged-types lets MPI pack: 2)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .stats import summarize

STAGED = {"staged", "staged-types", "sendrecv", "irecv-send", "isend-recv", "irecv-isend", "irecv-issend",
          "red-black", "prepost"}  # fmt: skip


@dataclass
class Hockney:
    """t(m) = alpha + m / beta on [lo, hi) bytes."""

    alpha: float
    beta: float
    lo: float
    hi: float

    def time(self, m: float) -> float:
        return self.alpha + m / self.beta


def fit_hockney(sizes, times) -> list[Hockney]:
    """Two ranges split at the size that fits best (or one, with fewer than
    six sizes); each fitted by least squares on relative error."""
    m, t = np.asarray(sizes, float), np.asarray(times, float)
    order = np.argsort(m)
    m, t = m[order], t[order]

    def one(mm, tt):
        a = np.vstack([1 / tt, mm / tt]).T  # minimise sum ((alpha + m/beta - t) / t)^2
        (alpha, inv_beta), *_ = np.linalg.lstsq(a, np.ones_like(tt), rcond=None)
        alpha, inv_beta = max(alpha, 0.0), max(inv_beta, 1e-15)
        err = np.sum(((alpha + mm * inv_beta) - tt) ** 2 / tt**2)
        return alpha, 1 / inv_beta, err

    if len(m) < 6:
        a, b, _ = one(m, t)
        return [Hockney(a, b, 0, float("inf"))]
    best = None
    for k in range(3, len(m) - 2):
        a1, b1, e1 = one(m[:k], t[:k])
        a2, b2, e2 = one(m[k:], t[k:])
        if best is None or e1 + e2 < best[0]:
            best = (e1 + e2, [Hockney(a1, b1, 0, m[k]), Hockney(a2, b2, m[k], float("inf"))])
    return best[1]


def message_time(fit: list[Hockney], m: float) -> Hockney:
    return next(h for h in fit if h.lo <= m < h.hi)


def predict_from_list(strategy: str, ml: dict, copy_bw: float, fit) -> float:
    """Predicted seconds of one exchange from the plan's message list: per
    stage (the staged family, one after the other) or at once (the direct
    family), n alpha + remote bytes / beta for the messages to other ranks,
    their packing and unpacking (2 remote bytes / copy_bw) and the local
    copies of periodic images (local bytes / copy_bw); shm copies every
    byte once, straight from the neighbour's field."""
    stages = ml["staged"] if strategy in STAGED or strategy == "auto" else [ml["direct"]]
    if strategy == "shm":
        d = ml["direct"]
        return (d["remote_bytes"] + d["local_bytes"]) / copy_bw
    total = 0.0
    for st in stages:
        n, remote, local = st["messages"], st["remote_bytes"], st["local_bytes"]
        if n:
            h = message_time(fit, remote / n)
            total += n * h.alpha + remote / h.beta + 2 * remote / copy_bw
        total += local / copy_bw
    return total


def predict(strategy: str, messages: int, ndim: int, halo_bytes: float, copy_bw: float, fit) -> float:
    """Predicted seconds of one exchange without a message list (records
    before it was kept): every halo byte taken as a message's (see the
    module's formula)."""
    if strategy == "shm":
        return halo_bytes / copy_bw
    seq = 2 * ndim if strategy in STAGED or strategy == "auto" else messages
    per = halo_bytes / max(seq, 1)  # a typical message
    h = message_time(fit, per)
    return seq * h.alpha + halo_bytes / h.beta + 2 * halo_bytes / copy_bw


@dataclass
class Row:
    strategy: str
    ranks: int
    size: int
    measured: float
    predicted: float

    @property
    def error(self) -> float:
        return (self.predicted - self.measured) / self.measured


def model_rows(records: list[dict]) -> tuple[list[Hockney], list[Row]]:
    pp = [r for r in records if r.get("benchmark") == "pingpong"]
    if not pp:
        raise ValueError("no ping-pong records to fit the model to (run bench pingpong in the same campaign)")
    by_size = defaultdict(list)
    for r in pp:
        by_size[r["message_bytes"]].append(summarize(r["latency_s"]).median)
    sizes = sorted(by_size)
    fit = fit_hockney(sizes, [float(np.median(by_size[s])) for s in sizes])
    rows = []
    for r in records:
        if r.get("benchmark") != "halo" or "copy_bandwidth_bytes_per_s" not in r or r.get("work_s"):
            continue
        copy_bw = summarize(r["copy_bandwidth_bytes_per_s"]).median / r["ranks"]
        if "message_list" in r:
            t = predict_from_list(r["strategy"], r["message_list"], copy_bw, fit)
        else:
            t = predict(r["strategy"], r["messages"], r.get("ndim", 3), r["halo_bytes"], copy_bw, fit)
        rows.append(
            Row(r["strategy"], r["ranks"], r["local_size"], summarize(r["time_per_call_s"]).median, t)
        )
    return fit, rows


def model_text(records: list[dict]) -> str:
    fit, rows = model_rows(records)
    lines = ["Hockney fit to the ping-pong (one-way time t(m) = alpha + m / beta):", ""]
    for h in fit:
        hi = "inf" if h.hi == float("inf") else f"{h.hi:.0f}"
        lines.append(
            f"  m in [{h.lo:.0f}, {hi}) B: alpha = {h.alpha * 1e6:.3f} us, beta = {h.beta / 1e9:.2f} GB/s"
        )
    lines += [
        "",
        "| strategy | ranks | L | measured us | predicted us | error |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(rows, key=lambda r: (r.ranks, r.strategy, r.size)):
        lines.append(
            f"| {r.strategy} | {r.ranks} | {r.size} | {r.measured * 1e6:.2f} | {r.predicted * 1e6:.2f} | "
            f"{r.error * 100:+.0f}% |"
        )
    by = defaultdict(list)
    for r in rows:
        by[(r.ranks, r.strategy)].append(abs(r.error))
    lines += ["", "Median |error| per strategy and rank count:", ""]
    for (ranks, s), e in sorted(by.items()):
        lines.append(f"  {ranks} ranks, {s}: {np.median(e) * 100:.0f}% over {len(e)} sizes")
    return "\n".join(lines)
