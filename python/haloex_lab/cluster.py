"""An emulated cluster on one Linux machine: N hosts made of network
namespaces, for running and testing MPI jobs with ranks on several nodes.

Each node is a network namespace with its own loopback and one virtual
Ethernet link to a bridge (itself in a namespace of the cluster's, so no
address exists outside the cluster), an address in 198.18.0.0/24 (the range
RFC 2544 sets aside for benchmarking networks), and a UTS namespace that
gives it its own hostname, node1 .. nodeN. Processes entered into a node also
get a private mount namespace in which the cluster's hosts file is
/etc/hosts. Everything else is shared, as on a cluster with a shared file
system: the same kernel, memory, cores and files.

Ranks on one node talk through shared memory; ranks on different nodes only
through TCP over the virtual links. The launcher (Open MPI's mpirun, or
MPICH's or Intel MPI's Hydra mpiexec) is started inside node1 and reaches
the other nodes through a small agent (instead of ssh) that enters their
namespaces. With Slurm installed, `up` also starts munge, slurmctld on
node1 and one slurmd per node, so srun -N 2 and sbatch -N 2 cross hosts too.

What the cluster makes is named after it (namespaces hx-NAME-node1 ..,
hx-NAME-switch; files in /run/haloex-cluster/NAME), so `down` removes all of
it, also what a crashed run left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

RUN_DIR = Path("/run/haloex-cluster")
SUBNET = "198.18.0"  # RFC 2544's benchmarking range, only inside the cluster's namespaces
MAX_NODES = 64
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,11}$")  # namespace and link names stay short
RATE_RE = re.compile(r"^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit|tbit)$")
RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12}

# What every MPI job on the cluster needs, and why (said in `mpirun --help`).
MPI_SETTINGS = {
    # Busy-polling ranks on a 2-core machine starve the kernel's network
    # processing of the virtual links until the next timer tick: 8 bytes took
    # 4.0 ms without this setting and 25 us with it.
    "mpi_yield_when_idle": "1",
    # Between nodes only TCP over the cluster's links; on a node shared memory.
    "btl": "self,vader,tcp",
    "btl_tcp_if_include": f"{SUBNET}.0/24",
    "oob_tcp_if_include": f"{SUBNET}.0/24",
}

# The same for Hydra's jobs (MPICH, Intel MPI), as environment variables.
HYDRA_SETTINGS = {
    # Between nodes UCX's TCP over the cluster's links only: its shared-memory
    # transports would otherwise reach the other namespaces (one machine),
    # and nothing would cross the network. MPICH's own shared memory still
    # serves the ranks of a node.
    "UCX_TLS": "tcp,self",
    "UCX_NET_DEVICES": "eth0",
    # MPICH 4.0's ranks spin (docs/mpi.md); its yield library counts a
    # node's ranks against the cores, which the emulated nodes share.
    "HALOEX_MPICH_YIELD": "always",
    # MPICH 4.1 and later: waiting ranks give the core away.
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    # Intel MPI: waiting ranks sleep in the kernel instead of polling.
    "I_MPI_WAIT_MODE": "1",
}


class ClusterError(Exception):
    """The cluster cannot be made, used or found as asked."""


@dataclass
class State:
    """What `up` made, kept in RUN_DIR/NAME/state.json."""

    name: str
    nodes: int
    rate: str | None
    slurm: bool
    slots: int  # ranks a node takes before mpirun oversubscribes
    mpirun: str = "mpirun"  # the launcher cluster mpirun starts (up --mpirun)
    launcher: str = "openmpi"  # which kind it is: "openmpi" or "hydra"


def _run(args: list[str], check: bool = True, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, capture_output=True, text=True, check=False, **kw)
    if check and proc.returncode != 0:
        raise ClusterError(f"{shlex.join(args)} failed: {(proc.stderr or proc.stdout).strip()}")
    return proc


def cannot_make() -> str | None:
    """Why this machine cannot make a cluster (one line), or None."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "the emulated cluster needs root (network namespaces and veth links)"
    for tool in ("ip", "nsenter", "unshare", "mount"):
        if shutil.which(tool) is None:
            return f"the emulated cluster needs '{tool}' (Debian: iproute2, util-linux, mount)"
    probe = f"hx-probe-{os.getpid()}"
    made = _run(["ip", "netns", "add", probe], check=False)
    if made.returncode != 0:
        return f"network namespaces cannot be made here: {made.stderr.strip()}"
    _run(["ip", "netns", "del", probe], check=False)
    return None


