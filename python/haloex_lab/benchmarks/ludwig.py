"""The report's "Ludwig" section: `haloex lb` beside Ludwig (ludwig-cf/ludwig)
on the same lattice Boltzmann job, from the records of benchmark
"peers_ludwig" that peers/ludwig.py writes (`make peers LUDWIG_SRC=...`).
Every ratio pairs the two codes' runs of the same round."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib.ticker

from ..plots import plt, save
from ..stats import Comparison, compare_paired, summarize

CODES = ("haloex", "ludwig")
NAMES = {"haloex": "haloex lb", "ludwig": "Ludwig"}

# What a step of each code does besides the update itself, as read in
# Ludwig 0.23.0's source (src/ludwig.c, collision.c, propagation.c,
# lb_data.c, hydro.c) and haloex's docs/lb.md; docs/peers.md says the same.
WORK_DIFFERENCES = [
    "Ludwig collides in place (`lb_collision_mrt1`) and then streams by pulling every population into a "
    "second array (`lb_propagation_kernel`, `fprime`, pointers swapped after): 4 x 152 bytes of "
    "populations read and written per site and step, 760 with the write-allocate of the second array; "
    "haloex's AA pattern reads and writes one array in place, 304 bytes.",
    "Ludwig's collision projects the 19 populations onto all 19 moments (9 of them ghost modes, relaxed "
    "at the same rate under BGK) and back (`d3q19_f2mode_chunk`, `d3q19_mode2f_chunk`); haloex's BGK "
    "needs density and velocity only.",
    "Every step Ludwig zeroes the force and velocity fields (`hydro_f_zero`, `hydro_u_zero`), reads a "
    "force per site in the collision and writes density and velocity back: another 24 + 24 + 24 + 8 + 24 "
    "bytes a site (about 945 bytes a step in all, with write-allocate); haloex computes density and "
    "velocity on the fly and keeps no field of them.",
    "Ludwig's halo (`lb_halo_post`, its default `full` halo) packs all 19 values of every halo site for "
    "all 26 neighbour regions, even where the neighbour is the rank itself (then it unpacks from its own "
    "send buffer without a message); haloex sends only the populations that cross (5 a face site), and "
    "a dimension a rank holds whole is wrapped by the kernels with no halo copy at all.",
]


def _mlups(recs: list[dict]) -> dict[int, float]:
    return {r["round"]: r["mlups"] for r in recs if r.get("ok")}


def _paired(hx: list[dict], lw: list[dict]) -> tuple[Comparison, int] | None:
    """haloex's MLUPS over Ludwig's, round by round, and the rounds in which
    haloex's was the higher (compare_paired speaks of times, where less is
    faster: its verdict would read backwards for rates)."""
    a, b = _mlups(hx), _mlups(lw)
    rounds = sorted(set(a) & set(b))
    if not rounds:
        return None
    return compare_paired([a[i] for i in rounds], [b[i] for i in rounds]), sum(a[i] > b[i] for i in rounds)


def _spread(values: list[float], scale: float = 1.0, fmt: str = ".1f") -> str:
    if not values:
        return "-"
    s = summarize(values)
    return f"{s.median * scale:{fmt}} [{s.min * scale:{fmt}}, {s.max * scale:{fmt}}]"


def _ms(recs: list[dict], key: str) -> str:
    v = [r[key] for r in recs if r.get("ok") and r.get(key) is not None]
    return _spread(v, 1e3, ".2f")


def _ratio(pair: tuple[Comparison, int] | None) -> str:
    """The median ratio, its interval (with its coverage: 5 rounds give at
    most 94%), and in how many rounds haloex's rate was the higher."""
    if pair is None or pair[0].rounds == 0:
        return "-"
    c, ahead = pair
    return (
        f"{c.ratio:.2f} [{c.low:.2f}, {c.high:.2f}] ({c.coverage:.0%} interval; haloex ahead in {ahead} "
        f"of {c.rounds} rounds)"
    )


def _groups(records: list[dict], part: str) -> dict[tuple, list[dict]]:
    """(ranks, size, code) -> the runs of one part."""
    out = defaultdict(list)
    for r in records:
        if r.get("part") == part:
            out[(r["ranks"], r["lattice_size"], r["code"])].append(r)
    return out


def _rate_table(records: list[dict]) -> list[str]:
    g = _groups(records, "rate")
    if not g:
        return []
    md = [
        "| ranks | L | code | MLUPS median [min, max] | halo ms/step | collision ms/step | "
        "propagation ms/step | collide+stream ms/step | rounds |",
        "|---:|---:|---|---|---|---|---|---|---:|",
    ]
    for (ranks, L, code), recs in sorted(g.items()):
        ok = [r for r in recs if r.get("ok")]
        md.append(
            f"| {ranks} | {L} | {NAMES[code]} | {_spread([r['mlups'] for r in ok])} | "
            f"{_ms(recs, 'halo_s_per_step')} | {_ms(recs, 'collision_s_per_step')} | "
            f"{_ms(recs, 'propagation_s_per_step')} | {_ms(recs, 'update_s_per_step')} | {len(ok)} |"
        )
    md += ["", "| ranks | L | haloex / Ludwig, MLUPS: median of the per-round ratios [interval] |"]
    md.append("|---:|---:|---|")
    for ranks, L in sorted({(k[0], k[1]) for k in g}):
        md.append(f"| {ranks} | {L} | {_ratio(_paired(g[(ranks, L, 'haloex')], g[(ranks, L, 'ludwig')]))} |")
    return [*md, ""]


