"""haloex-lab simulate without SimGrid: the platform, host file and SMPI
settings a network description becomes, worked out by hand; records marked
as simulated; and every input it cannot use refused with its reason. (The
real program on SMPI runs in tests/smpi/simulated_halo.sh.)"""

import json
import xml.etree.ElementTree as ET

import pytest

from haloex_lab.cli import main
from haloex_lab.network import Link, Network
from haloex_lab.simulate import Machine, SimulateError, tag_records


def net(per_node=2, off=True):
    on = Link(0.5e-6, 2e-6, 8192, 10e9)
    o = Link(2e-6, 4e-6, 16384, 11e9, 12.5e9) if off else None
    return Network("two -- cores", "by hand", per_node, per_node, on, o, 2e10, 100.0, 60.0)


def test_platform_from_a_description():
    m = Machine.for_ranks(net(), 8192)
    assert (m.nodes, m.ranks_per_node) == (4096, 2)
    assert m.stream_factor() == pytest.approx(11 / 12.5)
    cluster = ET.fromstring(m.platform_xml()).find("cluster")
    assert cluster.get("radical") == "0-4095" and cluster.get("core") == "2"
    # Each node's link carries the injection, half the latency each way; the
    # loopback's bandwidth is scaled so that after the factor one on-node
    # stream runs at the described 10 GB/s.
    assert cluster.get("bw") == "1.25e+10Bps" and cluster.get("lat") == "1e-06s"
    assert cluster.get("sharing_policy") == "SPLITDUPLEX"
    assert float(cluster.get("loopback_bw")[:-3]) * m.stream_factor() == pytest.approx(10e9, rel=1e-5)
    assert cluster.get("loopback_lat") == "5e-07s"
    # "--" cannot stand in an XML comment: the name is escaped.
    assert "two - - cores" in m.platform_xml()


def test_host_file_and_settings():
    m = Machine.for_ranks(net(per_node=2), 5)
    assert m.nodes == 3
    assert m.hostfile(5).split() == ["node-0", "node-0", "node-1", "node-1", "node-2"]
    cfg = m.smpi_config()
    assert "--cfg=smpi/lat-factor:0:1;16384:2" in cfg  # rendezvous latency from eager_bytes up
    assert "--cfg=smpi/send-is-detached-thresh:0" in cfg
    assert "--cfg=smpi/simulate-computation:no" in cfg
    assert Machine.for_ranks(net(), 4, ranks_per_node=4).nodes == 1


def test_refusals():
    with pytest.raises(SimulateError, match="no off-node link"):
        Machine.for_ranks(net(off=False), 4)
    with pytest.raises(SimulateError, match="at least 1 rank"):
        Machine.for_ranks(net(), 0)


def test_records_marked_atomically(tmp_path):
    raw = tmp_path / "r.jsonl"
    raw.write_text('{"benchmark": "halo", "ranks": 4}\n{"benchmark": "halo", "ranks": 4}\n')
    m = Machine.for_ranks(net(), 4)
    assert tag_records(raw, m, "SimGrid version 3.32", ["smpirun"]) == 2
    recs = [json.loads(line) for line in raw.read_text().splitlines()]
    assert all(r["simulated"] and r["platform"]["nodes"] == 2 for r in recs)
    assert recs[0]["simulator"]["version"] == "SimGrid version 3.32"
    assert not (tmp_path / "r.jsonl.tmp").exists()


def test_command_line_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HALOEX_SMPI", str(tmp_path / "none"))
    desc = tmp_path / "n.toml"
    desc.write_text("[network]\n")
    assert main(["simulate", str(tmp_path / "missing.toml"), "--ranks", "4", "--", "info"]) == 2
    assert "no such network file" in capsys.readouterr().err
    assert main(["simulate", str(desc), "--ranks", "4", "--", "info"]) == 2
    assert "missing" in capsys.readouterr().err


def halo_record(strategy, plan="reduced", simulated=True):
    return {
        "benchmark": "halo",
        "simulated": simulated,
        "strategy": strategy,
        "resolved_strategy": strategy,
        "halo_plan": plan,
        "velocity_set": "D3Q19",
        "ndim": 3,
        "ranks": 8,
        "process_grid": [2, 2, 2],
        "local_extent": [4, 4, 4],
        "platform": {"nodes": 4, "ranks_per_node": 2},
        "median_time_per_call_s": 1e-5,
    }


def test_model_beside_simulated_records():
    from haloex_lab.projection import halo_time, velocities
    from haloex_lab.simulate import family_of, model_against_simulation

    assert family_of("sendrecv") == "staged" and family_of("persistent") == "direct"
    assert family_of("shm") == "shm" and family_of("nonsense") is None
    recs = [
        halo_record("direct"),
        halo_record("sendrecv"),
        halo_record("direct", plan="full"),
        halo_record("direct", simulated=False),
    ]
    rows, skipped = model_against_simulation(net(), recs)
    assert [a.strategy for a in rows] == ["direct", "sendrecv"]
    # The model's messages alone (no copies), on the record's grid and 2 ranks a node.
    want = halo_time(net(), velocities("D3Q19"), (2, 2, 2), (4, 4, 4), "direct", copies=False)
    assert rows[0].model_s == pytest.approx(want) and rows[0].ratio == pytest.approx(want / 1e-5)
    assert halo_time(net(), velocities("D3Q19"), (2, 2, 2), (4, 4, 4), "direct") > want
    assert len(skipped) == 1 and "reduced 3-D plans" in skipped[0]
