"""The report's "RRZE" section: `haloex bench lb` beside RRZE-HPC's
lbm-benchmark-kernels on the same lattices, from the records of benchmark
"peers_rrze" that peers/rrze.py writes (`make peers RRZE_SRC=...`).

Per cell (threads, geometry, size): RRZE's best kernel, haloex's best TRT
and best BGK configuration (best: the highest median over the rounds), and
haloex's best over RRZE's best as the median of the per-round ratios, both
taken in the same round. RRZE's kernels are TRT only: its TRT figure is the
yardstick for haloex's BGK too."""

from __future__ import annotations

from collections import defaultdict

from ..stats import compare_paired, summarize

NAMES = {"rrze": "RRZE", "haloex": "haloex"}
Cell = tuple[int, str, int]  # (threads, geometry, L)
Rates = dict[int, float]  # round -> MLUP/s


def _by_cell(records: list[dict]) -> dict[Cell, dict[tuple[str, str], Rates]]:
    """cell -> (code, config) -> {round: MLUP/s} of the runs that worked."""
    out: dict = defaultdict(lambda: defaultdict(dict))
    for r in records:
        cfg = out[(r["threads_per_rank"], r["geometry"], r["lattice_size"])][(r["code"], r["config"])]
        if r.get("ok"):
            cfg[r["round"]] = r["mlups"]
    return out


def _best(configs: dict[tuple[str, str], Rates], code: str, collision: str) -> tuple[str, Rates] | None:
    """The configuration of `code` with `collision` whose median is highest."""
    got = [(summarize(v.values()).median, c, v) for (k, c), v in configs.items()
           if k == code and v and (code == "rrze" or c.endswith("/" + collision))]  # fmt: skip
    return max(got, key=lambda g: g[0])[1:] if got else None


def _median(rates: Rates) -> str:
    s = summarize(rates.values())
    return f"{s.median:.1f} [{s.median_low:.1f}, {s.median_high:.1f}]"


def _ratio(hx: Rates, rz: Rates) -> str:
    """haloex's rate over RRZE's, round by round, with the rounds in which
    haloex's was the higher (compare_paired speaks of times: its verdict
    would read backwards for rates)."""
    rounds = sorted(set(hx) & set(rz))
    if not rounds:
        return "-"
    c = compare_paired([hx[i] for i in rounds], [rz[i] for i in rounds])
    ahead = sum(hx[i] > rz[i] for i in rounds)
    return f"{c.ratio:.2f} [{c.low:.2f}, {c.high:.2f}], ahead {ahead}/{c.rounds}"


def _row(cell: Cell, configs: dict) -> list[str]:
    """One cell's line: RRZE's best, haloex's best TRT and BGK, the ratios."""
    rz = _best(configs, "rrze", "trt")
    row = [str(cell[0]), cell[1], str(cell[2]), *((rz[0], _median(rz[1])) if rz else ("-", "-"))]
    for collision in ("trt", "bgk"):
        hx = _best(configs, "haloex", collision)
        row += [hx[0], _median(hx[1]), _ratio(hx[1], rz[1]) if rz else "-"] if hx else ["-", "-", "-"]
    s = summarize(rz[1].values()) if rz else None
    return [*row, f"{s.n} ({s.coverage:.0%})" if s else "-"]


