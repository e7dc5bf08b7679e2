"""`haloex-lab model`: a latency-bandwidth (Hockney) model of the halo
exchange, fitted to the ping-pong and copy bandwidth measured in the same
results, set against the measured halo times.

    t(m) = alpha + m / beta      (one message of m bytes, fitted per size range)

One exchange, from the plan's message list (per stage for the staged
family, which waits stage by stage; all at once for the direct family):

    T = s (sum_i alpha(m_i) + B / beta_inf) + 2 B / copy_bw + B_local / copy_bw

n messages of B remote bytes: each pays the alpha of its size's range, and
the bytes stream at the bandwidth of the largest range, beta_inf (messages
in flight together pipeline; the small range's beta holds the per-message
cost of one message at a time, which alpha already counts). Packing and
unpacking copy each remote byte twice (staged-types once: MPI packs the
derived datatypes straight into its own buffers), periodic images once, at
the STREAM copy bandwidth of one rank measured in the same run. shm reads the
neighbour's field directly: a strided box into a strided box, which costs
what a pack and an unpack of the same bytes cost, plus two flag waits. s is
how many ranks share each CPU on the busiest host (placement records) over
the same for the ping-pong: oversubscribed ranks wait for each other's time
slices; the copy bandwidth, measured on all ranks at once, already shares
the CPUs."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .stats import summarize
from .strategies import members

# Waiting stage by stage (strategies.py has the families). An auto record
# that does not name its choice (resolved_strategy) is costed as staged.
STAGED = set(members("staged", "staged-types", "auto"))
# One message per peer rank, carrying every link to it (PeerMessages).
PER_PEER = set(members("direct", "shm", "node-gather"))


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


def _cpus(record: dict, ranks=None) -> int:
    """The CPUs the record's ranks (or those of them in `ranks`) ran on,
    together (placement)."""
    seen: set[int] = set()
    for i, text in enumerate((record.get("placement") or {}).get("cpus", [])):
        if ranks is not None and i not in ranks:
            continue
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            if lo.isdigit():
                seen |= set(range(int(lo), int(hi or lo) + 1))
    return len(seen)


def hosts(record: dict) -> int:
    """How many hosts (nodes) a record's ranks ran on."""
    return len((record.get("placement") or {}).get("ranks_per_host") or {}) or 1


def cpu_share(record: dict) -> float:
    """Ranks per CPU on the busiest machine of a record's placement (at
    least 1: a rank never has more than a CPU to itself). A machine is a
    kernel (the placement's boot ids): emulated nodes share one machine's
    CPUs; older records without them count hosts."""
    pl = record.get("placement") or {}
    machines = pl.get("kernels") or pl.get("hosts")
    if not _cpus(record):
        return 1.0
    if not machines:
        return max(1.0, max(pl["ranks_per_host"].values()) / _cpus(record))
    ranks = defaultdict(set)
    for i, m in enumerate(machines):
        ranks[m].add(i)
    return max(1.0, max(len(r) / max(_cpus(record, r), 1) for r in ranks.values()))


@dataclass
class Fits:
    """Hockney fits of the ping-pong on one node and, where the records
    have one, between two nodes."""

    on: list[Hockney]
    off: list[Hockney] | None = None


def _wire(on: list[float], off: list[float], fits: Fits) -> float:
    """Seconds of messages in flight together: each pays its link's alpha,
    the bytes stream at each link's large-message bandwidth."""
    t = sum(message_time(fits.on, m).alpha for m in on) + sum(on) / fits.on[-1].beta
    if off:
        t += sum(message_time(fits.off, m).alpha for m in off) + sum(off) / fits.off[-1].beta
    return t


def _split(st: dict, fits: Fits, per_peer: bool = False) -> tuple[list[float], list[float]]:
    """A stage's message sizes, on the node and off it (all on it without
    an off-node fit or split), one per link or, `per_peer`, one per peer
    rank where the record has them."""
    n, remote = st["messages"], st["remote_bytes"]
    peer = "peer_" if per_peer and "peer_message_bytes" in st else ""
    sizes = list(st.get(peer + "message_bytes") or [remote / max(n, 1)] * n)  # (older: n of the mean size)
    off = list(st.get(f"off_node_{peer}message_bytes") or []) if fits.off else []
    for m in off:
        sizes.remove(m)
    return sizes, off