def launcher_kind(mpirun: str) -> str:
    """Which launcher `mpirun` is, "openmpi" or "hydra", from what its --version says."""
    if not shutil.which(mpirun):
        raise ClusterError(f"--mpirun {mpirun!r}: no such program")
    try:
        out = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ClusterError(f"--mpirun {mpirun!r}: '{mpirun} --version' failed ({e})") from None
    text = out.stdout + out.stderr
    if "Open MPI" in text or "OpenRTE" in text:
        return "openmpi"
    if "HYDRA" in text:
        return "hydra"
    first = text.strip().split("\n")[0] if text.strip() else "nothing"
    raise ClusterError(
        f"--mpirun {mpirun!r}: neither Open MPI's mpirun nor a Hydra mpiexec (MPICH, Intel MPI); "
        f"its --version says {first!r}"
    )


def hydra_options(args: list[str]) -> list[str]:
    """mpirun's options as Hydra spells them: --npernode P is -ppn P."""
    return ["-ppn" if a in ("--npernode", "-npernode") else a for a in args]


def rate_bytes(rate: str) -> float:
    """Bytes per second of a tc rate such as '1gbit' (ClusterError otherwise)."""
    m = RATE_RE.match(rate)
    if not m or float(m.group(1)) <= 0:
        raise ClusterError(
            f"--rate {rate!r}: give a positive rate in bit, kbit, mbit, gbit or tbit, e.g. 1gbit"
        )
    return float(m.group(1)) * RATE_UNITS[m.group(2)] / 8


