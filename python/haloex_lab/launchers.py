"""Launchers: how a parallel program is started on a number of ranks, nodes
and threads. They know nothing of campaigns or benchmarks: a launcher turns
a placement into the words before the program, the environment the program
needs, and the text that placement records name it by.

- `mpirun`: mpirun -np N [--npernode M], as given (default: see `default_mpirun`);
- `srun`: srun -n N [-N nodes --ntasks-per-node M] --cpus-per-task T;
- `cluster`: mpirun on the emulated cluster (haloex-lab cluster up);
- `sbatch`: a batch script per job whose body is the srun launcher's command,
  submitted and waited for (`Sbatch`);
- `simulate`: haloex-lab simulate NETWORK --ranks N [--ranks-per-node M], a
  machine simulated by SimGrid's SMPI (the program: haloex built for it).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("mpirun", "srun", "sbatch", "cluster", "simulate")
SBATCH_KEYS = {"time", "partition", "account", "extra", "poll_s"}
# Slurm job states in which a job has not finished yet.
WAITING = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"}


class LaunchError(Exception):
    """A launcher that cannot start or follow a job."""


def run_bounded(cmd: list[str], timeout_s: float | None, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run(cmd, timeout=timeout_s, **kwargs), but a timeout ends
    the whole process group, not only `cmd`: mpirun's ranks and the
    simulator that smpirun starts are its children, and outlive it when
    only it is killed. Raises subprocess.TimeoutExpired after that."""
    with subprocess.Popen(cmd, start_new_session=True, **kwargs) as proc:
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
                try:
                    os.killpg(proc.pid, sig)
                    proc.communicate(timeout=grace)
                    break
                except ProcessLookupError:
                    break
                except subprocess.TimeoutExpired:
                    continue
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@dataclass(frozen=True)
class Where:
    """Where a job's ranks go: ranks in all, OpenMP threads per rank, and
    optionally nodes x tasks per node (whose product is the ranks)."""

    ranks: int
    threads: int = 1
    nodes: int | None = None
    tasks_per_node: int | None = None


def default_mpirun() -> list[str]:
    """mpirun; under Open MPI oversubscribed (a job may use more ranks than
    cores) and unbound: Open MPI binds each rank to one core when there are
    two ranks or fewer, which puts all OpenMP threads of a rank on that core
    (measured: 1 rank x 2 threads of bench lb at 64^3 ran at 72 MLUPS bound
    against 155 unbound)."""
    try:
        out = subprocess.run(["mpirun", "--version"], capture_output=True, text=True, timeout=30)
        text = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired):
        return ["mpirun"]
    if "Open MPI" in text or "OpenRTE" in text:
        return ["mpirun", "--oversubscribe", "--bind-to", "none"]
    return ["mpirun"]


@dataclass
class Launcher:
    """A launcher of kind `kind` (KINDS) with its command: mpirun's for
    mpirun, srun's for srun and sbatch, the network description's path for
    simulate; the cluster's name for cluster."""

    kind: str
    command: list[str]
    cluster: str = "haloex"

    def words(self, where: Where) -> list[str]:
        """The words before the program."""
        if self.kind == "simulate":
            per_node = ["--ranks-per-node", str(where.tasks_per_node)] if where.tasks_per_node else []
            lab = [sys.executable, "-m", "haloex_lab", "simulate", *self.command]
            return [*lab, "--ranks", str(where.ranks), *per_node, "--"]
        if self.kind in ("mpirun", "cluster"):
            per_node = ["--npernode", str(where.tasks_per_node)] if where.tasks_per_node else []
            head = self.command
            if self.kind == "cluster":
                head = [sys.executable, "-m", "haloex_lab", "cluster", "mpirun", "--name", self.cluster]
            return [*head, "-np", str(where.ranks), *per_node, *(["--"] if self.kind == "cluster" else [])]
        nodes = []
        if where.tasks_per_node:
            nodes = ["-N", str(where.nodes), "--ntasks-per-node", str(where.tasks_per_node)]
        return [*self.command, "-n", str(where.ranks), *nodes, "--cpus-per-task", str(where.threads)]

    def described(self) -> str:
        """How placement records name it (HALOEX_LAUNCHER)."""
        if self.kind == "sbatch":
            return "sbatch + " + shlex.join(self.command)
        if self.kind == "cluster":
            return f"haloex-lab cluster mpirun --name {self.cluster}"
        if self.kind == "simulate":
            return "haloex-lab simulate " + shlex.join(self.command)
        return shlex.join(self.command)

    def environment(self, where: Where) -> dict[str, str]:
        """What the launched program's environment gets on top of ours."""
        env = {"OMP_NUM_THREADS": str(where.threads), "HALOEX_LAUNCHER": self.described()}
        if self.kind in ("mpirun", "cluster") and hasattr(os, "geteuid") and os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        return env


