#!/usr/bin/env python3
"""peers/run.py: haloex's halo exchange side by side with GHEX and PETSc's
DMDA on the same job, interleaved, on this machine (`make peers` runs it).

Every case is one job: L^3 doubles per rank, 3-D, periodic, halo 1, the
full 26-neighbour halo, `ncomp` values a site, AoS or SoA. A round runs
each tool once, in an order rotated from round to round, as its own mpirun:
`haloex bench halo` (every strategy, interleaved inside), the GHEX driver
in its two modes and the PETSc driver. Each run gives the median of
--samples samples of --iterations exchanges (the slowest rank's time per
exchange); the report pairs the tools' medians round by round.

Writes OUT/peers.jsonl (one record per case, tool and mode: the per-round
medians, the command, the versions) that `haloex-lab report OUT` shows as
its "Peers" section, and keeps each run's raw output in OUT/raw/. Exit
status: 0; 1 when a tool has no timed run in some case; 3 when a driver
found a wrong halo; 2 bad options. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import (
    METADATA,
    WRONG_HALO,
    Outcome,
    add_common_options,
    check_programs,
    metadata,
    run,
    write_records,
)

HERE = Path(__file__).resolve().parent
# Tool name -> its (peer, mode) runs; haloex's "*" runs every strategy.
TOOLS = {
    "haloex": [("haloex", "*")],
    "ghex": [("ghex", "co"), ("ghex", "bulk")],
    "petsc": [("petsc", "dmda")],
    "py-haloex": [("python", "haloex")],
    "py-ghex": [("python", "ghex")],
    "py-petsc4py": [("python", "petsc4py")],
}


@dataclass(frozen=True)
class Case:
    ranks: int
    L: int
    ncomp: int
    layout: str
    face_doubles: int = 0  # the size was chosen as this many doubles per face (0: L given)

    def text(self) -> str:
        face = f" ({self.face_doubles:.0e} doubles a face)" if self.face_doubles else ""
        return f"{self.ranks} ranks, L={self.L}{face}, {self.ncomp} x double {self.layout}"


def cases(ranks: list[int], sizes: list[int], faces: list[int], values: list[tuple[int, str]]) -> list[Case]:
    """Each (ncomp, layout) of `values` at the edges `sizes` and at the edges
    whose face holds about `faces` doubles."""
    out = []
    for p in ranks:
        for ncomp, layout in values:
            out += [Case(p, L, ncomp, layout) for L in sizes]
            out += [Case(p, round(math.sqrt(f / ncomp)), ncomp, layout, f) for f in faces]
    return out


def parse_values(text: str) -> list[tuple[int, str]]:
    """ "1,19aos,19soa" -> [(1, "aos"), (19, "aos"), (19, "soa")]."""
    out = []
    for item in text.split(","):
        m = re.fullmatch(r"(\d+)(aos|soa)?", item.strip())
        if not m or int(m[1]) < 1 or (int(m[1]) > 1 and not m[2]):
            raise ValueError(f"'{item}' is not N (one value) or N followed by aos or soa")
        out.append((int(m[1]), m[2] or "aos"))
    return out


def iterations_for(c: Case) -> int:
    """Exchanges per sample: about 30 ms at 10 us + 2 GB/s of halo."""
    est = 10e-6 + 6 * c.L**2 * c.ncomp * 8 / 2e9
    return max(10, min(2000, int(0.03 / est)))


class Runner:
    def __init__(self, args, out: Path):
        self.args = args
        self.raw = out / "raw"
        self.raw.mkdir(parents=True, exist_ok=True)
        self.mpirun = shlex.split(args.mpirun)
        self.wrong_halos: list[str] = []  # runs whose halo check failed
        self.missing: list[str] = []  # (case, tool) pairs without a single timed run
        # where and how the run was, per rank count, for runs without the haloex tool (--metadata-from)
        self.fallback_meta: dict[int, dict] = {}
        if args.metadata_from and Path(args.metadata_from).exists():
            for line in reversed(Path(args.metadata_from).read_text().splitlines()):
                rec = json.loads(line)
                self.fallback_meta[rec["ranks"]] = {k: v for k, v in rec.items() if k != "date_utc"}
        elif args.metadata_from:
            print(
                f"[peers] no {args.metadata_from}: these records say less of where they ran", file=sys.stderr
            )

    def tools(self) -> list[tuple[str, str]]:
        """(peer, mode) pairs of this run: haloex's every strategy is one run."""
        return [pm for t in self.args.tools for pm in TOOLS[t]]

    def command(self, c: Case, peer: str, mode: str, raw: Path) -> list[str]:
        n, a = iterations_for(c), self.args
        w = max(2, n // 10)
        launch = [*self.mpirun, "-np", str(c.ranks)]
        if peer == "haloex":
            return [*launch, a.haloex, "bench", "halo", "-L", str(c.L), "--ncomp", str(c.ncomp),
                    "--layout", c.layout, "--plan", "full", "-i", str(n), "-x", str(w),
                    "-r", str(a.samples), "-q", "-o", str(raw)]  # fmt: skip
        py_level = [a.python, str(HERE / "python_level.py")]
        driver = {"ghex": [a.ghex], "petsc": [a.petsc], "python": py_level}[peer]
        which = "--lib" if peer == "python" else "--mode"
        return [*launch, *driver, which, mode, "--L", str(c.L), "--ncomp", str(c.ncomp), "--layout", c.layout,
                "--iterations", str(n), "--warmup", str(w), "--samples", str(a.samples)]  # fmt: skip

    def run_one(self, c: Case, peer: str, mode: str, cmd: list[str], raw: Path) -> tuple[dict, Outcome]:
        """{mode: (median seconds per exchange, record)} of one run, and how
        it ended; nothing when it failed (a wrong halo is never timed)."""
        if self.args.from_raw:  # (the run's output kept in raw/, read again)
            kept = raw.exists()
            got = Outcome(raw.read_text() if kept else "", 0 if kept else 1, "" if kept else f"no {raw.name}")
        else:
            got = run(cmd, self.args.timeout)
        try:
            if got.ok and peer == "haloex":
                recs = [json.loads(x) for x in raw.read_text().splitlines() if x.strip()]
                if not recs:
                    raise ValueError("no records")
                return {r["strategy"]: (statistics.median(r["time_per_call_s"]), r) for r in recs}, got
            if got.ok:
                if not self.args.from_raw:
                    raw.write_text(got.stdout)
                rec = json.loads(got.stdout.strip().splitlines()[-1])
                return {mode: (statistics.median(rec["time_per_call_s"]), rec)}, got
        except (OSError, ValueError, KeyError, IndexError, statistics.StatisticsError) as e:
            got = Outcome(got.stdout, 1, f"unreadable output ({e})")
        print(f"[peers] {c.text()}: {peer} {mode} failed (status {got.status}): {got.why}", file=sys.stderr)
        if got.status == WRONG_HALO:
            self.wrong_halos.append(f"{c.text()}: {peer} {mode}: {got.why}")
        return {}, got

    def measure(self, c: Case) -> list[dict]:
        """The case's rounds, the tools' order rotated each round."""
        tools = self.tools()
        series: dict[tuple[str, str], dict[int, float]] = {}  # (peer, mode): {round: seconds}
        first: dict[tuple[str, str], dict] = {}
        failed: dict[tuple[str, str], list[dict]] = {}
        commands: dict[tuple[str, str], str] = {}
        for rnd in range(self.args.rounds):
            k = rnd % len(tools)
            for peer, mode in tools[k:] + tools[:k]:
                tag = f"p{c.ranks}-L{c.L}-c{c.ncomp}-{c.layout}-{peer}-{mode.replace('*', 'all')}-r{rnd}"
                raw = self.raw / f"{tag}.jsonl"
                cmd = self.command(c, peer, mode, raw)
                commands[(peer, mode)] = shlex.join(self.command(c, peer, mode, Path("OUT.jsonl")))
                got, how = self.run_one(c, peer, mode, cmd, raw)
                if not got:
                    failed.setdefault((peer, mode), []).append(
                        {"round": rnd, "status": how.status, "why": how.why}
                    )
                for m, (t, rec) in got.items():
                    series.setdefault((peer, m), {})[rnd] = t
                    first.setdefault((peer, m), rec)
        fallback = self.fallback_meta.get(c.ranks, {})
        meta = metadata(next((r for (p, _), r in first.items() if p == "haloex"), fallback))
        out = []
        for peer, mode in tools:
            modes = [m for (p, m) in series if p == peer and (mode == "*" or m == mode)] or [mode]
            for m in modes:
                if (peer, m) not in series:
                    self.missing.append(f"{c.text()}: {peer} {mode}")
                cmd = commands[(peer, mode)]
                ts, rec = series.get((peer, m), {}), first.get((peer, m), {})
                out.append(self.record(c, peer, m, ts, rec, meta, cmd, failed.get((peer, mode), [])))
        return out

    def record(self, c: Case, peer: str, mode: str, ts: dict[int, float], rec: dict, meta: dict, cmd: str,
               failed: list[dict]) -> dict:  # fmt: skip
        r = dict(meta)
        if peer == "python":  # (where its own run was: its record says, as haloex's do)
            r.update({k: rec[k] for k in METADATA if k in rec})
        r.update(
            benchmark="peers", ranks=c.ranks, threads_per_rank=1, peer=peer, mode=mode, local_size=c.L,
            ncomp=c.ncomp, layout=c.layout, face_doubles=c.face_doubles, halo_width=1, halo_plan="full",
            time_per_call_s=list(ts.values()), round_index=list(ts), rounds=self.args.rounds,
            samples_per_round=self.args.samples, iterations=iterations_for(c), command=cmd,
            failed_rounds=failed, peer_versions=self.args.versions,
            peer_version=rec.get("peer_version", rec.get("haloex_version", "?")),
            procs=rec.get("process_grid" if peer == "haloex" else "procs"),
        )  # fmt: skip
        if peer == "haloex" and mode == "auto":
            r["resolved_strategy"] = rec.get("resolved_strategy")  # (the first round's pick)
        return r


def parse_args() -> tuple[argparse.Namespace, list[Case]]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p)
    p.add_argument("--ghex", help="the GHEX driver (peers/build-ghex.sh builds it)")
    p.add_argument("--petsc", help="the PETSc driver (peers/petsc)")
    p.add_argument("--python", help="a Python with haloex, ghex and petsc4py for the py-* tools")
    p.add_argument("--tools", help="comma-separated, of " + ", ".join(TOOLS) + " (default: haloex and the "
                   "drivers given)")  # fmt: skip
    p.add_argument("--values", default="1,19aos,19soa", help="values a site: N, or N with aos or soa")
    p.add_argument("--file", default="peers.jsonl", help="the records' file name in OUT")
    p.add_argument("--from-raw", action="store_true",
                   help="run nothing: the records again from OUT/raw/ (the run's options)")  # fmt: skip
    p.add_argument("--metadata-from", help="a records file whose first record says where the run was "
                   "(for runs without the haloex tool)")  # fmt: skip
    p.add_argument("--ranks", default="2,4", help="rank counts (default 2,4)")
    p.add_argument("-m", "--sizes", default="16,32,64", help="subdomain edges L (default 16,32,64)")
    p.add_argument("--faces", default="10000,100000", help="doubles per face; L from them per ncomp")
    p.add_argument("-s", "--samples", type=int, default=3, help="samples per run (its median is the round's)")
    p.add_argument("--versions", type=json.loads, default={}, help="JSON of the peers' versions and sources")
    a = p.parse_args()
    check_programs(p, a, ("haloex", "ghex", "petsc", "python"))
    a.tools = (a.tools or ",".join(t for t in ("haloex", "ghex", "petsc") if getattr(a, t))).split(",")
    if unknown := [t for t in a.tools if t not in TOOLS]:
        p.error(f"--tools: unknown {', '.join(unknown)} (valid: {', '.join(TOOLS)})")
    for t in a.tools:
        need = "python" if t.startswith("py-") else t
        if not getattr(a, need):
            p.error(f"--tools {t} needs --{need}")
    if a.samples < 1:
        p.error("--samples must be at least 1")
    try:
        ranks = [int(x) for x in a.ranks.split(",")]
        sizes = [int(x) for x in a.sizes.split(",") if x]
        faces = [int(float(x)) for x in a.faces.split(",") if x]
        values = parse_values(a.values)
    except ValueError as e:
        p.error(f"--ranks, --sizes, --faces and --values: {e}")
    todo = cases(ranks, sizes, faces, values)
    if not ranks or min(ranks) < 1 or not todo or min(c.L for c in todo) < 1:
        p.error("--ranks, --sizes and --faces must give at least one case, every rank count and edge >= 1")
    return a, todo


def main() -> int:
    a, todo = parse_args()
    out = Path(a.out)
    runner = Runner(a, out)
    records, t0 = [], time.time()
    for i, c in enumerate(todo, 1):
        print(f"[peers] case {i}/{len(todo)}: {c.text()} ({time.time() - t0:.0f} s so far)", file=sys.stderr)
        records += runner.measure(c)
        write_records(out / a.file, records)  # (what is measured so far, should a later case fail)
    print(
        f"[peers] wrote {len(records)} records to {out / a.file} in {time.time() - t0:.0f} s", file=sys.stderr
    )
    for what, items in (("a wrong halo (never timed)", runner.wrong_halos), ("no timed run", runner.missing)):
        for item in items:
            print(f"[peers] {what}: {item}", file=sys.stderr)
    return 3 if runner.wrong_halos else (1 if runner.missing else 0)


if __name__ == "__main__":
    sys.exit(main())
