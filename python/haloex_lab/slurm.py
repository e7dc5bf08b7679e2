"""Campaigns under Slurm's batch system (launcher = "sbatch"): one batch
script per point, submitted at once, then collected as the jobs finish.

Resumable like a local campaign: submitted jobs are kept in
RESULTS.jobs.json (point -> job id, script, output), so a runner that is
stopped and started again waits for the jobs it already submitted instead
of submitting them twice; points whose records are in RESULTS are skipped.
Scripts and job logs go to jobs/ beside RESULTS."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

from .campaign import Campaign, CampaignError, Point, command
from .results import append_records, read_records, write_atomically

# Slurm job states in which a job has not finished yet.
WAITING = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"}


def batch_script(camp: Campaign, point: Point, index: int, out: Path, log: Path) -> str:
    """The batch script of one point: its resources as #SBATCH lines, the
    threads, and the point's srun command."""
    b = camp.sbatch
    if point.tasks_per_node:
        where = [f"--nodes={point.nodes}", f"--ntasks-per-node={point.tasks_per_node}"]
    else:
        where = [f"--ntasks={point.ranks}"]
    opts = [
        f"--job-name=haloex-{camp.name}-{index}",
        *where,
        f"--cpus-per-task={point.threads}",
        f"--time={b.get('time', '00:10:00')}",
        *([f"--partition={b['partition']}"] if "partition" in b else []),
        *([f"--account={b['account']}"] if "account" in b else []),
        *b.get("extra", []),
        f"--output={log}",
    ]
    lines = ["#!/bin/bash", *(f"#SBATCH {o}" for o in opts)]
    lines += [
        f"# haloex campaign {camp.name}, point {point.key}",
        f"export OMP_NUM_THREADS={point.threads}",
        f"export HALOEX_LAUNCHER={shlex.quote('sbatch + ' + shlex.join(camp.srun))}",
        "exec " + shlex.join(command(camp, point, str(out))),
    ]
    return "\n".join(lines) + "\n"


def _slurm(args: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    except FileNotFoundError:
        raise CampaignError(f"{args[0]} not found: launcher = 'sbatch' needs Slurm's commands") from None


def job_state(job: str) -> str | None:
    """The job's state, or None once Slurm has forgotten it (then its
    output tells)."""
    done = _slurm(["scontrol", "show", "job", "-o", job])
    for word in done.stdout.split():
        if word.startswith("JobState="):
            return word.split("=", 1)[1]
    return None


def _tail(path: Path) -> str:
    try:
        return "\n  ".join(path.read_text(errors="replace").strip().splitlines()[-5:])
    except OSError:
        return "(no job output)"


def run_batch(camp: Campaign, todo: list[Point], env: dict, keep_going: bool, out=None) -> int:
    out = out or sys.stdout
    if not todo:
        return 0
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
        sub = _slurm(["sbatch", "--parsable", str(script)])
        job = sub.stdout.strip().split(";")[0]
        if sub.returncode != 0 or not job:
            raise CampaignError(f"sbatch {script} failed: {(sub.stderr or sub.stdout).strip()}")
        state[p.key] = {"job": job, "script": str(script), "records": str(result), "log": str(log)}
        save()
    print(f"campaign {camp.name}: {len(state)} job(s) in Slurm; waiting for them", file=out, flush=True)
    by_key = {p.key: p for p in todo}
    failures, total = 0, len(state)
    while state:
        for key, job in list(state.items()):
            st = job_state(job["job"])
            if st in WAITING:
                continue
            del state[key]
            result = Path(job["records"])
            if st in ("COMPLETED", None) and result.exists():
                records = read_records(result)
                for r in records:
                    r["campaign"] = camp.name
                    r["campaign_point"] = key
                    if by_key[key].label:
                        r["point_name"] = by_key[key].label
                append_records(camp.results, records)
            else:
                failures += 1
                print(f"job {job['job']} ({key}) ended {st or 'unknown'}:\n  {_tail(Path(job['log']))}",
                      file=sys.stderr)  # fmt: skip
                if not keep_going:
                    save()
                    print("stopped; run again to resume (queued jobs are collected then)", file=sys.stderr)
                    return 1
        save()
        if state:
            print(f"  {total - len(state)}/{total} jobs done", file=out, flush=True)
            time.sleep(float(camp.sbatch.get("poll_s", 5)))
    state_path.unlink(missing_ok=True)
    print(
        f"campaign {camp.name}: {total - failures} jobs collected, {failures} failed; "
        f"results in {camp.results}",
        file=out,
        flush=True,
    )
    return 1 if failures else 0
