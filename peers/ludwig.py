#!/usr/bin/env python3
"""peers/ludwig.py: Ludwig (ludwig-cf/ludwig, built by peers/build-ludwig.sh)
beside `haloex lb` on the same lattice Boltzmann job, interleaved, on this
machine (`make peers LUDWIG_SRC=...` runs it).

The job: D3Q19, L^3 sites, periodic in every dimension, BGK with tau = 1
(viscosity 1/6), a uniform initial flow (0.02, 0.01, 0), one OpenMP thread
per rank, the lattice cut along x into slabs (Ludwig's `grid N_1_1`,
haloex's `lattice.procs = [N, 1, 1]`), no output and no checkpoints. Each
code runs as its users run it otherwise (haloex: AA kernel, reduced halo,
strategy auto; Ludwig: its default full halo).

Two parts, both written to OUT/peers-ludwig.jsonl, one record per code,
rank count, size and round (`part`):
- rate: 128^3, 40 steps, at 1 and 2 ranks;
- sizes: 8^3 to 128^3 at 2 ranks (the 2023 paper's figure 4 in kind), with
  steps per code and size chosen for about a second and a half of its step
  loop (at least 20 steps).
A round runs every (code, ranks, size) of its part once, each its own
mpirun, in an order rotated from round to round. Before any timing, a short
run of each code at each rank count must keep the total density (as each
code reports it) or nothing is timed. Each timed run is checked the same way.

Exit status: 0; 1 some run failed (recorded as failed); 3 a code did not
conserve mass; 2 bad options. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import add_common_options, check_programs, cpu_model, metadata, run, with_metadata, write_records

RECORDS = "peers-ludwig.jsonl"
INPUT_SUFFIX = {"ludwig": "input", "haloex": "toml"}  # (kept in raw/ beside each run's output)
TAU, VELOCITY = 1.0, (0.02, 0.01, 0.0)
# A code "conserves mass" when its reported total density (Ludwig: the mean
# density it prints with 11 decimals) changes by less than this, relative.
MASS_TOLERANCE = 1e-10
# Not conserved: as peers/common.WRONG_HALO, a run whose result is wrong.
NOT_CONSERVED = 3
# Ludwig's timer table (src/timer.c, TIMER_statistics): "%20s: %10.3f %10.3f
# %10.3f %10.6f (%d calls)": name, min and max per call over ranks, the
# total averaged over ranks, that total per call.
TIMER_LINE = re.compile(r"^\s*(.+?):\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\((\d+) calls?\)\s*$")
# Ludwig's density statistics (src/stats_distribution.c): "[rho] total mean variance min max".
RHO_LINE = re.compile(r"^\[rho\]\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s*$")


@dataclass(frozen=True)
class Job:
    part: str  # "rate", "sizes" or "check"
    code: str  # "ludwig" or "haloex"
    ranks: int
    L: int
    steps: int

    def tag(self, rnd: int) -> str:
        return f"{self.part}-{self.code}-p{self.ranks}-L{self.L}-r{rnd}"


def ludwig_input(job: Job) -> str:
    """Ludwig's input file (it reads ./input) for the job."""
    u = "_".join(repr(x) for x in VELOCITY)
    return "\n".join([
        f"N_cycles {job.steps}",
        f"size {job.L}_{job.L}_{job.L}",
        f"grid {job.ranks}_1_1",
        "periodicity 1_1_1",
        "free_energy none",
        "fluid_rho0 1.0",
        f"viscosity {(TAU - 0.5) / 3!r}",  # eta = rho0 cs^2 (tau - 1/2)
        "lb_relaxation_scheme bgk",
        "distribution_initialisation 3d_uniform_u",
        f"distribution_uniform_u {u}",
        "colloid_init none",
        # statistics (the density we check) at the start and at the last step only
        f"freq_statistics {job.steps}",
        "config_at_end no",
        "",
    ])  # fmt: skip


