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
  `large_latency_s` from `eager_bytes` up (the rendezvous); every send
  waits for its receive to be matched (SimGrid 3.32's detached sends do not
  scale), so an eager send's early return is not simulated.
- computation between MPI calls takes no simulated time; what a run must
  charge for it, haloex injects (`--work-us`, and the LB's modelled rate).

These are the latency and bandwidth factors of SimGrid's calibration
method, taken from the description, which `haloex-lab network` fits to
`bench pingpong`. With `--calibrate PINGPONG.jsonl` they come instead from
a piecewise fit of the ping-pong itself (calibrate.py).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .calibrate import CalibrateError, Calibration, calibrate, calibration_text, load_pingpong, measured_path
from .launchers import run_bounded
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
                f"{ranks} ranks at {per} per node need {nodes} nodes, "
                f"and {net.name} describes no off-node link"
            )
        return Machine(net, nodes, per)

    def stream_factor(self) -> float:
        """SMPI's bandwidth factor: one stream's share of the node's link."""
        off = self.net.off_node
        return min(1.0, off.bandwidth_Bps / off.injection_Bps) if off else 1.0

    def loopback(self) -> tuple[float, float]:
        """A host's loopback, (latency s, bandwidth B/s), as the platform
        states them. Its bandwidth is scaled up by 1/f so that, after SMPI's
        factor f, one on-node stream runs at on_node.bandwidth_Bps."""
        on = self.net.on_node
        return _g6(on.latency_s), _g6(on.bandwidth_Bps / self.stream_factor())

    def node_link(self) -> tuple[float, float] | None:
        """Each direction of a node's link, (latency s, bandwidth B/s), as the
        platform states them: half the off-node latency, the injection."""
        off = self.net.off_node
        return (_g6(off.latency_s / 2), _g6(off.injection_Bps)) if off else None

    def route(self, path: str) -> tuple[float, float]:
        """Latency and bandwidth of the route between two ranks, SMPI's
        factors left out: on one node ("node") the loopback; between nodes
        ("off-node") up the sender's link and down the receiver's (the
        backbone adds no latency and never limits)."""
        if path == "node":
            return self.loopback()
        link = self.node_link()
        if link is None:
            raise SimulateError(f"{self.net.name} describes no off-node link to calibrate")
        return 2 * link[0], link[1]

    def platform_xml(self) -> str:
        lat, bw = self.loopback()
        loop = f'loopback_bw="{bw:.6g}Bps" loopback_lat="{lat:.6g}s"'
        if (node := self.node_link()) is None:
            link = 'bw="1e15Bps" lat="0s"'
        else:
            link = f'bw="{node[1]:.6g}Bps" lat="{node[0]:.6g}s" sharing_policy="SPLITDUPLEX"'
        return (
            "<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<platform version="4.1">\n'
            f"  <!-- {escape_comment(self.net.name)}: {self.nodes} nodes x {self.ranks_per_node} ranks -->\n"
            # (a core per rank: injected work, smpi_execute, runs on the rank's own core)
            f'  <cluster id="machine" prefix="node-" suffix="" radical="0-{self.nodes - 1}" speed="1Gf"'
            f' core="{self.ranks_per_node}"\n'
            f'           {link} bb_bw="1e15Bps" bb_lat="0s" {loop}/>\n'
            "</platform>\n"
        )

    def hostfile(self, ranks: int) -> str:
        return "".join(f"node-{r // self.ranks_per_node}\n" for r in range(ranks))

    def factors(self) -> tuple[str, str]:
        """SMPI's bandwidth and latency factors from the description."""
        link = self.net.off_node or self.net.on_node
        ratio = link.large_latency_s / link.latency_s
        return f"0:{self.stream_factor():.6g}", f"0:1;{int(link.eager_bytes)}:{ratio:.6g}"

    def smpi_config(self, calibration: Calibration | None = None) -> list[str]:
        """SMPI settings that make the description's link: factors (or those
        of a calibration), plain max-min sharing, no simulated computation."""
        bw, lat = calibration.smpi_factors() if calibration else self.factors()
        return [
            f"--cfg=smpi/bw-factor:{bw}",
            f"--cfg=smpi/lat-factor:{lat}",
            # Every send waits for its receive to be matched (as a
            # rendezvous does): SimGrid 3.32 keeps detached (eager) sends in
            # a list it searches linearly, which at 4096 ranks ran for
            # minutes per exchange. The eager latency stays in lat-factor.
            "--cfg=smpi/send-is-detached-thresh:0",
            "--cfg=network/weight-S:0",
            # No reverse flow of acknowledgements beside each message (TCP's;
            # HPC networks' RDMA has none): it also coupled every node's two
            # link directions in the bandwidth solver (1024 ranks: 34 s -> 26 s).
            "--cfg=network/crosstraffic:0",
            # Collectives by algorithms of log(P) rounds that need no map of
            # the nodes: SMPI's default allgather posts every pair's message
            # at once (512 ranks: minutes in one MPI_Allgather), and its
            # node-aware ones first gather every rank's host name in a ring
            # (4096 ranks: 16.8 million messages per communicator).
            *(f"--cfg=smpi/{op}:{algo}" for op, algo in LOG_COLLECTIVES),
            "--cfg=smpi/simulate-computation:no",
            # All ranks share the program's globals: haloex keeps no mutable
            # global state. SMPI's default gives each rank a private copy of
            # the program (a dlopen each), which at 8192 ranks runs out of
            # memory mappings (vm.max_map_count) before main.
            "--cfg=smpi/privatization:no",
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


LOG_COLLECTIVES = (
    ("allreduce", "rdb"),
    ("bcast", "binomial_tree"),
    ("reduce", "binomial"),
    ("barrier", "ompi_recursivedoubling"),
    ("allgather", "bruck"),
    ("allgatherv", "ompi_bruck"),
    ("gather", "ompi_binomial"),
    ("scatter", "ompi_binomial"),
)


def _g6(x: float) -> float:
    """x as the platform file states it (6 significant digits)."""
    return float(f"{x:.6g}")


def machine_calibration(machine: Machine, pingpong: Path, on: str | None = None) -> Calibration:
    """SMPI's factors fitted to PINGPONG's records, against the route the
    platform puts between its two ranks (their placement's, or `on`)."""
    try:
        path, records = measured_path(load_pingpong(pingpong), on, str(pingpong))
        lat, bw = machine.route(path)
        link = machine.net.on_node if path == "node" else machine.net.off_node
        return calibrate(records, lat, bw, link.eager_bytes, source=str(pingpong), path=path)
    except CalibrateError as e:
        raise SimulateError(str(e)) from None


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


def split_program(
    words: list[str], haloex: str | None, out: Path | None
) -> tuple[str | None, list[str], Path | None]:
    """The words after `--` as (program, its arguments, records file): a
    first word that is a path to a program is the program (as a campaign's
    launcher puts it), and the program's own -o/--json is where the tagged
    records go when simulate was given no -o."""
    if not words:
        raise SimulateError("give haloex's command after --, e.g. -- bench halo -L 16 --check")
    if os.sep in words[0]:
        if haloex is not None:
            raise SimulateError(f"give the program once: --haloex {haloex} or {words[0]} after --")
        haloex, words = words[0], words[1:]
    for flag in ("-o", "--json"):
        if flag in words[:-1] and out is None:
            at = words.index(flag)
            out, words = Path(words[at + 1]), words[:at] + words[at + 2 :]
    return haloex, words, out


def find_smpi_haloex(given: str | None) -> Path:
    """The haloex built for SMPI: --haloex, $HALOEX_SMPI, or build-smpi/haloex
    here or in the source tree this package belongs to (make smpi's)."""
    chosen = given or os.environ.get("HALOEX_SMPI")
    if chosen:
        path = Path(chosen)
    else:
        here, tree = Path("build-smpi/haloex"), Path(__file__).resolve().parents[2] / "build-smpi/haloex"
        path = here if here.is_file() else tree
    if not path.is_file():
        raise SimulateError(
            f"{path}: no haloex built for SMPI here; build it with `make smpi` or pass --haloex"
        )
    return path


def smpirun_command(
    machine: Machine,
    ranks: int,
    program: Path,
    args: list[str],
    workdir: Path,
    smpirun: str = "smpirun",
    calibration: Calibration | None = None,
) -> list[str]:
    platform, hosts = workdir / "platform.xml", workdir / "hostfile"
    platform.write_text(machine.platform_xml())
    hosts.write_text(machine.hostfile(ranks))
    return [
        smpirun,
        "-np",
        str(ranks),
        "-platform",
        str(platform),
        "-hostfile",
        str(hosts),
        *machine.smpi_config(calibration),
        "--log=root.thres:warning",
        str(program.resolve()),
        *args,
    ]


def tag_records(
    path: Path, machine: Machine, version: str, command: list[str], calibration: Calibration | None = None
) -> int:
    """Mark every record of `path` as simulated (atomically), with the
    calibration its factors came from if any; how many."""
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
        if calibration:
            rec["calibration"] = calibration.described()
        out.append(json.dumps(rec, sort_keys=True))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(out) + ("\n" if out else ""))
    tmp.replace(path)
    return len(out)


