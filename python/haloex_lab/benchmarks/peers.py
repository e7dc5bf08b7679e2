"""The report's "Peers" sections: haloex beside GHEX and PETSc's DMDA on the
same job (records of benchmark "peers", written by peers/run.py), and
`bench pingpong` beside OSU's osu_latency ("peers_pingpong", from
peers/pingpong.py); `make peers` runs both. Every ratio pairs two tools'
figures of the same round. The Ludwig section (`make peers LUDWIG_SRC=...`)
is in ludwig.py."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..stats import Comparison, compare_paired, summarize


def section(records: list[dict], figdir: Path, formats) -> list[str]:
    """GHEX and PETSc's DMDA beside haloex, the same from Python, and OSU's
    ping-pong beside bench pingpong (no figures)."""
    return [*peers_section(records), *python_section(records), *pingpong_section(records)]


def _case(r: dict) -> tuple:
    return (r["ranks"], r["ncomp"], r["layout"], r.get("face_doubles", 0), r["local_size"])


def _median(r: dict | None) -> float:
    return summarize(r["time_per_call_s"]).median if r else float("nan")


def _paired(a: dict, b: dict, key: str = "time_per_call_s") -> Comparison:
    """a's rounds against b's, matched by round."""
    tb = dict(zip(b["round_index"], b[key], strict=True))
    pairs = [(t, tb[i]) for i, t in zip(a["round_index"], a[key], strict=True) if i in tb]
    return compare_paired([x for x, _ in pairs], [y for _, y in pairs])


def _ratio_text(c: Comparison | None) -> str:
    if c is None or c.rounds == 0:
        return "-"
    return f"{c.ratio:.2f} [{c.low:.2f}, {c.high:.2f}]"


def _best(recs: list[dict]) -> dict | None:
    return min(recs, key=_median) if recs else None


def _us(r: dict | None) -> str:
    return f"{_median(r) * 1e6:.1f}" if r else "-"


def _row(recs: list[dict]) -> tuple[str, dict]:
    """One case's table row, and its ratios by name (tools without a timed
    run left out: _failures says why)."""
    by = defaultdict(dict)
    for r in recs:
        if r["time_per_call_s"]:
            by[r["peer"]][r["mode"]] = r
    hx = {m: r for m, r in by["haloex"].items() if m != "auto"}
    best = _best(list(hx.values()))
    no_shm = _best([r for m, r in hx.items() if m != "shm"])
    ghex = _best(list(by["ghex"].values()))
    petsc = by["petsc"].get("dmda")
    auto, staged = by["haloex"].get("auto"), hx.get("staged")
    ratios = {
        "ghex": _paired(best, ghex) if best and ghex else None,
        "petsc": _paired(best, petsc) if best and petsc else None,
        "no_shm_ghex": _paired(no_shm, ghex) if no_shm and ghex else None,
    }
    ranks, ncomp, layout, face, L = _case(recs[0])
    size = f"{L}" + (f" ({face:.0e})" if face else "")
    pick = (auto or {}).get("resolved_strategy") or "?"
    cells = [
        str(ranks), size, f"{ncomp} {layout}",
        _us(by["ghex"].get("co")), _us(by["ghex"].get("bulk")), _us(petsc),
        f"{_us(best)} {best['mode']}" if best else "-", f"{_us(auto)} ({pick})" if auto else "-", _us(staged),
        f"{_us(no_shm)} {no_shm['mode']}" if no_shm else "-",
        _ratio_text(ratios["ghex"]), _ratio_text(ratios["petsc"]), _ratio_text(ratios["no_shm_ghex"]),
    ]  # fmt: skip
    return "| " + " | ".join(cells) + " |", ratios


def _range_line(name: str, ratios: list[Comparison | None]) -> str:
    """The measured range of one ratio over the cases, and in how many
    cases its interval lies wholly below 1 (haloex faster) or above."""
    got = [c for c in ratios if c is not None and c.rounds > 0]
    if not got:
        return f"- {name}: no measurement."
    lo, hi = min(c.ratio for c in got), max(c.ratio for c in got)
    below, above = sum(c.high < 1 for c in got), sum(c.low > 1 for c in got)
    return (
        f"- {name}: {lo:.2f}x to {hi:.2f}x over {len(got)} cases (paired medians); the interval below 1 "
        f"in {below}, above 1 in {above}."
    )


def _failures(recs: list[dict]) -> list[str]:
    """A line per tool and case with failed rounds (a wrong halo is never timed)."""
    out = []
    for r in recs:
        for f in r.get("failed_rounds", []):
            line = f"- {_case_text(r)}: {r['peer']} {r['mode']}, round {f['round']}: {f.get('why', '?')}"
            if line not in out:
                out.append(line)
    return out


def _case_text(r: dict) -> str:
    return f"{r['ranks']} ranks, L={r['local_size']}, {r['ncomp']} {r['layout']}"


def peers_section(records: list[dict]) -> list[str]:
    recs = [r for r in records if r.get("benchmark") == "peers" and r.get("peer") != "python"]
    if not recs:
        return []
    cases = defaultdict(list)
    for r in recs:
        cases[_case(r)].append(r)
    versions = recs[0].get("peer_versions") or {}
    md = [
        "## Peers: GHEX and PETSc's DMDA on the same job",
        "",
        "L^3 doubles per rank, 3-D, periodic, halo 1, the full 26-neighbour halo, one process per "
        "tool and round, tools in a rotated order each round (peers/run.py; docs/peers.md says what each "
        "peer does). Times are the medians over rounds of each run's median, microseconds per exchange, "
        "slowest rank; ratios are haloex's time over the peer's, the median of the per-round ratios with "
        "its 95% interval. Best: the fastest strategy by median (auto left out), chosen from the same "
        "rounds it is then compared on (which favours it a little: auto's column does not); GHEX: its "
        "faster mode.",
        "",
    ]
    if versions:
        md += ["Peers: " + "; ".join(f"{k} {v}" for k, v in sorted(versions.items())) + ".", ""]
    md += [
        "| ranks | L (doubles a face) | values | GHEX co | GHEX bulk | PETSc DMDA | haloex best | "
        "auto (pick) | staged | best without shm | best / GHEX | best / PETSc | no shm / GHEX |",
        "|---:|---|---|---:|---:|---:|---|---|---:|---|---|---|---|",
    ]
    all_ratios = []
    for key in sorted(cases):
        line, ratios = _row(cases[key])
        md.append(line)
        all_ratios.append(ratios)
    md += [
        "",
        "Over all cases:",
        "",
        _range_line("haloex's best over GHEX's best", [r["ghex"] for r in all_ratios]),
        _range_line("haloex's best over PETSc's DMDA", [r["petsc"] for r in all_ratios]),
        _range_line("haloex's best without shm over GHEX's best", [r["no_shm_ghex"] for r in all_ratios]),
        "",
    ]
    failures = _failures(recs)
    if failures:
        md += ["Failed runs (the cells of their tools use the other rounds):", "", *failures, ""]
    last = max(cases)  # (the commands of one case: the others differ in sizes only)
    cmds = sorted({r["command"] for r in cases[last] if r.get("command")})
    if cmds:
        md += [
            "Commands of the last case, one run each (OUT: the run's raw record file):",
            "",
            "```",
            *cmds,
            "```",
            "",
        ]
    return md


def pingpong_section(records: list[dict]) -> list[str]:
    every = [r for r in records if r.get("benchmark") == "peers_pingpong"]
    recs = [r for r in every if r.get("message_bytes") is not None and r["latency_s"]]
    if not every:
        return []
    by = {(r["tool"], r["message_bytes"]): r for r in recs}
    osu = any(r["tool"] == "osu_latency" for r in every)
    md = [
        "## Ping-pong beside OSU",
        "",
        "`bench pingpong` with `--buffers osu` (send and receive buffers apart, as osu_latency; the default) "
        "and `--buffers one` (one buffer, sent back as received), 2 ranks, osu_latency's counts, one run per "
        "tool and round in a rotated order. Half round trip in microseconds, median over rounds; ratios are "
        "the median of the per-round ratios with its 95% interval.",
        "",
    ]
    if not osu:
        md += ["osu_latency was not run (make peers OSU_SRC=<its source folder> adds it).", ""]
    head = "| bytes | haloex osu | haloex one |" + (" osu_latency | osu / OSU | one / OSU |" if osu else "")
    md += [head, "|---:|---:|---:|" + ("---:|---|---|" if osu else "")]
    for b in sorted({r["message_bytes"] for r in recs}):
        row = [by.get(("haloex osu", b)), by.get(("haloex one", b))]
        cells = [str(b)] + [f"{summarize(r['latency_s']).median * 1e6:.2f}" if r else "-" for r in row]
        o = by.get(("osu_latency", b))
        if osu:
            cells.append(f"{summarize(o['latency_s']).median * 1e6:.2f}" if o else "-")
            for r in row:
                c = _paired(r, o, "latency_s") if r and o else None
                cells.append(_ratio_text(c))
        md.append("| " + " | ".join(cells) + " |")
    fails = sorted(
        {(r["tool"], f["round"], f.get("why", "?")) for r in every for f in r.get("failed_rounds", [])}
    )
    if fails:
        md += ["", "Failed runs:", "", *(f"- {t}, round {n}: {why}" for t, n, why in fails)]
    md += ["", "Commands of one round:", "", "```"]
    md += sorted({r["command"] for r in every})
    md += ["```", ""]
    return md


def python_section(records: list[dict]) -> list[str]:
    """The same job from Python: haloex's package (auto), GHEX's and petsc4py."""
    recs = [r for r in records if r.get("benchmark") == "peers" and r.get("peer") == "python"]
    if not recs:
        return []
    cases = defaultdict(dict)
    for r in recs:
        if r["time_per_call_s"]:
            cases[_case(r)][r["mode"]] = r
    versions = sorted({r.get("peer_version", "?") for r in recs if r.get("peer_version")})
    md = [
        "## Peers from Python",
        "",
        "The same job through each library's Python package (peers/python_level.py): haloex's with `auto`, "
        "GHEX's (`ghex` from PyPI) and petsc4py, NumPy arrays, one value a site or SoA (GHEX's package has "
        "no component dimension). Microseconds per exchange, slowest rank; ratios as above. "
        f"Versions: {'; '.join(versions)}.",
        "",
        "| ranks | L | values | haloex | GHEX | petsc4py | haloex / GHEX | haloex / petsc4py |",
        "|---:|---:|---|---:|---:|---:|---|---|",
    ]
    for key in sorted(cases):
        by = cases[key]
        hx, gx, pc = by.get("haloex"), by.get("ghex"), by.get("petsc4py")
        ranks, ncomp, layout, _, L = key
        md.append(
            f"| {ranks} | {L} | {ncomp} {layout} | {_us(hx)} | {_us(gx)} | {_us(pc)} | "
            f"{_ratio_text(_paired(hx, gx) if hx and gx else None)} | "
            f"{_ratio_text(_paired(hx, pc) if hx and pc else None)} |"
        )
    failures = _failures(recs)
    if failures:
        md += ["", "Failed runs:", "", *failures]
    md.append("")
    return md
