"""Campaigns: a TOML file listing benchmark points, expanded into points
and their commands (runner.py runs them, resumable from the results file).

    [campaign]
    name = "demo"
    results = "results/demo/results.jsonl"   # relative to the current directory
    haloex = "build/haloex"                  # or --haloex / $HALOEX
    launcher = "mpirun"                      # mpirun (default), srun, sbatch, cluster or simulate
    mpirun = ["mpirun"]                      # its command; "-np N" is added (default: see default_launcher)
    srun = ["srun", "--mpi=pmix"]            # srun's command (srun and sbatch); -n, -N, ... are added
    cluster = "haloex"                       # launcher = "cluster": the emulated cluster's name
    network = "networks/archer2-like.toml"   # launcher = "simulate": the simulated machine
    timeout_s = 600                          # per point: a hang fails

    [campaign.sbatch]                        # launcher = "sbatch": one batch script per point
    time = "00:10:00"                        # each job's time limit
    partition = "standard"                   # optional, as is account
    extra = ["--qos=short"]                  # more #SBATCH options
    poll_s = 5                               # seconds between looks at the queue

    [[points]]
    benchmark = "halo"          # any of `haloex bench --help` (haloex info --json: "benchmarks")
    ranks = [1, 2]              # one point per rank count, or nodes x tasks_per_node:
    # nodes = [1, 2]; tasks_per_node = [2, 4]   (ranks = their product)
    threads = [1]               # ... per OpenMP thread count ...
    sizes = [16, 24, 32]        # ... and per size, the benchmark's size option
                                # (-m for halo, -L for lb, --nz for stencil, ...)
    args = ["-i", "2000", "-r", "5"]
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import shlex
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .launchers import KINDS, SBATCH_KEYS, Launcher, Sbatch, Where, default_mpirun

CAMPAIGN_KEYS = {"name", "results", "haloex", "launcher", "mpirun", "srun", "sbatch", "cluster", "network",
                 "timeout_s"}  # fmt: skip
POINT_KEYS = {"benchmark", "ranks", "nodes", "tasks_per_node", "threads", "sizes", "global", "args", "name"}


class CampaignError(Exception):
    """A campaign file that cannot be run as written."""


def program_benchmarks(haloex: str, launch: list[str] | tuple[str, ...] = ()) -> dict[str, str]:
    """The benchmarks `haloex` has, each with the option its `sizes` set,
    from its own table (src/cli/registry.cpp) through `haloex info --json`
    (started by the words `launch`, if any): a benchmark added there is one
    a campaign can run, with nothing to restate here."""
    path = Path(haloex)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise CampaignError(f"haloex program not found at {haloex}: a campaign takes its benchmarks from it; "
                            "build it (make build, or make smpi to simulate) or pass --haloex")  # fmt: skip
    return dict(_benchmarks_of(str(path.resolve()), path.stat().st_mtime_ns, tuple(launch)))


def _default_program(launcher: Launcher) -> str:
    return "build-smpi/haloex" if launcher.kind == "simulate" else "build/haloex"


@functools.lru_cache(maxsize=8)
def _benchmarks_of(path: str, _mtime: int, launch: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    # One rank, as a singleton unless launched: `haloex info` needs no
    # launcher. Open MPI refuses to start as root without its two variables.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OMPI_ALLOW_RUN_AS_ROOT": "1",
           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}  # fmt: skip
    try:
        out = subprocess.run([*launch, path, "info", "--json"], env=env, capture_output=True, text=True,
                             timeout=120)  # fmt: skip
        table = json.loads(out.stdout)["benchmarks"] if out.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, KeyError, TypeError) as e:
        raise CampaignError(f"{path} info --json: {e}") from None
    if not isinstance(table, dict):
        last = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
        raise CampaignError(f"{path} info --json gave no table of benchmarks: {last}")
    return tuple(sorted(table.items()))


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


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except OSError as e:
        raise CampaignError(f"cannot read campaign file {path}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise CampaignError(f"{path}: not valid TOML: {e}") from e


def _launcher(path: Path, head: dict) -> tuple[Launcher, Sbatch | None]:
    """[campaign]'s launcher keys, checked: the launcher that starts each
    point, and for launcher sbatch the batch jobs around it."""
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
    network = head.get("network")
    if (kind == "simulate") != isinstance(network, str):
        raise CampaignError(f"{path}: campaign.network (a network description's path) goes with, "
                            'and only with, launcher = "simulate"')  # fmt: skip
    how = {"mpirun": launcher or default_mpirun(), "srun": srun, "sbatch": srun, "cluster": [],
           "simulate": [network]}[kind]  # fmt: skip
    jobs = Sbatch(Launcher("srun", srun), sbatch) if kind == "sbatch" else None
    return Launcher("srun" if kind == "sbatch" else kind, how, cluster), jobs


def load_campaign(path: Path, results: Path | None = None, haloex: str | None = None) -> Campaign:
    path = Path(path)
    data = _read_toml(path)
    head = data.get("campaign", {})
    unknown = set(data) - {"campaign", "points"} | set(head) - CAMPAIGN_KEYS
    if unknown:
        raise CampaignError(
            f"{path}: unknown keys {sorted(unknown)} (valid: [campaign] with "
            f"{sorted(CAMPAIGN_KEYS)}, and [[points]])"
        )
    name = head.get("name", path.stem)
    launcher, sbatch = _launcher(path, head)
    camp = Campaign(
        name=name,
        results=Path(results or head.get("results", f"results/{name}/results.jsonl")),
        haloex=haloex or os.environ.get("HALOEX") or head.get("haloex", _default_program(launcher)),
        launcher=launcher,
        timeout_s=float(head.get("timeout_s", 600)),
        sbatch=sbatch,
    )
    raw_points = data.get("points")
    if not raw_points:
        raise CampaignError(f"{path}: no [[points]] to run")
    # A program built for SMPI runs only under smpirun: ask it there.
    benchmarks = program_benchmarks(
        camp.haloex, launcher.words(Where(1)) if launcher.kind == "simulate" else []
    )
    for i, p in enumerate(raw_points, 1):
        camp.points += _points(f"{path}: points[{i}]", p, benchmarks)
    return camp


def _places(where: str, p: dict) -> list[tuple[int | None, int | None]]:
    """(nodes, tasks per node) of each placement a [[points]] entry asks
    for; [(None, None)] when it gives ranks instead."""
    if "tasks_per_node" in p:
        if "ranks" in p:
            raise CampaignError(f"{where}: give ranks, or nodes and tasks_per_node (their product)")
        return [
            (n, t)
            for n in _positive_ints(p.get("nodes", 1), f"{where}.nodes")
            for t in _positive_ints(p["tasks_per_node"], f"{where}.tasks_per_node")
        ]
    if "nodes" in p:
        raise CampaignError(f"{where}: nodes needs tasks_per_node")
    return [(None, None)]


def _global_words(where: str, p: dict, bench: str) -> list[str]:
    """--global N of a strong-scaling halo entry (empty without)."""
    if "global" not in p:
        return []
    if "sizes" in p:
        raise CampaignError(f"{where}: give sizes (per rank) or global (strong scaling), not both")
    if bench != "halo":
        raise CampaignError(f"{where}: global is for halo points; give --nx/--ny in args for {bench}")
    return ["--global", str(_positive_ints(p["global"], f"{where}.global")[0])]


def _points(where: str, p: dict, benchmarks: dict[str, str]) -> list[Point]:
    """One [[points]] entry, checked and expanded over its placements,
    rank counts, thread counts and sizes; `benchmarks` maps each benchmark
    to its size option (program_benchmarks)."""
    bad = set(p) - POINT_KEYS
    if bad:
        raise CampaignError(f"{where}: unknown keys {sorted(bad)} (valid: {sorted(POINT_KEYS)})")
    bench = p.get("benchmark")
    if bench not in benchmarks:
        raise CampaignError(f"{where}: benchmark must be one of {sorted(benchmarks)}, got {bench!r}")
    args = p.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise CampaignError(f"{where}: args must be a list of strings")
    places = _places(where, p)
    ranks = _positive_ints(p.get("ranks", 1), f"{where}.ranks") if places == [(None, None)] else [0]
    threads = _positive_ints(p.get("threads", 1), f"{where}.threads")
    sizes = [None] if "sizes" not in p else _positive_ints(p["sizes"], f"{where}.sizes")
    extra = _global_words(where, p, bench)
    out = []
    for (nodes, per_node), r, t, s in itertools.product(places, ranks, threads, sizes):
        r = nodes * per_node if per_node else r
        if bench == "pingpong" and r < 2:
            raise CampaignError(f"{where}: pingpong needs at least 2 ranks")
        a = list(extra) + ([benchmarks[bench], str(s)] if s is not None else []) + list(args)
        if bench == "lb":
            a += ["-t", str(t)]
        out.append(Point(bench, r, t, a, p.get("name", ""), nodes, per_node))
    return out


def bench_words(camp: Campaign, point: Point, out: str) -> list[str]:
    """The point's haloex command, without the launcher."""
    return [camp.haloex, "bench", point.benchmark, *point.args, "-q", "-o", out]


def command(camp: Campaign, point: Point, out: str) -> list[str]:
    """The point's whole command line, launcher included."""
    return [*camp.launcher.words(point.where), *bench_words(camp, point, out)]


def tag_records(camp: Campaign, point: Point, records: list[dict]) -> list[dict]:
    """A point's records as the results file keeps them: with the campaign,
    the point's key (what resuming skips by) and its name."""
    for r in records:
        r["campaign"] = camp.name
        r["campaign_point"] = point.key
        if point.label:
            r["point_name"] = point.label
    return records


def batch_script(camp: Campaign, point: Point, index: int, out: Path, log: Path) -> str:
    """The batch script of one point (launcher sbatch)."""
    assert camp.sbatch is not None
    return camp.sbatch.script(f"haloex-{camp.name}-{index}", point.where, bench_words(camp, point, str(out)),
                              log, f"haloex campaign {camp.name}, point {point.key}")  # fmt: skip
