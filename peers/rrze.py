#!/usr/bin/env python3
"""peers/rrze.py: RRZE-HPC's lbm-benchmark-kernels (built by
peers/build-rrze.sh) beside `haloex bench lb` on the same lattices,
interleaved, on this machine (`make peers RRZE_SRC=...` runs it; it also runs
on its own, see docs/peers.md).

A cell is (threads, geometry, size): one rank, T OpenMP threads, an L^3
lattice of D3Q19 in double precision, the geometry a box (all fluid,
periodic in every dimension) or a channel (periodic in x, walls on the y
and z faces). Both codes run with the same OMP_NUM_THREADS and the same
pinning (OMP_PLACES=cores, OMP_PROC_BIND=close). In each cell:
- RRZE: each of its kernels (`-list`, or --kernels) in a process of its
  own; all of them collide with TRT, RRZE has no BGK;
- haloex: one `bench lb` under `mpirun -n 1` timing every kernel x layout
  (--haloex-kernels, --layouts) with TRT and with BGK, --haloex-repeats
  samples each; a configuration's figure for the round is their median.
Every run does about --updates site updates (RRZE's iterations; haloex's
steps over its samples).
A round runs every (code, kernel, cell) once, in an order rotated from round
to round. Both codes count MLUP/s over their fluid sites (RRZE's channel
has its walls on the lattice's outer layers: L(L-2)^2 fluid sites;
haloex's lies outside: L^3).

OUT/peers-rrze.jsonl: one record per code, kernel/config, threads,
geometry, size and round; the raw output of every run in OUT/raw/rrze/.
Exit status: 0; 1 some run failed (recorded as failed); 2 bad options.
Standard library only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import add_common_options, check_programs, cpu_model, metadata, run, with_metadata, write_records

RECORDS = "peers-rrze.jsonl"
GEOMETRY = {  # RRZE's options for the two geometries haloex has (box alone has walls everywhere)
    "box": ["-geometry", "box", "-periodic-x", "-periodic-y", "-periodic-z"],
    "channel": ["-geometry", "channel", "-periodic-x"],
}
COLLISIONS = ("trt", "bgk")  # haloex's; RRZE's kernels are TRT only
# RRZE's result line (src/Main.c): "P:   %f MFLUP/s  t: %d  d: %f s  iter: %d  fnodes: %f x1e6
# geo: %s  kernel: %s  %s  %s", the last two the build type (B: benchmark) and the precision.
RATE_LINE = re.compile(
    r"^P:\s+(?P<mlups>\S+) MFLUP/s\s+t: (?P<threads>\d+)\s+d: (?P<seconds>\S+) s"
    r"\s+iter: (?P<steps>\d+)\s+fnodes: (?P<fluid>\S+) x1e6\s+geo: (?P<geo>\S+)"
    r"\s+kernel: (?P<kernel>\S+)\s+(?P<type>\S+)\s+(?P<prec>\S+)"
)


@dataclass(frozen=True)
class Job:
    code: str  # "rrze" or "haloex"
    kernel: str  # RRZE's kernel; "" for haloex (one run times all its configurations)
    threads: int
    geometry: str
    L: int
    steps: int  # RRZE's iterations; haloex's steps per sample

    def tag(self, rnd: int) -> str:
        return f"{self.kernel or self.code}-t{self.threads}-{self.geometry}-L{self.L}-r{rnd}"


def rrze_result(text: str, job: Job) -> dict:
    """The record's measured fields from one RRZE run's standard output."""
    m = next((m for m in map(RATE_LINE.match, text.splitlines()) if m), None)
    if m is None:
        raise ValueError("no 'P: ... MFLUP/s' line in RRZE's output")
    want = {"threads": str(job.threads), "steps": str(job.steps), "kernel": job.kernel, "geo": job.geometry}
    wrong = [f"{k} {m[k]} (asked {v})" for k, v in want.items() if m[k] != v]
    if wrong or (m["type"], m["prec"]) != ("B", "dp"):
        raise ValueError(f"RRZE ran something else: {', '.join(wrong) or m['type'] + ' ' + m['prec']}")
    return {
        "mlups": float(m["mlups"]), "step_loop_s": float(m["seconds"]),
        "fluid_sites": round(float(m["fluid"]) * 1e6),
    }  # fmt: skip


def haloex_configs(kernels: list[str], layouts: list[str]) -> list[str]:
    """haloex's configurations, named kernel/layout/collision."""
    return ["/".join(c) for c in itertools.product(kernels, layouts, COLLISIONS)]


def haloex_results(lines: list[dict], job: Job) -> dict[str, dict]:
    """{config: measured fields} from one `bench lb -o` file (its stream
    records, the bandwidth sweeps, left aside)."""
    out = {}
    for r in lines:
        if r.get("benchmark") != "lb" or "kernel" not in r:
            continue
        if r["geometry"] != job.geometry or r["threads_per_rank"] != job.threads or r["size"] != job.L:
            raise ValueError(f"bench lb ran {r['config']} at {r['threads_per_rank']} threads, L={r['size']}")
        out[f"{r['kernel']}/{r['layout']}/{r['collision']}"] = {
            "mlups": r["mlups_median"], "mlups_samples": r["mlups_samples"],
            "fluid_sites": round(r["lattice_sites"]), "haloex_config": r["config"],
            "threads_pinned": r.get("threads_pinned"),
        }  # fmt: skip
    return out


