"""`haloex-lab compare A B` on results: the same benchmark points measured
on two machines or under two MPI configurations, side by side (as the
CRESTA paper sets collective implementations against each other)."""

from __future__ import annotations

from pathlib import Path

from .link_state import SLOW_LINK, link_state
from .machines import machine, machine_text
from .results import ResultsError, load_results
from .stats import summarize

# What identifies a point, besides the benchmark, when present.
_POINT_KEYS = (
    "strategy", "kernel", "config", "mpi_name", "shape", "local_size", "size", "global_size",
    "message_bytes", "elements_per_rank", "ranks", "threads_per_rank", "ncomp", "dtype", "layout",
    "halo_width", "halo_plan", "procs", "buffers",
)  # fmt: skip
# The measured quantity, with its unit, in order of preference.
_QUANTITIES = (
    ("time_per_call_s", "us", 1e6),
    ("latency_s", "us", 1e6),
    ("mlups_samples", "MLUPS", 1.0),
    ("bandwidth_bytes_per_s", "GB/s", 1e-9),
    ("time_s", "ms", 1e3),
    ("sim_s_per_step", "us", 1e6),
)


def _point(r: dict) -> tuple:
    if r["benchmark"] == "pingpong" and "buffers" not in r:
        r = {**r, "buffers": "one"}  # (records from before --buffers bounced one buffer)
    return (r["benchmark"], *((k, str(r[k])) for k in _POINT_KEYS if k in r))


def _quantity(r: dict):
    for key, unit, scale in _QUANTITIES:
        v = r.get(key)
        if isinstance(v, list) and v and all(isinstance(x, int | float) for x in v):
            return key, unit, summarize(v).median * scale
    return None


def _side(path: Path) -> tuple[dict, set, list]:
    points, machines = {}, set()
    records = load_results(path)
    for r in records:
        q = _quantity(r)
        if q is not None:
            points[_point(r)] = q
            machines.add(machine(r))
    if not points:
        raise ResultsError(f"{path}: no records with samples to compare")
    return points, machines, records


def _states(a: list, b: list) -> list[str]:
    """A line on the machine state of each side (the link probe of bench
    halo), and a warning when they differ: then B/A says as much about the
    state as about what was changed."""
    la, lb = link_state(a), link_state(b)
    if not la or not lb:
        return []
    lines = [
        "",
        f"Link probe (machine state, docs/statistics.md): A {la.fastest_us:.1f} us, "
        f"B {lb.fastest_us:.1f} us.",
    ]
    ratio = max(la.fastest_us, lb.fastest_us) / min(la.fastest_us, lb.fastest_us)  # both > 0
    if ratio >= SLOW_LINK:
        lines.append(
            f"Warning: A and B were not measured in the same machine state (their probes differ by "
            f"{ratio:.1f}x): compare them in one state."
        )
    elif la.slow_points or lb.slow_points:
        side = "A" if la.slow_points else "B"
        side = "A and B" if la.slow_points and lb.slow_points else side
        lines.append(
            f"Warning: {side} changed machine state during its run (points with the probe at "
            f"{SLOW_LINK}x its fastest or more): compare points measured in one state."
        )
    return lines


def compare_results(a: Path, b: Path) -> str:
    """A markdown table of every point measured on both sides: the medians
    and B/A; then how many points only one side has."""
    pa, ma, ra = _side(Path(a))
    pb, mb, rb = _side(Path(b))
    both = sorted(set(pa) & set(pb), key=str)
    if not both:
        raise ResultsError(f"{a} and {b} have no benchmark point in common")
    lines = [
        f"A: {a} ({'; '.join(machine_text(m) for m in sorted(ma, key=str))})",
        f"B: {b} ({'; '.join(machine_text(m) for m in sorted(mb, key=str))})",
        "",
        "| benchmark | point | quantity | A | B | B/A |",
        "|---|---|---|---:|---:|---:|",
    ]
    for p in both:
        (key, unit, va), (_, _, vb) = pa[p], pb[p]
        point = ", ".join(f"{k}={v}" for k, v in p[1:])
        ratio = f"{vb / va:.3f}" if va else "-"
        lines.append(f"| {p[0]} | {point} | {key} ({unit}) | {va:.4g} | {vb:.4g} | {ratio} |")
    only_a, only_b = len(set(pa) - set(pb)), len(set(pb) - set(pa))
    if only_a or only_b:
        lines += ["", f"Left out: {only_a} point(s) only in A, {only_b} only in B."]
    return "\n".join(lines + _states(ra, rb))
