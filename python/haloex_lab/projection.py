"""`haloex-lab project`: the halo exchange and the LB application's strong
scaling on a machine described by a network file (network.py), from 1 to
10^5 ranks, with the model of `haloex-lab model`.

For each rank count P the lattice is split as MPI_Dims_create would (the
most ranks along the longest edge), ranks are numbered in C order (z
fastest) and filled onto nodes ranks_per_node at a time; every rank's
neighbours are then on its node, on another node, or itself (a periodic
image). Each rank's exchange of the LB populations that cross (the velocity
set's own offsets are the message map: D3Q19 sends 5 values a site across
a face and 1 across an edge) costs

    T = on the node:   sum over messages alpha(m) + bytes / bandwidth
        between nodes: max alpha(m) + max(bytes / bandwidth,
                                          node's off-node bytes / injection)
        (the larger of the two: the core copies while the network moves)
      + (2 remote + local bytes) / copy bandwidth per rank

all messages at once for the direct family, stage after stage (x, y, z,
each box grown by the halos already filled) for the staged family; a
strategy that sends a stage's messages one after another (ORDER) pays
each message's alpha and bytes in turn between nodes too. The
slowest rank sets the exchange time. An LB step computes its sites at the
node's rate shared by its ranks (no faster than one rank alone), then

    blocking     (sendrecv, staged)   T = compute + staged halo
    non-blocking (direct)             T = compute + direct halo
    overlapped   (direct, interior)   T = boundary + max(interior, direct halo)

A mode stops scaling at the first rank count where its parallel efficiency
falls below one half, against the first full node (within one node the
ranks share its memory bandwidth, so a memory-bound step cannot scale there
whatever the halo does).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .network import Network
from .strategies import members

STOP_EFFICIENCY = 0.5
MODES = ("blocking", "non-blocking", "overlapped")
# The families the projection costs (strategies.py lists their members;
# docs/strategies.md), each with the names its table prints for it.
FAMILIES = {
    "staged": ", ".join(members("staged")),
    "staged-types": ", ".join(members("staged-types")) + " (MPI packs)",
    "direct": ", ".join(members("direct")),
    "shm": ", ".join(members("shm")) + " (on-node neighbours read directly)",
}


def velocities(name: str) -> np.ndarray:
    """The velocity set's offsets (3-D sets), rest velocity included."""
    c = np.array(list(itertools.product((-1, 0, 1), repeat=3)))
    n1 = np.abs(c).sum(axis=1)
    keep = {"D3Q27": n1 >= 0, "D3Q19": n1 <= 2, "D3Q15": n1 != 2}.get(name)
    if keep is None:
        raise ValueError(f"unknown 3-D velocity set {name!r} (D3Q15, D3Q19, D3Q27)")
    return c[keep]


def dims_create(p: int, lattice: tuple[int, int, int]) -> tuple[int, int, int]:
    """Balanced factors of p (largest prime first onto the smallest), the
    most onto the longest lattice edge."""
    dims = [1, 1, 1]
    n, f, primes = p, 2, []
    while f * f <= n:
        while n % f == 0:
            primes.append(f)
            n //= f
        f += 1
    if n > 1:
        primes.append(n)
    for q in sorted(primes, reverse=True):
        dims[dims.index(min(dims))] *= q
    dims.sort(reverse=True)
    order = sorted(range(3), key=lambda d: -lattice[d])
    out = [0, 0, 0]
    for d, k in zip(order, dims, strict=True):
        out[d] = k
    return tuple(out)


@dataclass
class Point:
    ranks: int
    procs: tuple[int, int, int]
    local: tuple[int, int, int]
    nodes: int
    halo_s: dict[str, float]  # per family
    compute_s: float
    step_s: dict[str, float]  # per mode
    mlups: dict[str, float]
    efficiency: dict[str, float]


def _messages(vs: np.ndarray, local) -> list[tuple[tuple[int, int, int], float]]:
    """(offset, bytes) of every direct message: the values that cross."""
    out = []
    for o in itertools.product((-1, 0, 1), repeat=3):
        if o == (0, 0, 0):
            continue
        nz = [d for d in range(3) if o[d]]
        comps = int(np.all(vs[:, nz] == np.array(o)[nz], axis=1).sum())
        if comps:
            sites = np.prod([1 if o[d] else local[d] for d in range(3)])
            out.append((o, 8.0 * comps * sites))
    return out


