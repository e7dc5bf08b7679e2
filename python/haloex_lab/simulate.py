"""Run haloex under SimGrid's SMPI on a machine made from a network
description (networks/*.toml), the one `haloex-lab project` reads: one
description of a machine, two predictions of it.

The description becomes a SimGrid platform (docs/simulation.md):

- each node is a host, with `ranks_per_node` ranks on it (a host file);
- ranks of one host talk over its loopback: `on_node` latency and stream
  bandwidth, every stream at full speed (as the projection assumes);
- a message between nodes goes up the sender's link, through a backbone
  that never saturates, and down the receiver's: half the `off_node`
  latency each way, and each direction of a node's link carries
  `injection_Bps` shared by all its ranks' messages (split duplex);
- SMPI's bandwidth factor caps one stream at `bandwidth_Bps` (below the
  link's `injection_Bps`); its latency factor switches to
  `large_latency_s` from `eager_bytes` up (the rendezvous); sends below
  `eager_bytes` return at once (eager), larger ones wait for their receive.
- computation between MPI calls takes no simulated time; what a run must
  charge for it, haloex injects (`--work-us`, and the LB's modelled rate).

These are the latency and bandwidth factors of SimGrid's calibration
method, taken from the description, which `haloex-lab network` fits to
`bench pingpong`; SimGrid's own fitting of a piecewise model is not used.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .network import Network


class SimulateError(Exception):
    """A simulation that cannot run, with the reason."""


@dataclass(frozen=True)
class Machine:
    """A simulated machine: the description and how many nodes of it."""

    net: Network
    nodes: int
    ranks_per_node: int

    @staticmethod
    def for_ranks(net: Network, ranks: int, ranks_per_node: int | None = None) -> Machine:
        per = ranks_per_node or net.ranks_per_node
        if ranks < 1 or per < 1:
            raise SimulateError(f"need at least 1 rank and 1 rank per node, got {ranks} and {per}")
        nodes = math.ceil(ranks / per)
        if nodes > 1 and net.off_node is None:
            raise SimulateError(
                f"{ranks} ranks at {per} per node need {nodes} nodes, and {net.name} describes no off-node link"
            )
        return Machine(net, nodes, per)

    def stream_factor(self) -> float:
        """SMPI's bandwidth factor: one stream's share of the node's link."""
        off = self.net.off_node
        return min(1.0, off.bandwidth_Bps / off.injection_Bps) if off else 1.0

    def platform_xml(self) -> str:
        on, off = self.net.on_node, self.net.off_node
        f = self.stream_factor()
        # The loopback's bandwidth is scaled up by 1/f so that, after SMPI's
        # factor, one on-node stream runs at on_node.bandwidth_Bps.
        loop = f'loopback_bw="{on.bandwidth_Bps / f:.6g}Bps" loopback_lat="{on.latency_s:.6g}s"'
        if off is None:
            link = 'bw="1e15Bps" lat="0s"'
        else:
            link = f'bw="{off.injection_Bps:.6g}Bps" lat="{off.latency_s / 2:.6g}s" sharing_policy="SPLITDUPLEX"'
        return (
            "<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<platform version="4.1">\n'
            f"  <!-- {escape_comment(self.net.name)}: {self.nodes} nodes x {self.ranks_per_node} ranks -->\n"
            f'  <cluster id="machine" prefix="node-" suffix="" radical="0-{self.nodes - 1}" speed="1Gf"\n'
            f'           {link} bb_bw="1e15Bps" bb_lat="0s" {loop}/>\n'
            "</platform>\n"
        )

    def hostfile(self, ranks: int) -> str:
        return "".join(f"node-{r // self.ranks_per_node}\n" for r in range(ranks))

    def smpi_config(self) -> list[str]:
        """SMPI settings that make the description's link: factors, the eager
        limit, plain max-min sharing, and no simulated computation."""
        link = self.net.off_node or self.net.on_node
        ratio = link.large_latency_s / link.latency_s
        eager = int(link.eager_bytes)
        return [
            f"--cfg=smpi/bw-factor:0:{self.stream_factor():.6g}",
            f"--cfg=smpi/lat-factor:0:1;{eager}:{ratio:.6g}",
            f"--cfg=smpi/send-is-detached-thresh:{eager}",
            "--cfg=network/weight-S:0",
            "--cfg=smpi/simulate-computation:no",
            "--cfg=smpi/host-speed:1Gf",
        ]

    def described(self) -> dict:
        """What a record says about the simulated machine."""
        return {
            "network": self.net.name,
            "nodes": self.nodes,
            "ranks_per_node": self.ranks_per_node,
            "stream_factor": self.stream_factor(),
        }


