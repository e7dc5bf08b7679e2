"""The report on a small recorded results file, and its numbers on hand-made
records whose answers are known."""

import json
import math
import shutil
from pathlib import Path

import pytest

from haloex_lab.benchmarks.halo.points import (
    comm_work_ratio,
    halo_point,
    halo_sweeps,
    speedups,
    strong_series,
)
from haloex_lab.benchmarks.halo.recommend import recommend, recommendations
from haloex_lab.benchmarks.lb import lb_scaling
from haloex_lab.benchmarks.stencil import stencil_series
from haloex_lab.cli import main
from haloex_lab.report import build_report
from haloex_lab.results import ResultsError, load_results

DATA = Path(__file__).parent / "data" / "small.jsonl"


def halo_record(strategy, L, times, ranks=2, scaling="fixed-subdomain", shape="cubic"):
    sites = float(L) ** 3
    return {
        "benchmark": "halo",
        "haloex_version": "test",
        "ranks": ranks,
        "threads_per_rank": 1,
        "strategy": strategy,
        "local_size": L,
        "local_extent": [L, L, L],
        "sites_per_rank": sites,
        "shape": shape,
        "scaling": scaling,
        "global_size": [L * ranks, L, L],
        "process_grid": [ranks, 1, 1],
        "ndim": 3,
        "ncomp": 19,
        "dtype": "double",
        "layout": "aos",
        "halo_plan": "full",
        "halo_width": 1,
        "work_s": 0.0,
        "time_per_call_s": times,
        "halo_bytes": (6 * L * L + 12 * L + 8) * 19 * 8.0,
    }


def test_recorded_file_gives_every_section(tmp_path):
    shutil.copy(DATA, tmp_path / "results.jsonl")
    path, table = build_report(tmp_path)
    text = path.read_text()
    for heading in [
        "## Recommendation",
        "## Halo exchange against subdomain size",
        "### Communication against work",
        "cubic against non-cubic",
        "## Strong scaling",
        "## Ping-pong",
        "## Lattice Boltzmann saturation",
        "## Memory bandwidth",
    ]:
        assert heading in text, heading
    figs = sorted(p.name for p in (tmp_path / "figures").iterdir())
    for name in ["comm_work_ratio.png", "pingpong.png", "lb_saturation.png", "noncubic_np2.png"]:
        assert name in figs
    assert any(n.startswith("strong_48x48x48") for n in figs)
    # every figure the report links exists
    for line in text.splitlines():
        if line.startswith("!["):
            assert (tmp_path / line.rsplit("(", 1)[1].rstrip(")")).is_file(), line
    # 2 cubic sizes + 2 non-cubic + 2 strong-scaling rank counts, 3 strategies each
    assert table.count("\n") == 2 + 6 + 2  # header, 6 rows, a blank line, how many are decided


def test_recommendation_and_margin():
    # 11 rounds, the machine drifting by 1% per round: direct 1.2x staged,
    # neighbor 2x, in every round
    drift = [1 + 0.01 * r for r in range(11)]
    pts = [
        halo_point(halo_record("staged", 16, [10e-6 * d for d in drift])),
        halo_point(halo_record("direct", 16, [12e-6 * d for d in drift])),
        halo_point(halo_record("neighbor", 16, [20e-6 * d for d in drift])),
    ]
    r = recommend(pts, "16")
    assert (r.fastest, r.runner_up, r.verdict) == ("staged", "direct", "decided")
    assert r.against.ratio == pytest.approx(1.2)
    # staged faster in 6 rounds, direct in 5: neither decided nor a tie
    close = [
        halo_point(halo_record("staged", 16, [10e-6 * d for d in drift])),
        halo_point(
            halo_record("direct", 16, [(9.5e-6 if r % 2 else 10.5e-6) * d for r, d in enumerate(drift)])
        ),
    ]
    r = recommend(close, "16")
    assert r.verdict == "undecided" and r.open_with in ("staged", "direct")


def test_recommendations_group_by_size():
    records = [
        halo_record(s, L, [t * L * 1e-6] * 7) for L in (8, 16) for s, t in (("staged", 1.0), ("direct", 2.0))
    ]
    recs = recommendations(halo_sweeps(records), strong_series(records))
    assert [r.label for r in recs] == ["8x8x8 (cubic, 2 ranks)", "16x16x16 (cubic, 2 ranks)"]
    assert all(r.fastest == "staged" and r.against.ratio == pytest.approx(2.0) for r in recs)
    assert all(r.verdict == "decided" for r in recs)


