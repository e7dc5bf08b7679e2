"""Calibrate SMPI's network from `haloex bench pingpong` records, as
SimGrid's documentation calibrates it: a latency and a bandwidth per
segment of message sizes, fitted to a measured ping-pong, become SMPI's
per-segment factors relative to the link the platform puts on that path.

    t(m) = a_k + m / b_k         for the sizes of segment k
    lat-factor_k = a_k / L       bw-factor_k = b_k / B       (a_k less the envelope's transfer, below)

t(m) is the median half round trip of m bytes (all samples of that size
pooled); L and B are the latency and bandwidth of the platform's route
between the two ranks: a host's loopback on one node, the two node links
(each half the off-node latency, at the injection bandwidth) between nodes.

The segments: of the splits of the sizes into 1 to 4 segments, one of them
starting at the description's eager_bytes (the protocol switch it names),
the fewest segments whose lines come within 5% of every measured size, or
else the 4 that come closest (the smallest worst miss). Each
line is fitted by least squares on relative error; a negative latency is
clipped to 0 (the line refitted through the origin), a segment whose time
falls with size gets a bandwidth too high to matter, and a segment of one
size gets no latency (t = m / b through that size).

SMPI (3.32, smpi_request.cpp) sends every message as its bytes plus a
16-byte envelope, and gives a factor to the sizes above its key. So segment
k's key is its first measured size - 1 + 16, and its latency factor is
(a_k - 16 / b_k) / L: the envelope's transfer is taken out of the latency,
and SMPI's time for m bytes is a_k + m / b_k exactly (but for a latency
that would go below 0, clipped there).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

PATHS = ("node", "off-node")
ENVELOPE_BYTES = 16  # what SMPI adds to every message's size
MIN_SIZES = 4
MAX_SEGMENTS = 4
TOLERANCE = 0.05


class CalibrateError(Exception):
    """Ping-pong records that cannot calibrate the platform, with the reason."""


@dataclass(frozen=True)
class Segment:
    """One size segment's fitted line and the factors it becomes."""

    first_bytes: int  # the segment's smallest measured size: it starts there
    last_bytes: int
    sizes: int
    latency_s: float
    bandwidth_Bps: float
    lat_factor: float  # (latency_s - ENVELOPE_BYTES / bandwidth_Bps) / link latency, >= 0
    bw_factor: float
    worst_error: float  # the largest |fit - median| / median over its sizes
    latency_clipped: bool = False
    bandwidth_clipped: bool = False


@dataclass(frozen=True)
class Calibration:
    source: str
    path: str  # "node" or "off-node": the measured ranks' route
    link_latency_s: float
    link_bandwidth_Bps: float
    segments: tuple[Segment, ...]

    def smpi_factors(self) -> tuple[str, str]:
        """SMPI's "size:factor;..." values of smpi/bw-factor and smpi/lat-factor."""
        keys = [0, *(s.first_bytes - 1 + ENVELOPE_BYTES for s in self.segments[1:])]
        bw = ";".join(f"{k}:{s.bw_factor:.9g}" for k, s in zip(keys, self.segments, strict=True))
        lat = ";".join(f"{k}:{s.lat_factor:.9g}" for k, s in zip(keys, self.segments, strict=True))
        return bw, lat

    def time(self, m: float) -> float:
        """The fitted half round trip of m bytes (what SMPI should give)."""
        seg = next((s for s in reversed(self.segments) if m >= s.first_bytes), self.segments[0])
        return seg.latency_s + m / seg.bandwidth_Bps

    def described(self) -> dict:
        """What a simulated record says about its calibration."""
        bw, lat = self.smpi_factors()
        return {
            "source": self.source,
            "path": self.path,
            "link_latency_s": self.link_latency_s,
            "link_bandwidth_Bps": self.link_bandwidth_Bps,
            "bw_factor": bw,
            "lat_factor": lat,
            "segments": [asdict(s) for s in self.segments],
        }


