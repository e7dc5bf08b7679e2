"""Network descriptions and the projection: the decompositions the 2016
paper states, message sizes and exchange times worked out by hand, the
injection limit, the LB modes, and every kind of bad description refused."""

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest

from haloex_lab.cli import main
from haloex_lab.network import Link, Network, NetworkError, network_toml, parse_network
from haloex_lab.projection import _messages as messages
from haloex_lab.projection import dims_create, halo_time, project, stops, velocities


def net(per_node=2, off=None, copy=2e10, node=100.0, core=60.0):
    on = Link(1e-6, 1e-6, 8192, 1e9)
    return Network("test", "by hand", per_node, per_node, on, off, copy, node, core)


def test_decompositions_are_the_papers():
    # The 2016 paper: 24 ranks on one ARCHER node as 4x3x2, 192 on 8 nodes as 8x6x4.
    assert dims_create(24, (96, 96, 96)) == (4, 3, 2)
    assert dims_create(192, (96, 96, 96)) == (8, 6, 4)
    # the most ranks along the longest edge
    assert dims_create(2, (64, 128, 64)) == (1, 2, 1)
    assert dims_create(7, (8, 8, 8)) == (7, 1, 1)


def test_velocity_sets():
    assert [len(velocities(v)) for v in ("D3Q15", "D3Q19", "D3Q27")] == [15, 19, 27]
    with pytest.raises(ValueError, match="D2Q9"):
        velocities("D2Q9")


def test_d3q19_messages_by_hand():
    m = dict(messages(velocities("D3Q19"), (4, 5, 6)))
    assert len(m) == 18  # 6 faces and 12 edges; no population crosses a corner
    assert m[(1, 0, 0)] == 5 * 5 * 6 * 8  # 5 populations cross a face
    assert m[(0, -1, 0)] == 5 * 4 * 6 * 8
    assert m[(1, 1, 0)] == 1 * 6 * 8  # one crosses an edge
    assert (1, 1, 1) not in m
    assert len(messages(velocities("D3Q27"), (4, 5, 6))) == 26


def test_exchange_times_by_hand():
    # 8x4x4 over 2 ranks of one node: local 4x4x4. Messages across x go to
    # the other rank: 2 faces of 640 B and 8 edges of 32 B; the rest are
    # periodic images of the rank's own sites: 4 faces and 4 edges.
    vs, procs, local = velocities("D3Q19"), (2, 1, 1), (4, 4, 4)
    c = 2e10 / 2  # the node's copy bandwidth shared by its 2 ranks
    direct = 10 * 1e-6 + 1536 / 1e9 + (2 * 1536 + 2688) / c
    assert halo_time(net(), vs, procs, local, "direct") == pytest.approx(direct)
    # staged: x sends 2 x 640 B; y copies 2 x 5 x (6 x 4) x 8 B; z 2 x 5 x (6 x 6) x 8 B
    staged = 2e-6 + 1280 / 1e9 + 2 * 1280 / c + 1920 / c + 2880 / c
    assert halo_time(net(), vs, procs, local, "staged") == pytest.approx(staged)
    assert halo_time(net(), vs, procs, local, "staged-types") == pytest.approx(staged - 1280 / c)
    # shm: no message on the node; the neighbour's boxes copied strided to strided
    assert halo_time(net(), vs, procs, local, "shm") == pytest.approx((2 * 1536 + 2688) / c)


def test_the_injection_limit():
    # One rank per node: the 1536 B that leave each node through a 1 MB/s
    # NIC, after the one latency of the messages in flight together.
    slow = Link(1e-6, 1e-6, 8192, 1e9, injection_Bps=1e6)
    t = halo_time(net(per_node=1, off=slow), velocities("D3Q19"), (2, 1, 1), (4, 4, 4), "direct")
    assert t == pytest.approx(1e-6 + 1536 / 1e6 + (2 * 1536 + 2688) / 2e10)


def test_message_order_between_nodes():
    # One rank per node, as in test_exchange_times_by_hand but across the
    # network: the direct family's 10 messages to the other rank (1536 B)
    # pay one latency; staged x sends 2 x 640 B together, sendrecv one
    # after the other, red-black sends both and then receives both.
    vs, procs, local = velocities("D3Q19"), (2, 1, 1), (4, 4, 4)
    n = net(per_node=1, off=Link(1e-6, 1e-6, 8192, 1e9, injection_Bps=1e12))
    c = 2e10  # one rank a node: the node's copy bandwidth is its own
    copies = (2 * 1536 + 2688) / c
    assert halo_time(n, vs, procs, local, "direct") == pytest.approx(1e-6 + 1536 / 1e9 + copies)
    rest = (2 * 1280 + 1920 + 2880) / c  # staged's copies: x's messages packed and unpacked, y and z local
    assert halo_time(n, vs, procs, local, "staged") == pytest.approx(1e-6 + 1280 / 1e9 + rest)
    one_by_one = 2 * (1e-6 + 640 / 1e9)
    assert halo_time(n, vs, procs, local, "staged", strategy="sendrecv") == pytest.approx(one_by_one + rest)
    assert halo_time(n, vs, procs, local, "staged", strategy="red-black") == pytest.approx(
        2 * one_by_one + rest
    )
    # on one node the core copies: together or not, the times add up
    assert halo_time(net(), vs, procs, local, "staged", strategy="sendrecv") == pytest.approx(
        halo_time(net(), vs, procs, local, "staged")
    )