def predict_from_list(strategy: str, ml: dict, copy_bw: float, fits: Fits, share: float = 1.0,
                      traffic: dict | None = None) -> float:  # fmt: skip
    """Predicted seconds of one exchange from the plan's message list (see
    the module's formula)."""
    d = ml["direct"]
    if strategy in ("shm", "node-gather"):
        on, off = _split(d, fits, True)
        off_bytes = sum(off)  # packed and unpacked by the ranks themselves
        if strategy == "shm":  # the node's neighbours read in place, the others as in direct
            t = 2 * fits.on[0].alpha * share + (2 * sum(on) + d["local_bytes"]) / copy_bw
        else:  # the node's neighbours as in direct
            t = share * _wire(on, [], fits) + (2 * sum(on) + d["local_bytes"]) / copy_bw
        if off and strategy == "node-gather" and traffic and traffic.get("peer_nodes"):
            k, node_bytes = traffic["peer_nodes"], traffic["bytes_per_node"]
            off = [node_bytes / k] * k  # the leader's aggregates, one per peer node
            t += 2 * fits.on[0].alpha * share  # node-memory hand-overs to and from the leader
        if off:
            t += share * _wire([], off, fits) + 2 * off_bytes / copy_bw
        return t
    total = 0.0
    for st in ml["staged"] if strategy in STAGED else [d]:
        on, off = _split(st, fits, strategy in PER_PEER)
        if on or off:
            total += share * _wire(on, off, fits)
            total += (1 if strategy == "staged-types" else 2) * st["remote_bytes"] / copy_bw
        total += st["local_bytes"] / copy_bw
    return total


def predict(strategy: str, messages: int, ndim: int, halo_bytes: float, copy_bw: float, fit) -> float:
    """Predicted seconds of one exchange without a message list (records
    before it was kept): every halo byte taken as a message's."""
    if strategy == "shm":
        return 2 * fit[0].alpha + 2 * halo_bytes / copy_bw
    seq = 2 * ndim if strategy in STAGED else messages
    h = message_time(fit, halo_bytes / max(seq, 1))  # a typical message
    return seq * h.alpha + halo_bytes / fit[-1].beta + 2 * halo_bytes / copy_bw


@dataclass
class Row:
    strategy: str
    ranks: int
    size: int
    measured: float
    predicted: float
    nodes: int = 1
    layout: str = "aos"

    @property
    def error(self) -> float:
        return (self.predicted - self.measured) / self.measured


def _fit_pingpong(pp: list[dict]) -> list[Hockney]:
    by_size = defaultdict(list)
    for r in pp:
        by_size[r["message_bytes"]].append(summarize(r["latency_s"]).median)
    sizes = sorted(by_size)
    return fit_hockney(sizes, [float(np.median(by_size[s])) for s in sizes])


def pingpongs(records: list[dict]) -> tuple[list[dict], list[dict]]:
    """The ping-pong records between two ranks of one node, and between
    two nodes (their placement names two hosts). Those of `--buffers one`
    (records before the option are such) where there are any: a halo
    message leaves from memory just written, as a bounced buffer does, and
    the model's accuracy was measured with them."""
    pp = [r for r in records if r.get("benchmark") == "pingpong"]
    one = [r for r in pp if r.get("buffers", "one") == "one"]
    pp = one or pp
    return [r for r in pp if hosts(r) == 1], [r for r in pp if hosts(r) > 1]


def _line_factor(record: dict) -> float:
    """How many bytes of field memory a copy touches per halo byte: packing
    reads, and unpacking writes, whole cache lines of the field
    (line_bytes: those of every message and local copy, read and written),
    so a layout whose halo values lie apart in memory (SoA) costs more than
    its bytes. 1 without the figures."""
    d = record["message_list"]["direct"]
    moved = 2 * (d["remote_bytes"] + d["local_bytes"])
    return max(1.0, record.get("line_bytes", 0) / moved) if moved else 1.0


def model_rows(records: list[dict]) -> tuple[Fits, list[Row]]:
    pp_on, pp_off = pingpongs(records)
    if not pp_on:
        raise ValueError(
            "no ping-pong records on one node to fit the model to (run bench pingpong in the same campaign)"
        )
    fits = Fits(_fit_pingpong(pp_on), _fit_pingpong(pp_off) if pp_off else None)
    # Oversubscribed ranks wait for each other's time slices: each link's
    # alphas count for as many ranks per CPU as the halo has over its ping-pong.
    pp_share = cpu_share(pp_on[0])
    rows = []
    for r in records:
        if r.get("benchmark") != "halo" or "copy_bandwidth_bytes_per_s" not in r or r.get("work_s"):
            continue
        if hosts(r) > 1 and not fits.off:
            raise ValueError(
                f"halo records across {hosts(r)} nodes but no ping-pong between two nodes to fit the "
                "off-node link to (run bench pingpong with its two ranks on two nodes in the same campaign)"
            )
        copy_bw = summarize(r["copy_bandwidth_bytes_per_s"]).median / r["ranks"]
        strategy = r.get("resolved_strategy") or r["strategy"]  # what auto chose
        if "message_list" in r:
            copy_bw /= _line_factor(r)
            share = cpu_share(r) / pp_share
            t = predict_from_list(strategy, r["message_list"], copy_bw, fits, share, r.get("node_traffic"))
        else:
            t = predict(strategy, r["messages"], r.get("ndim", 3), r["halo_bytes"], copy_bw, fits.on)
        rows.append(
            Row(
                r["strategy"],
                r["ranks"],
                r["local_size"],
                summarize(r["time_per_call_s"]).median,
                t,
                hosts(r),
                r.get("layout", "aos"),
            )
        )
    return fits, rows