def _sizes_table(records: list[dict]) -> list[str]:
    g = _groups(records, "sizes")
    md = [
        "| ranks | L | steps (Ludwig, haloex) | Ludwig MLUPS | haloex MLUPS | haloex / Ludwig |",
        "|---:|---:|---:|---|---|---|",
    ]
    for ranks, L in sorted({(k[0], k[1]) for k in g}):
        hx, lw = g[(ranks, L, "haloex")], g[(ranks, L, "ludwig")]
        steps = [min((r["steps"] for r in x), default="-") for x in (lw, hx)]
        rates = [_spread([r["mlups"] for r in x if r.get("ok")]) for x in (lw, hx)]
        steps_text = ", ".join(map(str, steps))
        md.append(f"| {ranks} | {L} | {steps_text} | {rates[0]} | {rates[1]} | {_ratio(_paired(hx, lw))} |")
    return [*md, ""]


def sizes_figure(records: list[dict], out: Path, formats) -> list[str]:
    """MLUPS against the lattice edge for both codes (the 2023 paper's
    figure 4 in kind): the median over rounds, bars from min to max."""
    g = _groups(records, "sizes")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, code in enumerate(CODES):
        for ranks in sorted({k[0] for k in g}):
            pts = sorted((L, [r["mlups"] for r in rs if r.get("ok")]) for (p, L, c), rs in g.items()
                         if c == code and p == ranks)  # fmt: skip
            pts = [(L, summarize(v)) for L, v in pts if v]
            if not pts:
                continue
            med = [s.median for _, s in pts]
            ax.errorbar(
                [L for L, _ in pts], med,
                yerr=[[m - s.min for m, (_, s) in zip(med, pts, strict=True)],
                      [s.max - m for m, (_, s) in zip(med, pts, strict=True)]],
                marker="os"[i], capsize=3, label=f"{NAMES[code]}, {ranks} rank(s)",
            )  # fmt: skip
    ax.set(xscale="log", yscale="log", xlabel="lattice edge L (L^3 sites)", ylabel="MLUPS (log scale)",
           title="Site updates per second against system size, one node")  # fmt: skip
    edges = sorted({k[1] for k in g})
    ax.set_xticks(edges, [str(L) for L in edges], minor=False)
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save(fig, out, "ludwig_sizes", formats)


def _about(records: list[dict]) -> list[str]:
    r = records[0]
    v = r.get("versions") or {}
    return [
        "D3Q19, L^3 sites, periodic, BGK with tau = 1 (viscosity 1/6), a uniform initial flow "
        "(0.02, 0.01, 0), one OpenMP thread per rank, threads unpinned, the lattice cut along x into "
        "slabs, no output and no checkpoints (peers/ludwig.py; docs/peers.md). Each code otherwise runs "
        "its defaults: haloex lb the AA kernel, the reduced halo and the strategy `auto`; Ludwig its full "
        "halo. MLUPS: sites x steps over each code's own time of its step loop, medians over the rounds "
        "with [min, max]; ratios pair the two codes' runs of the same round (median of the per-round "
        "ratios with its distribution-free interval: 95% from 6 rounds, less with fewer). Both codes were "
        "checked to keep their total density before any run was timed, and every timed run again.",
        "",
        f"Ludwig {v.get('ludwig', '?')}; haloex {v.get('haloex', '?')}; {v.get('mpi', '?')}; "
        f"CPU {r.get('cpu_model', '?')}.",
        "",
    ]


def ludwig_section(records: list[dict], figdir: Path, formats) -> list[str]:
    recs = [r for r in records if r.get("benchmark") == "peers_ludwig"]
    if not recs:
        return []
    md = ["## Ludwig: the same lattice Boltzmann job", "", *_about(recs)]
    md += ["### Step rate", "", *_rate_table(recs)]
    if any(r.get("part") == "sizes" for r in recs):
        names = sizes_figure(recs, figdir, formats)
        png = next(n for n in names if n.endswith(".png"))
        md += ["### Against system size", "", f"![MLUPS against L, both codes](figures/{png})", ""]
        md += _sizes_table(recs)
    md += ["### What a step does in each code", "", *(f"- {x}" for x in WORK_DIFFERENCES), ""]
    fails = [r for r in recs if not r.get("ok")]
    if fails:
        md += ["Failed runs (left out of every figure above):", ""]
        md += [f"- {r['part']}, {r['code']}, {r['ranks']} ranks, L={r['lattice_size']}, round {r['round']}: "
               f"{r.get('why', '?')}" for r in fails]  # fmt: skip
        md.append("")
    cmds = sorted({(r["code"], r["command"], r.get("input", "")) for r in recs
                   if r.get("part") == "rate" and r["round"] == 0})  # fmt: skip
    if cmds:
        md += ["Commands of the rate part (each run's input file in raw/):", "", "```"]
        md += [f"{cmd}    # {inp}" for _, cmd, inp in cmds]
        md += ["```", ""]
    return md


section = ludwig_section  # what the report calls (benchmarks/__init__.py)