def test_lb_modes_by_hand():
    (p,) = project(net(), (8, 4, 4), [2])
    rate = min(60.0, 100.0 / 2) * 1e6
    compute = 64 / rate
    assert p.compute_s == pytest.approx(compute)
    assert p.step_s["blocking"] == pytest.approx(compute + p.halo_s["staged"])
    assert p.step_s["non-blocking"] == pytest.approx(compute + p.halo_s["direct"])
    inner = 2 * 2 * 2  # the 4x4x4 subdomain's sites away from its faces
    assert p.step_s["overlapped"] == pytest.approx(
        (64 - inner) / rate + max(inner / rate, p.halo_s["direct"])
    )
    assert p.mlups["blocking"] == pytest.approx(128 / p.step_s["blocking"] / 1e6)


def test_efficiency_from_the_first_full_node_and_the_stop():
    # 1 rank alone gets 60 of the node's 100: the 2-rank node is the base.
    pts = project(net(off=Link(1e-6, 1e-6, 8192, 1e9, 1e9)), (64, 64, 64), [1, 2, 4, 8, 64, 512, 4096])
    base = next(q for q in pts if q.ranks == 2)
    assert all(v == pytest.approx(1.0) for v in base.efficiency.values())
    assert pts[0].efficiency["blocking"] > 1  # below a full node the shared memory decides
    s = stops(pts, net())
    first_low = next(q.ranks for q in pts if q.ranks > 2 and q.efficiency["blocking"] < 0.5)
    assert s["blocking"] == first_low
    # 4096 ranks leave 4^3 sites each: the blocking step is halo-bound by then
    assert pts[-1].efficiency["blocking"] < 0.5


def test_one_node_description_stops_at_its_ranks():
    with pytest.raises(ValueError, match="no off-node link"):
        project(net(), (64, 64, 64), [2, 4])


DOC = """
[network]
name = "n"
source = "s"
cores_per_node = 4
ranks_per_node = 4
[network.on_node]
latency_s = 1e-6
large_latency_s = 2e-6
eager_bytes = 8192
bandwidth_Bps = 1e10
[network.off_node]
latency_s = 2e-6
large_latency_s = 3e-6
eager_bytes = 16384
bandwidth_Bps = 1e10
injection_Bps = 2e10
[node]
copy_bandwidth_Bps = 1e11
lb_mlups = 300
lb_core_mlups = 100
"""


def test_description_round_trip():
    n = parse_network(tomllib.loads(DOC))
    assert n.off_node.injection_Bps == 2e10 and n.on_node.alpha(9000) == 2e-6 and n.on_node.alpha(10) == 1e-6
    assert parse_network(tomllib.loads(network_toml(n, "a comment"))) == n
    quoted = dataclasses.replace(n, name='a "quoted" name', source="back\\slash and\nnewline")
    assert parse_network(tomllib.loads(network_toml(quoted))) == quoted


@pytest.mark.parametrize(
    "change, message",
    [
        (("lb_mlups = 300", "lb_mlups = 300\nspeed = 1"), r"\[node\]: unknown key\(s\) speed"),
        (("injection_Bps = 2e10\n", ""), r"\[network.off_node\]: missing injection_Bps"),
        (("latency_s = 1e-6", "latency_s = -1e-6"), r"latency_s must be a positive number"),
        (("latency_s = 1e-6", 'latency_s = "fast"'), r"latency_s must be a positive number"),
        (("ranks_per_node = 4", "ranks_per_node = 0"), r"ranks_per_node must be a whole number"),
        (("lb_core_mlups = 100", "lb_core_mlups = 400"), r"more than the whole node"),
        (('name = "n"', 'name = ""'), r"name must be a non-empty string"),
    ],
)
def test_bad_descriptions_are_refused(change, message):
    with pytest.raises(NetworkError, match=message):
        parse_network(tomllib.loads(DOC.replace(*change)))


