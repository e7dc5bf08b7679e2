"""The `haloex-lab` command line."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .campaign import CampaignError, load_campaign
from .cluster import ClusterError
from .compare import CompareError
from .fields import FieldError
from .network import NetworkError
from .results import ResultsError
from .runner import run_campaign
from .simulate import SimulateError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="haloex-lab",
        description="Run campaigns of haloex benchmarks under mpirun and turn their results into reports.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _run_parser(sub)
    _report_parser(sub)
    _compare_parser(sub)
    _show_parser(sub)
    _model_parser(sub)
    _project_parser(sub)
    _network_parser(sub)
    _simulate_parser(sub)
    _screenshot_parser(sub)
    _cluster_parser(sub)
    return p


def _run_parser(sub) -> None:
    """haloex-lab run CAMPAIGN."""
    r = sub.add_parser(
        "run",
        help="run the points of a campaign file (resumable)",
        description="Run every point of CAMPAIGN (a TOML file, see campaigns/) that is not yet in "
        "its results file, with a progress line and ETA. Interrupted campaigns resume where they "
        "stopped.",
    )
    r.add_argument("campaign", type=Path, help="campaign TOML file")
    r.add_argument("--results", type=Path, help="results file (default: the campaign's)")
    r.add_argument("--haloex", help="path of the haloex program (default: $HALOEX or the campaign's)")
    r.add_argument("-n", "--dry-run", action="store_true", help="print the commands instead of running them")
    r.add_argument("--keep-going", action="store_true", help="go on after a point fails")


def _report_parser(sub) -> None:
    """haloex-lab report RESULTS."""
    rep = sub.add_parser(
        "report",
        help="markdown report, figures and recommendation from results",
        description="Read every *.jsonl file in RESULTS (or one file) and write report.md and "
        "figures/ beside them; print the recommendation table.",
    )
    rep.add_argument("results", type=Path, help="results folder or file")
    rep.add_argument(
        "--out", type=Path, help="where to write report.md and figures/ (default: the results folder)"
    )
    rep.add_argument("--svg", action="store_true", help="also write SVG figures")


def _compare_parser(sub) -> None:
    """haloex-lab compare A B."""
    cmp = sub.add_parser(
        "compare",
        help="compare two .npy fields, or two sets of results side by side",
        description="Two .npy files: compare A with the reference B element by element: max absolute "
        "and relative difference, and numpy's allclose rule |a - b| <= atol + rtol |b|; exit code 0 "
        "when they agree, 1 when they do not, 2 when they cannot be compared. Two results files or "
        "folders (e.g. the same campaign on two machines or under two MPI settings): a table of every "
        "benchmark point both measured, the medians and their ratio B/A, and where each side ran.",
    )
    cmp.add_argument("a", type=Path, help=".npy file to check, or results file or folder")
    cmp.add_argument("b", type=Path, help="reference .npy file (e.g. from stencil --serial), or results")
    cmp.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default: %(default)g)")
    cmp.add_argument("--atol", type=float, default=1e-8, help="absolute tolerance (default: %(default)g)")


def _show_parser(sub) -> None:
    """haloex-lab show METADATA."""
    sh = sub.add_parser(
        "show",
        help="render a slice of a field output or checkpoint as a PNG",
        description="Read an output through its JSON metadata (binary, ASCII or HDF5, any I/O "
        "grid; checksums verified) and draw one slice of one component.",
    )
    sh.add_argument("metadata", type=Path, help="the output's .json metadata file")
    sh.add_argument("-o", "--out", type=Path, help="PNG to write (default: the metadata's name with .png)")
    sh.add_argument(
        "-c",
        "--component",
        help="component name or index, or 'magnitude' (default: magnitude for 3 components, else the first)",
    )
    sh.add_argument("--axis", default="z", help="the slice is normal to this axis (default: %(default)s)")
    sh.add_argument("--index", type=int, help="slice position along the axis (default: the middle)")


def _model_parser(sub) -> None:
    """haloex-lab model RESULTS."""
    mod = sub.add_parser(
        "model",
        help="fit a latency-bandwidth model to the ping-pong and predict each halo measurement",
        description="Fit t(m) = alpha + m / beta (Hockney, two message-size ranges) to the ping-pong "
        "records in RESULTS and predict every halo record's time from its message count, halo bytes "
        "and the copy bandwidth measured in the same run; print the fit and predicted against measured.",
    )
    mod.add_argument("results", type=Path, help="results folder or file with pingpong and halo records")


def _project_parser(sub) -> None:
    """haloex-lab project NETWORK."""
    pr = sub.add_parser(
        "project",
        help="project halo time and LB strong scaling to 10^5 ranks on a described network",
        description="Split LATTICE over each rank count as MPI_Dims_create would, place the ranks on "
        "nodes, and predict each halo strategy's exchange and the LB step (blocking, non-blocking, "
        "overlapped) from NETWORK (a TOML description, see networks/); print the table and where each "
        "mode stops scaling, and write projection.md, projection.jsonl and projection.png.",
    )
    pr.add_argument("network", type=Path, help="network description (TOML), e.g. networks/archer2-like.toml")
    pr.add_argument("--lattice", default="1024", help="global lattice, L or NXxNYxNZ (default: %(default)s)")
    pr.add_argument(
        "--ranks", default="1:131072", help="MIN:MAX (powers of two) or a list (default: %(default)s)"
    )
    pr.add_argument("--velocity-set", default="D3Q19", help="D3Q15, D3Q19 or D3Q27 (default: %(default)s)")
    pr.add_argument(
        "--measured", type=Path, help="bench lb results of the same lattice to draw over the projection"
    )
    pr.add_argument(
        "--simulated",
        type=Path,
        nargs="+",
        help="instead: the model's halo time beside simulated bench halo records (haloex-lab simulate, "
        "--plan reduced) of the same description",
    )
    pr.add_argument(
        "-o", "--out", type=Path, default=Path("projection"), help="folder (default: %(default)s)"
    )


def _network_parser(sub) -> None:
    """haloex-lab network RESULTS."""
    nw = sub.add_parser(
        "network",
        help="describe this machine as a network file, from measured results",
        description="Write a network description (for `haloex-lab project`) of the machine RESULTS "
        "were measured on: the on-node link from the ping-pong fit, the node's copy bandwidth from "
        "the halo records, the LB rates from bench lb records (campaigns/model.toml and "
        "campaigns/chapter6-lb.toml measure them all), and the off-node link from ping-pongs "
        "between two nodes where RESULTS have them (campaigns/cluster-model.toml).",
    )
    nw.add_argument("results", type=Path, nargs="+", help="results folders or files")
    nw.add_argument("-o", "--out", type=Path, required=True, help="the TOML file to write")
    nw.add_argument("--name", default="this machine", help="the description's name (default: %(default)s)")
    nw.add_argument(
        "--off-node",
        type=Path,
        help="borrow the off-node link of this description when RESULTS measured none (joins such nodes)",
    )


def _simulate_parser(sub) -> None:
    """haloex-lab simulate NETWORK -- ARGS."""
    sim = sub.add_parser(
        "simulate",
        help="run haloex at many ranks on a simulated machine (SimGrid's SMPI)",
        description="Run `haloex ARGS` (built for SMPI: make smpi) at RANKS simulated ranks on a "
        "machine made from NETWORK, the description `haloex-lab project` reads: nodes of its "
        "ranks_per_node ranks, its on-node and off-node latencies, stream bandwidths and node "
        "injection. Computation takes no simulated time unless the program injects it (--work-us). "
        "Records (-o) are marked simulated, with the platform and SimGrid's version. The words after "
        "-- may start with the program's path, and give its -o instead (as a campaign's launcher "
        "does). Example: haloex-lab simulate networks/archer2-like.toml --ranks 512 -o sim.jsonl -- "
        "bench halo -L 32 --check",
    )
    sim.add_argument("network", type=Path, help="network description (TOML), e.g. networks/archer2-like.toml")
    sim.add_argument("--ranks", type=int, required=True, help="simulated MPI ranks")
    sim.add_argument("--ranks-per-node", type=int, help="ranks per node (default: the description's)")
    sim.add_argument("--haloex", help="haloex built for SMPI (default: $HALOEX_SMPI or build-smpi/haloex)")
    sim.add_argument("-o", "--out", type=Path, help="append the run's records to this JSON-lines file")
    sim.add_argument("--keep", type=Path, help="keep the platform, host file and raw records in this folder")
    sim.add_argument("--timeout", type=float, help="give up after this many seconds of wall time")
    _calibrate_arguments(sim)


def _screenshot_parser(sub) -> None:
    """haloex-lab screenshot XMF."""
    shot = sub.add_parser(
        "screenshot",
        help="render an output's XDMF file in ParaView (a PNG)",
        description="Open FIELDS.xmf (an LB output step, binary or HDF5) in ParaView's pvpython "
        "(under an Xvfb of its own when there is no display) and save the slice through the middle of z, "
        "coloured by the magnitude of a quantity, solid sites grey, with ParaView's orientation axes.",
    )
    shot.add_argument("xmf", type=Path, help="the output step's fields-NNNNNN.xmf")
    shot.add_argument("-o", "--out", type=Path, help="PNG to write (default: the XDMF's name with .png)")
    shot.add_argument(
        "-q", "--quantity", default="velocity", help="the cell array to colour by (default: %(default)s)"
    )


CLUSTER_HELP = """\
Several hosts on one Linux machine, for running and testing MPI jobs across
nodes: each node is a network namespace with its own hostname (node1 ..
nodeN) and address, linked to the others by a virtual Ethernet bridge; ranks
on different nodes talk over TCP. Needs root.

  haloex-lab cluster up --nodes N [--rate RATE] [--slurm auto|yes|no] [--mpirun PATH] [--name NAME]
  haloex-lab cluster status [--name NAME]
  haloex-lab cluster mpirun [--name NAME] [mpirun options] -- PROGRAM ARGS...
  haloex-lab cluster run [--name NAME] [--node K] -- COMMAND ARGS...
  haloex-lab cluster down [--name NAME]