class Cluster:
    """An emulated cluster by name: where its parts are and how to enter them."""

    def __init__(self, name: str = "haloex"):
        if not NAME_RE.match(name):
            raise ClusterError(f"cluster name {name!r}: 1-12 characters of a-z, 0-9 and '-'")
        self.name = name
        self.dir = RUN_DIR / name

    # ---- names and places ----
    def netns(self, k: int) -> str:
        return f"hx-{self.name}-node{k}"

    @property
    def switch(self) -> str:
        return f"hx-{self.name}-switch"

    def uts(self, k: int) -> Path:
        return self.dir / f"node{k}.uts"

    @staticmethod
    def address(k: int) -> str:
        return f"{SUBNET}.{k}"

    @property
    def agent(self) -> Path:
        return self.dir / "rsh-agent"

    @property
    def hosts(self) -> Path:
        return self.dir / "hosts"

    @property
    def slurm_conf(self) -> Path:
        return self.dir / "slurm" / "slurm.conf"

    def state(self) -> State:
        try:
            return State(**json.loads((self.dir / "state.json").read_text()))
        except FileNotFoundError:
            raise ClusterError(f"cluster {self.name!r} is not up (haloex-lab cluster up --nodes N)") from None

    def enter(self, k: int, argv: list[str]) -> list[str]:
        """The command that runs argv on node k (as root)."""
        bind = 'mount --bind "$0" /etc/hosts && exec "$@"'
        return [
            "nsenter",
            f"--net=/run/netns/{self.netns(k)}",
            f"--uts={self.uts(k)}",
            "--",
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            bind,
            str(self.hosts),
            *argv,
        ]

    def environment(self) -> dict[str, str]:
        """What a job started on the cluster needs in its environment: the
        MPI settings (Open MPI's as OMPI_MCA_ variables, which srun passes
        on; Hydra's launcher's as they are) and Slurm's configuration when it
        runs."""
        if self.state().launcher == "hydra":
            env = dict(HYDRA_SETTINGS)
        else:
            env = {f"OMPI_MCA_{k}": v for k, v in MPI_SETTINGS.items()}
        if self.slurm_conf.exists():
            env["SLURM_CONF"] = str(self.slurm_conf)
        return env

    # ---- up ----
    def up(self, nodes: int, rate: str | None = None, slurm: str = "auto", mpirun: str = "mpirun",
           log=print) -> State:  # fmt: skip
        why = cannot_make()
        if why:
            raise ClusterError(why)
        launcher = launcher_kind(mpirun)
        if not 1 <= nodes <= MAX_NODES:
            raise ClusterError(f"--nodes {nodes}: give 1 to {MAX_NODES} nodes")
        if rate is not None:
            rate_bytes(rate)
        if slurm not in ("auto", "yes", "no"):
            raise ClusterError(f"--slurm {slurm!r}: auto, yes or no")
        have_slurm = all(shutil.which(c) for c in ("slurmctld", "slurmd", "munged", "srun", "sinfo"))
        if slurm == "yes" and not have_slurm:
            raise ClusterError("--slurm yes: slurmctld, slurmd, munged and srun are not all installed")
        if (self.dir / "state.json").exists():
            raise ClusterError(
                f"cluster {self.name!r} is up already (haloex-lab cluster down --name {self.name})"
            )
        if self._leftovers():
            log(f"removing what an earlier cluster {self.name!r} left behind")
            self.down(log=lambda *_: None)
        self.dir.mkdir(parents=True)
        state = State(self.name, nodes, rate, slurm != "no" and have_slurm, os.cpu_count() or 1,
                      str(Path(shutil.which(mpirun) or mpirun).absolute()), launcher)  # fmt: skip
        try:
            self._network(nodes, rate)
            self._files(nodes)
            if state.slurm:
                self._start_slurm(state)
        except BaseException:
            self.down(log=lambda *_: None)
            raise
        (self.dir / "state.json").write_text(json.dumps(asdict(state), indent=1) + "\n")
        return state

    def _network(self, nodes: int, rate: str | None) -> None:
        sw = self.switch
        _run(["ip", "netns", "add", sw])
        _run(["ip", "-n", sw, "link", "add", "br0", "type", "bridge"])
        _run(["ip", "-n", sw, "link", "set", "br0", "up"])
        for k in range(1, nodes + 1):
            ns = self.netns(k)
            _run(["ip", "netns", "add", ns])
            _run(
                [
                    "ip",
                    "link",
                    "add",
                    "eth0",
                    "netns",
                    ns,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    f"p{k}",
                    "netns",
                    sw,
                ]
            )
            _run(["ip", "-n", sw, "link", "set", f"p{k}", "master", "br0"])
            _run(["ip", "-n", sw, "link", "set", f"p{k}", "up"])
            _run(["ip", "-n", ns, "addr", "add", f"{self.address(k)}/24", "dev", "eth0"])
            _run(["ip", "-n", ns, "link", "set", "eth0", "up"])
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
            if rate:
                # The node's link in both directions: what it sends, and what the switch sends it.
                for where, dev in ((ns, "eth0"), (sw, f"p{k}")):
                    _run(["ip", "netns", "exec", where, "tc", "qdisc", "add", "dev", dev, "root", "tbf",
                          "rate", rate, "burst", str(max(32768, int(rate_bytes(rate) / 250))),
                          "latency", "50ms"])  # fmt: skip
            self.uts(k).touch()
            _run(["unshare", f"--uts={self.uts(k)}", "hostname", f"node{k}"])

    def _files(self, nodes: int) -> None:
        lines = ["127.0.0.1 localhost", *(f"{self.address(k)} node{k}" for k in range(1, nodes + 1))]
        self.hosts.write_text("\n".join(lines) + "\n")
        slots = os.cpu_count() or 1
        (self.dir / "hostfile").write_text("".join(f"node{k} slots={slots}\n" for k in range(1, nodes + 1)))
        (self.dir / "hostfile.hydra").write_text("".join(f"node{k}:{slots}\n" for k in range(1, nodes + 1)))
        # The launcher's "ssh": HOST COMMAND... runs COMMAND on that node.
        cases = [f"  node{k}|{self.address(k)}) exec {shlex.join(self.enter(k, ['sh', '-c']))} \"$*\" ;;"
                 for k in range(1, nodes + 1)]  # fmt: skip
        self.agent.write_text("\n".join([
            "#!/bin/sh",
            "# Written by haloex-lab cluster up: the launcher's remote shell on the emulated cluster.",
            'host=$1; shift',
            'case "$host" in',
            *cases,
            f'  *) echo "rsh-agent: no node $host in cluster {self.name}" >&2; exit 255 ;;',
            "esac",
        ]) + "\n")  # fmt: skip
        self.agent.chmod(0o755)

    # ---- Slurm ----
    def _start_slurm(self, state: State) -> None:
        sd = self.slurm_conf.parent
        (sd / "state").mkdir(parents=True)
        key = sd / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        sock = sd / "munge.sock"
        _run(["munged", "--force", f"--key-file={key}", f"--socket={sock}", f"--pid-file={sd / 'munged.pid'}",
              f"--log-file={sd / 'munged.log'}", f"--seed-file={sd / 'munge.seed'}"])  # fmt: skip
        for k in range(1, state.nodes + 1):
            for sub in ("spool", "tmp"):
                (sd / f"node{k}" / sub).mkdir(parents=True)
        user = _run(["id", "-un"]).stdout.strip()
        nodes = "\n".join(
            f"NodeName=node{k} NodeAddr={self.address(k)} CPUs={state.slots} RealMemory=1000 State=UNKNOWN"
            for k in range(1, state.nodes + 1)
        )
        self.slurm_conf.write_text(f"""# Written by haloex-lab cluster up: the emulated cluster {self.name}.
ClusterName=hx-{self.name}
SlurmctldHost=node1({self.address(1)})
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={sd}/state
SlurmdSpoolDir={sd}/%n/spool
TmpFS={sd}/%n/tmp
SlurmctldPidFile={sd}/slurmctld.pid
SlurmdPidFile={sd}/%n/slurmd.pid
SlurmctldLogFile={sd}/slurmctld.log
SlurmdLogFile={sd}/%n/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
{nodes}
PartitionName=cluster Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
""")
        conf = str(self.slurm_conf)
        env = {**os.environ, "SLURM_CONF": conf}
        _run(self.enter(1, ["slurmctld", "-f", conf]), env=env)
        for k in range(1, state.nodes + 1):
            _run(self.enter(k, ["slurmd", "-f", conf, "-N", f"node{k}"]), env=env)
        for _ in range(120):
            sinfo = _run(self.enter(1, ["sinfo", "-h", "-N", "-o", "%N %t"]), check=False, env=env)
            idle = [w for w in sinfo.stdout.split("\n") if w.endswith(" idle")]
            if len(idle) == state.nodes:
                return
            time.sleep(0.5)
        logs = sorted(sd.glob("**/*.log"))
        raise ClusterError(
            f"Slurm's {state.nodes} nodes did not all become idle in 60 s (sinfo: {sinfo.stdout.strip()!r}); "
            f"logs: {', '.join(map(str, logs))}"
        )

    # ---- down ----
    def _leftovers(self) -> list[str]:
        listed = _run(["ip", "netns", "list"], check=False).stdout.split("\n")
        names = [line.split()[0] for line in listed if line.strip()]
        return [n for n in names if n.startswith(f"hx-{self.name}-")]

    def down(self, log=print) -> int:
        """Stop and remove everything of this cluster; returns how many
        namespaces it removed."""
        sd = self.slurm_conf.parent
        pids = [p for p in sd.glob("**/*.pid")] if sd.exists() else []
        spaces = self._leftovers()
        for ns in spaces:
            pids += _run(["ip", "netns", "pids", ns], check=False).stdout.split()
        _stop([_pid(p) for p in pids])
        for ns in spaces:
            _run(["ip", "netns", "del", ns], check=False)
        if self.dir.exists():
            for f in self.dir.glob("*.uts"):
                _run(["umount", str(f)], check=False)
            shutil.rmtree(self.dir, ignore_errors=True)
        log(
            f"cluster {self.name}: removed {len(spaces)} namespaces"
            if spaces
            else f"cluster {self.name}: nothing to remove"
        )
        return len(spaces)

    # ---- use ----
    def status(self) -> str:
        st = self.state()
        lines = [f"cluster {st.name}: {st.nodes} nodes, link rate {st.rate or 'unlimited'}, "
                 f"{st.slots} slots per node, launcher {st.mpirun} ({st.launcher})"]  # fmt: skip
        present = set(self._leftovers())
        for k in range(1, st.nodes + 1):
            ok = "up" if self.netns(k) in present else "MISSING"
            lines.append(f"  node{k}  {self.address(k):<12} namespace {self.netns(k)}  {ok}")
        if st.slurm:
            sinfo = _run(self.enter(1, ["sinfo", "-h", "-N", "-o", "%N %t"]), check=False,
                         env={**os.environ, **self.environment()})  # fmt: skip
            lines.append("  slurm: " + (" ".join(sinfo.stdout.split()) or sinfo.stderr.strip()))
            lines.append(f"  use it: haloex-lab cluster run --name {st.name} -- srun -N 2 hostname")
        return "\n".join(lines)

    def mpirun_words(self, args: list[str]) -> list[str]:
        """The cluster's launcher on node1 with its hosts, agent and MPI
        settings, then the caller's options (mpirun's: -np N, --npernode P)
        and program."""
        st = self.state()
        if st.launcher == "hydra":
            # (Hydra passes the environment on to the ranks: HYDRA_SETTINGS
            # come from environment(); -iface: its own wiring on eth0 too.)
            return self.enter(1, [
                st.mpirun, "-f", str(self.dir / "hostfile.hydra"), "-launcher", "rsh",
                "-launcher-exec", str(self.agent), "-iface", "eth0", *hydra_options(args),
            ])  # fmt: skip
        mca = [w for k, v in MPI_SETTINGS.items() for w in ("--mca", k, v)]
        root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        return self.enter(1, [
            st.mpirun, *root, "--oversubscribe", "--bind-to", "none",
            "--hostfile", str(self.dir / "hostfile"), "--mca", "plm_rsh_agent", str(self.agent),
            *mca, *args,
        ])  # fmt: skip

    def run_words(self, node: int, argv: list[str]) -> list[str]:
        st = self.state()
        if not 1 <= node <= st.nodes:
            raise ClusterError(f"--node {node}: the cluster has nodes 1 to {st.nodes}")
        return self.enter(node, argv)


def _pid(p) -> int:
    try:
        return int(Path(p).read_text().split()[0]) if isinstance(p, Path) else int(p)
    except (OSError, ValueError, IndexError):
        return 0


def _stop(pids: list[int]) -> None:
    """SIGTERM, a moment, then SIGKILL for whatever is left."""
    pids = [p for p in set(pids) if p > 1 and p != os.getpid()]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, sig)
        deadline = time.monotonic() + 3
        while sig == signal.SIGTERM and time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for us.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"
    except OSError:
        return False