def haloex_case(job: Job) -> str:
    """haloex lb's case file for the job (the other keys at their defaults)."""
    return "\n".join([
        "[lattice]", 'velocity_set = "D3Q19"', f"size = [{job.L}, {job.L}, {job.L}]",
        "periodic = [true, true, true]", f"procs = [{job.ranks}, 1, 1]",
        "[physics]", 'collision = "bgk"', f"tau = {TAU!r}",
        "[init]", 'type = "uniform"', f"velocity = [{', '.join(repr(x) for x in VELOCITY)}]",
        "[run]", f"steps = {job.steps}", "progress = 0", "",
    ])  # fmt: skip


def ludwig_timers(text: str) -> dict[str, dict]:
    """Ludwig's timer table, {name: {min_s, max_s, total_s, per_call_s,
    calls}}; a "-> part" line is named after the timer above it
    ("Lattice halos -> pack")."""
    out, parent = {}, ""
    for line in text.splitlines():
        m = TIMER_LINE.match(line)
        if not m or m[1] == "Section":
            continue
        name = m[1].strip()
        if name.startswith("->"):
            name = f"{parent} {name}"
        else:
            parent = name
        mn, mx, total, per = (float(m[i]) for i in range(2, 6))
        times = {"min_s": mn, "max_s": mx, "total_s": total, "per_call_s": per, "calls": int(m[6])}
        out.setdefault(name, times)
    if "Time step loop" not in out:
        raise ValueError("no timer table with a 'Time step loop' line in Ludwig's output")
    return out


