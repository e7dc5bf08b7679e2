"""The latency-bandwidth model: the fit recovers known parameters, and the
prediction follows its formula, by hand."""

import pytest

from haloex_lab.model import (
    Fits,
    Hockney,
    cpu_share,
    fit_hockney,
    model_rows,
    pingpongs,
    predict,
    predict_from_list,
)


def test_fit_recovers_two_regimes():
    sizes = [2**k for k in range(3, 23)]
    small, large = Hockney(0.5e-6, 4e9, 0, 8192), Hockney(3e-6, 10e9, 8192, float("inf"))
    times = [small.time(m) if m < 8192 else large.time(m) for m in sizes]
    fit = fit_hockney(sizes, times)
    assert len(fit) == 2 and fit[0].hi == 8192
    assert fit[0].alpha == pytest.approx(0.5e-6, rel=1e-6) and fit[0].beta == pytest.approx(4e9, rel=1e-6)
    assert fit[1].alpha == pytest.approx(3e-6, rel=1e-6) and fit[1].beta == pytest.approx(10e9, rel=1e-6)


def test_prediction_by_hand():
    fit = [Hockney(1e-6, 1e9, 0, float("inf"))]
    # staged in 3-D: 6 messages in sequence; 6e5 bytes; copies at 1e10 B/s, twice
    assert predict("staged", 26, 3, 6e5, 1e10, fit) == pytest.approx(6e-6 + 6e-4 + 1.2e-4)
    # direct: its 26 messages
    assert predict("direct", 26, 3, 6e5, 1e10, fit) == pytest.approx(26e-6 + 6e-4 + 1.2e-4)
    # shm: a pack's and an unpack's copies, two flag waits, no message
    assert predict("shm", 26, 3, 6e5, 1e10, fit) == pytest.approx(2e-6 + 1.2e-4)


# A message list as bench halo records it: 2 ranks, periodic in y and z.
LIST = {
    "direct": {"messages": 18, "remote_bytes": 9e4, "local_bytes": 1.6e5},
    "staged": [
        {"messages": 2, "remote_bytes": 8e4, "local_bytes": 0},
        {"messages": 0, "remote_bytes": 0, "local_bytes": 9e4},
        {"messages": 0, "remote_bytes": 0, "local_bytes": 1e5},
    ],
}
FIT = [Hockney(1e-6, 1e9, 0, 8192), Hockney(4e-6, 1e10, 8192, float("inf"))]
FITS = Fits(FIT)


def test_prediction_from_the_message_list_by_hand():
    bw = 1e10
    # staged: one stage of 2 messages of 4e4 B (the large range), bytes at
    # beta_inf, packed and unpacked; then two stages of local copies
    staged = 2 * 4e-6 + 8e4 / 1e10 + 2 * 8e4 / bw + (9e4 + 1e5) / bw
    assert predict_from_list("staged", LIST, bw, FITS) == pytest.approx(staged)
    # MPI packs the datatypes of staged-types: one copy of the remote bytes
    assert predict_from_list("staged-types", LIST, bw, FITS) == pytest.approx(staged - 8e4 / bw)
    # direct: 18 messages of 5000 B (the small range's alpha), bytes at beta_inf
    direct = 18 * 1e-6 + 9e4 / 1e10 + 2 * 9e4 / bw + 1.6e5 / bw
    assert predict_from_list("direct", LIST, bw, FITS) == pytest.approx(direct)
    # two ranks to a CPU stretch the message terms, not the copies
    assert predict_from_list("direct", LIST, bw, FITS, 2.0) == pytest.approx(direct + 18e-6 + 9e-6)
    assert predict_from_list("shm", LIST, bw, FITS) == pytest.approx(2e-6 + (2 * 9e4 + 1.6e5) / bw)


def test_cpu_share_from_placement():
    def rec(cpus, per_host):
        return {"placement": {"cpus": cpus, "ranks_per_host": per_host}}

    assert cpu_share(rec(["0-1"] * 4, {"a": 4})) == 2.0  # 4 ranks on 2 CPUs
    assert cpu_share(rec(["0", "1"], {"a": 2})) == 1.0
    assert cpu_share(rec(["0,2", "1,3"], {"a": 2})) == 1.0  # never below one CPU each
    assert cpu_share({}) == 1.0
    # two emulated hosts on one kernel share its 2 CPUs: 4 ranks on 2
    two = {"cpus": ["0-1"] * 4, "ranks_per_host": {"n1": 2, "n2": 2}, "hosts": ["n1", "n1", "n2", "n2"]}
    assert cpu_share({"placement": two}) == 1.0
    assert cpu_share({"placement": {**two, "kernels": ["k"] * 4}}) == 2.0
    assert cpu_share({"placement": {**two, "kernels": ["k1", "k1", "k2", "k2"]}}) == 1.0


def test_auto_is_predicted_as_what_it_chose():
    pp = [{"benchmark": "pingpong", "message_bytes": m, "latency_s": [FIT[0].time(m)]} for m in (8, 64, 512)]
    halo = {
        "benchmark": "halo",
        "ranks": 2,
        "local_size": 16,
        "copy_bandwidth_bytes_per_s": [2e10],
        "time_per_call_s": [1e-4],
        "message_list": LIST,
    }
    auto = dict(halo, strategy="auto", resolved_strategy="shm")
    _, rows = model_rows([*pp, auto, dict(halo, strategy="shm")])
    assert rows[0].predicted == pytest.approx(rows[1].predicted)