def simulate(
    net: Network,
    ranks: int,
    args: list[str],
    *,
    haloex: str | None = None,
    ranks_per_node: int | None = None,
    out: Path | None = None,
    keep: Path | None = None,
    timeout_s: float | None = None,
    calibrate: Path | None = None,
    calibrate_on: str | None = None,
) -> int:
    """Run `haloex ARGS` at `ranks` simulated ranks; its records (-o, given
    here as `out`) are tagged as simulated. With `calibrate`, SMPI's factors
    come from that ping-pong (machine_calibration). Returns the program's
    exit code."""
    if ranks < 1:
        raise SimulateError(f"--ranks must be at least 1, got {ranks}")
    calibration = None
    if calibrate:
        machine = Machine.for_ranks(net, ranks, ranks_per_node)
        calibration = machine_calibration(machine, calibrate, calibrate_on)
        both = machine.nodes > 1 and machine.ranks_per_node > 1  # messages on both paths
        print(calibration_text(calibration, both), file=sys.stderr)
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
        program_args = [*args, *(["-o", str(raw)] if out else [])]
        cmd = smpirun_command(machine, ranks, program, program_args, workdir, calibration=calibration)
        # One thread, unpinned: the simulator is one process, and haloex
        # would pin its thread (all ranks) to rank 0's CPU.
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OMP_PROC_BIND": "false"}
        try:
            rc = run_bounded(cmd, timeout_s, env=env).returncode
        except subprocess.TimeoutExpired:
            raise SimulateError(f"the simulation did not finish in {timeout_s:g} s") from None
        if out:
            tag_records(raw, machine, version, cmd, calibration)
            if raw.is_file():
                out.parent.mkdir(parents=True, exist_ok=True)
                with open(out, "a") as f:
                    f.write(raw.read_text())
    return rc