def ludwig_density(text: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """(total, mean) density at the start and at the end, as Ludwig prints them."""
    got = [(float(m[1]), float(m[2])) for m in map(RHO_LINE.match, text.splitlines()) if m]
    if len(got) < 2:
        raise ValueError("Ludwig printed fewer than two density statistics ([rho] lines)")
    return got[0], got[-1]


def ludwig_result(text: str, job: Job) -> dict:
    """The record's measured fields from one Ludwig run's standard output."""
    t = ludwig_timers(text)
    (mass0, mean0), (mass1, mean1) = ludwig_density(text)
    if t["Time step loop"]["calls"] != job.steps:
        raise ValueError(f"Ludwig timed {t['Time step loop']['calls']} steps, not {job.steps}")

    def per_step(name: str) -> float | None:
        # (the per-call column: 1 us resolution, where the total has 1 ms)
        return t[name]["per_call_s"] * t[name]["calls"] / job.steps if name in t else None

    loop = per_step("Time step loop") * job.steps
    return {
        "step_loop_s": loop, "mlups": job.L**3 * job.steps / loop / 1e6,
        "halo_s_per_step": per_step("Lattice halos"), "collision_s_per_step": per_step("Collision"),
        "propagation_s_per_step": per_step("Propagation"),
        "diagnostics_s": t.get("Diagnostics / output", {}).get("total_s"),
        "mass_initial": mass0, "mass_final": mass1,
        "mass_conserved": abs(mean1 - mean0) <= MASS_TOLERANCE * abs(mean0), "timers": t,
    }  # fmt: skip


def haloex_result(rec: dict, job: Job) -> dict:
    """The record's measured fields from one `haloex lb -o` summary."""
    timers = {t["section"].strip(): t for t in rec["timers"]}

    def per_step(*names: str) -> float:
        return sum(timers[n]["mean_s"] for n in names) / job.steps

    m0, m1 = rec["mass_initial"], rec["mass_final"]
    return {
        "step_loop_s": rec["time_s"], "mlups": rec["mlups"],
        "halo_s_per_step": per_step("halo begin", "halo end"),
        "update_s_per_step": per_step("update (collide+stream)"), "collision_s_per_step": None,
        "propagation_s_per_step": None, "mass_initial": m0, "mass_final": m1,
        "mass_conserved": abs(m1 - m0) <= MASS_TOLERANCE * abs(m0), "strategy": rec.get("resolved_strategy"),
        "halo": rec.get("halo"), "timers": rec["timers"],
    }  # fmt: skip


# A model of each code's step on a small machine (site updates a second per
# rank, seconds a step besides), measured on a 2-core AMD EPYC guest: it
# only sizes the sweep's runs, each code's own (the records say how many).
STEP_MODEL = {"haloex": (25e6, 50e-6), "ludwig": (3e6, 500e-6)}


def steps_for(code: str, L: int, ranks: int, seconds: float = 1.5) -> int:
    """Steps for about `seconds` of `code`'s step loop, at least 20 (Ludwig's
    first step, which first touches its second array, weighs less)."""
    rate, overhead = STEP_MODEL[code]
    return max(20, int(seconds / (L**3 / (rate * ranks) + overhead)))


class Runner:
    def __init__(self, a):
        self.a = a
        self.raw = Path(a.out).resolve() / "raw" / "ludwig"  # (absolute: Ludwig runs in cwd)
        self.cwd = self.raw / "cwd"  # Ludwig reads ./input and writes nothing else here
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.meta: dict = {}  # where haloex says it ran, copied into Ludwig's records
        self.versions = {"ludwig": a.ludwig_version, "mpi": mpi_version(a.mpirun), "haloex": "?"}
        self.cpu = cpu_model()

    def command(self, job: Job, raw: Path) -> list[str]:
        launch = [*shlex.split(self.a.mpirun), "-np", str(job.ranks)]
        if job.code == "ludwig":
            return [*launch, self.a.ludwig]  # (the input is ./input)
        return [*launch, self.a.haloex, "lb", str(raw.with_suffix(".toml")), "-q", "-o", str(raw)]

    def one(self, job: Job, rnd: int) -> dict:
        """One run of one code: its record, failed or not."""
        raw = self.raw / f"{job.tag(rnd)}.{'txt' if job.code == 'ludwig' else 'json'}"
        if job.code == "ludwig":
            (self.cwd / "input").write_text(ludwig_input(job))
            raw.with_suffix(".input").write_text(ludwig_input(job))
        else:
            raw.with_suffix(".toml").write_text(haloex_case(job))
        cmd = self.command(job, raw)
        got = run(cmd, self.a.timeout, cwd=self.cwd, env={"OMP_PROC_BIND": "false"})
        rec = {"ok": False, "why": got.why}
        if got.ok:
            try:
                if job.code == "ludwig":
                    raw.write_text(got.stdout)
                    rec = {"ok": True, "why": "", **ludwig_result(got.stdout, job)}
                else:
                    summary = json.loads(raw.read_text())
                    self.meta = self.meta or metadata(summary)
                    self.versions["haloex"] = summary.get("git_commit", "?")
                    rec = {"ok": True, "why": "", **haloex_result(summary, job)}
            except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
                rec = {"ok": False, "why": f"unreadable output ({e})"}
        if rec["ok"] and not rec["mass_conserved"]:
            rec.update(ok=False, why=f"mass not conserved: {rec['mass_initial']!r} -> {rec['mass_final']!r}")
        if not rec["ok"]:
            print(f"[ludwig] {job.tag(rnd)} FAILED (status {got.status}): {rec['why']}", file=sys.stderr)
        return self.record(job, rnd, rec, cmd)

    def record(self, job: Job, rnd: int, measured: dict, cmd: list[str]) -> dict:
        """Where it ran is added at the end (with_metadata): Ludwig may run
        before haloex has said."""
        r = dict(
            benchmark="peers_ludwig", part=job.part, code=job.code, ranks=job.ranks, threads_per_rank=1,
            lattice_size=job.L, sites=job.L**3, steps=job.steps, round=rnd, process_grid=[job.ranks, 1, 1],
            command=shlex.join(cmd), input=f"raw/ludwig/{job.tag(rnd)}.{INPUT_SUFFIX[job.code]}",
            cpu_model=self.cpu, units="seconds (_s); mlups: 1e6 site updates per second",
        )  # fmt: skip
        r.update(measured)
        return r

    def with_metadata(self, records: list[dict]) -> list[dict]:
        return with_metadata(self.meta, self.versions, records)

    def rounds(self, jobs: list[Job], rounds: int) -> list[dict]:
        """Every job once a round, the order rotated each round."""
        out = []
        for rnd in range(rounds):
            k = rnd % len(jobs)
            print(f"[ludwig] {jobs[0].part} round {rnd + 1}/{rounds}", file=sys.stderr)
            out += [self.one(j, rnd) for j in jobs[k:] + jobs[:k]]
        return out


def mpi_version(mpirun: str) -> str:
    try:
        p = subprocess.run([shlex.split(mpirun)[0], "--version"], capture_output=True, text=True, timeout=30)
        return (p.stdout.strip().splitlines() or ["?"])[0]
    except (OSError, subprocess.SubprocessError):
        return "?"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p, rounds=5)
    p.add_argument("--ludwig", required=True, help="Ludwig.exe (peers/build-ludwig.sh builds it)")
    p.add_argument("--ludwig-version", default="?", help="Ludwig's version, commit and flags (recorded)")
    p.add_argument("--ranks", default="1,2", help="rank counts of the rate part (default 1,2)")
    p.add_argument("-L", "--size", type=int, default=128, help="the rate part's lattice edge (default 128)")
    p.add_argument("--steps", type=int, default=40, help="steps of the rate part (default 40)")
    p.add_argument("--sizes", default="8,16,32,64,128", help="edges of the size sweep; empty: no sweep")
    p.add_argument("--sweep-ranks", type=int, default=2, help="ranks of the size sweep (default 2)")
    p.add_argument("--sweep-rounds", type=int, default=3, help="rounds of the size sweep (default 3)")
    p.add_argument("--sweep-seconds", type=float, default=1.5, help="about this long a sweep run")
    a = p.parse_args()
    check_programs(p, a, ("haloex", "ludwig"))
    a.haloex, a.ludwig = (str(Path(x).resolve()) for x in (a.haloex, a.ludwig))  # (Ludwig runs elsewhere)
    try:
        a.ranks = [int(x) for x in a.ranks.split(",") if x]
        a.sizes = [int(x) for x in a.sizes.split(",") if x]
    except ValueError as e:
        p.error(f"--ranks and --sizes: {e}")
    if not a.ranks or min(a.ranks) < 1 or a.sweep_ranks < 1 or min([a.size, *a.sizes]) < 2 or a.steps < 1:
        p.error("--ranks, --sweep-ranks, --steps must be at least 1, sizes at least 2")
    if a.sweep_rounds < 1:
        p.error("--sweep-rounds must be at least 1")
    return a