class _Layout:
    """Every rank's coordinates and node; which rank an offset reaches."""

    def __init__(self, procs, per_node: int):
        self.procs = procs
        self.rank = np.arange(int(np.prod(procs)))
        _, py, pz = procs
        self.c = np.stack([self.rank // (py * pz), (self.rank // pz) % py, self.rank % pz])
        self.node = self.rank // per_node

    def reach(self, o):
        _, py, pz = self.procs
        c = [(self.c[d] + o[d]) % self.procs[d] for d in range(3)]
        nb = (c[0] * py + c[1]) * pz + c[2]
        same = nb == self.rank
        on = ~same & (self.node[nb] == self.node)
        return same, on, ~same & ~on


# How a strategy's ranks order the messages of one stage (all of the
# direct family's messages are one stage): "together", all in flight at
# once; "serial", one after another (blocking sends, or MPI_Sendrecv per
# direction); "red-black", one after another, a rank's two sends before or
# after its two receives, so each stage takes twice its own messages' time.
ORDER = {"sendrecv": "serial", "irecv-send": "serial", "isend-recv": "serial", "red-black": "red-black"}


def order_of(strategy: str | None) -> str:
    return ORDER.get(strategy or "", "together")


def _cost(
    lay: _Layout,
    msgs,
    net: Network,
    copy_rank: float,
    family: str,
    copies: bool = True,
    order: str = "together",
) -> np.ndarray:
    """Per rank seconds of the messages `msgs` of one stage, in `order`;
    without `copies`, of the messages alone (what a simulation with no
    computation times).

    On the node a rank's core copies its messages one after another: their
    times add up. Between nodes the network moves them: messages in flight
    together pay one latency (the largest) and their bytes at the stream
    bandwidth, or the node's off-node bytes at the injection bandwidth if
    that takes longer, while the core copies the node's; messages sent one
    after another pay each its own, and the two kinds add up."""
    n = len(lay.rank)
    serial, alpha_off, bytes_off = np.zeros(n), np.zeros(n), np.zeros(n)
    remote, local = np.zeros(n), np.zeros(n)
    together = order == "together"
    for o, b in msgs:
        same, on, off = lay.reach(o)
        local += np.where(same, b, 0.0)
        if family == "shm":  # on-node neighbours: a strided copy (a pack's and an unpack's), no message
            local += np.where(on, 2 * b, 0.0)
            on = np.zeros_like(on)
        serial += np.where(on, net.on_node.alpha(b) + b / net.on_node.bandwidth_Bps, 0.0)
        if off.any() and net.off_node is None:
            raise ValueError("the network has no off-node link")
        if off.any():
            alpha = net.off_node.alpha(b)
            if together:
                alpha_off = np.where(off, np.maximum(alpha_off, alpha), alpha_off)
            else:
                serial += np.where(off, alpha + b / net.off_node.bandwidth_Bps, 0.0)
            bytes_off += np.where(off, b, 0.0)
        remote += np.where(on | off, b, 0.0)
    t = serial * (2 if order == "red-black" else 1)
    if bytes_off.any():
        injection = np.bincount(lay.node, weights=bytes_off)[lay.node] / net.off_node.injection_Bps
        if together:  # the core copies the node's messages while the network moves the others
            t = np.maximum(t, alpha_off + np.maximum(bytes_off / net.off_node.bandwidth_Bps, injection))
        else:
            t = np.maximum(t, injection)
    if not copies:
        return t
    copied = (1 if family == "staged-types" else 2) * remote + local
    return t + copied / copy_rank


def halo_time(
    net: Network,
    vs: np.ndarray,
    procs,
    local,
    family: str,
    lay: _Layout | None = None,
    copies: bool = True,
    strategy: str | None = None,
) -> float:
    """Seconds of one exchange of `family` on the slowest rank (`lay`: the
    ranks' places, when the caller has them already; without `copies`, the
    messages alone), its messages ordered as `strategy` orders them
    (ORDER; all together without one)."""
    lay = lay or _Layout(procs, net.ranks_per_node)
    per_node_ranks = min(int(np.prod(procs)), net.ranks_per_node)
    copy_rank = net.copy_bandwidth_Bps / per_node_ranks
    order = order_of(strategy)
    if family in ("direct", "shm"):
        return float(_cost(lay, _messages(vs, local), net, copy_rank, family, copies, order).max())
    total, grown = 0.0, list(local)
    for d in range(3):
        comps = int((vs[:, d] == 1).sum())
        sites = np.prod([grown[e] for e in range(3) if e != d])
        msgs = []
        for sign in (1, -1):
            o = [0, 0, 0]
            o[d] = sign
            msgs.append((tuple(o), 8.0 * comps * sites))
        total += float(
            _cost(lay, msgs, net, copy_rank, family, copies, order).max()
        )  # each stage waits for the slowest
        grown[d] += 2
    return total


def project(net: Network, lattice, ranks: list[int], velocity_set: str = "D3Q19") -> list[Point]:
    vs = velocities(velocity_set)
    sites = float(np.prod(lattice))
    out: list[Point] = []
    for p in ranks:
        if p > net.max_ranks():
            raise ValueError(f"{p} ranks need more than one node, and {net.name} describes no off-node link")
        procs = dims_create(p, lattice)
        local = tuple(-(-lattice[d] // procs[d]) for d in range(3))
        if min(local) < 2:
            break  # no subdomain left to split
        lay = _Layout(procs, net.ranks_per_node)
        halo = {f: halo_time(net, vs, procs, local, f, lay) for f in FAMILIES}
        rate = min(net.lb_core_mlups, net.lb_mlups / min(p, net.ranks_per_node)) * 1e6
        n = float(np.prod(local))
        inner = float(np.prod([max(x - 2, 0) for x in local]))
        compute = n / rate
        step = {
            "blocking": compute + halo["staged"],
            "non-blocking": compute + halo["direct"],
            "overlapped": (n - inner) / rate + max(inner / rate, halo["direct"]),
        }
        out.append(
            Point(
                p,
                procs,
                local,
                -(-p // net.ranks_per_node),
                halo,
                compute,
                step,
                {m: sites / t / 1e6 for m, t in step.items()},
                {},
            )
        )
    base = efficiency_base(out, net)
    for q in out:
        q.efficiency = {m: base.step_s[m] * base.ranks / (q.step_s[m] * q.ranks) for m in MODES}
    return out


def efficiency_base(points: list[Point], net: Network) -> Point:
    """The point efficiency is measured against: the first full node where
    the range reaches one (within a node the ranks share its memory
    bandwidth, so a memory-bound step cannot scale there however it
    exchanges halos; the papers' bases are full nodes too), else the first."""
    return next((q for q in points if q.ranks >= net.ranks_per_node), points[0])


def stops(points: list[Point], net: Network) -> dict[str, int | None]:
    """Per mode: the first rank count beyond the efficiency base with
    efficiency below STOP_EFFICIENCY."""
    base = efficiency_base(points, net).ranks
    return {
        m: next((q.ranks for q in points if q.ranks > base and q.efficiency[m] < STOP_EFFICIENCY), None)
        for m in MODES
    }


def halo_stops(points: list[Point]) -> dict[str, int | None]:
    """Per family: the first rank count whose exchange takes longer than the
    step's computation (communication-bound from there on)."""
    return {f: next((q.ranks for q in points if q.halo_s[f] > q.compute_s), None) for f in FAMILIES}


def projection_text(net: Network, lattice, points: list[Point]) -> str:
    lat = "x".join(map(str, lattice))
    lines = [f"Projection on {net.name}: {lat} lattice, {net.ranks_per_node} ranks per node", ""]
    lines.append(
        "| ranks | nodes | procs | local | "
        + " | ".join(f"{f} halo us" for f in FAMILIES)
        + " | compute us | "
        + " | ".join(f"{m} MLUPS (eff)" for m in MODES)
        + " |"
    )
    lines.append("|" + "---:|" * (5 + len(FAMILIES) + len(MODES)))
    for q in points:
        lines.append(
            f"| {q.ranks} | {q.nodes} | {'x'.join(map(str, q.procs))} | {'x'.join(map(str, q.local))} | "
            + " | ".join(f"{q.halo_s[f] * 1e6:.1f}" for f in FAMILIES)
            + f" | {q.compute_s * 1e6:.1f} | "
            + " | ".join(f"{q.mlups[m]:.0f} ({q.efficiency[m]:.2f})" for m in MODES)
            + " |"
        )
    base = efficiency_base(points, net).ranks
    lines += [
        "",
        f"Where each mode stops scaling (parallel efficiency below {STOP_EFFICIENCY:.0%}, "
        f"against {base} ranks):",
    ]
    for m, p in stops(points, net).items():
        lines.append(f"  {m}: " + (f"{p} ranks" if p else f"scales to {points[-1].ranks} ranks"))
    lines += ["", "Where each strategy's exchange outgrows the computation of a step:"]
    for f, p in halo_stops(points).items():
        lines.append(f"  {FAMILIES[f]}: " + (f"{p} ranks" if p else f"not up to {points[-1].ranks} ranks"))
    return "\n".join(lines)


def measured_text(points: list[Point], measured: dict[str, dict[int, float]]) -> str:
    """Measured MLUPS (bench lb on the same lattice) beside the model's."""
    at = {q.ranks: q for q in points}
    rows = [(m, p, v) for m in MODES for p, v in sorted(measured.get(m, {}).items()) if p in at]
    if not rows:
        return ""
    lines = [
        "| mode | ranks | measured MLUPS | model MLUPS | model / measured |",
        "|---|---:|---:|---:|---:|",
    ]
    for m, p, v in rows:
        lines.append(f"| {m} | {p} | {v:.1f} | {at[p].mlups[m]:.1f} | {at[p].mlups[m] / v:.2f} |")
    return "\n".join(lines)


def projection_records(net: Network, lattice, velocity_set: str, points: list[Point]) -> list[dict]:
    """JSON records with units in the key names."""
    out = []
    for q in points:
        d = asdict(q)
        out.append(
            {
                "benchmark": "projection",
                "network": net.name,
                "lattice": list(lattice),
                "velocity_set": velocity_set,
                "ranks": q.ranks,
                "nodes": q.nodes,
                "process_grid": list(q.procs),
                "local_size": list(q.local),
                "halo_time_s": d["halo_s"],
                "compute_time_s": q.compute_s,
                "step_time_s": d["step_s"],
                "mlups": d["mlups"],
                "parallel_efficiency": d["efficiency"],
            }
        )
    return out


def parse_ranks(text: str) -> list[int]:
    """ "1:131072" (powers of two) or a comma-separated list."""
    try:
        if ":" in text:
            lo, hi = (int(x) for x in text.split(":"))
            if lo < 1 or hi < lo:
                raise ValueError
            out, p = [], lo
            while p <= hi:
                out.append(p)
                p *= 2
            return out
        out = sorted({int(x) for x in text.split(",")})
        if out[0] < 1:
            raise ValueError
        return out
    except ValueError:
        raise ValueError(
            f"--ranks: {text!r} is not MIN:MAX (powers of two) or a list of counts >= 1"
        ) from None


def parse_lattice(text: str) -> tuple[int, int, int]:
    try:
        v = [int(x) for x in text.lower().split("x")]
        if len(v) == 1:
            v = v * 3
        if len(v) != 3 or min(v) < 2:
            raise ValueError
        return tuple(v)
    except ValueError:
        raise ValueError(f"--lattice: {text!r} is not L or NXxNYxNZ (each at least 2)") from None


def write_projection(
    net: Network,
    lattice,
    velocity_set: str,
    points: list[Point],
    out: Path,
    measured: dict[str, dict[int, float]] | None = None,
) -> list[Path]:
    """The table (projection.md), the records (projection.jsonl) and the
    figure (projection.png) in `out`."""
    from .projection_figure import figure

    out.mkdir(parents=True, exist_ok=True)
    md = out / "projection.md"
    against = measured_text(points, measured or {})
    md.write_text(
        projection_text(net, lattice, points)
        + (f"\n\nMeasured against the model:\n\n{against}" if against else "")
        + f"\n\nNetwork: {net.source}\n"
    )
    js = out / "projection.jsonl"
    js.write_text(
        "".join(json.dumps(r) + "\n" for r in projection_records(net, lattice, velocity_set, points))
    )
    png = figure(
        net, lattice, points, efficiency_base(points, net).ranks, stops(points, net), measured or {}, out
    )
    return [md, js, png]