# ---- the model against the simulation --------------------------------------


def family_of(strategy: str) -> str | None:
    """The projection's family of a strategy (projection.FAMILIES), None for
    one it does not cost (node-gather, auto, an unknown name)."""
    from .projection import FAMILIES
    from .strategies import FAMILY

    family = FAMILY.get(strategy)
    return family if family in FAMILIES else None


@dataclass(frozen=True)
class Against:
    strategy: str
    ranks: int
    nodes: int
    local: tuple[int, int, int]
    simulated_s: float
    model_s: float

    @property
    def ratio(self) -> float:
        return self.model_s / self.simulated_s


def model_against_simulation(net: Network, records: list[dict]) -> tuple[list[Against], list[str]]:
    """The projection's message time (no copies: the simulation computes
    nothing) beside each simulated bench halo record of the reduced D3Q19
    plan, on the grid and rank placement the record ran with; and why the
    other records were left out."""
    from .projection import _Layout, halo_time, velocities

    rows, skipped = [], []
    for r in records:
        if r.get("benchmark") != "halo" or not r.get("simulated"):
            continue
        name = r["strategy"]
        family = family_of(r.get("resolved_strategy", name))
        if r.get("halo_plan") != "reduced" or r.get("ndim") != 3 or family is None:
            skipped.append(
                f"{name} at {r['ranks']} ranks: the model covers the reduced 3-D plans of its families"
            )
            continue
        per_node = r["platform"]["ranks_per_node"]
        procs = tuple(r["process_grid"])
        local = tuple(r["local_extent"])
        lay = _Layout(procs, per_node)
        node_net = net if per_node == net.ranks_per_node else _with_ranks_per_node(net, per_node)
        strategy = r.get("resolved_strategy", name)
        model = halo_time(node_net, velocities(r["velocity_set"]), procs, local, family, lay, False, strategy)
        rows.append(
            Against(name, r["ranks"], r["platform"]["nodes"], local, r["median_time_per_call_s"], model)
        )
    return rows, skipped


def _with_ranks_per_node(net: Network, per_node: int) -> Network:
    import dataclasses

    return dataclasses.replace(net, ranks_per_node=per_node)


def against_text(rows: list[Against], limit: float = 0.25) -> str:
    """A markdown table, marking every ratio further than `limit` from 1."""
    lines = [
        "| strategy | ranks | nodes | subdomain | simulated us | model us | model / simulated |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for a in sorted(rows, key=lambda a: (a.strategy, a.ranks)):
        ratio = f"**{a.ratio:.2f}**" if abs(a.ratio - 1) > limit else f"{a.ratio:.2f}"
        lines.append(
            f"| {a.strategy} | {a.ranks} | {a.nodes} | {'x'.join(map(str, a.local))} | "
            f"{a.simulated_s * 1e6:.2f} | {a.model_s * 1e6:.2f} | {ratio} |"
        )
    return "\n".join(lines)
