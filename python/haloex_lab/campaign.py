"""Campaigns: a TOML file listing benchmark points, expanded into mpirun
commands, run one by one with progress and resumable from the results file.

    [campaign]
    name = "demo"
    results = "results/demo/results.jsonl"   # relative to the current directory
    haloex = "build/haloex"                  # or --haloex / $HALOEX
    launcher = "mpirun"                      # mpirun (default), srun, sbatch or cluster
    mpirun = ["mpirun"]                      # its command; "-np N" is added (default: see default_launcher)
    srun = ["srun", "--mpi=pmix"]            # srun's command (srun and sbatch); -n, -N, ... are added
    cluster = "haloex"                       # launcher = "cluster": the emulated cluster's name
    timeout_s = 600                          # per point: a hang fails

    [campaign.sbatch]                        # launcher = "sbatch": one batch script per point
    time = "00:10:00"                        # each job's time limit
    partition = "standard"                   # optional, as is account
    extra = ["--qos=short"]                  # more #SBATCH options
    poll_s = 5                               # seconds between looks at the queue

    [[points]]
    benchmark = "halo"          # halo, lb, pingpong, stream, stencil, clock, coll, overlap, monitor or io
    ranks = [1, 2]              # one point per rank count, or nodes x tasks_per_node:
    # nodes = [1, 2]; tasks_per_node = [2, 4]   (ranks = their product)
    threads = [1]               # ... per OpenMP thread count ...
    sizes = [16, 24, 32]        # ... and per size (-m for halo/coll/overlap,
                                # -L for lb/monitor/io, --nz for stencil)
    args = ["-i", "2000", "-r", "5"]
"""

from __future__ import annotations

import itertools
import os
import shlex
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .launchers import KINDS, SBATCH_KEYS, Launcher, LaunchError, Sbatch, Where, default_mpirun
from .results import ResultsError, append_records, read_records

BENCHMARKS = {
    "halo": "-m",
    "lb": "-L",
    "pingpong": "-m",
    "stream": "-n",
    "stencil": "--nz",
    "clock": "-n",
    "coll": "-m",
    "overlap": "-m",
    "monitor": "-L",
    "io": "-L",
}
CAMPAIGN_KEYS = {"name", "results", "haloex", "launcher", "mpirun", "srun", "sbatch", "cluster", "timeout_s"}
POINT_KEYS = {"benchmark", "ranks", "nodes", "tasks_per_node", "threads", "sizes", "global", "args", "name"}


class CampaignError(Exception):
    """A campaign file that cannot be run as written."""


@dataclass
class Point:
    benchmark: str
    ranks: int
    threads: int
    args: list[str]
    label: str = ""
    nodes: int | None = None  # with tasks_per_node: where the ranks go
    tasks_per_node: int | None = None

    @property
    def where(self) -> Where:
        return Where(self.ranks, self.threads, self.nodes, self.tasks_per_node)

    @property
    def key(self) -> str:
        """What identifies the point in the results file (for resuming)."""
        where = f" nodes={self.nodes} tasks_per_node={self.tasks_per_node}" if self.tasks_per_node else ""
        return f"{self.benchmark} np={self.ranks}{where} threads={self.threads} " + shlex.join(self.args)


@dataclass
class Campaign:
    name: str
    results: Path
    haloex: str
    launcher: Launcher
    timeout_s: float
    points: list[Point] = field(default_factory=list)
    sbatch: Sbatch | None = None  # launcher sbatch: its batch jobs (launcher is their srun)


def _as_list(value, what: str) -> list:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise CampaignError(f"{what} is an empty list")
    return items


def _positive_ints(value, what: str) -> list[int]:
    items = _as_list(value, what)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in items):
        raise CampaignError(f"{what} must be a positive integer or a list of them, got {value!r}")
    return items


