"""haloex-lab cluster: what can be checked without making one (the cluster_
tests in tests/cluster make real ones)."""

import dataclasses
import json

import pytest

from haloex_lab import cluster
from haloex_lab.cli import main
from haloex_lab.cluster import Cluster, ClusterError, launcher_kind, rate_bytes
from haloex_lab.launchers import Launcher, Where


def test_rates_are_tc_rates_in_bits():
    assert rate_bytes("1gbit") == 125e6
    assert rate_bytes("100mbit") == 12.5e6
    for bad in ("1GB", "fast", "0gbit", "-1mbit", "1.5"):
        with pytest.raises(ClusterError, match="give a positive rate"):
            rate_bytes(bad)


def test_names_and_places():
    c = Cluster("t1")
    assert (c.netns(3), c.switch, c.address(3)) == ("hx-t1-node3", "hx-t1-switch", "198.18.0.3")
    words = c.enter(2, ["hostname"])
    assert "--net=/run/netns/hx-t1-node2" in words and words[-1] == "hostname"
    for bad in ("", "Big", "a b", "x" * 13, "-lead"):
        with pytest.raises(ClusterError, match="cluster name"):
            Cluster(bad)


def test_commands_say_what_is_wrong(capsys):
    assert main(["cluster", "mpirun", "--name", "nosuch", "-np", "2"]) == 2
    assert "give the program after '--'" in capsys.readouterr().err
    assert main(["cluster", "run", "--name", "nosuch", "--", "hostname"]) == 2
    assert "cluster 'nosuch' is not up" in capsys.readouterr().err
    assert main(["cluster", "run", "--node", "x", "--", "hostname"]) == 2
    assert "--node 'x'" in capsys.readouterr().err


def test_cluster_launcher_words():
    words = Launcher("cluster", [], "c2").words(Where(4, 1, 2, 2))
    at = words.index("cluster")
    assert words[at:] == ["cluster", "mpirun", "--name", "c2", "-np", "4", "--npernode", "2", "--"]
    assert Launcher("cluster", [], "c2").described() == "haloex-lab cluster mpirun --name c2"


def _fake(tmp_path, name, version_text):
    """A program that prints version_text for --version."""
    p = tmp_path / name
    p.write_text(f"#!/bin/sh\ncat <<'X'\n{version_text}\nX\n")
    p.chmod(0o755)
    return str(p)


def test_the_launcher_is_told_by_its_version(tmp_path):
    assert launcher_kind(_fake(tmp_path, "ompi", "mpirun (Open MPI) 4.1.4")) == "openmpi"
    assert launcher_kind(_fake(tmp_path, "hydra", "HYDRA build details:\n    Version: 4.0.2")) == "hydra"
    with pytest.raises(ClusterError, match=r"neither Open MPI's mpirun nor a Hydra mpiexec.*'srun 23\.02'"):
        launcher_kind(_fake(tmp_path, "other", "srun 23.02"))
    with pytest.raises(ClusterError, match="no such program"):
        launcher_kind(str(tmp_path / "absent"))


def _up(tmp_path, monkeypatch, launcher):
    """A cluster's state as up leaves it, without making the cluster."""
    monkeypatch.setattr(cluster, "RUN_DIR", tmp_path)
    c = Cluster("t2")
    c.dir.mkdir()
    state = cluster.State("t2", 2, None, False, 2, f"/opt/{launcher}/mpiexec", launcher)
    (c.dir / "state.json").write_text(json.dumps(dataclasses.asdict(state)))
    return c


def test_hydra_jobs_get_its_options_and_settings(tmp_path, monkeypatch):
    c = _up(tmp_path, monkeypatch, "hydra")
    words = c.mpirun_words(["-np", "4", "--npernode", "2", "prog"])
    at = words.index("/opt/hydra/mpiexec")
    assert words[at:] == [
        "/opt/hydra/mpiexec",
        "-f",
        str(c.dir / "hostfile.hydra"),
        "-launcher",
        "rsh",
        "-launcher-exec",
        str(c.agent),
        "-iface",
        "eth0",
        "-np",
        "4",
        "-ppn",
        "2",
        "prog",
    ]
    env = c.environment()
    assert env["UCX_TLS"] == "tcp,self" and env["HALOEX_MPICH_YIELD"] == "always"
    assert not any(k.startswith("OMPI_MCA_") for k in env)


def test_open_mpi_jobs_get_mca_settings(tmp_path, monkeypatch):
    c = _up(tmp_path, monkeypatch, "openmpi")
    words = c.mpirun_words(["-np", "4", "--npernode", "2", "prog"])
    assert words[words.index("/opt/openmpi/mpiexec") + 1 :][-5:] == ["-np", "4", "--npernode", "2", "prog"]
    assert ["--mca", "plm_rsh_agent", str(c.agent)] == words[words.index("plm_rsh_agent") - 1 :][:3]
    assert c.environment()["OMPI_MCA_mpi_yield_when_idle"] == "1"


def test_a_state_from_before_launchers_were_kept_is_open_mpi(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "RUN_DIR", tmp_path)
    c = Cluster("t3")
    c.dir.mkdir()
    old = {"name": "t3", "nodes": 2, "rate": None, "slurm": False, "slots": 2}
    (c.dir / "state.json").write_text(json.dumps(old))
    assert (c.state().mpirun, c.state().launcher) == ("mpirun", "openmpi")