@dataclass
class Sbatch:
    """Batch jobs under Slurm: a script per job, submitted, then followed
    until it ends. `options` are the [campaign.sbatch] keys (SBATCH_KEYS)."""

    srun: Launcher
    options: dict = field(default_factory=dict)

    def script(self, job_name: str, where: Where, argv: list[str], log: Path, comment: str = "") -> str:
        """The batch script that runs argv on `where` through srun."""
        b = self.options
        if where.tasks_per_node:
            place = [f"--nodes={where.nodes}", f"--ntasks-per-node={where.tasks_per_node}"]
        else:
            place = [f"--ntasks={where.ranks}"]
        opts = [
            f"--job-name={job_name}",
            *place,
            f"--cpus-per-task={where.threads}",
            f"--time={b.get('time', '00:10:00')}",
            *([f"--partition={b['partition']}"] if "partition" in b else []),
            *([f"--account={b['account']}"] if "account" in b else []),
            *b.get("extra", []),
            f"--output={log}",
        ]
        lines = ["#!/bin/bash", *(f"#SBATCH {o}" for o in opts)]
        lines += [f"# {comment}"] if comment else []
        lines += [
            f"export OMP_NUM_THREADS={where.threads}",
            f"export HALOEX_LAUNCHER={shlex.quote(Launcher('sbatch', self.srun.command).described())}",
            "exec " + shlex.join([*self.srun.words(where), *argv]),
        ]
        return "\n".join(lines) + "\n"

    def submit(self, script: Path) -> str:
        """Submit a script; returns the job id."""
        sub = _slurm(["sbatch", "--parsable", str(script)])
        job = sub.stdout.strip().split(";")[0]
        if sub.returncode != 0 or not job:
            raise LaunchError(f"sbatch {script} failed: {(sub.stderr or sub.stdout).strip()}")
        return job

    @staticmethod
    def state(job: str) -> str | None:
        """The job's state, or None once Slurm has forgotten it (then its
        output tells)."""
        done = _slurm(["scontrol", "show", "job", "-o", job])
        for word in done.stdout.split():
            if word.startswith("JobState="):
                return word.split("=", 1)[1]
        return None

    def wait(self, jobs: dict[str, str], finished, progress=None) -> None:
        """Poll until every job of {key: job id} has ended, calling
        finished(key, state) for each as it does; finished returns False
        to stop waiting (the jobs left stay in Slurm)."""
        left, total = dict(jobs), len(jobs)
        while left:
            for key, job in list(left.items()):
                st = self.state(job)
                if st in WAITING:
                    continue
                del left[key]
                if finished(key, st) is False:
                    return
            if left:
                if progress:
                    progress(total - len(left), total)
                time.sleep(float(self.options.get("poll_s", 5)))


def _slurm(args: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    except FileNotFoundError:
        raise LaunchError(f"{args[0]} not found: the sbatch launcher needs Slurm's commands") from None