def test_rows_need_a_pingpong():
    with pytest.raises(ValueError, match="no ping-pong records"):
        model_rows([{"benchmark": "halo"}])


def test_each_message_pays_its_own_latency():
    # 2 faces of 40000 B (the large range's alpha) and 16 edges of 625 B (the small one's)
    sized = {**LIST, "direct": {**LIST["direct"], "message_bytes": [4e4, 4e4] + [625] * 16}}
    direct = 2 * 4e-6 + 16 * 1e-6 + 9e4 / 1e10 + (2 * 9e4 + 1.6e5) / 1e10
    assert predict_from_list("direct", sized, 1e10, FITS) == pytest.approx(direct)


# Across two nodes: of the direct pattern's 4 messages of 1e5 B, 2 leave the node.
CROSS = {
    "direct": {
        "messages": 4,
        "remote_bytes": 4e5,
        "message_bytes": [1e5] * 4,
        "off_node_messages": 2,
        "off_node_bytes": 2e5,
        "off_node_message_bytes": [1e5] * 2,
        "local_bytes": 0,
    },
    "staged": [],
}
OFF = [Hockney(20e-6, 1e9, 0, float("inf"))]


def test_messages_off_the_node_pay_the_off_node_link():
    fits, bw = Fits(FIT, OFF), 1e10
    on = 2 * 4e-6 + 2e5 / 1e10
    off = 2 * 20e-6 + 2e5 / 1e9
    assert predict_from_list("direct", CROSS, bw, fits) == pytest.approx(on + off + 2 * 4e5 / bw)
    # shm reads its node's neighbours in place; the others go as in direct
    shm = 2 * 1e-6 + 2 * 2e5 / bw + off + 2 * 2e5 / bw
    assert predict_from_list("shm", CROSS, bw, fits) == pytest.approx(shm)
    # node-gather: the busiest node sends 4 messages' bytes to its one peer node, as one message
    traffic = {"nodes": 2, "messages_per_node": 4, "bytes_per_node": 4e5, "peer_nodes": 1}
    gather = on + 2 * 2e5 / bw + 2 * 1e-6 + (20e-6 + 4e5 / 1e9) + 2 * 2e5 / bw
    assert predict_from_list("node-gather", CROSS, bw, fits, 1.0, traffic) == pytest.approx(gather)
    # without an off-node fit every message is taken as the node's
    assert predict_from_list("direct", CROSS, bw, FITS) == pytest.approx(4 * 4e-6 + 4e5 / 1e10 + 8e5 / bw)


def test_halo_across_nodes_needs_an_off_node_pingpong():
    pp = [{"benchmark": "pingpong", "message_bytes": m, "latency_s": [FIT[0].time(m)]} for m in (8, 64, 512)]
    halo = {
        "benchmark": "halo",
        "strategy": "direct",
        "ranks": 4,
        "local_size": 16,
        "copy_bandwidth_bytes_per_s": [4e10],
        "time_per_call_s": [1e-4],
        "message_list": CROSS,
        "placement": {"ranks_per_host": {"node1": 2, "node2": 2}},
    }
    with pytest.raises(ValueError, match="no ping-pong between two nodes"):
        model_rows([*pp, halo])
    far = {"placement": {"ranks_per_host": {"node1": 1, "node2": 1}}}
    pp_off = [dict(p, latency_s=[OFF[0].time(p["message_bytes"])], **far) for p in pp]
    fits, rows = model_rows([*pp, *pp_off, halo])
    assert fits.off[0].alpha == pytest.approx(20e-6) and rows[0].nodes == 2
    assert rows[0].predicted == pytest.approx(predict_from_list("direct", CROSS, 1e10, fits))


def test_direct_family_sends_one_message_per_peer():
    # The 2 messages to each of 2 peers (one on the node, one off it) travel as one each.
    peers = {**CROSS["direct"], "peer_message_bytes": [2e5, 2e5], "off_node_peer_message_bytes": [2e5]}
    ml, fits, bw = {"direct": peers, "staged": [peers]}, Fits(FIT, OFF), 1e10
    one_each = (4e-6 + 2e5 / 1e10) + (20e-6 + 2e5 / 1e9) + 2 * 4e5 / bw
    for s in ("direct", "direct-waitany", "persistent", "neighbor"):
        assert predict_from_list(s, ml, bw, fits) == pytest.approx(one_each), s
    # the staged family sends each link's message on its own
    per_link = 2 * 4e-6 + 2e5 / 1e10 + 2 * 20e-6 + 2e5 / 1e9 + 2 * 4e5 / bw
    assert predict_from_list("staged", ml, bw, fits) == pytest.approx(per_link)


def test_model_fits_the_bounced_buffer_pingpong():
    """--buffers one (a message from memory just written, as a halo's) is
    fitted when present; osu's records alone are used when it is not."""
    one = [{"benchmark": "pingpong", "message_bytes": m, "latency_s": [2e-6]} for m in (8, 64)]
    osu = [
        {"benchmark": "pingpong", "message_bytes": m, "latency_s": [1e-6], "buffers": "osu"} for m in (8, 64)
    ]
    assert pingpongs(osu + one)[0] == one
    assert pingpongs(osu)[0] == osu