def test_speedups_own_and_common_base():
    series = {
        "staged": [
            halo_point(halo_record("staged", 32, [8e-6] * 3, ranks=1, scaling="strong")),
            halo_point(halo_record("staged", 16, [4e-6] * 3, ranks=2, scaling="strong")),
            halo_point(halo_record("staged", 8, [2.5e-6] * 3, ranks=4, scaling="strong")),
        ],
        "direct": [
            halo_point(halo_record("direct", 32, [10e-6] * 3, ranks=1, scaling="strong")),
            halo_point(halo_record("direct", 16, [4e-6] * 3, ranks=2, scaling="strong")),
        ],
    }
    base, sp = speedups(series)
    assert base == "staged at 1 rank(s)"
    assert sp["staged"].own == pytest.approx([1.0, 2.0, 3.2])
    assert sp["staged"].efficiency == pytest.approx([1.0, 1.0, 0.8])
    assert sp["direct"].own == pytest.approx([1.0, 2.5])
    assert sp["direct"].common == pytest.approx([0.8, 2.0])
    assert sp["direct"].efficiency == pytest.approx([1.0, 1.25])


def test_derived_quantities_per_sample():
    p = halo_point(halo_record("staged", 10, [1e-3, 2e-3]))
    # B_eff per sample: 1e3 * bytes and 0.5e3 * bytes; mean 0.75e3 * bytes
    assert p.beff.mean == pytest.approx(0.75e3 * (600 + 120 + 8) * 19 * 8)
    # updates per sample: 1000 sites / 1 ms = 1e6 and / 2 ms = 5e5; median of two 7.5e5
    assert p.updates.median == pytest.approx(7.5e5)


def test_analytic_ratio():
    assert comm_work_ratio("cubic", 2) == pytest.approx((24 + 24 + 8) / 8)
    # x = 2: 2x3x4 box has 96 halo sites and 24 owned
    assert comm_work_ratio("noncubic", 2) == pytest.approx(96 / 24)


def test_bad_files_are_named(tmp_path):
    good = DATA.read_text().splitlines()
    (tmp_path / "a.jsonl").write_text("\n".join(good[:3]) + "\n" + good[3][: len(good[3]) // 2])
    with pytest.raises(ResultsError, match=r"a.jsonl:4: not a JSON record"):
        load_results(tmp_path)
    (tmp_path / "a.jsonl").write_text(json.dumps({"x": 1}) + "\n")
    with pytest.raises(ResultsError, match="lacks benchmark"):
        load_results(tmp_path)
    with pytest.raises(ResultsError, match="no such results"):
        load_results(tmp_path / "nothing")
    assert main(["report", str(tmp_path / "nothing")]) == 2


def stencil_record(strategy, ranks, nx, ny, nz, halo, source="s.jsonl", date="d1"):
    return {
        "benchmark": "stencil",
        "haloex_version": "test",
        "ranks": ranks,
        "threads_per_rank": 1,
        "strategy": strategy,
        "nx": nx,
        "ny": ny,
        "nz": nz,
        "precision": "double",
        "iterations_per_sample": 64,
        "total_time_s": [2 * halo] * 3,
        "halo_time_s": [halo, halo * 1.1, halo * 0.9],
        "work_time_s": [halo] * 3,
        "roofline_fraction": None,
        "date_utc": date,
        "_source": source,
    }


def test_stencil_experiments_are_told_apart(tmp_path):
    recs = []
    for n in (1, 2, 4):  # strong: one size on three rank counts, one run each
        recs += [stencil_record(s, n, 128, 128, 64, 1e-3 * n, date=f"s{n}") for s in ("staged", "serial")]
    for n, (nx, ny) in ((1, (4, 2)), (2, (4, 4)), (4, (8, 4))):  # weak: 8 columns per rank
        recs += [stencil_record("staged", n, nx, ny, 64, 1e-4 * n, source="w.jsonl", date=f"w{n}")]
    for nz in (1, 2, 4):  # one run over several nz: the message-size sweep only
        recs += [stencil_record("staged", 2, 128, 128, nz, 1e-5 * nz, source="n.jsonl", date="n")]
    groups = stencil_series(recs)
    assert [t for t, _, _ in groups["strong"]] == ["strong scaling, 128x128x64, double, 64 iterations"]
    _, x, series = groups["strong"][0]
    assert x == "ranks" and [p.record["ranks"] for p in series["staged"]] == [1, 2, 4]
    assert series["staged"][1].halo.median == pytest.approx(2e-3)
    assert len(groups["weak"]) == 1 and "8 columns of nz=64" in groups["weak"][0][0]
    assert len(groups["nz"]) == 1 and [p.record["nz"] for p in groups["nz"][0][2]["staged"]] == [1, 2, 4]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "_source"}) + "\n" for r in recs))
    report, _ = build_report(path)
    text = report.read_text()
    assert "## 2-D diffusion stencil" in text and "### message size, 128x128 on 2 ranks" in text
    # halo vs staged of serial at 2 ranks: 2e-3 / 2e-3 in the strong table
    assert "| 2 | serial | 2.000 | " in text