def _fit_lines(title: str, fit: list[Hockney]) -> list[str]:
    lines = [title, ""]
    for h in fit:
        hi = "inf" if h.hi == float("inf") else f"{h.hi:.0f}"
        lines.append(
            f"  m in [{h.lo:.0f}, {hi}) B: alpha = {h.alpha * 1e6:.3f} us, beta = {h.beta / 1e9:.2f} GB/s"
        )
    return lines


def model_text(records: list[dict]) -> str:
    fits, rows = model_rows(records)
    lines = _fit_lines("Hockney fit to the ping-pong (one-way time t(m) = alpha + m / beta):", fits.on)
    if fits.off:
        lines += ["", *_fit_lines("... and to the ping-pong between two nodes:", fits.off)]
    lines += [
        "",
        "| strategy | nodes | ranks | layout | L | measured us | predicted us | error |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in sorted(rows, key=lambda r: (r.nodes, r.ranks, r.strategy, r.layout, r.size)):
        lines.append(
            f"| {r.strategy} | {r.nodes} | {r.ranks} | {r.layout} | {r.size} | {r.measured * 1e6:.2f} | "
            f"{r.predicted * 1e6:.2f} | {r.error * 100:+.0f}% |"
        )
    by = defaultdict(list)
    for r in rows:
        by[(r.nodes, r.ranks, r.strategy)].append(abs(r.error))
    lines += ["", "Median |error| per strategy, node and rank count:", ""]
    for (nodes, ranks, s), e in sorted(by.items()):
        lines.append(f"  {nodes} node(s), {ranks} ranks, {s}: {np.median(e) * 100:.0f}% over {len(e)} sizes")
    return "\n".join(lines)


def _link(fit: list[Hockney], injection: float = float("inf")):
    from .network import Link

    # (one range: every message pays the same alpha from 1 byte up)
    return Link(fit[0].alpha, fit[-1].alpha, fit[-1].lo if len(fit) > 1 else 1, fit[-1].beta, injection)


def network_from_results(records: list[dict], name: str, off_node=None):
    """This machine as a network description (network.py): the on-node link
    from the ping-pong fit, the node's STREAM copy bandwidth from the halo
    records with one rank per CPU, and the LB rates from `bench lb` records
    (one rank alone; the node: its memory sweep at one rank per CPU times
    the fraction of it one rank reaches), all on one node. The off-node link
    is the fit to ping-pongs between two nodes where the records have them
    (its injection bandwidth taken as one stream's: one pair was measured),
    else `off_node` (a Link borrowed from another description); without
    either the description is one node."""
    from .network import Network

    fits, _ = model_rows(records)
    one_node = [r for r in records if hosts(r) == 1]
    pp = pingpongs(one_node)[0][0]
    cores = _cpus(pp) or 1
    halo = [
        r
        for r in one_node
        if r.get("benchmark") == "halo" and r["ranks"] == cores and "copy_bandwidth_bytes_per_s" in r
    ]
    if not halo:
        raise ValueError(f"no halo records at {cores} ranks (one per CPU) for the node's copy bandwidth")
    copy = float(np.median([summarize(r["copy_bandwidth_bytes_per_s"]).median for r in halo]))
    lb = [r for r in one_node if r.get("benchmark") == "lb" and r.get("threads_per_rank") == 1]
    one = [r["mlups_median"] for r in lb if r["ranks"] == 1 and r.get("overlap") == "none"]
    sweep = {r["ranks"]: r["bandwidth_bytes_per_s_median"] for r in lb if r.get("config") == "stream"}
    if not one or 1 not in sweep or cores not in sweep:
        raise ValueError(f"no bench lb records at 1 and {cores} ranks (their MLUPS and memory sweeps)")
    core = max(one)
    node = core * sweep[cores] / sweep[1]  # the node's bandwidth at the fraction one rank reaches
    host = pp.get("host", "this machine")
    src = (
        f"measured on {host} ({pp.get('date_utc', '?')}): ping-pong fit, STREAM copy of {cores} ranks, "
        f"bench lb at 1 and {cores} ranks"
    )
    if fits.off:
        off_node = _link(fits.off, fits.off[-1].beta)
        src += "; off-node link: ping-pong between two nodes, injection taken as one stream's bandwidth"
    elif off_node:
        src += "; off-node link and injection borrowed from another description (no second node here)"
    return Network(name, src, cores, cores, _link(fits.on), off_node, copy, max(node, core), core)
