"""`haloex-lab report`: a markdown report with tables and figures from a
folder of result files, in the manner of the 2016 paper's chapters 4 and 5."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pandas as pd

from . import coll, figures
from .analysis import (
    calibration,
    format_recommendations,
    halo_sweeps,
    lb_scaling,
    machine,
    machine_text,
    output_costs,
    physics_flags,
    recommendations,
    setup_text,
    speedups,
    stencil_series,
    strong_series,
)
from .link_state import link_state
from .peers import ludwig_section, peers_section, pingpong_section, python_section
from .results import load_results, write_atomically
from .stats import summarize


def _metadata(records: list[dict]) -> str:
    keys = ["host", "mpi_library", "mpi_standard", "haloex_version", "git_commit", "compiler", "build_type"]
    lines = ["| key | value |", "|---|---|"]
    for k in keys:
        values = sorted({str(r.get(k)) for r in records if k in r})
        lines.append(f"| {k} | {', '.join(values)} |")
    dates = sorted(r["date_utc"] for r in records if "date_utc" in r)
    if dates:
        lines.append(f"| runs | {dates[0]} .. {dates[-1]} |")
    counts = pd.Series([r["benchmark"] for r in records]).value_counts().sort_index()
    lines.append("| records | " + ", ".join(f"{b}: {n}" for b, n in counts.items()) + " |")
    return "\n".join(lines) + "\n"


def _halo_table(series: dict, x_key: str, x_name: str) -> str:
    lines = [
        f"| {x_name} | strategy | median us | median's 95% interval us | std us | B_eff GB/s | Mupd/core/s "
        "| vs staged |",
        "|---:|---|---:|---|---:|---:|---:|---:|",
    ]
    staged = {p.record[x_key]: p.time.median for p in series.get("staged", [])}
    rows = [p for pts in series.values() for p in pts]
    rows.sort(key=lambda p: (p.record[x_key], p.time.median))
    for p in rows:
        t = p.time
        rel = t.median / staged[p.record[x_key]] if p.record[x_key] in staged else float("nan")
        lines.append(
            f"| {p.record[x_key]} | {p.strategy} | {t.median * 1e6:.2f} | [{t.median_low * 1e6:.2f}, "
            f"{t.median_high * 1e6:.2f}] | {t.std * 1e6:.2f} | "
            f"{p.record['halo_bytes'] / t.median / 1e9:.2f} | "
            f"{p.updates.median / 1e6:.2f} | {rel:.3f} |"
        )
    return "\n".join(lines) + "\n"


def _stencil_table(series: dict, x_key: str) -> str:
    lines = [
        f"| {x_key} | strategy | halo ms | median's 95% interval ms | halo vs staged | work ms | total ms "
        "| speedup vs serial | roofline |",
        "|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    staged = {p.record[x_key]: p.halo.median for p in series.get("staged", [])}
    serial = {p.record[x_key]: p.total.median for p in series.get("serial", [])}
    rows = sorted((p for pts in series.values() for p in pts), key=lambda p: (p.record[x_key], p.halo.median))
    for p in rows:
        x = p.record[x_key]
        rel = f"{p.halo.median / staged[x]:.3f}" if x in staged else "-"
        sp = f"{serial[x] / p.total.median:.2f}" if x in serial else "-"
        rf = p.record.get("roofline_fraction")
        lines.append(
            f"| {x} | {p.strategy} | {p.halo.median * 1e3:.3f} | [{p.halo.median_low * 1e3:.3f}, "
            f"{p.halo.median_high * 1e3:.3f}] | {rel} | {p.work.median * 1e3:.3f} | "
            f"{p.total.median * 1e3:.3f} | {sp} | {'-' if rf is None else f'{rf:.2f}'} |"
        )
    return "\n".join(lines) + "\n"


def _fig(names: list[str], alt: str) -> str:
    png = next(n for n in names if n.endswith(".png"))
    return f"![{alt}](figures/{png})\n"


def _collective_sections(records: list[dict], figdir: Path, formats) -> list[str]:
    """Global clock, delayed start, overlap availability and LB monitoring."""
    md = []
    clocks = coll.clock_table(records)
    if clocks:
        md += [
            "## Global clock",
            "",
            "Each rank's clock skew against rank 0 (the modified ping-pong of the CRESTA paper): the "
            "estimate from the exchange with the shortest round trip, the mean and standard deviation over "
            "all exchanges, and the estimate's bound (half the shortest round trip).",
            "",
            clocks,
        ]
    series = coll.delay_series(records)
    rows = coll.delay_rows(records)
    if series:
        md += [
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
                names = figures.coll_delay(
                    s,
                    f"{op}, {ranks}-rank job",
                    nbytes,
                    figdir,
                    f"coll_delay_{op}_{nbytes}_np{ranks}",
                    formats,
                )
                md += [_fig(names, f"{op} with a delayed rank")]
        if rows:
            md += [coll.delay_table(rows)]
    orows = coll.overlap_rows(records)
    if orows:
        names = figures.overlap_beta(orows, figdir, formats)
        md += [
            "## Overlap availability of non-blocking collectives",
            "",
            "Means over iterations and ranks of T_coll (start, wait), T_comp (p x p matrix-vector products "
            "calibrated to about T_coll) and T_overlap (start, compute, wait). beta = (T_coll + T_comp - "
            "T_overlap) / T_overlap (the CRESTA paper); OSU % = 100 max(0, 1 - (T_overlap - T_comp) / "
            "T_coll); IMB % = 100 max(0, min(1, (T_coll + T_comp - T_overlap) / min(T_coll, T_comp))).",
            "",
            _fig(names, "overlap benefit beta"),
            coll.overlap_table(orows),
        ]
    mon = [r for r in records if r.get("benchmark") == "monitor"]
    if mon:
        names = figures.monitor_costs(mon, figdir, formats)
        md += [
            "## LB monitoring reductions",
            "",
            "Per step: T_sim (slowest rank's wall time), T_LB (collision and streaming, statistics "
            "included), T_halo, T_wait (in the reduction's MPI calls), T_mon (T_LB above the unmonitored "
            "run), medians.",
            "",
            _fig(names, "LB monitoring"),
            coll.monitor_table(mon),
        ]
    return md


def _io_section(records: list[dict], figdir: Path, formats) -> list[str]:
    """Output bandwidth per ranks and lattice size: the ARCHER2 paper's Table 1."""
    io = [r for r in records if r.get("benchmark") == "io"]
    if not io:
        return []
    # Rows (ranks, format, I/O grid, ncomp), a column per size; a cell is the
    # median of the first record's episodes there.
    gbps = pd.DataFrame(
        {
            "ranks": r["ranks"],
            "format": r["format"],
            "io_grid": "x".join(map(str, r["io_grid"])),
            "ncomp": r["ncomp"],
            "hints": r.get("hints", "none"),
            "size": r["size"],
            "GBps": summarize(r["bandwidth_Bps"]).median / 1e9,
        }
        for r in io
    ).pivot_table(
        index=["ranks", "format", "io_grid", "ncomp", "hints"], columns="size", values="GBps", aggfunc="first"
    )
    md = [
        "## Output bandwidth (the ARCHER2 paper's Table 1)",
        "",
        "Median GB/s over the episodes of one output (ncomp doubles per site, written through MPI-IO in "
        "global order, synced to storage and renamed); rows are rank counts, I/O grids and MPI-IO hints "
        "(as asked; the records also keep what the file system reported for them).",
        "",
        _fig(figures.io_bandwidth(io, figdir, formats), "output bandwidth"),
        "| ranks | format | io_grid | ncomp | hints | " + " | ".join(f"{L}^3" for L in gbps.columns) + " |",
        "|---:|---|---|---:|---|" + "---:|" * len(gbps.columns),
    ]
    for key, row in gbps.iterrows():
        cells = ["-" if pd.isna(v) else f"{v:.2f}" for v in row]
        md.append("| " + " | ".join(map(str, key)) + " | " + " | ".join(cells) + " |")
    return [*md, ""]