up       makes the nodes (a tbf rate limit on each node's link with --rate,
         e.g. 1gbit) and, where Slurm is installed, starts munge, slurmctld on
         node1 and one slurmd per node.
         --mpirun names the launcher of the MPI your program was built with
         (default: mpirun on PATH): Open MPI's mpirun, or MPICH's or Intel
         MPI's Hydra mpiexec.
mpirun   runs the launcher on node1 across the nodes (hostfile: node1..nodeN,
         one slot per core; give -np and --npernode as usual). Open MPI's
         mpirun gets these settings:
           --mca mpi_yield_when_idle 1   waiting ranks yield the core: on a
              machine with few cores, busy-polling ranks starve the kernel's
              processing of the virtual links (8 bytes took 4.0 ms without it,
              25 us with it)
           --mca btl self,vader,tcp, btl_tcp_if_include and oob_tcp_if_include
              {subnet}.0/24: shared memory on a node, TCP over the cluster's
              links between nodes
           --mca plm_rsh_agent: a script that enters a node's namespaces
              instead of ssh
           --oversubscribe --bind-to none (--allow-run-as-root as root)
         Hydra's mpiexec gets -f (the hostfile), -launcher rsh with the agent,
         -iface eth0, --npernode as -ppn, and in the environment UCX_TLS=tcp,self
         and UCX_NET_DEVICES=eth0 (between nodes TCP over the links only) and
         settings that make waiting ranks give the core away
         (HALOEX_MPICH_YIELD=always for MPICH 4.0's yield library,
         MPIR_CVAR_CH4_PROGRESS_THROTTLE=1, I_MPI_WAIT_MODE=1).