def main() -> int:
    a = parse_args()
    out = Path(a.out)
    runner, t0 = Runner(a), time.time()
    codes = ("ludwig", "haloex")
    # Conservation first: nothing is timed from a code that loses mass.
    checks = [runner.one(Job("check", c, p, 32, 40), 0) for p in a.ranks for c in codes]
    records = list(checks)
    lost = [r for r in checks if r["why"].startswith("mass not conserved")]
    if not lost:
        rate = [Job("rate", c, p, a.size, a.steps) for p in a.ranks for c in codes]
        records += runner.rounds(rate, a.rounds)
        write_records(out / RECORDS, runner.with_metadata(records))  # (kept, should the sweep fail)
        sweep = [Job("sizes", c, a.sweep_ranks, L, steps_for(c, L, a.sweep_ranks, a.sweep_seconds))
                 for L in a.sizes for c in codes]  # fmt: skip
        records += runner.rounds(sweep, a.sweep_rounds) if sweep else []
    write_records(out / RECORDS, runner.with_metadata(records))
    failed = [r for r in records if not r["ok"]]
    print(f"[ludwig] {len(records)} records in {out / RECORDS} ({time.time() - t0:.0f} s)", file=sys.stderr)
    for r in lost:
        print(f"[ludwig] MASS NOT CONSERVED: {r['code']} at {r['ranks']} ranks: {r['why']}", file=sys.stderr)
    return NOT_CONSERVED if lost else (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