def load_campaign(path: Path, results: Path | None = None, haloex: str | None = None) -> Campaign:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise CampaignError(f"cannot read campaign file {path}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise CampaignError(f"{path}: not valid TOML: {e}") from e
    head = data.get("campaign", {})
    unknown = set(data) - {"campaign", "points"} | set(head) - CAMPAIGN_KEYS
    if unknown:
        raise CampaignError(
            f"{path}: unknown keys {sorted(unknown)} (valid: [campaign] with "
            f"{sorted(CAMPAIGN_KEYS)}, and [[points]])"
        )
    name = head.get("name", path.stem)
    launcher = head.get("mpirun")
    if launcher is not None and (
        not isinstance(launcher, list) or not all(isinstance(w, str) for w in launcher)
    ):
        raise CampaignError(
            f'{path}: campaign.mpirun must be a list of strings, e.g. ["mpirun", "--oversubscribe"]'
        )
    kind = head.get("launcher", "mpirun")
    if kind not in KINDS:
        raise CampaignError(f"{path}: campaign.launcher must be one of {', '.join(KINDS)}, got {kind!r}")
    srun = head.get("srun", ["srun"])
    if not isinstance(srun, list) or not srun or not all(isinstance(w, str) for w in srun):
        raise CampaignError(f'{path}: campaign.srun must be a list of strings, e.g. ["srun", "--mpi=pmix"]')
    sbatch = head.get("sbatch", {})
    if not isinstance(sbatch, dict) or set(sbatch) - SBATCH_KEYS:
        raise CampaignError(f"{path}: [campaign.sbatch] takes {sorted(SBATCH_KEYS)}, got {sorted(sbatch)}")
    cluster = head.get("cluster", "haloex")
    if not isinstance(cluster, str):
        raise CampaignError(f"{path}: campaign.cluster must be the emulated cluster's name (a string)")
    how = {"mpirun": launcher or default_mpirun(), "srun": srun, "sbatch": srun, "cluster": []}[kind]
    camp = Campaign(
        name=name,
        results=Path(results or head.get("results", f"results/{name}/results.jsonl")),
        haloex=haloex or os.environ.get("HALOEX") or head.get("haloex", "build/haloex"),
        launcher=Launcher("srun" if kind == "sbatch" else kind, how, cluster),
        timeout_s=float(head.get("timeout_s", 600)),
        sbatch=Sbatch(Launcher("srun", srun), sbatch) if kind == "sbatch" else None,
    )
    raw_points = data.get("points")
    if not raw_points:
        raise CampaignError(f"{path}: no [[points]] to run")
    for i, p in enumerate(raw_points, 1):
        where = f"{path}: points[{i}]"
        bad = set(p) - POINT_KEYS
        if bad:
            raise CampaignError(f"{where}: unknown keys {sorted(bad)} (valid: {sorted(POINT_KEYS)})")
        bench = p.get("benchmark")
        if bench not in BENCHMARKS:
            raise CampaignError(f"{where}: benchmark must be one of {sorted(BENCHMARKS)}, got {bench!r}")
        args = p.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise CampaignError(f"{where}: args must be a list of strings")
        if "tasks_per_node" in p:
            if "ranks" in p:
                raise CampaignError(f"{where}: give ranks, or nodes and tasks_per_node (their product)")
            places = [
                (n, t)
                for n in _positive_ints(p.get("nodes", 1), f"{where}.nodes")
                for t in _positive_ints(p["tasks_per_node"], f"{where}.tasks_per_node")
            ]
        elif "nodes" in p:
            raise CampaignError(f"{where}: nodes needs tasks_per_node")
        else:
            places = [(None, None)]
        ranks = _positive_ints(p.get("ranks", 1), f"{where}.ranks") if places == [(None, None)] else [0]
        threads = _positive_ints(p.get("threads", 1), f"{where}.threads")
        sizes = [None] if "sizes" not in p else _positive_ints(p["sizes"], f"{where}.sizes")
        extra = []
        if "global" in p:
            if "sizes" in p:
                raise CampaignError(f"{where}: give sizes (per rank) or global (strong scaling), not both")
            if bench != "halo":
                raise CampaignError(f"{where}: global is for halo points; give --nx/--ny in args for {bench}")
            extra = ["--global", str(_positive_ints(p["global"], f"{where}.global")[0])]
        for (nodes, per_node), r, t, s in itertools.product(places, ranks, threads, sizes):
            r = nodes * per_node if per_node else r
            if bench == "pingpong" and r < 2:
                raise CampaignError(f"{where}: pingpong needs at least 2 ranks")
            a = list(extra) + ([BENCHMARKS[bench], str(s)] if s is not None else []) + list(args)
            if bench == "lb":
                a += ["-t", str(t)]
            camp.points.append(Point(bench, r, t, a, p.get("name", ""), nodes, per_node))
    return camp


def bench_words(camp: Campaign, point: Point, out: str) -> list[str]:
    """The point's haloex command, without the launcher."""
    return [camp.haloex, "bench", point.benchmark, *point.args, "-q", "-o", out]


def command(camp: Campaign, point: Point, out: str) -> list[str]:
    """The point's whole command line, launcher included."""
    return [*camp.launcher.words(point.where), *bench_words(camp, point, out)]


def batch_script(camp: Campaign, point: Point, index: int, out: Path, log: Path) -> str:
    """The batch script of one point (launcher sbatch)."""
    assert camp.sbatch is not None
    return camp.sbatch.script(f"haloex-{camp.name}-{index}", point.where, bench_words(camp, point, str(out)),
                              log, f"haloex campaign {camp.name}, point {point.key}")  # fmt: skip


def done_keys(results: Path) -> set[str]:
    if not Path(results).exists():
        return set()
    return {r.get("campaign_point") for r in read_records(results)}


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """One line per point, or a bar redrawn in place on a terminal; the ETA
    is the mean time of the points run so far times the points left."""

    def __init__(self, total: int, stream=None):
        self.total, self.stream, self.start = total, stream or sys.stderr, time.monotonic()
        self.tty = self.stream.isatty()

    def show(self, index: int, point: Point) -> None:
        """Before running point `index` (from 1)."""
        elapsed = time.monotonic() - self.start
        ran = index - 1
        eta = "?" if ran == 0 else _clock(elapsed / ran * (self.total - ran))
        pct = 100 * (index - 1) / max(self.total, 1)
        bar = "#" * int(pct / 5) + "." * (20 - int(pct / 5))
        text = (
            f"[{bar}] {index}/{self.total} {pct:3.0f}%  elapsed {_clock(elapsed)}  ETA {eta}  "
            f"{point.benchmark} np={point.ranks} t={point.threads} {shlex.join(point.args)}"
        )
        if self.tty:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
        self.stream.flush()


def run_campaign(camp: Campaign, dry_run: bool = False, keep_going: bool = False, out=None) -> int:
    """Run every point not yet in the results file; returns an exit code."""
    out = out or sys.stdout
    try:
        done = done_keys(camp.results)
    except ResultsError as e:
        raise CampaignError(f"cannot resume from {camp.results}: {e}") from e
    todo = [p for p in camp.points if p.key not in done]
    skipped = len(camp.points) - len(todo)
    print(
        f"campaign {camp.name}: {len(camp.points)} points, {skipped} already in {camp.results}, "
        f"{len(todo)} to run",
        file=out,
        flush=True,
    )
    if dry_run:
        for i, p in enumerate(todo, 1):
            if camp.sbatch:
                jobs = camp.results.parent / "jobs"
                print(batch_script(camp, p, i, jobs / f"point-{i}.jsonl", jobs / f"point-{i}.log"), file=out)
                continue
            env = f"OMP_NUM_THREADS={p.threads} "
            print(env + shlex.join(command(camp, p, str(camp.results) + ".point.tmp")), file=out)
        return 0
    if todo and not (Path(camp.haloex).is_file() and os.access(camp.haloex, os.X_OK)):
        raise CampaignError(f"haloex program not found at {camp.haloex}; build it (make) or pass --haloex")
    if camp.sbatch:
        from .batch import run_batch

        try:
            return run_batch(camp, todo, keep_going, out)
        except LaunchError as e:
            raise CampaignError(str(e)) from None
    progress = Progress(len(todo))
    failures = 0
    with tempfile.TemporaryDirectory(prefix="haloex-lab-") as tmpdir:
        for i, p in enumerate(todo, 1):
            progress.show(i, p)
            tmp = os.path.join(tmpdir, f"point{i}.jsonl")
            env = {**os.environ, **camp.launcher.environment(p.where)}
            cmd = command(camp, p, tmp)
            try:
                proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=camp.timeout_s)
                ok = proc.returncode == 0 and os.path.exists(tmp)
                why = (proc.stderr or proc.stdout).strip().splitlines()[-5:] if not ok else []
            except subprocess.TimeoutExpired:
                ok, why = False, [f"timed out after {camp.timeout_s:.0f} s"]
            if not ok:
                progress.finish()
                failures += 1
                print(f"point failed: {shlex.join(cmd)}\n  " + "\n  ".join(why), file=sys.stderr)
                if not keep_going:
                    print(
                        f"stopped; {i - 1} points of this run are saved in {camp.results}; "
                        "run again to resume",
                        file=sys.stderr,
                    )
                    return 1
                continue
            records = read_records(Path(tmp))
            for r in records:
                r["campaign"] = camp.name
                r["campaign_point"] = p.key
                if p.label:
                    r["point_name"] = p.label
            append_records(camp.results, records)
    progress.finish()
    print(
        f"campaign {camp.name}: {len(todo) - failures} points run, {failures} failed; "
        f"results in {camp.results}",
        file=out,
        flush=True,
    )
    return 1 if failures else 0