def lb_record(schedule, size, samples, threads=2, ranks=1):
    return {
        "benchmark": "lb",
        "haloex_version": "test",
        "ranks": ranks,
        "threads_per_rank": threads,
        "size": size,
        "lattice_sites": float(size) ** 3,
        "config": f"aa/soa/auto/none/bgk/{schedule}/box",
        "kernel": "aa",
        "layout": "soa",
        "strategy": "auto",
        "overlap": "none",
        "collision": "bgk",
        "schedule": schedule,
        "geometry": "box",
        "mlups_samples": samples,
        "roofline_fraction": 0.5,
        "date_utc": "2026-11-24T00:00:00Z",
        "git_commit": "test",
    }


def test_schedules_are_compared_sample_by_sample(tmp_path):
    records = [
        lb_record("worksharing", 32, [100.0, 110.0, 90.0]),
        lb_record("taskloop", 32, [90.0, 88.0, 81.0]),
        lb_record("worksharing", 64, [100.0, 100.0, 100.0]),
        lb_record("taskloop", 64, [105.0, 104.0, 106.0]),
        lb_record("worksharing", 16, [50.0, 50.0, 50.0]),
    ]  # no taskloop partner: not in the table
    with open(tmp_path / "results.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    path, _ = build_report(tmp_path)
    text = path.read_text()
    assert "### Worksharing or tasks" in text
    # per-sample ratios 0.9, 0.8, 0.9 -> median 0.9; 1.05, 1.04, 1.06 -> 1.05
    assert "| 1 x 2 | 32 | aa/soa | 100.0 | 88.0 | 0.900 |" in text
    assert "| 1 x 2 | 64 | aa/soa | 100.0 | 105.0 | 1.050 |" in text
    assert "| 1 x 2 | 16 |" not in text.split("### Worksharing or tasks")[1]
    assert (tmp_path / "figures" / "lb_schedules.png").is_file()


def io_record(ranks, grid, size, gbps, fmt="binary"):
    return {
        "benchmark": "io",
        "haloex_version": "test",
        "ranks": ranks,
        "threads_per_rank": 1,
        "format": fmt,
        "io_grid": grid,
        "ncomp": 19,
        "size": size,
        "bandwidth_Bps": [gbps * 1e9 * f for f in (0.5, 1.0, 3.0)],
    }


def test_io_table_has_a_row_per_configuration_and_a_column_per_size(tmp_path):
    records = [
        io_record(4, [2, 2, 1], 32, 4.0),
        io_record(4, [2, 2, 1], 16, 3.0),
        io_record(2, [1, 1, 1], 32, 2.0),
        io_record(4, [2, 2, 1], 32, 9.0),
        {**io_record(4, [2, 2, 1], 32, 5.0), "hints": "cb_nodes=2"},
    ]  # a second record of one cell: the first one counts; other hints: their own row
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report, _ = build_report(path)
    table = report.read_text().split("## Output bandwidth")[1]
    # rows sorted by ranks, sizes ascending, "-" where a size was not run; cells are medians
    assert (
        "| ranks | format | io_grid | ncomp | hints | 16^3 | 32^3 |\n|---:|---|---|---:|---|---:|---:|\n"
        "| 2 | binary | 1x1x1 | 19 | none | - | 2.00 |\n| 4 | binary | 2x2x1 | 19 | cb_nodes=2 | - | 5.00 |\n"
        "| 4 | binary | 2x2x1 | 19 | none | 3.00 | 4.00 |\n"
    ) in table


def _placed(r: dict, host: str, env: dict) -> dict:
    hosts = [host] * r.get("ranks", 1)
    return {
        **r,
        "host": host,
        "placement": {"hosts": hosts, "launcher": "mpirun", "mpi_env": env, "cpus": ["0"] * len(hosts)},
    }


def test_machines_are_never_one_curve(tmp_path):
    """The same sweep from two MPI configurations becomes two parts of the
    report, each with its own figures; node numbers do not split a machine."""
    base = [json.loads(line) for line in DATA.read_text().splitlines()]
    a = [_placed(r, "nid001", {}) for r in base]
    b = [_placed(r, "nid002", {}) for r in base]
    c = [_placed(r, "nid001", {"OMPI_MCA_btl": "self,tcp"}) for r in base]
    (tmp_path / "ab.jsonl").write_text("".join(json.dumps(r) + "\n" for r in a + b))
    report, _ = build_report(tmp_path / "ab.jsonl", tmp_path / "one")
    assert "## Machines and configurations" not in report.read_text()
    (tmp_path / "ac.jsonl").write_text("".join(json.dumps(r) + "\n" for r in a + c))
    report, table = build_report(tmp_path / "ac.jsonl", tmp_path / "two")
    text = report.read_text()
    assert "## Machines and configurations" in text
    assert "# Part m1: nid, " in text and "# Part m2: nid, " in text
    assert "OMPI_MCA_btl=self,tcp" in text
    for part in ("m1", "m2"):
        assert any((tmp_path / "two" / "figures" / part).glob("*.png")), part
        assert f"](figures/{part}/" in text
    assert "](figures/halo" not in text  # no figure outside a part
    assert table.count("On nid,") == 2


def test_one_node_and_two_nodes_are_parts_of_their_own(tmp_path):
    """The same sweep on one host and spread over two hosts of the same
    machine: ranks talk through memory or the network, so two parts."""
    base = [json.loads(line) for line in DATA.read_text().splitlines()]
    one = [_placed(r, "node1", {}) for r in base]
    two = []
    for r in base:
        r = _placed(r, "node1", {})
        hosts = r["placement"]["hosts"]
        r["placement"]["hosts"] = hosts[: len(hosts) // 2] + ["node2"] * (len(hosts) - len(hosts) // 2)
        two.append(r)
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in one + two))
    text = build_report(tmp_path / "r.jsonl", tmp_path / "out")[0].read_text()
    assert "# Part m1: node, " in text and "# Part m2: node (2 nodes), " in text


