"""Calibrating SMPI's factors from bench pingpong records: a ping-pong
made from a known piecewise model gives back that model's latencies and
bandwidths, and the factors against the platform's own route; every input
it cannot use is refused with its reason. (No SimGrid needed.)"""

import json

import numpy as np
import pytest

from haloex_lab.calibrate import (
    ENVELOPE_BYTES,
    CalibrateError,
    calibrate,
    calibration_text,
    fit_line,
    load_pingpong,
    measured_path,
)
from haloex_lab.cli import main
from haloex_lab.network import Link, Network
from haloex_lab.simulate import Machine, SimulateError, machine_calibration, tag_records

# (first size, a seconds, b bytes/s): eager up to 1 KiB, rendezvous above,
# and a slower bandwidth from 128 KiB (out of cache).
MODEL = ((1, 0.2e-6, 5e9), (1024, 1.5e-6, 10e9), (131072, 10e-6, 20e9))
SIZES = [2**k for k in range(23)]  # 1 B to 4 MiB


def model_time(m, model=MODEL):
    _, a, b = next(s for s in reversed(model) if m >= s[0])
    return a + m / b


def record(m, samples, hosts=("vm", "vm"), **extra):
    return {
        "benchmark": "pingpong",
        "buffers": "osu",
        "message_bytes": m,
        "latency_s": samples,
        "pair": [0, 1],
        "placement": {"hosts": list(hosts)},
        **extra,
    }


def pingpong(model=MODEL, sizes=SIZES, hosts=("vm", "vm")):
    """Each size's samples spread around the model's time, its median
    exactly the model's; split over two records of the size (two runs)."""
    out = []
    for m in sizes:
        t = model_time(m, model)
        out += [record(m, [0.9 * t, t], hosts), record(m, [1.3 * t], hosts)]
    return out


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def net(off=True):
    on = Link(0.5e-6, 2e-6, 1024, 10e9)
    o = Link(2e-6, 4e-6, 16384, 11e9, 12.5e9) if off else None
    return Network("two cores", "by hand", 2, 2, on, o, 2e10, 100.0, 60.0)


def test_a_known_piecewise_model_comes_back():
    L, B = 0.4e-6, 8e9
    c = calibrate(pingpong(), L, B, eager_bytes=1024, source="pp.jsonl")
    assert [(s.first_bytes, s.last_bytes) for s in c.segments] == [(1, 512), (1024, 65536), (131072, 4194304)]
    for seg, (_, a, b) in zip(c.segments, MODEL, strict=True):
        assert seg.latency_s == pytest.approx(a, rel=1e-6)
        assert seg.bandwidth_Bps == pytest.approx(b, rel=1e-6)
        assert seg.bw_factor == pytest.approx(b / B, rel=1e-6)
        # SMPI sends 16 bytes more than the message: their transfer comes
        # out of the latency, so that its time is a + m / b again.
        assert seg.lat_factor == pytest.approx((a - ENVELOPE_BYTES / b) / L, rel=1e-6)
        assert seg.worst_error < 1e-9 and not seg.latency_clipped
    bw, lat = c.smpi_factors()
    # A factor applies above its key, to the message and its envelope.
    assert [k.split(":")[0] for k in bw.split(";")] == ["0", "1039", "131087"]
    assert float(lat.split(";")[1].split(":")[1]) == pytest.approx((1.5e-6 - 16 / 10e9) / L, rel=1e-8)
    for m in SIZES:
        assert c.time(m) == pytest.approx(model_time(m), rel=1e-6)


def test_the_break_is_found_without_eager_bytes():
    model = ((1, 1e-6, 4e9), (65536, 3e-6, 12e9))
    c = calibrate(pingpong(model), 1e-6, 1e10, eager_bytes=None)
    assert [s.first_bytes for s in c.segments] == [1, 65536]
    assert c.segments[1].latency_s == pytest.approx(3e-6, rel=1e-6)
    # One straight line where one fits: a single segment.
    one = calibrate(pingpong(((1, 1e-6, 4e9),)), 1e-6, 1e10, eager_bytes=None)
    assert len(one.segments) == 1 and one.segments[0].bandwidth_Bps == pytest.approx(4e9, rel=1e-6)


def test_negative_latency_is_clipped():
    # 2 and 4 MiB, the second more than twice as slow: the line through
    # them would start below 0; it goes through the origin instead.
    m, t = np.array([2097152.0, 4194304.0]), np.array([160e-6, 450e-6])
    a, b, clipped, _ = fit_line(m, t)
    x = m / t  # minimises sum((x / b - 1)^2)
    assert clipped and a == 0.0 and b == pytest.approx(np.sum(x * x) / np.sum(x), rel=1e-12)
    c = calibrate(pingpong(((1, 1e-6, 1e10),), sizes=[1, 2, 4, 2097152]), 1e-6, 1e10, None)
    assert all(s.lat_factor >= 0 for s in c.segments)


