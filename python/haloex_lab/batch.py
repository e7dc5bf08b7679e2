"""Campaigns under Slurm's batch system (launcher = "sbatch"): one batch
script per point, submitted at once, then collected as the jobs finish.

Resumable like a local campaign: submitted jobs are kept in
RESULTS.jobs.json (point -> job id, script, output), so a runner that is
stopped and started again waits for the jobs it already submitted instead
of submitting them twice; points whose records are in RESULTS are skipped.
Scripts and job logs go to jobs/ beside RESULTS.

A launcher for the campaign runner (runner.py): it reads the campaign's
points (campaign.py) and never the runner."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .campaign import Campaign, Point, batch_script, tag_records
from .launchers import Sbatch
from .results import append_records, read_records, write_atomically


def _tail(path: Path) -> str:
    try:
        return "\n  ".join(path.read_text(errors="replace").strip().splitlines()[-5:])
    except OSError:
        return "(no job output)"


class _Jobs:
    """The batch jobs of one run: point key -> job id, script, records file
    and log, saved to RESULTS.jobs.json after every change."""

    def __init__(self, camp: Campaign, todo: list[Point], keep_going: bool):
        self.camp, self.keep_going = camp, keep_going
        self.jobs_dir = camp.results.parent / "jobs"
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        self.path = Path(str(camp.results) + ".jobs.json")
        state = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.by_key = {p.key: p for p in todo}
        self.state = {k: v for k, v in state.items() if k in self.by_key}
        self.failures = 0

    def save(self) -> None:
        write_atomically(self.path, json.dumps(self.state, indent=1) + "\n")

    def submit(self, todo: list[Point], sbatch: Sbatch) -> None:
        """A job per point not yet submitted (a resumed run keeps its jobs)."""
        for i, p in enumerate(todo, 1):
            if p.key in self.state:
                continue
            tag = f"{int(time.time())}-{i}"
            script, result, log = (self.jobs_dir / f"point-{tag}.{ext}" for ext in ("sh", "jsonl", "log"))
            script.write_text(batch_script(self.camp, p, i, result, log))
            self.state[p.key] = {
                "job": sbatch.submit(script),
                "script": str(script),
                "records": str(result),
                "log": str(log),
            }
            self.save()

    def finished(self, key: str, st: str | None) -> bool:
        """A job ended: its records go to the results file, or it failed;
        False stops the waiting (a failure without --keep-going)."""
        job = self.state.pop(key)
        result = Path(job["records"])
        if st in ("COMPLETED", None) and result.exists():
            append_records(self.camp.results, tag_records(self.camp, self.by_key[key], read_records(result)))
            self.save()
            return True
        self.failures += 1
        print(
            f"job {job['job']} ({key}) ended {st or 'unknown'}:\n  {_tail(Path(job['log']))}", file=sys.stderr
        )
        if self.keep_going:
            self.save()
            return True
        self.save()  # the failed point is forgotten: a rerun submits it again
        print("stopped; run again to resume (queued jobs are collected then)", file=sys.stderr)
        return False


def run_batch(camp: Campaign, todo: list[Point], keep_going: bool, out=None) -> int:
    """Submit a job per point not yet submitted, then collect records as the
    jobs end; returns an exit code."""
    out = out or sys.stdout
    if not todo:
        return 0
    sbatch = camp.sbatch
    assert sbatch is not None
    jobs = _Jobs(camp, todo, keep_going)
    jobs.submit(todo, sbatch)
    print(f"campaign {camp.name}: {len(jobs.state)} job(s) in Slurm; waiting for them", file=out, flush=True)
    total = len(jobs.state)

    def progress(done: int, of: int) -> None:
        print(f"  {done}/{of} jobs done", file=out, flush=True)

    sbatch.wait({k: v["job"] for k, v in jobs.state.items()}, jobs.finished, progress)
    if jobs.failures and not keep_going:
        return 1
    jobs.path.unlink(missing_ok=True)
    print(
        f"campaign {camp.name}: {total - jobs.failures} jobs collected, {jobs.failures} failed; "
        f"results in {camp.results}",
        file=out,
        flush=True,
    )
    return 1 if jobs.failures else 0
