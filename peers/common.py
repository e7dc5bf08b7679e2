"""What peers/run.py and peers/pingpong.py share: the launcher, checking the
programs, one run of a command, and writing records. Standard library only."""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

# Keys of a haloex record that say where and how it ran; copied into the
# peers' records so that the report puts them with haloex's.
METADATA = (
    "host", "placement", "mpi_library", "compiler", "cxx_flags", "build_type", "git_commit",
    "haloex_version", "cpu_model", "date_utc", "mpi_standard",
)  # fmt: skip
# The environment variables that change how MPI behaves, and the ones among
# them that launchers set for their own wiring: as haloex's records have them
# (include/haloex/measure/placement.hpp).
MPI_ENV_PREFIXES = ("OMPI_MCA_", "PRTE_MCA_", "MPICH_", "MPIR_CVAR_", "I_MPI_", "FI_", "UCX_", "LD_PRELOAD",
                    "HALOEX_MPICH_YIELD")  # fmt: skip
MPI_ENV_WIRING = ("OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir",
                  "OMPI_MCA_shmem_RUNTIME_QUERY_hint", "OMPI_MCA_PREFIXES", "OMPI_MCA_num_procs",
                  "OMPI_MCA_cpu_type", "MPIR_CVAR_CH3_INTERFACE_HOSTNAME", "I_MPI_HYDRA_UUID",
                  "I_MPI_INFO_")  # fmt: skip
# Exit status of a driver whose halo check failed (never timed).
WRONG_HALO = 3


def default_mpirun() -> str:
    return "mpirun --oversubscribe --bind-to none" + (" --allow-run-as-root" if os.geteuid() == 0 else "")


def add_common_options(p: argparse.ArgumentParser, rounds: int = 7) -> None:
    p.add_argument("--haloex", required=True, help="the haloex program")
    p.add_argument("-o", "--out", required=True, help="folder for the records and raw/")
    p.add_argument("-r", "--rounds", type=int, default=rounds,
                   help=f"rounds (default {rounds}; 6 decide a median with 95%% confidence)")  # fmt: skip
    p.add_argument("--timeout", type=float, default=600, help="seconds one run may take")
    p.add_argument("--mpirun", default=default_mpirun(), help="the launcher and its options")


def check_programs(p: argparse.ArgumentParser, args, names: tuple[str, ...]) -> None:
    """One error for a program that is named but cannot be run."""
    for name in names:
        path = getattr(args, name)
        if path and not os.access(path, os.X_OK):
            p.error(f"--{name}: {path} is not an executable program")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")


@dataclass
class Outcome:
    """One run: its output, or why there is none."""

    stdout: str = ""
    status: int = 0  # the exit status; -1: timed out
    why: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 0


def run(cmd: list[str], timeout: float, cwd: Path | None = None, env: dict | None = None) -> Outcome:
    """Runs cmd in its own process group with OpenMP quiet (env: more
    variables, or others for these two), in cwd; on a timeout the whole group
    goes (mpirun and its ranks), so no rank keeps spinning on the cores the
    next run is timed on."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "passive", **(env or {})}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                          start_new_session=True) as p:  # fmt: skip
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return Outcome(status=-1, why=f"timed out after {timeout:g} s")
    # (mpirun's messages open with a line of dashes: the first line with words)
    lines = [x.strip() for x in err.splitlines() if any(c.isalnum() for c in x)]
    why = "" if p.returncode == 0 else (lines or ["(no message)"])[0]
    return Outcome(out, p.returncode, why)


def cpu_model() -> str:
    """lscpu's model name (what the papers call the machine)."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "?"
    return next((x.split(":", 1)[1].strip() for x in text.splitlines() if x.startswith("Model name")), "?")


def launcher_name() -> str:
    """The launcher that started this process, named as haloex names it."""
    e = os.environ
    if e.get("HALOEX_LAUNCHER"):
        return e["HALOEX_LAUNCHER"]
    if "SLURM_STEP_ID" in e and ({"SLURM_PROCID", "PMI_RANK", "PMIX_RANK"} & e.keys()):
        return "srun"
    if "OMPI_COMM_WORLD_SIZE" in e:
        return "mpirun (Open MPI)"
    return "mpiexec (Hydra)" if "PMI_RANK" in e else "none"


def where_run(mpi_library: str, mpi_standard: str, hosts: list[str]) -> dict:
    """The keys of a haloex record that say where a run of a driver written
    in Python ran (its MPI from mpi4py, the hosts of its ranks)."""
    env = {k: v for k, v in os.environ.items()
           if k.startswith(MPI_ENV_PREFIXES) and not k.startswith(MPI_ENV_WIRING)}  # fmt: skip
    per_host = {h: hosts.count(h) for h in sorted(set(hosts))}
    placement = {"launcher": launcher_name(), "hosts": hosts, "ranks_per_host": per_host, "mpi_env": env}
    return {
        "host": socket.gethostname(), "mpi_library": mpi_library.strip(), "mpi_standard": mpi_standard,
        "cpu_model": cpu_model(), "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "placement": placement,
    }  # fmt: skip


def metadata(rec: dict) -> dict:
    r = {k: rec[k] for k in METADATA if k in rec}
    r.setdefault("haloex_version", "?")  # (haloex failed in every round)
    return r


def with_metadata(meta: dict, versions: dict, records: list[dict]) -> list[dict]:
    """Every record of a peer's runs with haloex's account of where the runs
    were (meta, a haloex record: so the report keeps them with haloex's
    other records) and the versions."""
    where = metadata(meta)
    return [{**where, **r, "versions": dict(versions)} for r in records]


def write_records(path: Path, records: list[dict]) -> None:
    """All at once, through a temporary name: never a half-written file."""
    tmp = path.with_suffix(path.suffix + ".part")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    tmp.replace(path)