def escape_comment(text: str) -> str:
    return text.replace("--", "- -")


def simgrid_version(smpirun: str = "smpirun") -> str:
    """SimGrid's version as its compiler wrapper states it ('3.32', ...)."""
    wrapper = shutil.which("smpicc") or str(Path(shutil.which(smpirun) or smpirun).with_name("smpicc"))
    try:
        out = subprocess.run([wrapper, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SimulateError(f"cannot ask {wrapper} for SimGrid's version: {e}") from None
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else "?"


def find_smpi_haloex(given: str | None) -> Path:
    """The haloex built for SMPI: --haloex, $HALOEX_SMPI or build-smpi/haloex."""
    path = Path(given or os.environ.get("HALOEX_SMPI", "build-smpi/haloex"))
    if not path.is_file():
        raise SimulateError(f"{path}: no haloex built for SMPI here; build it with `make smpi` or pass --haloex")
    return path


def smpirun_command(machine: Machine, ranks: int, program: Path, args: list[str], workdir: Path,
                    smpirun: str = "smpirun") -> list[str]:
    platform, hosts = workdir / "platform.xml", workdir / "hostfile"
    platform.write_text(machine.platform_xml())
    hosts.write_text(machine.hostfile(ranks))
    return [smpirun, "-np", str(ranks), "-platform", str(platform), "-hostfile", str(hosts),
            *machine.smpi_config(), "--log=root.thres:warning", str(program.resolve()), *args]


def tag_records(path: Path, machine: Machine, version: str, command: list[str]) -> int:
    """Mark every record of `path` as simulated (atomically); how many."""
    if not path.is_file():
        return 0
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        rec["simulated"] = True
        rec["simulator"] = {"name": "SimGrid SMPI", "version": version, "command": command}
        rec["platform"] = machine.described()
        out.append(json.dumps(rec, sort_keys=True))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(out) + ("\n" if out else ""))
    tmp.replace(path)
    return len(out)


def simulate(net: Network, ranks: int, args: list[str], *, haloex: str | None = None,
             ranks_per_node: int | None = None, out: Path | None = None, keep: Path | None = None,
             timeout_s: float | None = None) -> int:
    """Run `haloex ARGS` at `ranks` simulated ranks; its records (-o, given
    here as `out`) are tagged as simulated. Returns the program's exit code."""
    if ranks < 1:
        raise SimulateError(f"--ranks must be at least 1, got {ranks}")
    if shutil.which("smpirun") is None:
        raise SimulateError("smpirun not found: install SimGrid (Debian: apt-get install libsimgrid-dev)")
    program = find_smpi_haloex(haloex)
    machine = Machine.for_ranks(net, ranks, ranks_per_node)
    version = simgrid_version()
    with tempfile.TemporaryDirectory(prefix="haloex-smpi-") as tmp:
        workdir = keep or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        raw = workdir / "records.jsonl"
        raw.unlink(missing_ok=True)
        cmd = smpirun_command(machine, ranks, program, [*args, *(["-o", str(raw)] if out else [])], workdir)
        try:
            rc = subprocess.run(cmd, timeout=timeout_s).returncode
        except subprocess.TimeoutExpired:
            raise SimulateError(f"the simulation did not finish in {timeout_s:g} s") from None
        if out:
            tag_records(raw, machine, version, cmd)
            if raw.is_file():
                out.parent.mkdir(parents=True, exist_ok=True)
                with open(out, "a") as f:
                    f.write(raw.read_text())
    return rc
