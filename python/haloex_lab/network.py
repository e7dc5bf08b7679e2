"""Network descriptions: what `haloex-lab project` needs to know about a
machine it has not run on. A TOML file (see networks/):

    [network]
    name = "ARCHER2-like"
    source = "where each figure comes from"
    cores_per_node = 128
    ranks_per_node = 128              # one rank per core, MPI only

    [network.on_node]                 # between ranks of one node (shared memory)
    latency_s = 0.4e-6                # alpha of a small message
    large_latency_s = 2.0e-6          # alpha from eager_bytes up (the rendezvous)
    eager_bytes = 8192
    bandwidth_Bps = 8e9               # bytes/s of one message stream

    [network.off_node]                # between nodes: the same four, and
    injection_Bps = 25e9              # what one node's NICs carry out, all its ranks together

    [node]
    copy_bandwidth_Bps = 350e9        # STREAM copy of all the node's cores (read + write counted)
    lb_mlups = 1000                   # D3Q19 site updates/s of the whole node, in millions
    lb_core_mlups = 30                # ... of one rank with the node to itself

A description without [network.off_node] is one node: it projects up to
ranks_per_node ranks.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path


class NetworkError(Exception):
    """A network description that cannot be used, with the reason."""


@dataclass(frozen=True)
class Link:
    """Hockney's t(m) = alpha(m) + m / bandwidth between two ranks."""

    latency_s: float
    large_latency_s: float
    eager_bytes: float
    bandwidth_Bps: float
    injection_Bps: float = float("inf")  # per node (off-node links only)

    def alpha(self, m: float) -> float:
        return self.large_latency_s if m >= self.eager_bytes else self.latency_s


@dataclass(frozen=True)
class Network:
    name: str
    source: str
    cores_per_node: int
    ranks_per_node: int
    on_node: Link
    off_node: Link | None
    copy_bandwidth_Bps: float  # the node's STREAM copy
    lb_mlups: float  # the node's LB update rate
    lb_core_mlups: float  # one rank alone on a node

    def max_ranks(self) -> float:
        return float("inf") if self.off_node else self.ranks_per_node


_TOP = {"network", "node"}
_NETWORK = {"name", "source", "cores_per_node", "ranks_per_node", "on_node", "off_node"}
_LINK = {"latency_s", "large_latency_s", "eager_bytes", "bandwidth_Bps"}
_NODE = {"copy_bandwidth_Bps", "lb_mlups", "lb_core_mlups"}


def _table(d: dict, where: str, keys: set, optional: set = frozenset()) -> dict:
    if not isinstance(d, dict):
        raise NetworkError(f"{where} must be a table")
    unknown = sorted(set(d) - keys - optional)
    if unknown:
        raise NetworkError(
            f"{where}: unknown key(s) {', '.join(unknown)} (valid: {', '.join(sorted(keys | optional))})"
        )
    missing = sorted(keys - set(d))
    if missing:
        raise NetworkError(f"{where}: missing {', '.join(missing)}")
    return d


def _positive(d: dict, key: str, where: str) -> float:
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0 or v == float("inf"):
        raise NetworkError(f"{where}.{key} must be a positive number, got {v!r}")
    return float(v)


def _link(d: dict, where: str, off_node: bool) -> Link:
    d = _table(d, where, _LINK | ({"injection_Bps"} if off_node else set()))
    return Link(
        *(_positive(d, k, where) for k in ("latency_s", "large_latency_s", "eager_bytes", "bandwidth_Bps")),
        _positive(d, "injection_Bps", where) if off_node else float("inf"),
    )


def parse_network(doc: dict, where: str = "network file") -> Network:
    top = _table(doc, where, _TOP)
    net = _table(top["network"], "[network]", _NETWORK - {"off_node"}, {"off_node"})
    node = _table(top["node"], "[node]", _NODE)
    cores, per_node = net["cores_per_node"], net["ranks_per_node"]
    for k, v in (("cores_per_node", cores), ("ranks_per_node", per_node)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise NetworkError(f"[network].{k} must be a whole number >= 1, got {v!r}")
    for k in ("name", "source"):
        if not isinstance(net[k], str) or not net[k].strip():
            raise NetworkError(f"[network].{k} must be a non-empty string")
    lb, core = _positive(node, "lb_mlups", "[node]"), _positive(node, "lb_core_mlups", "[node]")
    if core > lb:
        raise NetworkError(f"[node].lb_core_mlups ({core:g}) is more than the whole node's lb_mlups ({lb:g})")
    return Network(
        net["name"],
        net["source"],
        cores,
        per_node,
        _link(net["on_node"], "[network.on_node]", False),
        _link(net["off_node"], "[network.off_node]", True) if "off_node" in net else None,
        _positive(node, "copy_bandwidth_Bps", "[node]"),
        lb,
        core,
    )


def load_network(path: Path) -> Network:
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except FileNotFoundError:
        raise NetworkError(f"{path}: no such network file") from None
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise NetworkError(f"{path}: {e}") from None
    try:
        return parse_network(doc, str(path))
    except NetworkError as e:
        raise NetworkError(f"{path}: {e}") from None


def network_toml(n: Network, comment: str = "") -> str:
    """The description as a TOML file (what `haloex-lab network` writes)."""

    def link(name: str, k: Link) -> list[str]:
        out = [
            f"\n[network.{name}]",
            f"latency_s = {k.latency_s:.4g}",
            f"large_latency_s = {k.large_latency_s:.4g}",
            f"eager_bytes = {k.eager_bytes:.0f}",
            f"bandwidth_Bps = {k.bandwidth_Bps:.4g}",
        ]
        if k.injection_Bps != float("inf"):
            out.append(f"injection_Bps = {k.injection_Bps:.4g}")
        return out

    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    lines += [
        "[network]",
        f"name = {json.dumps(n.name)}",
        f"source = {json.dumps(n.source)}",
        f"cores_per_node = {n.cores_per_node}",
        f"ranks_per_node = {n.ranks_per_node}",
    ]
    lines += link("on_node", n.on_node)
    if n.off_node:
        lines += link("off_node", n.off_node)
    lines += [
        "\n[node]",
        f"copy_bandwidth_Bps = {n.copy_bandwidth_Bps:.4g}",
        f"lb_mlups = {n.lb_mlups:.4g}",
        f"lb_core_mlups = {n.lb_core_mlups:.4g}",
    ]
    return "\n".join(lines) + "\n"
