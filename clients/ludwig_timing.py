#!/usr/bin/env python3
"""clients/ludwig_timing.py: Ludwig's own timers, natively and with its halos
exchanged through haloex (clients/ludwig/ludwig-haloex.patch), in
interleaved rounds on this machine (`make clients` runs it).

The job is peers/ludwig.py's: D3Q19 BGK, tau = 1, a uniform flow, periodic,
one OpenMP thread a rank, no output. Ludwig times itself: "Lattice halos"
(the LB distributions' exchange) and "Time step loop", per step here.

Parts:
- rate: 128^3 at 1 and 2 ranks, 64^3 at 8 ranks (2x2x2, oversubscribed),
  natively and through each strategy given;
- sizes: 2 ranks, 16^3 to 128^3, natively, through `staged` (blocking, the
  2016 thesis' "blocking" exchange) and `direct` (non-blocking, 26
  messages): its chapter 4 in Ludwig itself.
Every (code, ranks, size) once a round, in an order rotated each round; a
haloex run counts only when Ludwig says its LB halo ran through haloex (its
"Halo type:  lb: haloex NAME" line), else it is recorded as fallen back.

Writes OUT/clients-ludwig-<label>.jsonl (one record per run) and prints
OUT/clients-ludwig-<label>.md: medians per step with their order-statistic
intervals and the ratio to native of the medians and of the per-round
pairs. Exit status: 0; 1 a run failed or fell back; 2 bad options.
Standard library only.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peers"))
from common import default_mpirun, run, write_records
from ludwig import Job as PeerJob
from ludwig import ludwig_input, ludwig_timers

GRIDS = {1: "1_1_1", 2: "2_1_1", 4: "2_2_1", 8: "2_2_2"}


@dataclass(frozen=True)
class Job:
    part: str
    code: str  # "native" or a haloex strategy
    ranks: int
    L: int
    steps: int

    def tag(self, rnd: int) -> str:
        return f"{self.part}-{self.code}-p{self.ranks}-L{self.L}-r{rnd}"


def steps_for(L: int) -> int:
    """About 1e7 site updates, at least 20 steps: a run's first exchange
    (buffers touched for the first time) and a wait for a rank that
    collided late weigh on a mean of fewer (Ludwig's timers keep 1 us)."""
    return max(20, min(2000, int(1e7 / L**3)))


def jobs_of(part: str, strategies: list[str]) -> list[Job]:
    if part == "rate":
        cells = [(1, 128), (2, 128), (8, 64)]
        codes = ["native", *strategies]
    else:
        cells = [(2, L) for L in (16, 24, 32, 48, 64, 96, 128)]
        codes = ["native", "staged", "direct"]
    return [Job(part, c, p, L, steps_for(L)) for p, L in cells for c in codes]


def ludwig_text(job: Job) -> str:
    base = ludwig_input(PeerJob("rate", "ludwig", job.ranks, job.L, job.steps))
    return base.replace(f"grid {job.ranks}_1_1", f"grid {GRIDS[job.ranks]}")


def measure(out: str, job: Job) -> dict:
    t = ludwig_timers(out)
    if t["Time step loop"]["calls"] != job.steps:
        raise ValueError(f"Ludwig timed {t['Time step loop']['calls']} steps, not {job.steps}")

    def per_step(name: str) -> float | None:
        return t[name]["per_call_s"] * t[name]["calls"] / job.steps if name in t else None

    used = [
        line.split("haloex", 1)[1].strip()
        for line in out.splitlines()
        if "Halo type:" in line and "lb: haloex" in line
    ]
    halo = t.get("Lattice halos", {})
    return {
        "halo_s": per_step("Lattice halos"),
        # Ludwig's fastest and slowest single exchange over all ranks and
        # steps: the mean also holds the wait for a rank still colliding.
        "halo_min_s": halo.get("min_s"),
        "halo_max_s": halo.get("max_s"),
        "step_s": per_step("Time step loop"),
        "haloex_strategy": used[0] if used else None,
    }


def one(a, job: Job, rnd: int, raw: Path) -> dict:
    cwd = raw / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    (cwd / "input").write_text(ludwig_text(job))
    exe = a.native if job.code == "native" else a.haloex
    env = {"OMP_PROC_BIND": "false"}
    if job.code != "native":
        env["LUDWIG_HALOEX_STRATEGY"] = job.code
    cmd = [*shlex.split(a.mpirun), "-np", str(job.ranks), exe]
    got = run(cmd, a.timeout, cwd=cwd, env=env)
    rec = {"ok": got.ok, "why": got.why}
    if got.ok:
        (raw / f"{job.tag(rnd)}.txt").write_text(got.stdout)
        try:
            rec.update(measure(got.stdout, job))
        except (ValueError, KeyError) as e:
            rec.update(ok=False, why=f"unreadable output ({e})")
        if rec["ok"] and job.code != "native" and not rec["haloex_strategy"]:
            rec.update(ok=False, why="fell back to Ludwig's own exchange")
    if not rec["ok"]:
        print(f"[clients] {job.tag(rnd)} FAILED: {rec['why']}", file=sys.stderr)
    return {"benchmark": "clients_ludwig", "label": a.label, "part": job.part, "code": job.code,
            "ranks": job.ranks, "lattice_size": job.L, "steps": job.steps, "round": rnd,
            "command": shlex.join(cmd), "units": "seconds per step", **rec}  # fmt: skip


def interval(xs: list[float]) -> tuple[float, float, float]:
    """The median's order-statistic interval: the widest j with the pair
    (x_j, x_{n-j+1}) covering at least 95% (all of xs below 6 samples)."""
    s, n = sorted(xs), len(xs)
    j, cover = 1, 1 - 2 * 0.5**n
    for k in range(1, n // 2 + 1):
        c = 1 - 2 * sum(math.comb(n, i) for i in range(k)) * 0.5**n
        if c >= 0.95:
            j, cover = k, c
    return s[j - 1], s[n - j], cover


def ms(xs: list[float]) -> str:
    """The median in ms with its interval."""
    lo, hi, _ = interval(xs)
    return f"{1e3 * statistics.median(xs):.2f} [{1e3 * lo:.2f}, {1e3 * hi:.2f}]"


def ratio(xs: list[float], ys: list[float]) -> str:
    """The ratio of the medians, or "-" where either is 0 or missing
    (Ludwig prints its timers in ms: a fastest call of 0 ms has none)."""
    if not xs or not ys or not statistics.median(xs) or not statistics.median(ys):
        return "-"
    return f"{statistics.median(xs) / statistics.median(ys):.3f}"


def row(rs: list[dict], native: dict[int, dict]) -> str:
    """One code's line: medians, their ratios to native's, the paired ratio."""
    h, s = [r["halo_s"] for r in rs], [r["step_s"] for r in rs]
    f = [r["halo_min_s"] for r in rs if r.get("halo_min_s") is not None]
    cover = interval(s)[2]
    r0 = rs[0]
    fast = f"{1e3 * statistics.median(f):.2f}" if f else "-"
    cell = f"| {r0['part']} | {r0['ranks']} | {r0['lattice_size']} | {r0['code']} |"
    head = f"{cell} {ms(h)} | {fast} | {ms(s)} |"
    if not native or r0["code"] == "native":
        return f"{head} - | - | - | - | {len(rs)} ({cover:.0%}) |"
    nh = statistics.median(n["halo_s"] for n in native.values())
    ns = statistics.median(n["step_s"] for n in native.values())
    nf = [n["halo_min_s"] for n in native.values() if n.get("halo_min_s") is not None]
    fratio = ratio(f, nf)
    pairs = [r["step_s"] / native[r["round"]]["step_s"] for r in rs if r["round"] in native]
    paired = f"{statistics.median(pairs):.3f}" if pairs else "-"
    ratios = f" {statistics.median(h) / nh:.3f} | {fratio} | {statistics.median(s) / ns:.3f} | {paired} |"
    return f"{head}{ratios} {len(rs)} ({cover:.0%}) |"


def table(recs: list[dict]) -> str:
    """Per cell (part, ranks, size) one line per code, native first."""
    rows = [
        (
            "| part | ranks | L | code | halo ms/step [interval] | fastest halo ms | step ms/step [interval] "
            "| halo / native | fastest / native | step / native | paired step ratio | rounds (coverage) |"
        ),
        "|---|---:|---:|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for cell in sorted({(r["part"], r["ranks"], r["lattice_size"]) for r in recs}):
        mine = [r for r in recs if (r["part"], r["ranks"], r["lattice_size"]) == cell and r["ok"]]
        native = {r["round"]: r for r in mine if r["code"] == "native"}
        for code in dict.fromkeys(r["code"] for r in mine):
            rows.append(row([r for r in mine if r["code"] == code], native))
    return "\n".join(rows) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--native", required=True, help="Ludwig.exe as released")
    ap.add_argument("--haloex", required=True, help="Ludwig.exe built with the haloex patch")
    ap.add_argument("--label", default="aos", help="names the build (aos, soa) in records and files")
    ap.add_argument("-o", "--out", required=True, help="folder for the records, the table and raw/")
    ap.add_argument("--part", choices=("rate", "sizes", "all"), default="all")
    ap.add_argument("--strategies", default="staged,direct,persistent,neighbor,shm,auto")
    ap.add_argument("-r", "--rounds", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--mpirun", default=default_mpirun())
    a = ap.parse_args()
    for exe in (a.native, a.haloex):
        if not os.access(exe, os.X_OK):
            ap.error(f"{exe} is not an executable program")
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    out = Path(a.out).resolve()
    raw = out / "raw" / f"clients-ludwig-{a.label}"
    raw.mkdir(parents=True, exist_ok=True)
    parts = ["rate", "sizes"] if a.part == "all" else [a.part]
    recs = []
    for part in parts:
        jobs = jobs_of(part, [s for s in a.strategies.split(",") if s])
        for rnd in range(a.rounds):
            k = rnd % len(jobs)
            print(f"[clients] Ludwig {a.label} {part}: round {rnd + 1}/{a.rounds}", file=sys.stderr)
            recs += [one(a, j, rnd, raw) for j in jobs[k:] + jobs[:k]]
            write_records(out / f"clients-ludwig-{a.label}.jsonl", recs)
    text = table(recs)
    (out / f"clients-ludwig-{a.label}.md").write_text(text)
    print(text)
    return 0 if all(r["ok"] for r in recs) else 1


if __name__ == "__main__":
    sys.exit(main())