def _schedule_section(lb: list[dict], figdir: Path, formats) -> list[str]:
    """Taskloop against worksharing where a run timed both on the same
    configuration: the ratio of medians, sample by sample (interleaved)."""
    by: dict = {}
    for r in lb:
        if "mlups_samples" in r and "schedule" in r:
            rest = {
                k: r.get(k)
                for k in (
                    "ranks",
                    "threads_per_rank",
                    "size",
                    "kernel",
                    "layout",
                    "strategy",
                    "overlap",
                    "collision",
                    "geometry",
                    "date_utc",
                    "git_commit",
                )
            }
            by.setdefault(json.dumps(rest, sort_keys=True), {})[r["schedule"]] = r
    rows, pairs = [], {}
    for both in by.values():
        if "worksharing" not in both or "taskloop" not in both:
            continue
        ws, tl = both["worksharing"], both["taskloop"]
        ratios = [t / w for t, w in zip(tl["mlups_samples"], ws["mlups_samples"], strict=True)]
        key = (ws["ranks"], ws["threads_per_rank"], f"{ws['kernel']}/{ws['layout']}")
        pairs.setdefault(key, []).append((figures.lattice_sites(ws), ratios))
        rows.append(
            (
                ws["ranks"],
                ws["threads_per_rank"],
                ws["size"],
                key[2],
                summarize(ws["mlups_samples"]).median,
                summarize(tl["mlups_samples"]).median,
                summarize(ratios).median,
            )
        )
    if not rows:
        return []
    names = figures.lb_schedules(pairs, figdir, formats)
    md = [
        "### Worksharing or tasks",
        "",
        "The same sweep shared among a rank's threads by `omp for` or by `omp taskloop` (one task per "
        "thread), timed interleaved; the ratio is the median of the per-sample ratios.",
        "",
        _fig(names, "LB schedules"),
        "| ranks x threads | size | kernel/layout | worksharing MLUPS | taskloop MLUPS "
        "| taskloop / worksharing |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for ra, th, size, kl, w, t, q in sorted(rows):
        md.append(f"| {ra} x {th} | {size} | {kl} | {w:.1f} | {t:.1f} | {q:.3f} |")
    return [*md, ""]


def build_report(where: Path, out: Path | None = None, formats=("png",)) -> tuple[Path, str]:
    """Write report.md and figures/ under `out` (default: the results folder,
    or the file's folder). Returns the report's path and the recommendation
    table (markdown).

    Records from different machines or MPI configurations (analysis.machine)
    are never drawn as one curve: each configuration gets its own part of the
    report, with its figures in figures/m1/, figures/m2/, ..."""
    where = Path(where)
    records = load_results(where)
    out = Path(out) if out else (where if where.is_dir() else where.parent)
    figdir = out / "figures"
    formats = list(formats)
    md = [
        "# haloex benchmark report",
        "",
        f"From {len(records)} records in `{where}`.",
        "",
        "Times are per call of one halo exchange, slowest rank. Tables give medians with the median's "
        "distribution-free 95% interval (order statistics: it always lies within the samples); error bars "
        "in the figures are one standard deviation of the samples (the 2016 paper's convention), around "
        "the mean. Strategies are compared through the ratios of their samples taken in the same round "
        "(docs/statistics.md).",
        "",
        "## Run",
        "",
        _metadata(records),
    ]
    groups = defaultdict(list)
    for r in records:
        groups[machine(r)].append(r)
    if len(groups) == 1:
        body, rec_table = _sections(records, figdir, formats)
        md += body
    else:
        md += [
            "## Machines and configurations",
            "",
            "These results come from different machines or MPI configurations; each has its own part "
            "below, and no curve joins two of them.",
            "",
            "| part | machine, MPI library, launcher, MPI settings | records |",
            "|---|---|---:|",
        ]
        keys = sorted(groups, key=str)
        md += [f"| m{i} | {machine_text(k)} | {len(groups[k])} |" for i, k in enumerate(keys, 1)]
        md.append("")
        tables = []
        for i, k in enumerate(keys, 1):
            body, table = _sections(groups[k], figdir / f"m{i}", formats)
            # The sections link figures/NAME; this part's figures are in figures/mI/.
            md += [f"# Part m{i}: {machine_text(k)}", ""]
            md += [line.replace("](figures/", f"](figures/m{i}/") for line in body]
            if table:
                tables.append(f"On {machine_text(k)}:\n\n{table}")
        rec_table = "\n".join(tables)
    path = out / "report.md"
    write_atomically(path, "\n".join(md) + "\n")
    return path, rec_table


def _lb_scaling_section(records: list[dict], figdir: Path, formats) -> list[str]:
    """The 2016 paper's chapter 6: the whole LB application on more ranks."""
    groups = lb_scaling(records)
    if not groups:
        return []
    md = [
        "## LB application scaling (the 2016 paper's chapter 6)",
        "",
        "`bench lb` on one global lattice (strong) or the same sites per rank (weak), each halo "
        "configuration on several rank counts: median MLUPS, and the parallel efficiency "
        "E(p) = M(p) / (M(p0) p / p0) against each configuration's own fewest-ranks run and against the "
        "common base (the blocking `sendrecv` halo without overlap where measured).",
        "",
    ]
    for i, ((kind, what, threads), (base, series)) in enumerate(sorted(groups.items(), key=str)):
        lattice = f"global lattice {what}" if kind == "strong" else f"{what} sites per rank"
        title = f"{kind} scaling, {lattice}, {threads} thread(s) per rank"
        names = figures.lb_scaling(series, base, title, figdir, f"lb_scaling_{kind}_{i}", formats)
        md += [
            f"### {title}",
            "",
            _fig(names, title),
            "| config | ranks | MLUPS | E own | E common |",
            "|---|---:|---:|---:|---:|",
        ]
        for s in series:
            for p, m, a, b in zip(s.ranks, s.mlups, s.own, s.common, strict=True):
                md.append(f"| {s.config} | {p} | {m:.1f} | {a:.3f} | {b:.3f} |")
        md.append("")
    return md


def _output_cost_section(records: list[dict]) -> list[str]:
    """The LB step rate with field output every N steps against without."""
    costs = output_costs(records)
    if not costs:
        return []
    md = [
        "## LB step rate with output",
        "",
        "`bench lb --output-every N`: density, velocity and the mask written every N steps during the "
        "timed steps (each sample completes its last write), against the same configuration without output.",
        "",
        "| lattice | ranks | config | every | MLUPS | without | ratio | ms per output | MB per output |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in costs:
        md.append(
            f"| {c.lattice} | {c.ranks} | {c.config} | {c.every} | {c.mlups:.1f} | {c.mlups_without:.1f} | "
            f"{c.ratio:.3f} | {c.write_s * 1e3:.1f} | {c.bytes_per_write / 1e6:.1f} |"
        )
    return [*md, ""]


def _noise_section(cal, flags: list[str], link=None) -> list[str]:
    """The machine's noise (from the campaign's calibration points) and the
    points that break what physics says, before any result."""
    md = ["## Noise", ""]
    if cal:
        md.append(
            f"Calibration ({cal.what}, {cal.rounds} rounds, {cal.records} record(s)): two rounds of the same "
            f"exchange typically differ by {100 * cal.noise:.1f}% (median |ln ratio| of consecutive rounds). "
            "Recommendation rows whose leader varies by more than twice that are marked."
        )
    else:
        md.append('No calibration point in these records (a campaign point named "calibration" gives one).')
    if link:
        md += ["", link.text()]
    if flags:
        md += [
            "",
            "Points that break physics (more bytes in less time, the medians' intervals apart): the machine "
            "changed state between these sizes, so compare strategies within a size, not sizes with each "
            "other (docs/statistics.md):",
            "",
            *[f"- {f}" for f in flags],
        ]
    return [*md, ""]


def _sections(records: list[dict], figdir: Path, formats) -> tuple[list[str], str]:
    """The report's sections for records of one machine and configuration,
    and the recommendation table."""
    md = []
    sweeps, strong = halo_sweeps(records), strong_series(records)
    cal = calibration(records)
    link = link_state(records)
    recs = recommendations(sweeps, strong, cal, link)
    rec_table = format_recommendations(recs, cal) if recs else ""
    md += _noise_section(cal, physics_flags(sweeps), link)
    if recs:
        md += [
            "## Recommendation",
            "",
            "Fastest strategy per subdomain size by median time, then every other strategy against it "
            "through the per-round ratios of the same rounds (median ratio and its 95% interval): "
            "\"B takes x% longer [low, high], longer in k/n rounds\" is B's time over the leader's; "
            "strategies within 2% of the "
            "leader are named with it as a set; `auto` is not ranked, it runs what it chose. An undecided "
            "row says how many rounds would decide it.",
            "",
            rec_table,
        ]

    if sweeps:
        md += ["## Halo exchange against subdomain size", ""]
        for i, ((shape, ranks, grid, setup), series) in enumerate(
            sorted(sweeps.items(), key=lambda kv: str(kv[0]))
        ):
            grid_text = "x".join(map(str, grid)) if grid else "?"
            title = f"{shape} subdomains, {ranks} ranks ({grid_text}), {setup_text(setup)}"
            names = figures.halo_sweep(series, title, figdir, f"halo_{shape}_np{ranks}_{i}", formats)
            md += [f"### {title}", "", _fig(names, title), _halo_table(series, "local_size", "L")]
            if any("overlap_fraction" in p.record for pts in series.values() for p in pts):
                md += [
                    "Overlap with synthetic work (share of the exchange hidden, medians):",
                    "",
                    "| L | strategy | exchange us | with work us | hidden |",
                    "|---:|---|---:|---:|---:|",
                ]
                for pts in series.values():
                    for p in pts:
                        if "overlap_fraction" in p.record:
                            md.append(
                                f"| {p.record['local_size']} | {p.strategy} | {p.time.median * 1e6:.2f} | "
                                f"{p.record['median_overlap_time_per_call_s'] * 1e6:.2f} | "
                                f"{p.record['overlap_fraction']:.3f} |"
                            )
                md.append("")
        names = figures.comm_work(sweeps, figdir, formats)
        md += [
            "### Communication against work",
            "",
            "Analytic halo sites per owned site (cubic (6L^2+12L+8)/L^3; non-cubic x, 1.5x, 2x: "
            "(13x^2+18x+8)/3x^3) beside what the plans really moved, and the measured exchange time per "
            "owned site.",
            "",
            _fig(names, "communication against work"),
        ]
        pairs = defaultdict(dict)
        for (shape, ranks, _grid, setup), series in sweeps.items():
            pairs[(ranks, setup)][shape] = series
        for (ranks, setup), shapes in sorted(pairs.items(), key=lambda kv: str(kv[0])):
            if "cubic" in shapes and "noncubic" in shapes:
                title = f"cubic against non-cubic subdomains, {ranks} ranks, {setup_text(setup)}"
                names = figures.noncubic(
                    shapes["cubic"], shapes["noncubic"], title, figdir, f"noncubic_np{ranks}", formats
                )
                md += [f"### {title}", "", _fig(names, title)]

    if strong:
        md += ["## Strong scaling", ""]
        for i, ((glob, setup), series) in enumerate(sorted(strong.items(), key=lambda kv: str(kv[0]))):
            base, sp = speedups(series)
            gtext = "x".join(map(str, glob))
            title = f"global lattice {gtext}, {setup_text(setup)}"
            names = figures.strong(series, sp, base, title, figdir, f"strong_{gtext}_{i}", formats)
            md += [
                f"### {title}",
                "",
                _fig(names, title),
                _halo_table(series, "ranks", "ranks"),
                f"Speedup against each strategy's own base, against {base}, and parallel efficiency:",
                "",
                "| strategy | ranks | S own | S common | E |",
                "|---|---:|---:|---:|---:|",
            ]
            for s, v in sorted(sp.items()):
                for r, a, b, e in zip(v.ranks, v.own, v.common, v.efficiency, strict=True):
                    md.append(f"| {s} | {r} | {a:.3f} | {b:.3f} | {e:.3f} |")
            md.append("")

    stencil_groups = stencil_series(records)
    if any(stencil_groups.values()):
        md += [
            "## 2-D diffusion stencil",
            "",
            "Times of one application run (all its iterations), slowest rank: the halo update and the "
            "13-point work measured apart. `serial` runs the whole domain on one rank with plain copies for "
            "its periodic halo (the reference); speedup is its total time over the strategy's. The roofline "
            "fraction is the work's update rate over the STREAM copy bandwidth measured in the same run / "
            "bytes per update.",
            "",
        ]
        names_seen = 0
        for kind in ("strong", "weak", "nz"):
            for title, x_key, series in stencil_groups[kind]:
                names = figures.stencil(series, x_key, title, figdir, f"stencil_{kind}_{names_seen}", formats)
                names_seen += 1
                md += [f"### {title}", "", _fig(names, title), _stencil_table(series, x_key)]

    pp = [r for r in records if r["benchmark"] == "pingpong"]
    if pp:
        names = figures.pingpong(pp, figdir, formats)
        md += [
            "## Ping-pong",
            "",
            _fig(names, "ping-pong"),
            "`--buffers`: osu, send and receive buffers apart (as osu_latency); one, one buffer sent back "
            "as received (records from before the option).",
            "",
            "| bytes | --buffers | median latency us | median's 95% interval us | bandwidth MB/s |",
            "|---:|---|---:|---|---:|",
        ]
        for r in sorted(pp, key=lambda r: (r["date_utc"], r.get("buffers", "one"), r["message_bytes"])):
            s = summarize(r["latency_s"])
            bw = r["message_bytes"] / s.median / 1e6
            md.append(
                f"| {r['message_bytes']} | {r.get('buffers', 'one')} | {s.median * 1e6:.3f} | "
                f"[{s.median_low * 1e6:.3f}, {s.median_high * 1e6:.3f}] | {bw:.1f} |"
            )
        md.append("")

    lb = [r for r in records if r["benchmark"] == "lb"]
    if lb:
        names = figures.lb_saturation(lb, figdir, formats)
        md += [
            "## Lattice Boltzmann saturation",
            "",
            "MLUPS against lattice size on fixed resources (ranks x threads), with the memory roofline the "
            "benchmark measured in the same run.",
            "",
            _fig(names, "LB saturation"),
            "| ranks x threads | size | config | median MLUPS | median's 95% interval | roofline fraction |",
            "|---|---:|---|---:|---|---:|",
        ]
        for r in sorted(
            (r for r in lb if "mlups_samples" in r),
            key=lambda r: (r["ranks"], r["threads_per_rank"], r["size"], r["config"]),
        ):
            s = summarize(r["mlups_samples"])
            md.append(
                f"| {r['ranks']} x {r['threads_per_rank']} | {r['size']} | {r['config']} | {s.median:.1f} | "
                f"[{s.median_low:.1f}, {s.median_high:.1f}] | "
                f"{r.get('roofline_fraction', float('nan')):.3f} |"
            )
        md.append("")
        md += _schedule_section(lb, figdir, formats)

    md += _lb_scaling_section(records, figdir, formats)
    md += _output_cost_section(records)

    st = [r for r in records if r["benchmark"] == "stream"]
    if st:
        md += [
            "## Memory bandwidth (STREAM copy and triad)",
            "",
            "| ranks x threads | kernel | median GB/s | median's 95% interval GB/s |",
            "|---|---|---:|---|",
        ]
        for r in sorted(st, key=lambda r: (r["ranks"], r["threads_per_rank"], r["kernel"])):
            s = summarize(r["bandwidth_bytes_per_s"])
            md.append(
                f"| {r['ranks']} x {r['threads_per_rank']} | {r['kernel']} | {s.median / 1e9:.2f} | "
                f"[{s.median_low / 1e9:.2f}, {s.median_high / 1e9:.2f}] |"
            )
        md.append("")

    md += _collective_sections(records, figdir, formats)
    md += _io_section(records, figdir, formats)
    md += peers_section(records)
    md += python_section(records)
    md += pingpong_section(records)
    md += ludwig_section(records, figdir, formats)
    return md, rec_table