class Runner:
    def __init__(self, a):
        self.a = a
        self.out = Path(a.out).resolve()  # (absolute: the runs run in self.cwd)
        self.raw = self.out / "raw" / "rrze"
        # RRZE writes ux-progress.dat and density-ux.dat into its working folder: there, not the user's
        self.cwd = self.raw / "cwd"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.meta: dict = {}  # where haloex says it ran, copied into every record
        self.versions = {"rrze": a.rrze_version, "haloex": "?", "mpi": "?"}
        self.cpu = cpu_model()
        self.configs = haloex_configs(a.haloex_kernels, a.layouts)
        self.t0 = time.time()

    def env(self, job: Job) -> dict:
        """The same threads, pinning and waiting for both codes (passive: as
        every peer run, peers/common.run)."""
        return {"OMP_NUM_THREADS": str(job.threads), "OMP_PLACES": "cores", "OMP_PROC_BIND": "close",
                "OMP_WAIT_POLICY": "passive"}  # fmt: skip

    def command(self, job: Job, raw: Path) -> list[str]:
        if job.code == "rrze":
            return [
                self.a.rrze, "-kernel", job.kernel, "-dims", f"{job.L}x{job.L}x{job.L}",
                *GEOMETRY[job.geometry], "-iterations", str(job.steps), "-t", str(job.threads),
            ]  # fmt: skip
        return [
            *shlex.split(self.a.mpirun), "-n", "1", self.a.haloex, "bench", "lb", "--velocity-set", "D3Q19",
            "-m", str(job.L), "-k", ",".join(self.a.haloex_kernels), "--layouts", ",".join(self.a.layouts),
            "--collision", ",".join(COLLISIONS), "--geometry", job.geometry, "-t", str(job.threads),
            "-i", str(job.steps), "-r", str(self.a.haloex_repeats), "-x", "2", "-q", "-o", str(raw),
        ]  # fmt: skip

    def one(self, job: Job, rnd: int) -> list[dict]:
        """One run: its records (one for RRZE, one per configuration for
        haloex), failed or not."""
        raw = self.raw / f"{job.tag(rnd)}.{'txt' if job.code == 'rrze' else 'jsonl'}"
        raw.unlink(missing_ok=True)  # (bench lb appends)
        cmd = self.command(job, raw)
        got = run(cmd, self.a.timeout, cwd=self.cwd, env=self.env(job))
        if job.code == "rrze":
            raw.write_text(got.stdout)
            # (RRZE says what went wrong on its standard output)
            got.why = next((x for x in got.stdout.splitlines() if x.startswith("ERROR")), got.why)
        measured = {}
        if got.ok:
            try:
                measured = self.read(job, got.stdout, raw)
            except (OSError, ValueError, KeyError, TypeError) as e:
                got.why = f"unreadable output ({e})"
        out = []
        for name in [job.kernel] if job.code == "rrze" else self.configs:
            m = measured.get(name) or {"ok": False, "why": got.why or f"bench lb wrote no record of {name}"}
            if not m["ok"]:
                print(f"[rrze] {job.tag(rnd)} {name} FAILED (status {got.status}): {m['why']}",
                      file=sys.stderr)  # fmt: skip
            out.append(self.record(job, rnd, name, m, cmd, raw))
        return out

    def read(self, job: Job, stdout: str, raw: Path) -> dict[str, dict]:
        if job.code == "rrze":
            return {job.kernel: {"ok": True, "why": "", **rrze_result(stdout, job)}}
        lines = [json.loads(x) for x in raw.read_text().splitlines() if x.strip()]
        found = haloex_results(lines, job)
        if found:
            self.meta = self.meta or metadata(lines[0])
            self.versions.update(haloex=lines[0].get("git_commit", "?"), mpi=lines[0].get("mpi_library", "?"))
        return {k: {"ok": True, "why": "", **v} for k, v in found.items()}

    def record(self, job: Job, rnd: int, name: str, measured: dict, cmd: list[str], raw: Path) -> dict:
        """Where it ran is added at the end (with_metadata): RRZE may run
        before haloex has said."""
        if job.code == "haloex":
            kernel, layout, collision = name.split("/")
        else:  # (RRZE's kernel names end in their layout)
            kernel, layout, collision = name, name.rsplit("-", 1)[-1], "trt"
        r = dict(
            benchmark="peers_rrze", code=job.code, config=name, kernel=kernel, layout=layout,
            collision=collision, ranks=1, threads_per_rank=job.threads, geometry=job.geometry,
            lattice_size=job.L, sites=job.L**3, steps=job.steps, round=rnd,
            repeats=self.a.haloex_repeats if job.code == "haloex" else 1, command=shlex.join(cmd),
            environment=self.env(job), raw=str(raw.relative_to(self.out)), cpu_model=self.cpu,
            units="mlups: 1e6 fluid-site updates per second (MLUP/s); seconds (_s)",
        )  # fmt: skip
        r.update(measured)
        return r

    def with_metadata(self, records: list[dict]) -> list[dict]:
        return with_metadata(self.meta, self.versions, records)

    def rounds(self, jobs: list[Job], rounds: int) -> list[dict]:
        """Every job once a round. Each round starts a further stretch into
        the list (rounds spread the starts over it): every job runs early in
        one round and late in another, while a cell's runs stay together."""
        out = []
        for rnd in range(rounds):
            k = rnd * len(jobs) // rounds
            print(f"[rrze] round {rnd + 1}/{rounds}: {len(jobs)} runs ({time.time() - self.t0:.0f} s so far)",
                  file=sys.stderr)  # fmt: skip
            for job in jobs[k:] + jobs[:k]:
                out += self.one(job, rnd)
            # (written every round: kept, should a later round fail)
            write_records(self.out / RECORDS, self.with_metadata(out))
        return out


