"""Campaigns under Slurm's batch system (launcher = "sbatch"): one batch
script per point, submitted at once, then collected as the jobs finish.

Resumable like a local campaign: submitted jobs are kept in
RESULTS.jobs.json (point -> job id, script, output), so a runner that is
stopped and started again waits for the jobs it already submitted instead
of submitting them twice; points whose records are in RESULTS are skipped.
Scripts and job logs go to jobs/ beside RESULTS."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .campaign import Campaign, Point, batch_script
from .results import append_records, read_records, write_atomically


def _tail(path: Path) -> str:
    try:
        return "\n  ".join(path.read_text(errors="replace").strip().splitlines()[-5:])
    except OSError:
        return "(no job output)"


def run_batch(camp: Campaign, todo: list[Point], keep_going: bool, out=None) -> int:
    """Submit a job per point not yet submitted, then collect records as the
    jobs end; returns an exit code."""
    out = out or sys.stdout
    if not todo:
        return 0
    sbatch = camp.sbatch
    assert sbatch is not None
    jobs_dir = camp.results.parent / "jobs"
    jobs_dir.mkdir(parents=True, exist_ok=True)
    state_path = Path(str(camp.results) + ".jobs.json")
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    keys = {p.key for p in todo}
    state = {k: v for k, v in state.items() if k in keys}

    def save():
        write_atomically(state_path, json.dumps(state, indent=1) + "\n")

    for i, p in enumerate(todo, 1):
        if p.key in state:
            continue
        tag = f"{int(time.time())}-{i}"
        script, result, log = (jobs_dir / f"point-{tag}.{ext}" for ext in ("sh", "jsonl", "log"))
        script.write_text(batch_script(camp, p, i, result, log))
        state[p.key] = {
            "job": sbatch.submit(script),
            "script": str(script),
            "records": str(result),
            "log": str(log),
        }
        save()
    print(f"campaign {camp.name}: {len(state)} job(s) in Slurm; waiting for them", file=out, flush=True)
    by_key = {p.key: p for p in todo}
    failures, total = 0, len(state)

    def finished(key: str, st: str | None) -> bool:
        nonlocal failures
        job = state.pop(key)
        result = Path(job["records"])
        if st in ("COMPLETED", None) and result.exists():
            records = read_records(result)
            for r in records:
                r["campaign"] = camp.name
                r["campaign_point"] = key
                if by_key[key].label:
                    r["point_name"] = by_key[key].label
            append_records(camp.results, records)
            save()
            return True
        failures += 1
        print(
            f"job {job['job']} ({key}) ended {st or 'unknown'}:\n  {_tail(Path(job['log']))}", file=sys.stderr
        )
        if keep_going:
            save()
            return True
        save()  # the failed point is forgotten: a rerun submits it again
        print("stopped; run again to resume (queued jobs are collected then)", file=sys.stderr)
        return False

    def progress(done: int, of: int) -> None:
        print(f"  {done}/{of} jobs done", file=out, flush=True)

    sbatch.wait({k: v["job"] for k, v in state.items()}, finished, progress)
    if failures and not keep_going:
        return 1
    state_path.unlink(missing_ok=True)
    print(
        f"campaign {camp.name}: {total - failures} jobs collected, {failures} failed; "
        f"results in {camp.results}",
        file=out,
        flush=True,
    )
    return 1 if failures else 0