def aligned(head: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """A markdown table whose columns line up in plain text too (`right`:
    the numeric columns, aligned right)."""
    widths = [max(map(len, col)) for col in zip(head, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in pairs) + " |"

    rule = "|" + "|".join("-" * (w + 1) + (":" if i in right else "-") for i, w in enumerate(widths)) + "|"
    return [line(head), rule, *map(line, rows)]


def best_table(records: list[dict]) -> list[str]:
    head = ["threads", "geometry", "L", "RRZE best kernel (TRT)", "MLUP/s", "haloex best TRT", "MLUP/s",
            "TRT / RRZE", "haloex best BGK", "MLUP/s", "BGK / RRZE", "rounds (interval)"]  # fmt: skip
    rows = [_row(cell, configs) for cell, configs in sorted(_by_cell(records).items())]
    return aligned(head, rows, {0, 2})


def every_table(records: list[dict]) -> list[str]:
    """Median MLUP/s of every kernel and configuration (rows) in every cell
    (columns: threads, geometry, L)."""
    cells = _by_cell(records)
    keys = sorted(cells)
    names = sorted({k for c in cells.values() for k in c}, key=lambda k: (k[0] != "rrze", k[1]))

    def median(rates: Rates | None) -> str:
        return f"{summarize(rates.values()).median:.1f}" if rates else "-"

    rows = [[NAMES[code], cfg, *(median(cells[c].get((code, cfg))) for c in keys)] for code, cfg in names]
    head = ["code", "kernel/config", *(f"{t} thr {g} {L}" for t, g, L in keys)]
    return aligned(head, rows, set(range(2, len(head))))


def _about(records: list[dict]) -> list[str]:
    r = records[0]
    v = r.get("versions") or {}
    steps = sorted({(x["lattice_size"], x["code"], x["steps"], x.get("repeats", 1)) for x in records})
    runs = "; ".join(f"L={L} {NAMES[c]} {s}" + (f" x {n} samples" if n > 1 else "") for L, c, s, n in steps)
    return [
        "D3Q19, double precision, one rank, L^3 sites, a box (all fluid, periodic) or a channel (periodic in "
        "x, walls on the y and z faces); both codes with the same OpenMP threads, pinned alike "
        "(OMP_PLACES=cores, OMP_PROC_BIND=close). **RRZE's kernels collide with TRT only (it has no BGK)**: "
        "its best TRT kernel is the yardstick for haloex's TRT and BGK alike. Each round runs every RRZE "
        "kernel once and one `haloex bench lb` per cell (its figure for the round: the median of its "
        "samples), in an order rotated from round to round (peers/rrze.py; docs/peers.md).",
        "",
        "MLUP/s: fluid-site updates per second, each code counting its own fluid sites (RRZE's channel has "
        "its walls on the lattice's outer layers, L(L-2)^2 fluid sites; haloex's lie outside, L^3). Best: "
        "the kernel or configuration with the highest median over the rounds; MLUP/s as median [its "
        "distribution-free interval]; a ratio is the median of the per-round ratios of the two bests "
        "[interval], with the rounds in which haloex was ahead; `rounds (interval)`: RRZE's best's rounds "
        "and the coverage of their intervals (95% from 6 rounds, less with fewer).",
        "",
        f"Steps a run: {runs}.",
        "",
        f"RRZE {v.get('rrze', '?')}; haloex {v.get('haloex', '?')}; CPU {r.get('cpu_model', '?')}.",
        "",
    ]  # fmt: skip


def _env(r: dict) -> str:
    return "".join(f"{k}={v} " for k, v in (r.get("environment") or {}).items())


def rrze_section(records: list[dict], figdir, formats) -> list[str]:
    recs = [r for r in records if r.get("benchmark") == "peers_rrze"]
    if not recs:
        return []
    md = ["## RRZE lbm-benchmark-kernels: the same lattices", "", *_about(recs)]
    md += ["### Best of each code", "", *best_table(recs), ""]
    md += ["### Every kernel and configuration (median MLUP/s)", "", *every_table(recs), ""]
    fails = [r for r in recs if not r.get("ok")]
    if fails:
        md += ["Failed runs (left out of the tables above):", ""]
        md += [f"- {r['code']} {r['config']}, {r['threads_per_rank']} threads, {r['geometry']}, "
               f"L={r['lattice_size']}, round {r['round']}: {r.get('why', '?')}" for r in fails]  # fmt: skip
        md.append("")
    first = min((r["threads_per_rank"], r["geometry"], r["lattice_size"]) for r in recs)
    cmds = sorted({_env(r) + r["command"] for r in recs if r["round"] == 0
                   and (r["threads_per_rank"], r["geometry"], r["lattice_size"]) == first})  # fmt: skip
    md += [f"Commands of round 0 at {first[0]} thread(s), {first[1]}, L={first[2]} (raw output: raw/rrze/):"]
    md += ["", "```", *cmds, "```", ""]
    return md


section = rrze_section  # what the report calls (benchmarks/__init__.py)