def load_pingpong(path: Path) -> list[dict]:
    """The measured bench pingpong records of a JSON-lines file; any other
    record, or none, is an error."""
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        raise CalibrateError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CalibrateError(f"{path}: {e}") from None
    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            raise CalibrateError(f"{path}:{n}: not a JSON record ({e})") from None
        if not isinstance(r, dict) or r.get("benchmark") != "pingpong":
            what = r.get("benchmark", "?") if isinstance(r, dict) else type(r).__name__
            raise CalibrateError(
                f"{path}:{n}: a {what} record; calibrate from `haloex bench pingpong` records"
            )
        if r.get("simulated"):
            raise CalibrateError(f"{path}:{n}: a simulated ping-pong; calibrate from a measured one")
        times = r.get("latency_s")
        if not isinstance(r.get("message_bytes"), int) or not isinstance(times, list) or not times:
            raise CalibrateError(
                f"{path}:{n}: a ping-pong record without message_bytes and latency_s samples"
            )
        if r["message_bytes"] < 1:
            raise CalibrateError(
                f"{path}:{n}: a ping-pong of {r['message_bytes']} bytes; SMPI's factors start at 1"
            )
        if not all(isinstance(t, int | float) and t > 0 for t in times):
            raise CalibrateError(f"{path}:{n}: latency_s holds a time that is not positive")
        records.append(r)
    if not records:
        raise CalibrateError(f"{path}: no records")
    if len({r.get("buffers", "one") for r in records}) > 1:
        raise CalibrateError(f"{path}: mixes --buffers osu and one; calibrate from one kind")
    return records


def path_of(record: dict) -> str | None:
    """ "node" when the record's two ranks ran on one host, "off-node" when on
    two, None when its placement does not say."""
    hosts = (record.get("placement") or {}).get("hosts") or []
    pair = record.get("pair") or [0, 1]
    if len(pair) != 2 or max(pair) >= len(hosts):
        return None
    return "node" if hosts[pair[0]] == hosts[pair[1]] else "off-node"


def measured_path(records: list[dict], on: str | None, source: str) -> tuple[str, list[dict]]:
    """The path the records calibrate (`on`, or what their placement says)
    and the records of it."""
    kinds = {path_of(r) for r in records}
    if on is None:
        if None in kinds:
            raise CalibrateError(f"{source}: records without placement; say which path with --calibrate-on")
        if len(kinds) > 1:
            raise CalibrateError(
                f"{source}: ping-pongs on one node and between nodes; choose with --calibrate-on"
            )
        return kinds.pop(), records
    if on not in PATHS:
        raise CalibrateError(f"--calibrate-on must be one of {', '.join(PATHS)}, got {on!r}")
    chosen = [r for r in records if path_of(r) in (on, None)]
    if not chosen:
        where = "on one node" if on == "node" else "between two nodes"
        raise CalibrateError(f"{source}: no ping-pong {where} (its two ranks ran {_other(on)})")
    return on, chosen


def _other(on: str) -> str:
    return "on two hosts" if on == "node" else "on one host"


