"""The report's figures (matplotlib, drawn off-screen). Each function draws
one figure and returns the file names it wrote (PNG, and SVG on request)."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from .analysis import CALLS, HaloPoint, Speedup, comm_work_ratio, element_bytes, run_of
from .stats import compare_paired

MARKERS = "osD^v<>pPX*h"


def _style(i: int) -> dict:
    return {"marker": MARKERS[i % len(MARKERS)], "color": plt.cm.tab20(i % 20), "markersize": 4, "capsize": 2}


def _save(fig, out: Path, name: str, formats: list[str]) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for fmt in formats:
        path = out / f"{name}.{fmt}"
        fig.savefig(path, dpi=120, bbox_inches="tight")
        names.append(path.name)
    plt.close(fig)
    return names


def _order(series: dict) -> list[str]:
    # staged first (the reference), then the others by name.
    return sorted(series, key=lambda s: (s != "staged", s))


def _relative(p: HaloPoint, base: HaloPoint) -> float:
    """p's time over base's: the median of the ratios of the rounds both ran
    when they ran in one invocation (strategies that left the race early
    have fewer rounds, and medians over different rounds need not compare),
    else the ratio of the medians."""
    if run_of(p.record) == run_of(base.record):
        return compare_paired(p.record["time_per_call_s"], base.record["time_per_call_s"]).ratio
    return p.time.median / base.time.median


def halo_sweep(series: dict[str, list[HaloPoint]], title: str, out: Path, name: str, formats) -> list[str]:
    """Four panels against the subdomain edge L: time for 2000 calls, effective
    bandwidth against the halo bytes, updates per core per second, and the
    runtime relative to staged. Error bars: standard deviation."""
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5), constrained_layout=True)
    staged = {p.record["local_size"]: p for p in series.get("staged", [])}
    for i, s in enumerate(_order(series)):
        pts = series[s]
        L = [p.record["local_size"] for p in pts]
        st = _style(i)
        ax[0, 0].errorbar(
            L, [CALLS * p.time.mean for p in pts], yerr=[CALLS * p.time.std for p in pts], label=s, **st
        )
        ax[0, 1].errorbar(
            [p.record["halo_bytes"] / 1e6 for p in pts],
            [p.beff.mean / 1e9 for p in pts],
            yerr=[p.beff.std / 1e9 for p in pts],
            label=s,
            **st,
        )
        ax[1, 0].errorbar(
            L, [p.updates.mean / 1e6 for p in pts], yerr=[p.updates.std / 1e6 for p in pts], label=s, **st
        )
        rel = [
            (p.record["local_size"], _relative(p, staged[p.record["local_size"]]))
            for p in pts
            if p.record["local_size"] in staged
        ]
        if rel:
            ax[1, 1].plot(
                *zip(*rel, strict=True), label=s, marker=st["marker"], color=st["color"], markersize=4
            )
    ax[0, 0].set(xlabel="subdomain edge L", ylabel=f"time for {CALLS} calls (s)", title="halo exchange time")
    ax[0, 1].set(
        xlabel="halo bytes per rank and exchange (MB)",
        ylabel="B_eff (GB/s)",
        xscale="log",
        title="effective bandwidth",
    )
    ax[1, 0].set(
        xlabel="subdomain edge L", ylabel="updates per core (10^6/s)", title="rate of updates N = sites / t"
    )
    ax[1, 1].set(
        xlabel="subdomain edge L",
        ylabel="time / staged's (median of per-round ratios)",
        title="runtime relative to staged",
    )
    ax[1, 1].axhline(1.0, color="grey", lw=0.8)
    for a in ax.flat:
        a.grid(alpha=0.3)
    ax[0, 0].legend(fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    return _save(fig, out, name, formats)


def comm_work(sweeps: dict, out: Path, formats) -> list[str]:
    """The analytic halo/work ratio of cubic and non-cubic subdomains beside
    the ratio the plans really moved (halo sites per owned site), and the
    measured exchange time per owned site."""
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    # Against sites per rank (the work), so that the two shapes compare at
    # equal work: x = V^(1/3) (cubic) or (V/3)^(1/3) (x, 1.5x, 2x).
    volume = np.logspace(np.log10(64), np.log10(1e6), 200)
    for shape, ls, edge in (("cubic", "-", volume ** (1 / 3)), ("noncubic", "--", (volume / 3) ** (1 / 3))):
        ax[0].plot(
            volume,
            [comm_work_ratio(shape, x) for x in edge],
            ls,
            color="black",
            lw=1,
            label=f"analytic, {shape}",
        )
    for i, ((shape, ranks, _grid, setup), series) in enumerate(
        sorted(sweeps.items(), key=lambda kv: str(kv[0]))
    ):
        pts = series.get("staged") or next(iter(series.values()))
        ncomp, dtype = setup[0], setup[1]
        V = [p.record["sites_per_rank"] for p in pts]
        moved = [
            p.record["halo_bytes"] / (ncomp * element_bytes(dtype)) / p.record["sites_per_rank"] for p in pts
        ]
        st = _style(i)
        ax[0].plot(
            V, moved, st["marker"], color=st["color"], label=f"plan, {shape}, {ranks} ranks ({setup[3]})"
        )
        ax[1].plot(
            V,
            [p.time.median / p.record["sites_per_rank"] * 1e9 for p in pts],
            marker=st["marker"],
            color=st["color"],
            label=f"{pts[0].strategy}, {shape}, {ranks} ranks",
        )
    ax[0].set(
        xlabel="sites per rank (work)",
        ylabel="halo sites / owned sites",
        xscale="log",
        yscale="log",
        title="communication / work",
    )
    ax[1].set(
        xlabel="sites per rank (work)",
        ylabel="exchange time per owned site (ns)",
        xscale="log",
        yscale="log",
        title="measured exchange cost per site",
    )
    for a in ax:
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    return _save(fig, out, "comm_work_ratio", formats)


def noncubic(cubic: dict, noncub: dict, title: str, out: Path, name: str, formats) -> list[str]:
    """Updates per core per second against sites per rank, cubic (solid) and
    non-cubic x 1.5x 2x (dashed) subdomains."""
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, s in enumerate(_order(cubic)):
        st = _style(i)
        for series, ls, tag in ((cubic, "-", "cubic"), (noncub, "--", "non-cubic")):
            pts = series.get(s, [])
            if pts:
                ax.errorbar(
                    [p.record["sites_per_rank"] for p in pts],
                    [p.updates.mean / 1e6 for p in pts],
                    yerr=[p.updates.std / 1e6 for p in pts],
                    ls=ls,
                    label=f"{s} {tag}",
                    **st,
                )
    ax.set(xlabel="sites per rank", ylabel="updates per core (10^6/s)", xscale="log", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return _save(fig, out, name, formats)


def strong(
    series: dict[str, list[HaloPoint]],
    speed: dict[str, Speedup],
    base: str,
    title: str,
    out: Path,
    name: str,
    formats,
) -> list[str]:
    """Strong scaling: time for 2000 calls, speedup against each strategy's own
    base and against one common base, and parallel efficiency."""
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5), constrained_layout=True)
    for i, s in enumerate(_order(series)):
        pts, sp, st = series[s], speed[s], _style(i)
        ax[0, 0].errorbar(
            sp.ranks,
            [CALLS * p.time.mean for p in pts],
            yerr=[CALLS * p.time.std for p in pts],
            label=s,
            **st,
        )
        kw = {"marker": st["marker"], "color": st["color"], "markersize": 4}
        ax[0, 1].plot(sp.ranks, sp.own, label=s, **kw)
        ax[1, 0].plot(sp.ranks, sp.common, label=s, **kw)
        ax[1, 1].plot(sp.ranks, sp.efficiency, label=s, **kw)
    ranks = sorted({r for sp in speed.values() for r in sp.ranks})
    for a in (ax[0, 1], ax[1, 0]):
        a.plot(ranks, [r / ranks[0] for r in ranks], ":", color="grey", label="ideal")
    ax[0, 0].set(xlabel="ranks", ylabel=f"time for {CALLS} calls (s)", title="halo exchange time")
    ax[0, 1].set(
        xlabel="ranks", ylabel="S(p) = T(own base) / T(p)", title="speedup, each against its own base"
    )
    ax[1, 0].set(xlabel="ranks", ylabel="S(p) = T(common) / T(p)", title=f"speedup against {base}")
    ax[1, 1].set(xlabel="ranks", ylabel="E(p) = S(p) / (p / p_base)", title="parallel efficiency")
    for a in ax.flat:
        a.grid(alpha=0.3)
    ax[0, 0].legend(fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    return _save(fig, out, name, formats)


def pingpong(records: list[dict], out: Path, formats) -> list[str]:
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
        st = _style(i)
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
    return _save(fig, out, "pingpong", formats)


def lb_saturation(records: list[dict], out: Path, formats) -> list[str]:
    """The saturation exercise: MLUPS against lattice sites on fixed resources,
    one line per ranks x threads and kernel/layout configuration."""
    fig, ax = plt.subplots(figsize=(8, 5))
    lines: dict = {}
    for r in records:
        if "mlups_samples" in r:
            key = (r["ranks"], r["threads_per_rank"], r["config"])
            lines.setdefault(key, []).append(r)
    for i, (key, rs) in enumerate(sorted(lines.items())):
        rs.sort(key=lattice_sites)
        samples = [np.array(r["mlups_samples"]) for r in rs]
        ax.errorbar(
            [lattice_sites(r) for r in rs],
            [s.mean() for s in samples],
            yerr=[s.std() for s in samples],
            label=f"{key[0]} rank(s) x {key[1]} thread(s) {key[2]}",
            **_style(i),
        )
    ax.set(xscale="log", xlabel="lattice sites", ylabel="MLUPS", title="LB saturation exercise")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return _save(fig, out, "lb_saturation", formats)


def lb_schedules(pairs: dict, out: Path, formats) -> list[str]:
    """Worksharing against taskloop (the 2023 ARCHER2 paper's Figure 5): the
    taskloop rate over the worksharing rate against lattice sites, one line
    per ranks x threads and layout; `pairs` maps (ranks, threads, layout) to
    [(sites, ratio samples)]."""
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, (key, pts) in enumerate(sorted(pairs.items())):
        pts = sorted(pts)
        ax.errorbar(
            [p[0] for p in pts],
            [np.median(p[1]) for p in pts],
            yerr=[np.std(p[1]) for p in pts],
            label=f"{key[0]} rank(s) x {key[1]} thread(s) {key[2]}",
            **_style(i),
        )
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set(
        xscale="log",
        xlabel="lattice sites",
        ylabel="taskloop MLUPS / worksharing MLUPS",
        title="LB sweep shared by tasks or by worksharing",
    )
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return _save(fig, out, "lb_schedules", formats)


def lattice_sites(r: dict) -> float:
    # Records before 0.4 lack lattice_sites; they were all 3-D.
    return r.get("lattice_sites", float(r["size"]) ** 3)


def stencil(series: dict, x_key: str, title: str, out: Path, name: str, formats) -> list[str]:
    """Halo time and work time of the diffusion application per run against
    ranks or nz, one line per strategy (serial dashed). Error bars: standard
    deviation."""
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    for i, s in enumerate(_order(series)):
        pts = series[s]
        x = [p.record[x_key] for p in pts]
        st = _style(i)
        ls = "--" if s == "serial" else "-"
        ax[0].errorbar(
            x,
            [p.halo.mean * 1e3 for p in pts],
            yerr=[p.halo.std * 1e3 for p in pts],
            label=s,
            linestyle=ls,
            **st,
        )
        ax[1].errorbar(
            x,
            [p.work.mean * 1e3 for p in pts],
            yerr=[p.work.std * 1e3 for p in pts],
            label=s,
            linestyle=ls,
            **st,
        )
    xlabel = "ranks" if x_key == "ranks" else "nz (values per column)"
    ax[0].set(xlabel=xlabel, ylabel="halo time per run (ms)", title="halo update", yscale="log")
    ax[1].set(xlabel=xlabel, ylabel="work time per run (ms)", title="13-point update", yscale="log")
    if x_key == "nz":
        for a in ax:
            a.set_xscale("log", base=2)
    ax[0].legend(fontsize=7, ncol=2)
    fig.suptitle(title)
    return _save(fig, out, name, formats)


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
                **{k: v for k, v in _style(i).items() if k != "capsize"},
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


def coll_delay(series: dict, op: str, nbytes: int, out: Path, name: str, formats) -> list[str]:
    """The CRESTA paper's figures 4-8 for one operation: the collective time
    t_delta against processes per delay (top) and the delay benefit b
    (bottom), blocking left, non-blocking right."""
    fig, ax = plt.subplots(2, 2, figsize=(12, 8), constrained_layout=True)
    title = f"{op}, {nbytes} B" if nbytes else op
    _forms(ax[0], series, 1, "t_delta (us)", title, log=True)
    _forms(ax[1], series, 2, "delay benefit b", title, log=False)
    return _save(fig, out, name, formats)


def overlap_beta(rows: list, out: Path, formats) -> list[str]:
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
                **{k: v for k, v in _style(i).items() if k != "capsize"},
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
    return _save(fig, out, "overlap_beta", formats)


def monitor_costs(records: list[dict], out: Path, formats) -> list[str]:
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
    return _save(fig, out, "monitor", formats)


def io_bandwidth(records: list[dict], out: Path, formats) -> list[str]:
    """Median output bandwidth against lattice size, one line per (ranks,
    I/O grid), with the min-max range of the episodes."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5), constrained_layout=True)

    def key_of(r):
        return r["ranks"], r["format"], "x".join(map(str, r["io_grid"])), r["ncomp"], r.get("hints", "none")

    for i, key in enumerate(sorted({key_of(r) for r in records})):
        rs = sorted((r for r in records if key_of(r) == key), key=lambda r: r["size"])
        L = [r["size"] for r in rs]
        med = np.array([np.median(r["bandwidth_Bps"]) / 1e9 for r in rs])
        lo = med - np.array([np.min(r["bandwidth_Bps"]) / 1e9 for r in rs])
        hi = np.array([np.max(r["bandwidth_Bps"]) / 1e9 for r in rs]) - med
        ax.errorbar(
            L,
            med,
            yerr=[lo, hi],
            label=f"{key[0]} ranks, {key[1]}, io_grid {key[2]}, {key[3]} per site"
            + ("" if key[4] == "none" else f", hints {key[4]}"),
            **_style(i),
        )
    ax.set(xscale="log", xlabel="L (L^3 sites)", ylabel="GB/s (median, min-max)", title="Output bandwidth")
    ax.set_xticks(sorted({r["size"] for r in records}))
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.legend(fontsize=7)
    return _save(fig, out, "io_bandwidth", formats)


def lb_scaling(series: list, base: str, title: str, out: Path, name: str, formats) -> list[str]:
    """The 2016 paper's chapter 6: MLUPS and parallel efficiency (against
    each configuration's own base and against `base`) against ranks."""
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.6), constrained_layout=True)
    for i, s in enumerate(series):
        st = _style(i)
        kw = {"marker": st["marker"], "color": st["color"], "markersize": 4}
        ax[0].plot(s.ranks, s.mlups, label=s.config, **kw)
        ax[1].plot(s.ranks, s.own, label=s.config, **kw)
        ax[2].plot(s.ranks, s.common, label=s.config, **kw)
    ranks = sorted({r for s in series for r in s.ranks})
    for a in ax[1:]:
        a.plot(ranks, [1.0] * len(ranks), ":", color="grey", label="ideal")
    ax[0].set(xlabel="ranks", ylabel="MLUPS (median)", title="LB update rate")
    ax[1].set(xlabel="ranks", ylabel="E(p) = M(p) / (M(p0) p / p0)", title="efficiency, own base")
    ax[2].set(xlabel="ranks", ylabel="E(p)", title=f"efficiency against {base}")
    for a in ax:
        a.grid(alpha=0.3)
        a.set_xticks(ranks)
    ax[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    return _save(fig, out, name, formats)


def projection(net, lattice, points: list, base: int, stops: dict, measured: dict, out: Path) -> Path:
    """`haloex-lab project`: each strategy family's exchange against one
    step's computation, the LB rate and the parallel efficiency of the three
    halo modes against ranks; where a mode stops scaling is marked, and
    measured rates (chapter 6) drawn over the projection."""
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.6), constrained_layout=True)
    ranks = [q.ranks for q in points]
    for i, f in enumerate(points[0].halo_s):
        ax[0].loglog(ranks, [q.halo_s[f] * 1e6 for q in points], marker=MARKERS[i], markersize=3, label=f)
    ax[0].loglog(ranks, [q.compute_s * 1e6 for q in points], "k--", label="compute (one step)")
    for i, m in enumerate(points[0].mlups):
        st = {"marker": MARKERS[i], "color": plt.cm.tab10(i), "markersize": 3}
        ax[1].loglog(ranks, [q.mlups[m] for q in points], label=f"{m} (model)", **st)
        from_base = [q for q in points if q.ranks >= base]
        ax[2].semilogx([q.ranks for q in from_base], [q.efficiency[m] for q in from_base], label=m, **st)
        if stops.get(m):
            ax[2].axvline(stops[m], color=st["color"], alpha=0.4, linestyle=":")
        if m in measured:
            got = sorted(measured[m].items())
            ax[1].loglog(
                [p for p, _ in got],
                [v for _, v in got],
                linestyle="none",
                marker=MARKERS[i],
                markersize=9,
                markerfacecolor="none",
                color=st["color"],
                label=f"{m} (measured)",
            )
    ax[2].axhline(0.5, color="grey", linestyle=":", label="efficiency 1/2")
    ax[0].set(xlabel="ranks", ylabel="microseconds", title="halo exchange against one step's compute")
    ax[1].set(xlabel="ranks", ylabel="MLUPS", title="LB update rate (D3Q19)")
    ax[2].set(
        xlabel="ranks", ylabel="parallel efficiency", title=f"efficiency against {base} ranks", ylim=(0, 1.1)
    )
    for a in ax:
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    fig.suptitle(
        f"Projection: {'x'.join(map(str, lattice))} on {net.name}, {net.ranks_per_node} ranks per node",
        fontsize=10,
    )
    _save(fig, out, "projection", ["png"])
    return out / "projection.png"