def _lb(config, ranks, size, mlups):
    sites = size[0] * size[1] * size[2]
    return {
        "benchmark": "lb", "config": config, "ranks": ranks, "threads_per_rank": 1, "global_size": size,
        "lattice_sites": float(sites), "size": size[0], "mlups_samples": [mlups] * 3, "haloex_version": "0",
        "host": "h", "mpi_library": "m", "date_utc": "d",
    }  # fmt: skip


def test_lb_scaling_efficiencies_by_hand(tmp_path):
    """Strong scaling of two configurations from 1 to 2 ranks, and a weak
    point: efficiencies against their own and the blocking base, by hand."""
    blocking = "aa/soa/sendrecv/none/bgk/worksharing/box"
    overlapped = "aa/soa/direct/interior/bgk/worksharing/box"
    recs = [
        _lb(blocking, 1, [128, 64, 64], 100.0),
        _lb(blocking, 2, [128, 64, 64], 150.0),
        _lb(overlapped, 1, [128, 64, 64], 110.0),
        _lb(overlapped, 2, [128, 64, 64], 198.0),
        _lb(overlapped, 1, [64, 64, 64], 120.0),
    ]
    groups = lb_scaling(recs)
    base, series = groups[("strong", "128x64x64", 1)]
    assert base == blocking
    by = {s.config: s for s in series}
    assert by[blocking].own == pytest.approx([1.0, 0.75])
    assert by[blocking].common == pytest.approx([1.0, 0.75])
    assert by[overlapped].own == pytest.approx([1.0, 0.9])  # 198 / (110 * 2)
    assert by[overlapped].common == pytest.approx([1.1, 0.99])  # against the blocking 100 at 1 rank
    # Weak: 64^3 per rank on 1 (64^3) and 2 ranks (128x64x64); only `overlapped` has both.
    base, series = groups[("weak", 64**3, 1)]
    assert [s.config for s in series] == [overlapped]
    assert series[0].own == pytest.approx([1.0, 198 / 240])
    path = tmp_path / "lb.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    text = build_report(path, tmp_path)[0].read_text()
    assert "## LB application scaling (the 2016 paper's chapter 6)" in text
    assert f"| {overlapped} | 2 | 198.0 | 0.900 | 0.990 |" in text


