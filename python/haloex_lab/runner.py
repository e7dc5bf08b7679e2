"""`haloex-lab run`: the campaign runner. It runs every point of a campaign
(campaign.py) not yet in the results file, one by one under the campaign's
launcher with a progress line, or as Slurm batch jobs (batch.py) for
launcher sbatch; an interrupted campaign resumes where it stopped.

The launchers (launchers.py, batch.py, the emulated cluster) sit below this
module and never import it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .batch import run_batch
from .campaign import Campaign, CampaignError, Point, batch_script, command, tag_records
from .launchers import LaunchError, run_bounded
from .results import ResultsError, append_records, read_records


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


def _todo(camp: Campaign, out) -> list[Point]:
    """The points not yet in the results file, after a line saying so."""
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
    return todo


def _print_commands(camp: Campaign, todo: list[Point], out) -> int:
    """--dry-run: each point's command line, or its batch script."""
    for i, p in enumerate(todo, 1):
        if camp.sbatch:
            jobs = camp.results.parent / "jobs"
            print(batch_script(camp, p, i, jobs / f"point-{i}.jsonl", jobs / f"point-{i}.log"), file=out)
            continue
        env = f"OMP_NUM_THREADS={p.threads} "
        print(env + shlex.join(command(camp, p, str(camp.results) + ".point.tmp")), file=out)
    return 0


def run_campaign(camp: Campaign, dry_run: bool = False, keep_going: bool = False, out=None) -> int:
    """Run every point not yet in the results file; returns an exit code."""
    out = out or sys.stdout
    todo = _todo(camp, out)
    if dry_run:
        return _print_commands(camp, todo, out)
    if todo and not (Path(camp.haloex).is_file() and os.access(camp.haloex, os.X_OK)):
        raise CampaignError(f"haloex program not found at {camp.haloex}; build it (make) or pass --haloex")
    if camp.sbatch:
        try:
            return run_batch(camp, todo, keep_going, out)
        except LaunchError as e:
            raise CampaignError(str(e)) from None
    return _run_points(camp, todo, keep_going, out)


def _run_point(camp: Campaign, p: Point, tmp: str) -> tuple[bool, list[str], list[str]]:
    """Run one point writing its records to tmp: whether it succeeded, the
    last lines of its output if not, and its command."""
    env = {**os.environ, **camp.launcher.environment(p.where)}
    cmd = command(camp, p, tmp)
    try:
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
        proc = run_bounded(cmd, camp.timeout_s, env=env, **pipes)
        ok = proc.returncode == 0 and os.path.exists(tmp)
        why = (proc.stderr or proc.stdout).strip().splitlines()[-5:] if not ok else []
    except subprocess.TimeoutExpired:
        ok, why = False, [f"timed out after {camp.timeout_s:.0f} s"]
    return ok, why, cmd


def _run_points(camp: Campaign, todo: list[Point], keep_going: bool, out) -> int:
    """The points one by one under the campaign's launcher, each point's
    records appended to the results file as it ends."""
    progress = Progress(len(todo))
    failures = 0
    with tempfile.TemporaryDirectory(prefix="haloex-lab-") as tmpdir:
        for i, p in enumerate(todo, 1):
            progress.show(i, p)
            tmp = os.path.join(tmpdir, f"point{i}.jsonl")
            ok, why, cmd = _run_point(camp, p, tmp)
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
            append_records(camp.results, tag_records(camp, p, read_records(Path(tmp))))
    progress.finish()
    print(
        f"campaign {camp.name}: {len(todo) - failures} points run, {failures} failed; "
        f"results in {camp.results}",
        file=out,
        flush=True,
    )
    return 1 if failures else 0
