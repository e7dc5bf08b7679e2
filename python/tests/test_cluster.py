"""haloex-lab cluster: what can be checked without making one (the cluster_
tests in tests/cluster make real ones)."""

import pytest

from haloex_lab.cli import main
from haloex_lab.cluster import Cluster, ClusterError, rate_bytes
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