def test_output_cost_table_by_hand(tmp_path):
    """A configuration with output every 10 steps against the same one
    without: the ratio, and no separate curve in the scaling section."""
    plain = "aa/soa/direct/none/bgk/worksharing/box"
    out = dict(_lb(plain + "/out10", 2, [64, 64, 64], 30.0), output_every=10, output_time_s_median=0.25,
               output_bytes_per_write=8.65e6)  # fmt: skip
    recs = [_lb(plain, 1, [64, 64, 64], 60.0), _lb(plain, 2, [64, 64, 64], 120.0), out,
            dict(out, ranks=1, mlups_samples=[20.0] * 3)]  # fmt: skip
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    report, _ = build_report(tmp_path / "r.jsonl", tmp_path / "rep")
    text = report.read_text()
    assert f"| 64x64x64 | 2 | {plain} | 10 | 30.0 | 120.0 | 0.250 | 250.0 | 8.7 |" in text
    scaling = text.split("## LB application scaling")[1].split("## LB step rate with output")[0]
    assert plain in scaling and "/out10" not in scaling  # not a scaling series


def test_noise_calibration_and_physics_flags():
    from haloex_lab.benchmarks.halo.noise import calibration, physics_flags, round_noise

    # consecutive rounds 10% apart, three times: the median |ln ratio| is ln 1.1
    assert round_noise([1.0, 1.1, 1.0, 1.1]) == pytest.approx(math.log(1.1))
    cal_rec = {**halo_record("staged", 16, [1.0, 1.1, 1.0, 1.1, 1.0]), "point_name": "calibration"}
    cal = calibration([cal_rec, halo_record("staged", 16, [1.0] * 7)])
    assert cal.noise == pytest.approx(math.log(1.1)) and cal.rounds == 5 and cal.records == 1
    assert cal.exceeded_by([1.0, 1.5, 1.0, 1.5]) and not cal.exceeded_by([1.0, 1.1, 1.0])
    # 10% between rounds is a noisy machine: the table says so
    from haloex_lab.benchmarks.halo.recommend import format_recommendations

    recs = recommendations(halo_sweeps([halo_record("staged", 8, [1e-6] * 7)]), {})
    assert "the machine was noisy during this run" in format_recommendations(recs, cal)
    assert "noisy" not in format_recommendations(recs, None)
    # L = 16 in less time than L = 8, the intervals apart: flagged; the
    # calibration record is in no sweep
    records = [halo_record("shm", 8, [10e-6] * 7), halo_record("shm", 16, [5e-6] * 7), cal_rec]
    sweeps = halo_sweeps(records)
    assert [len(pts) for series in sweeps.values() for pts in series.values()] == [2]
    flags = physics_flags(sweeps)
    assert len(flags) == 1 and "L = 16 took 5.0 us, less than L = 8 (10.0 us)" in flags[0]
    assert (
        physics_flags(halo_sweeps([halo_record("shm", 8, [5e-6] * 7), halo_record("shm", 16, [10e-6] * 7)]))
        == []
    )


def test_link_probe_marks_rows_measured_in_the_slow_state():
    from haloex_lab.benchmarks.halo.recommend import format_recommendations
    from haloex_lab.link_state import link_state

    def probed(strategy, L, times, probe_us):
        return {**halo_record(strategy, L, times), "link_probe_s": [probe_us * 1e-6] * len(times)}

    # L = 8 and 16 with the link at 25 us, L = 24 at 77 us (3.08x): that row is marked
    records = [
        probed("shm", 8, [10e-6] * 7, 25.0),
        probed("staged", 8, [20e-6] * 7, 25.0),
        probed("shm", 16, [30e-6] * 7, 26.0),
        probed("staged", 16, [40e-6] * 7, 26.0),
        probed("shm", 24, [90e-6] * 7, 77.0),
        probed("staged", 24, [80e-6] * 7, 77.0),
    ]
    link = link_state(records)
    assert (link.fastest_us, link.slowest_us) == pytest.approx((25.0, 77.0))
    assert (link.points, link.slow_points) == (6, 2)
    assert "2 of 6 points took 1.5x that or more (up to 77.0 us)" in link.text()
    recs = recommendations(halo_sweeps(records), {}, None, link)
    assert [round(r.slow_link, 2) for r in recs] == [0.0, 0.0, 3.08]
    table = format_recommendations(recs)
    assert table.count("(slow link: probe 3.1x the fastest)") == 1
    # one state throughout (26 us is 1.04x 25 us): nothing marked; no probe: no line
    same = link_state(records[:4])
    assert same.slow_points == 0 and "one machine state throughout" in same.text()
    assert link_state([halo_record("shm", 8, [1e-6] * 7)]) is None
