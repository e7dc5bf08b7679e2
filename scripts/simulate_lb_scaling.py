"""The 2023 Ludwig paper's scaling figure in kind, on a simulated machine.

simulate_lb_scaling.py HALOEX_SMPI NETWORK LB_RECORDS OUT [--points N:NODES,...]

For each point (a global N^3 D3Q19 lattice on NODES nodes of 2 ranks), one
step of the LB is the reduced halo exchange of `bench halo --global N`,
simulated at 2 x NODES ranks, and the collide-stream update, injected: each
rank's sites at a rate taken from this machine's `bench lb` (LB_RECORDS: the
kernels' fraction of the memory roofline, measured in the same run as the
roofline) scaled to NETWORK's node by its copy bandwidth. The exchange runs
around the interior's update (--work-us), so one run gives both steps:
without overlap, exchange + interior + boundary; with overlap, begin +
interior + end, then the boundary. The figure of merit is the paper's:
lattice sites x steps per second per node.

Writes OUT/lb-scaling.jsonl (the simulated records), lb-scaling-points.json
(the points), lb-scaling.md (the table) and lb-scaling.png (the figure), and
prints each point's wall time; --replot redraws the last two from the points.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tomllib
from pathlib import Path

# The 2023 paper's figure 2: 128^3 on 1-4 nodes ... 2048^3 on 4096 nodes.
PAPER = "128:1,128:2,128:4,256:8,256:16,256:32,512:64,512:128,512:256,1024:512,1024:1024,1024:2048,2048:4096"
BYTES_PER_UPDATE = 2 * 19 * 8  # D3Q19, double: read and write every population


def dims_create(ranks: int) -> list[int]:
    """MPI_Dims_create(ranks, 3): as equal as the factors allow, largest first."""
    dims = [1, 1, 1]
    factors, n, p = [], ranks, 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return sorted(dims, reverse=True)


def node_rate(lb_records: Path, copy_bandwidth: float) -> tuple[float, float]:
    """(site updates per second per node on the described machine, the
    kernels' roofline fraction measured here): the fastest D3Q19 record."""
    best = None
    for line in lb_records.read_text().splitlines():
        r = json.loads(line)
        if (
            r.get("benchmark") != "lb"
            or r.get("velocity_set") != "D3Q19"
            or "roofline_fraction" not in r
        ):
            continue
        kernels = r["roofline_fraction"] / (
            1.0 - r.get("outside_kernels_fraction_median", 0.0)
        )
        best = kernels if best is None else max(best, kernels)
    if best is None:
        sys.exit(
            f"simulate_lb_scaling.py: {lb_records} holds no D3Q19 bench lb record with a roofline fraction"
        )
    return best * copy_bandwidth / BYTES_PER_UPDATE, best


def simulate_point(args, n: int, nodes: int, rate_rank: float) -> dict:
    ranks = 2 * nodes
    d = dims_create(ranks)
    if any(n % k for k in d):
        sys.exit(f"simulate_lb_scaling.py: {n}^3 does not split evenly over {d}")
    sub = [n // k for k in d]
    interior = (sub[0] - 2) * (sub[1] - 2) * (sub[2] - 2)
    boundary = sub[0] * sub[1] * sub[2] - interior
    work_us = interior / rate_rank * 1e6
    raw = args.out / "lb-scaling.jsonl"
    start = time.monotonic()
    cmd = [args.python, "-m", "haloex_lab", "simulate", str(args.network), "--ranks", str(ranks),
           "--ranks-per-node", "2", "--haloex", str(args.haloex), "-o", str(raw), "--",
           "bench", "halo", "--global", str(n), "--plan", "reduced", "-s", args.strategy, "-i", "3", "-r", "1",
           "--warmup", "0", "-q", "--field-memory", "folded", "--work-us", f"{work_us:.3f}"]  # fmt: skip
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    rec = json.loads(raw.read_text().splitlines()[-1])
    if sorted(rec["process_grid"], reverse=True) != d:  # the work injected assumed d
        sys.exit(
            f"simulate_lb_scaling.py: bench halo chose the grid {rec['process_grid']}, not {d}"
        )
    ex, both = rec["median_time_per_call_s"], rec["median_overlap_time_per_call_s"]
    bnd = boundary / rate_rank
    plain, overlapped = ex + work_us * 1e-6 + bnd, both + bnd
    sites = float(n) ** 3
    print(
        f"simulate_lb_scaling.py: {n}^3 on {nodes} nodes ({ranks} ranks, {'x'.join(map(str, sub))} a rank): "
        f"wall {wall:.0f} s",
        flush=True,
    )
    return {
        "n": n,
        "nodes": nodes,
        "ranks": ranks,
        "subdomain": sub,
        "exchange_s": ex,
        "interior_s": work_us * 1e-6,
        "boundary_s": bnd,
        "step_s": plain,
        "step_overlap_s": overlapped,
        "fom": sites / plain / nodes,
        "fom_overlap": sites / overlapped / nodes,
        "wall_s": wall,
    }


def table(rows: list[dict], rate_node: float) -> str:
    out = [
        (
            "| N^3 | nodes | ranks | subdomain | exchange us | update us | step us | step with overlap us "
            "| FoM (site updates/s/node) | with overlap | fraction of the update alone | wall s |"
        ),
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        update = (r["interior_s"] + r["boundary_s"]) * 1e6
        out.append(
            f"| {r['n']} | {r['nodes']} | {r['ranks']} | {'x'.join(map(str, r['subdomain']))} "
            f"| {r['exchange_s'] * 1e6:.1f} | {update:.1f} | {r['step_s'] * 1e6:.1f} "
            f"| {r['step_overlap_s'] * 1e6:.1f} | {r['fom']:.3g} | {r['fom_overlap']:.3g} "
            f"| {r['fom'] / rate_node:.2f} / {r['fom_overlap'] / rate_node:.2f} | {r['wall_s']:.0f} |"
        )
    return "\n".join(out) + "\n"


def figure(rows: list[dict], rate_node: float, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    for n in sorted({r["n"] for r in rows}):
        pts = [r for r in rows if r["n"] == n]
        x = [r["nodes"] for r in pts]
        (line,) = ax.plot(
            x, [r["fom"] for r in pts], "x-", label=f"{n}$^3$, no overlap"
        )
        ax.plot(
            x,
            [r["fom_overlap"] for r in pts],
            "s--",
            color=line.get_color(),
            mfc="none",
            label=f"{n}$^3$, overlap",
        )
    ax.axhline(
        rate_node,
        color="grey",
        lw=0.8,
        ls=":",
        label="the update alone (injected rate)",
    )
    ax.set_xscale("log", base=2)
    ticks = sorted({r["nodes"] for r in rows})
    ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=7)
    ax.set_ylim(0, rate_node * 1.1)
    ax.set_xlabel("nodes (2 ranks each)")
    ax.set_ylabel("lattice sites x steps / s / node")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, ncol=2, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("haloex", type=Path)
    p.add_argument("network", type=Path)
    p.add_argument("lb_records", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--points", default=PAPER, help="N:NODES,... (default: the paper's)")
    p.add_argument("--strategy", default="direct")
    p.add_argument("--python", default=sys.executable)
    p.add_argument(
        "--replot",
        action="store_true",
        help="redraw OUT's table and figure from its points",
    )
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.replot:
        (args.out / "lb-scaling.jsonl").unlink(missing_ok=True)
    net = tomllib.loads(args.network.read_text())
    rate_node, fraction = node_rate(args.lb_records, net["node"]["copy_bandwidth_Bps"])
    print(
        f"simulate_lb_scaling.py: the kernels reach {fraction:.3f} of the roofline here; at "
        f"{net['node']['copy_bandwidth_Bps'] / 1e9:.0f} GB/s a node that is {rate_node / 1e6:.0f} MLUPS a node"
    )
    points = args.out / "lb-scaling-points.json"
    if args.replot:
        rows = json.loads(points.read_text())
    else:
        rows = []
        for point in args.points.split(","):
            n, nodes = (int(v) for v in point.split(":"))
            rows.append(simulate_point(args, n, nodes, rate_node / 2))
        points.write_text(json.dumps(rows, indent=1) + "\n")
    (args.out / "lb-scaling.md").write_text(table(rows, rate_node))
    title = (
        f"D3Q19 on {net['network']['name']}, simulated (SimGrid SMPI)\n"
        f"update injected at {rate_node / 1e6:.0f} MLUPS a node, halo: {args.strategy}"
    )
    figure(rows, rate_node, args.out / "lb-scaling.png", title)
    print(table(rows, rate_node), end="")


if __name__ == "__main__":
    main()