def test_command_line(tmp_path, capsys):
    f = tmp_path / "n.toml"
    f.write_text(DOC)
    assert main(["project", str(f), "--lattice", "64", "--ranks", "1:64", "-o", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert "Where each mode stops scaling" in out and "against 4 ranks" in out
    assert {p.name for p in (tmp_path / "p").iterdir()} == {
        "projection.md",
        "projection.jsonl",
        "projection.png",
    }
    # bench lb records of the same lattice drawn and tabled beside the model
    rec = {
        "benchmark": "lb",
        "haloex_version": "0",
        "global_size": [64, 64, 64],
        "threads_per_rank": 1,
        "mlups_samples": [50, 60, 70],
    }
    lines = [
        dict(rec, config="aa/soa/sendrecv/none/bgk/worksharing/box", ranks=4),
        dict(rec, config="aa/soa/direct/none/bgk/worksharing/box/out10", ranks=4, output_every=10),
    ]
    (tmp_path / "lb.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    args = ["project", str(f), "--lattice", "64", "--ranks", "4", "-o", str(tmp_path / "m")]
    assert main([*args, "--measured", str(tmp_path / "lb.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "| blocking | 4 | 60.0 |" in out and "non-blocking | 4" not in out.split("Measured")[1]
    for bad, says in [
        (["--ranks", "0:8"], "--ranks"),
        (["--lattice", "64x64"], "--lattice"),
        (["--velocity-set", "D3Q7"], "D3Q7"),
    ]:
        assert main(["project", str(f), "-o", str(tmp_path / "q"), *bad]) == 2
        assert says in capsys.readouterr().err
    (tmp_path / "bad.toml").write_text("[network\n")
    assert main(["project", str(tmp_path / "bad.toml")]) == 2
    assert "bad.toml" in capsys.readouterr().err
    assert main(["project", str(tmp_path / "none.toml")]) == 2
    assert "no such network file" in capsys.readouterr().err


def test_network_from_measured_results(tmp_path, capsys):
    base = {"haloex_version": "0", "threads_per_rank": 1, "host": "h", "date_utc": "d"}
    where = {"placement": {"cpus": ["0", "1"], "ranks_per_host": {"h": 2}}}
    pp = [dict(base, **where, benchmark="pingpong", ranks=2, message_bytes=m, latency_s=[1e-6 + m / 1e9])
          for m in (8, 64, 512)]  # fmt: skip
    halo = dict(base, benchmark="halo", ranks=2, copy_bandwidth_bytes_per_s=[3e10, 4e10, 5e10],
                strategy="staged", local_size=8, time_per_call_s=[1e-5], messages=6, ndim=3,
                halo_bytes=1e4)  # fmt: skip
    sweep = dict(base, benchmark="lb", config="stream")
    lb = [dict(base, benchmark="lb", ranks=1, config="aa/direct/none", overlap="none", mlups_median=40.0),
          dict(sweep, ranks=1, bandwidth_bytes_per_s_median=2e10),
          dict(sweep, ranks=2, bandwidth_bytes_per_s_median=3e10)]  # fmt: skip
    res = tmp_path / "r.jsonl"
    res.write_text("".join(json.dumps(r) + "\n" for r in [*pp, halo, *lb]))
    out = tmp_path / "n" / "this.toml"
    assert main(["network", str(res), "-o", str(out)]) == 0
    n = parse_network(tomllib.loads(out.read_text()))
    assert (n.cores_per_node, n.ranks_per_node, n.off_node) == (2, 2, None)
    assert n.on_node.latency_s == pytest.approx(1e-6, rel=1e-3) and n.on_node.bandwidth_Bps == pytest.approx(
        1e9, rel=1e-3
    )
    assert n.copy_bandwidth_Bps == pytest.approx(4e10, rel=1e-3)
    assert n.lb_core_mlups == 40 and n.lb_mlups == pytest.approx(
        60
    )  # 40 at the node's 3/2 of one rank's bandwidth
    # without LB records there is no node rate to give
    res.write_text("".join(json.dumps(r) + "\n" for r in [*pp, halo]))
    assert main(["network", str(res), "-o", str(out)]) == 2
    assert "no bench lb records" in capsys.readouterr().err
    # ping-pongs whose two ranks ran on two hosts give the off-node link, measured
    far = {"placement": {"cpus": ["0", "1"], "ranks_per_host": {"node1": 1, "node2": 1}}}
    pp_off = [dict(p, **far, latency_s=[20e-6 + p["message_bytes"] / 2e9]) for p in pp]
    res.write_text("".join(json.dumps(r) + "\n" for r in [*pp, *pp_off, halo, *lb]))
    archer2 = Path(__file__).resolve().parents[2] / "networks" / "archer2-like.toml"
    assert main(["network", str(res), "-o", str(out), "--off-node", str(archer2)]) == 0
    n = parse_network(tomllib.loads(out.read_text()))
    assert n.off_node.latency_s == pytest.approx(20e-6, rel=1e-3)
    assert n.off_node.bandwidth_Bps == pytest.approx(2e9, rel=1e-3) == n.off_node.injection_Bps
    assert "ping-pong between two nodes" in n.source  # measured, not borrowed
    # the on-node link still comes from the ping-pong on one node
    assert n.on_node.latency_s == pytest.approx(1e-6, rel=1e-3)