def steps_for(L: int, updates: float) -> int:
    """An even number of steps (RRZE's AA kernels do steps in pairs) for
    about `updates` site updates, at least 10."""
    return max(10, 2 * round(updates / L**3 / 2))


def rrze_kernels(rrze: str) -> list[str]:
    """The kernels RRZE's binary offers (its `-list`); none when it fails."""
    got = run([rrze, "-list"], 60)
    return got.stdout.split("Available kernels to benchmark:", 1)[-1].split() if got.ok else []


def jobs(a) -> list[Job]:
    """A round's runs, cell by cell: RRZE's kernels, then haloex's run."""
    out = []
    for t, geo, L in itertools.product(a.threads, a.geometries, a.sizes):
        steps = steps_for(L, a.updates)
        out += [Job("rrze", k, t, geo, L, steps) for k in a.kernels]
        out.append(Job("haloex", "", t, geo, L, math.ceil(steps / a.haloex_repeats)))
    return out


def split(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p, rounds=int(os.environ.get("PEERS_ROUNDS", "7")))
    p.add_argument("--rrze", required=True, help="RRZE's lbmbenchk (peers/build-rrze.sh builds it)")
    p.add_argument("--rrze-version", default="?", help="RRZE's version, commit and build command (recorded)")
    p.add_argument("--kernels", default="", help="RRZE's kernels, comma-separated (default: all it lists)")
    p.add_argument("--threads", default="1,2", help="OpenMP thread counts (default 1,2)")
    p.add_argument("--geometries", default="box,channel", help="box, channel (default both)")
    p.add_argument("--sizes", default="128,64", help="lattice edges L (default 128,64)")
    p.add_argument("--updates", type=float, default=5e7, help="site updates a run, about (default 5e7)")
    p.add_argument("--haloex-kernels", default="aa,pull", help="bench lb's kernels (default aa,pull)")
    p.add_argument("--layouts", default="soa,aos", help="bench lb's layouts (default soa,aos)")
    p.add_argument("--haloex-repeats", type=int, default=3, help="bench lb's samples a run (default 3)")
    a = p.parse_args()
    check_programs(p, a, ("haloex", "rrze"))
    a.haloex, a.rrze = (str(Path(x).resolve()) for x in (a.haloex, a.rrze))  # (the records' commands)
    try:
        a.threads, a.sizes = [int(x) for x in split(a.threads)], [int(x) for x in split(a.sizes)]
    except ValueError as e:
        p.error(f"--threads and --sizes take integers: {e}")
    a.geometries, a.haloex_kernels, a.layouts = split(a.geometries), split(a.haloex_kernels), split(a.layouts)
    if not (a.threads and a.sizes and a.geometries) or min(a.threads) < 1 or min(a.sizes) < 4:
        p.error("--threads must be at least 1, --sizes at least 4, none of them empty")
    if set(a.geometries) - set(GEOMETRY) or a.haloex_repeats < 1 or a.updates <= 0:
        p.error(f"--geometries from {', '.join(GEOMETRY)}; --haloex-repeats, --updates positive")
    offered = rrze_kernels(a.rrze)
    if not offered:
        p.error(f"--rrze: `{a.rrze} -list` names no kernels (not RRZE's lbmbenchk?)")
    a.kernels = split(a.kernels) or offered
    if set(a.kernels) - set(offered):
        unknown = ", ".join(sorted(set(a.kernels) - set(offered)))
        p.error(f"--kernels: {unknown} not among the kernels RRZE offers: {', '.join(offered)}")
    return a


def main() -> int:
    a = parse_args()
    out = Path(a.out)
    runner = Runner(a)
    print(f"[rrze] RRZE's kernels: {', '.join(a.kernels)}; haloex: {', '.join(runner.configs)}",
          file=sys.stderr)  # fmt: skip
    records = runner.rounds(jobs(a), a.rounds)
    failed = [r for r in records if not r["ok"]]
    took = time.time() - runner.t0
    print(f"[rrze] {len(records)} records in {out / RECORDS}, {len(failed)} failed ({took:.0f} s)",
          file=sys.stderr)  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