def medians(records: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Each size's median half round trip, all its samples pooled; sizes ascending."""
    samples: dict[int, list[float]] = {}
    for r in records:
        samples.setdefault(r["message_bytes"], []).extend(r["latency_s"])
    sizes = sorted(samples)
    return np.array(sizes, float), np.array([np.median(samples[m]) for m in sizes])


def fit_line(m: np.ndarray, t: np.ndarray) -> tuple[float, float, bool, bool]:
    """(a, b, latency clipped, bandwidth clipped) of t = a + m / b, least
    squares on relative error, a >= 0 and b > 0. One size: t = m / b."""
    if len(m) == 1:
        return 0.0, float(m[0] / t[0]), True, False
    w = 1 / t  # minimise sum(((a + m c) - t) / t)^2, c = 1 / b
    (a, c), *_ = np.linalg.lstsq(np.vstack([w, m * w]).T, np.ones_like(t), rcond=None)
    if a < 0:  # through the origin
        x = m * w
        return 0.0, float(np.sum(x * x) / np.sum(x)), True, False
    if c <= 0:  # flat or falling: latency only, transfer under 0.1% of it
        a = float(np.sum(w) / np.sum(w * w))
        return a, float(m.max() / (1e-3 * a)), False, True
    return float(a), float(1 / c), False, False


def worst_error(m: np.ndarray, t: np.ndarray) -> tuple[float, float]:
    """The fit's largest relative miss over the sizes, and its sum of squares."""
    a, b, *_ = fit_line(m, t)
    miss = np.abs(a + m / b - t) / t
    return float(np.max(miss)), float(np.sum(miss * miss))


def segment_bounds(m: np.ndarray, t: np.ndarray, eager_bytes: float | None) -> list[int]:
    """Indices where the segments start, and len(m) last: of the splits into
    1 to MAX_SEGMENTS segments (one starting at eager_bytes), the fewest
    segments whose worst miss is within TOLERANCE, else the best split into
    MAX_SEGMENTS; between splits of as many segments, the smaller worst miss."""
    n = len(m)
    miss = {(i, j): worst_error(m[i:j], t[i:j]) for i in range(n) for j in range(i + 1, n + 1)}
    e = int(np.searchsorted(m, eager_bytes)) if eager_bytes else 0
    forced = {e} if 0 < e < n else set()
    best: tuple = ()
    for k in range(1, min(MAX_SEGMENTS, n) + 1):
        for cuts in itertools.combinations(range(1, n), k - 1):
            if not forced <= set(cuts):
                continue
            bounds = [0, *cuts, n]
            parts = [miss[p] for p in itertools.pairwise(bounds)]
            score = (max(w for w, _ in parts), sum(s for _, s in parts))
            if not best or score < best[0]:
                best = (score, bounds)
        if best and best[0][0] <= TOLERANCE:
            break
    return best[1]


def calibrate(
    records: list[dict],
    link_latency_s: float,
    link_bandwidth_Bps: float,
    eager_bytes: float | None,
    *,
    source: str = "",
    path: str = "node",
) -> Calibration:
    """Fit the records' ping-pong per segment and turn it into SMPI's
    factors against a link of `link_latency_s` and `link_bandwidth_Bps`."""
    m, t = medians(records)
    if len(m) < MIN_SIZES:
        raise CalibrateError(
            f"{source or 'the records'}: {len(m)} message size(s); calibrating needs at least "
            f"{MIN_SIZES} (e.g. bench pingpong -m 1:4M)"
        )
    if not (link_latency_s > 0 and link_bandwidth_Bps > 0):
        raise CalibrateError(f"the platform's {path} link has no latency or bandwidth to scale")
    bounds = segment_bounds(m, t, eager_bytes)
    segments = []
    for i, j in itertools.pairwise(bounds):
        a, b, lat_clip, bw_clip = fit_line(m[i:j], t[i:j])
        err = float(np.max(np.abs(a + m[i:j] / b - t[i:j]) / t[i:j]))
        lat_factor = max(a - ENVELOPE_BYTES / b, 0.0) / link_latency_s
        segments.append(
            Segment(
                int(m[i]),
                int(m[j - 1]),
                j - i,
                a,
                b,
                lat_factor,
                b / link_bandwidth_Bps,
                err,
                lat_clip,
                bw_clip,
            )
        )
    return Calibration(source, path, link_latency_s, link_bandwidth_Bps, tuple(segments))


def calibration_text(c: Calibration, both_paths: bool = False) -> str:
    """One line per segment, for the terminal; `both_paths`: the run also
    sends messages on the path the records did not measure."""
    lines = [f"calibrated from {c.source} ({'on one node' if c.path == 'node' else 'between nodes'}):"]
    for s in c.segments:
        note = " (one size: no latency)" if s.sizes == 1 else " (latency clipped to 0)" * s.latency_clipped
        note += " (time falls with size: bandwidth set high)" if s.bandwidth_clipped else ""
        fit = f"{s.latency_s * 1e6:.3f} us + m / {s.bandwidth_Bps / 1e9:.3f} GB/s"
        factors = f"lat-factor {s.lat_factor:.4g}  bw-factor {s.bw_factor:.4g}"
        sizes = f"{s.first_bytes}-{s.last_bytes}" if s.sizes > 1 else f"{s.first_bytes}"
        lines.append(f"  {sizes} B: {fit}  {factors}  worst miss {s.worst_error:.1%}{note}")
    if both_paths:
        other = "between nodes" if c.path == "node" else "on one node"
        lines.append(
            f"  (SMPI has one set of factors: messages {other} get them too, against their own link)"
        )
    return "\n".join(lines)
