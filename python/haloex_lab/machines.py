"""Which records may be drawn as one curve: the machine and MPI
configuration a record ran on. The report gives each configuration its own
part, and `haloex-lab compare` names both sides' by it."""

from __future__ import annotations

import re


def machine(r: dict) -> tuple:
    """Where a record ran, as far as it decides whether two results are
    comparable: the machine (host names without their trailing node
    numbers, so nid001 and nid002 are one machine), how many of its nodes
    the run spanned (ranks on one node and on two talk differently), the
    MPI library, the launcher and the MPI settings of the environment
    (OMPI_MCA_*, MPICH_*, ...). Records written before haloex recorded
    placement give their host and MPI library only."""
    p = r.get("placement") or {}
    hosts = p.get("hosts") or [r.get("host", "?")]
    stems = tuple(sorted({re.sub(r"[-_]?\d+$", "", h) or h for h in hosts}))
    env = tuple(sorted((p.get("mpi_env") or {}).items()))
    return (stems, len(set(hosts)), r.get("mpi_library", "?"), p.get("launcher", "?"), env)


def machine_text(key: tuple) -> str:
    stems, nodes, lib, launcher, env = key
    settings = " ".join(f"{k}={v}" for k, v in env) or "no MPI settings"
    lib = lib.split(",")[0]  # "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
    where = f"{'+'.join(stems)}" + (f" ({nodes} nodes)" if nodes > 1 else "")
    return f"{where}, {lib}, launcher {launcher}, {settings}"