run      runs a command on one node (default node1, the "login node") with the
         same settings in the environment (OMPI_MCA_... or Hydra's) and SLURM_CONF, e.g.
         haloex-lab cluster run -- srun -N 2 --mpi=pmix build/haloex bench pingpong
         haloex-lab cluster run -- .venv/bin/haloex-lab run campaign.toml
down     stops every process on the nodes and the Slurm daemons and removes
         everything up made, also what a crashed run left behind.
""".replace("{{subnet}}", "198.18.0")


def _cluster_parser(sub) -> None:
    c = sub.add_parser(
        "cluster",
        help="an emulated multi-node cluster on this machine (network namespaces)",
        description=CLUSTER_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    csub = c.add_subparsers(dest="cluster_command", required=True, metavar="up|status|mpirun|run|down")
    up = csub.add_parser("up", help="make the nodes (and a Slurm)", description=CLUSTER_HELP,
                         formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    up.add_argument("--nodes", type=int, required=True, help="how many nodes (1-64)")
    up.add_argument("--rate", help="tbf rate limit of each node's link, e.g. 1gbit (default: none)")
    up.add_argument("--slurm", default="auto", choices=("auto", "yes", "no"),
                    help="start a Slurm on the nodes (auto: when installed)")  # fmt: skip
    up.add_argument("--mpirun", default="mpirun",
                    help="the launcher cluster mpirun starts: Open MPI's mpirun or a Hydra mpiexec "
                         "(MPICH, Intel MPI), the one of the MPI your program was built with "
                         "(default: %(default)s on PATH)")  # fmt: skip
    for name in ("status", "down", "mpirun", "run"):
        s = csub.add_parser(
            name,
            help=f"cluster {name}",
            description=CLUSTER_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        s.add_argument("--name", default="haloex", help="the cluster's name (default: %(default)s)")
    up.add_argument("--name", default="haloex", help="the cluster's name (default: %(default)s)")


def _cluster_command(argv: list[str]) -> int:
    """haloex-lab cluster ...: mpirun and run take everything after their
    own options as the command, so they are parsed here, not by argparse."""
    import subprocess

    from .cluster import Cluster

    what, rest = argv[1], argv[2:]
    if what in ("mpirun", "run") and not (
        {"-h", "--help"} & set(rest[: rest.index("--")] if "--" in rest else rest)
    ):
        name, node = "haloex", 1
        while rest and rest[0] in ("--name", "--node"):
            if len(rest) < 2:
                raise ClusterError(f"{rest[0]} needs a value")
            if rest[0] == "--name":
                name = rest[1]
            else:
                try:
                    node = int(rest[1])
                except ValueError:
                    raise ClusterError(f"--node {rest[1]!r}: give a node number") from None
            rest = rest[2:]
        if "--" not in rest or rest.index("--") == len(rest) - 1:
            raise ClusterError(
                f"cluster {what}: give the program after '--', e.g. haloex-lab cluster {what} "
                + ("-np 4 --npernode 2 -- build/haloex bench pingpong" if what == "mpirun" else "-- hostname")
            )
        cut = rest.index("--")
        opts, program = rest[:cut], rest[cut + 1 :]
        cl = Cluster(name)
        if what == "mpirun":
            words = cl.mpirun_words([*opts, *program])
        else:
            if opts:
                raise ClusterError(f"cluster run: unknown options {opts} (--name, --node)")
            words = cl.run_words(node, program)
        env = {**os.environ, **cl.environment()}
        try:
            return subprocess.run(words, env=env, check=False).returncode
        except KeyboardInterrupt:
            return 130
    args = _parser().parse_args(argv)
    cl = Cluster(args.name)
    if what == "up":
        st = cl.up(args.nodes, args.rate, args.slurm, args.mpirun)
        print(cl.status())
        if not st.slurm:
            print(
                "  slurm: not started"
                + ("" if args.slurm == "no" else " (slurmctld, slurmd or munge not installed)")
            )
        return 0
    if what == "status":
        print(cl.status())
        return 0
    cl.down()
    return 0


def _measured_modes(path: Path, lattice) -> dict:
    """{mode: {ranks: MLUPS}} of bench lb records on `lattice` (chapter 6)."""
    from .results import load_results
    from .stats import summarize

    out: dict = {}
    for r in load_results(path):
        if r.get("benchmark") != "lb" or r.get("global_size") != list(lattice) or "mlups_samples" not in r:
            continue
        c = r["config"]
        mode = (
            "blocking"
            if "/sendrecv/none/" in c
            else "non-blocking"
            if "/direct/none/" in c
            else "overlapped"
            if "/direct/interior" in c
            else None
        )
        if mode and r.get("threads_per_rank") == 1 and r.get("output_every", 0) == 0:
            m = summarize(r["mlups_samples"]).median
            out.setdefault(mode, {})[r["ranks"]] = max(m, out.get(mode, {}).get(r["ranks"], 0))
    return out


def _against_simulation(net, paths: list[Path], out: Path) -> int:
    """project --simulated: the model's message time beside simulated bench
    halo records of the same description; model-vs-simulation.md in out."""
    from .results import load_results
    from .simulate import against_text, model_against_simulation

    rows, skipped = model_against_simulation(net, [r for p in paths for r in load_results(p)])
    if not rows:
        raise ResultsError(
            "no simulated bench halo records of the reduced 3-D plan in " + ", ".join(map(str, paths))
        )
    text = (
        f"Model (no copies) against the simulation on {net.name}; ratios further than 25% from 1 in bold.\n\n"
        + against_text(rows)
        + "".join(f"\n- left out: {s}" for s in sorted(set(skipped)))
        + "\n"
    )
    print(text)
    out.mkdir(parents=True, exist_ok=True)
    (out / "model-vs-simulation.md").write_text(text)
    print(f"wrote {out / 'model-vs-simulation.md'}")
    return 0


def _projection_commands(args) -> int:
    from .network import load_network, network_toml

    if args.command == "network":
        from .model import network_from_results
        from .results import load_results

        records = [r for p in args.results for r in load_results(p)]
        off = load_network(args.off_node).off_node if args.off_node else None
        if args.off_node and off is None:
            raise NetworkError(f"{args.off_node} has no [network.off_node] to borrow")
        try:
            net = network_from_results(records, args.name, off)
        except ValueError as e:
            raise ResultsError(str(e)) from None
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            network_toml(net, "Written by haloex-lab network from " + ", ".join(map(str, args.results)))
        )
        print(f"wrote {args.out}")
        return 0
    from .projection import (
        measured_text,
        parse_lattice,
        parse_ranks,
        project,
        projection_text,
        write_projection,
    )

    net = load_network(args.network)
    if args.simulated:
        return _against_simulation(net, args.simulated, args.out)
    try:
        lattice, ranks = parse_lattice(args.lattice), parse_ranks(args.ranks)
        points = project(net, lattice, ranks, args.velocity_set)
    except ValueError as e:
        raise NetworkError(str(e)) from None
    if not points:
        raise NetworkError(f"{args.lattice} cannot be split over {ranks[0]} ranks (subdomains under 2 sites)")
    measured = _measured_modes(args.measured, lattice) if args.measured else None
    print(projection_text(net, lattice, points))
    against = measured_text(points, measured) if measured else ""
    if against:
        print("\nMeasured against the model:\n\n" + against + "\n")
    for f in write_projection(net, lattice, args.velocity_set, points, args.out, measured):
        print(f"wrote {f}")
    return 0


def _calibrate_arguments(sim: argparse.ArgumentParser) -> None:
    """simulate's --calibrate and --calibrate-on (calibrate.py)."""
    sim.add_argument(
        "--calibrate",
        type=Path,
        metavar="PINGPONG",
        help="take SMPI's latency and bandwidth factors from a piecewise fit of these bench pingpong "
        "records (JSON lines) instead of the description",
    )
    sim.add_argument(
        "--calibrate-on",
        choices=("node", "off-node"),
        help="the path the records measured (default: their placement's: one host or two)",
    )


def _run(args) -> int:
    camp = load_campaign(args.campaign, args.results, args.haloex)
    return run_campaign(camp, dry_run=args.dry_run, keep_going=args.keep_going)


def _compare(args) -> int:
    """Two .npy fields element by element, or two sets of results side by side."""
    if not (args.a.suffix == ".npy" and args.b.suffix == ".npy"):
        from .sidebyside import compare_results

        print(compare_results(args.a, args.b))
        return 0
    from .compare import compare_files, format_comparison

    if args.rtol < 0 or args.atol < 0:
        raise CompareError("--rtol and --atol must not be negative")
    c = compare_files(args.a, args.b, args.rtol, args.atol)
    print(format_comparison(args.a, args.b, c))
    return 0 if c.ok else 1


def _show(args) -> int:
    from .fields import show

    out = show(
        args.metadata,
        args.out or args.metadata.with_suffix(".png"),
        args.component,
        args.axis,
        args.index,
    )
    print(f"wrote {out}")
    return 0


def _model(args) -> int:
    from .model import model_text
    from .results import load_results

    try:
        print(model_text(load_results(args.results)))
    except ValueError as e:
        raise ResultsError(str(e)) from None
    return 0


def _simulate(args, program: list[str]) -> int:
    from .network import load_network
    from .simulate import simulate, split_program

    haloex, words, out = split_program(program, args.haloex, args.out)
    return simulate(
        load_network(args.network),
        args.ranks,
        words,
        haloex=haloex,
        ranks_per_node=args.ranks_per_node,
        out=out,
        keep=args.keep,
        timeout_s=args.timeout,
        calibrate=args.calibrate,
        calibrate_on=args.calibrate_on,
    )


def _screenshot(args) -> int:
    from .screenshot import screenshot

    print(f"wrote {screenshot(args.xmf, args.out or args.xmf.with_suffix('.png'), args.quantity)}")
    return 0


def _report(args) -> int:
    from .report import build_report  # matplotlib only when reporting

    path, table = build_report(args.results, args.out, ("png", "svg") if args.svg else ("png",))
    if table:
        print("Recommendation (fastest strategy per subdomain size):\n")
        print(table)
    print(f"report: {path}")
    return 0


# The commands after argparse (cluster's mpirun and run are parsed apart).
COMMANDS = {
    "run": _run,
    "compare": _compare,
    "show": _show,
    "model": _model,
    "project": _projection_commands,
    "network": _projection_commands,
    "screenshot": _screenshot,
    "report": _report,
}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) >= 2 and argv[0] == "cluster" and argv[1] in ("up", "status", "down", "mpirun", "run"):
        try:
            return _cluster_command(argv)
        except ClusterError as e:
            print(f"haloex-lab: error: {e}", file=sys.stderr)
            return 2
    # simulate: what follows "--" is haloex's command line, not ours.
    program = []
    if argv[:1] == ["simulate"] and "--" in argv:
        cut = argv.index("--")
        argv, program = argv[:cut], argv[cut + 1 :]
    args = _parser().parse_args(argv)
    try:
        if args.command == "simulate":
            return _simulate(args, program)
        return COMMANDS.get(args.command, _report)(args)
    except (CampaignError, ResultsError, CompareError, FieldError, NetworkError, SimulateError) as e:
        print(f"haloex-lab: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("haloex-lab: interrupted; finished points are saved, run again to resume", file=sys.stderr)
        return 130