def test_against_the_platforms_route(tmp_path):
    m = Machine.for_ranks(net(), 4)
    on = machine_calibration(m, write(tmp_path / "on.jsonl", pingpong()))
    assert on.path == "node"
    # The loopback: the described latency, the bandwidth scaled by 1/f.
    assert (on.link_latency_s, on.link_bandwidth_Bps) == m.loopback()
    assert on.segments[0].bw_factor == pytest.approx(5e9 / (10e9 / m.stream_factor()), rel=1e-5)
    off = machine_calibration(m, write(tmp_path / "off.jsonl", pingpong(hosts=("a", "b"))))
    assert off.path == "off-node" and (off.link_latency_s, off.link_bandwidth_Bps) == (2e-6, 12.5e9)
    # The off-node description's eager size (16 KiB) splits the sizes first.
    assert any(s.first_bytes == 16384 for s in off.segments)
    cfg = m.smpi_config(off)
    assert f"--cfg=smpi/bw-factor:{off.smpi_factors()[0]}" in cfg
    assert f"--cfg=smpi/lat-factor:{off.smpi_factors()[1]}" in cfg
    # SMPI has one set of factors: a run on both paths is told so.
    assert "messages on one node get them too" in calibration_text(off, both_paths=True)
    assert "get them too" not in calibration_text(off)


def test_records_name_their_calibration(tmp_path):
    m = Machine.for_ranks(net(), 2)
    c = machine_calibration(m, write(tmp_path / "pp.jsonl", pingpong()))
    raw = write(tmp_path / "r.jsonl", [{"benchmark": "pingpong"}])
    tag_records(raw, m, "SimGrid version 3.32", ["smpirun"], c)
    rec = json.loads(raw.read_text())
    assert rec["calibration"]["source"].endswith("pp.jsonl") and len(rec["calibration"]["segments"]) == 3
    assert rec["calibration"]["bw_factor"] == c.smpi_factors()[0]
    plain = write(tmp_path / "plain.jsonl", [{"benchmark": "pingpong"}])
    tag_records(plain, m, "SimGrid version 3.32", ["smpirun"])
    assert "calibration" not in json.loads(plain.read_text())


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([{"benchmark": "halo"}], "a halo record"),
        ([record(1, [1e-6], simulated=True)], "simulated"),
        ([record(1, [0.0])], "not positive"),
        ([record(0, [1e-6])], "0 bytes"),
        ([record(1, [1e-6]), {**record(2, [1e-6]), "buffers": "one"}], "mixes --buffers"),
        ([], "no records"),
    ],
)
def test_records_refused(tmp_path, records, message):
    with pytest.raises(CalibrateError, match=message):
        load_pingpong(write(tmp_path / "pp.jsonl", records))


def test_inputs_refused(tmp_path):
    with pytest.raises(CalibrateError, match="no such file"):
        load_pingpong(tmp_path / "missing.jsonl")
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    with pytest.raises(CalibrateError, match=r"bad.jsonl:1: not a JSON record"):
        load_pingpong(tmp_path / "bad.jsonl")
    with pytest.raises(CalibrateError, match="3 message size"):
        calibrate(pingpong(sizes=[1, 2, 4]), 1e-6, 1e10, None)
    unplaced = [{k: v for k, v in r.items() if k != "placement"} for r in pingpong()]
    with pytest.raises(CalibrateError, match="--calibrate-on"):
        measured_path(unplaced, None, "pp")
    assert measured_path(unplaced, "off-node", "pp")[0] == "off-node"
    with pytest.raises(CalibrateError, match="on one node and between nodes"):
        measured_path(pingpong() + pingpong(hosts=("a", "b")), None, "pp")
    with pytest.raises(CalibrateError, match="no ping-pong between two nodes"):
        measured_path(pingpong(), "off-node", "pp")
    pp = write(tmp_path / "off.jsonl", pingpong(hosts=("a", "b")))
    with pytest.raises(SimulateError, match="no off-node link"):
        machine_calibration(Machine.for_ranks(net(off=False), 2), pp)


def test_command_line(tmp_path, capsys):
    desc = tmp_path / "n.toml"
    desc.write_text(
        '[network]\nname = "n"\nsource = "s"\ncores_per_node = 2\nranks_per_node = 2\n'
        "[network.on_node]\nlatency_s = 1e-6\nlarge_latency_s = 2e-6\neager_bytes = 1024\n"
        "bandwidth_Bps = 1e10\n"
        "[node]\ncopy_bandwidth_Bps = 1e10\nlb_mlups = 100\nlb_core_mlups = 60\n"
    )
    halo = write(tmp_path / "halo.jsonl", [{"benchmark": "halo"}])
    argv = ["simulate", str(desc), "--ranks", "2", "--calibrate", str(halo), "--", "bench", "pingpong"]
    assert main(argv) == 2
    assert "a halo record; calibrate from `haloex bench pingpong` records" in capsys.readouterr().err
    argv[5] = str(tmp_path / "missing.jsonl")
    assert main(argv) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err
