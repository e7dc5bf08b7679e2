"""The collective benchmarks' tables and figures from hand-made records whose
delay benefits and overlap figures are known."""

import json

import pytest

from haloex_lab.benchmarks import coll
from haloex_lab.report import build_report


def coll_record(name, nb, procs, delay, times, nbytes=8):
    return {
        "benchmark": "coll",
        "collective": name,
        "nonblocking": nb,
        "mpi_name": "MPI_" + name.capitalize(),
        "procs": procs,
        "message_bytes": nbytes,
        "delay_s": delay,
        "time_s": times,
        "ranks": 4,
        "threads_per_rank": 1,
        "date_utc": "2026-11-22T00:00:00Z",
        "host": "h",
        "mpi_library": "m",
        "haloex_version": "0",
    }


@pytest.fixture
def coll_records():
    recs = []
    for p in (2, 4):
        # t0 = 10 us; with 100 us of delay: blocking 105 us (b = 5/105), non-blocking 100 us (b = 10/100)
        recs += [
            coll_record("allreduce", False, p, 0.0, [9e-6, 10e-6, 11e-6]),
            coll_record("allreduce", False, p, 100e-6, [104e-6, 105e-6, 200e-6]),
            coll_record("iallreduce", True, p, 0.0, [10e-6, 10e-6, 12e-6]),
            coll_record("iallreduce", True, p, 100e-6, [100e-6, 100e-6, 90e-6]),
        ]
    return recs


def test_delay_rows_recompute_b_from_medians(coll_records):
    rows = coll.delay_rows(coll_records)
    assert [(r.kind, r.procs, r.delay_s) for r in rows] == [
        ("allreduce", 2, 100e-6),
        ("allreduce", 4, 100e-6),
    ]
    r = rows[0]
    assert r.t0_s["blocking"] == pytest.approx(10e-6) and r.t_delta_s["blocking"] == pytest.approx(105e-6)
    assert r.benefit["blocking"] == pytest.approx(5 / 105)
    assert r.benefit["nonblocking"] == pytest.approx(10 / 100)
    table = coll.delay_table(rows)
    assert "| allreduce | 4 | 2 | 8 | 100 | 10.00 | 105.00 | +0.048 | 10.00 | 100.00 | +0.100 |" in table


def test_delay_series_per_form(coll_records):
    s = coll.delay_series(coll_records)[("allreduce", 8, 4)]
    assert [p for p, _, _ in s["nonblocking"][100e-6]] == [2, 4]
    assert s["blocking"][0.0][0][2] is None
    assert s["blocking"][100e-6][1][2] == pytest.approx(5 / 105)


def test_overlap_rows_from_raw_times():
    rec = {
        "benchmark": "overlap",
        "mpi_name": "MPI_Iallreduce",
        "ranks": 2,
        "procs": 2,
        "message_bytes": 64,
        "test_calls": 0,
        # rank means: coll 10, comp 8, overlap 12 (us)
        "coll_s": [[9e-6, 11e-6], [10e-6, 10e-6]],
        "comp_s": [[8e-6, 8e-6], [7e-6, 9e-6]],
        "overlap_s": [[12e-6, 12e-6], [11e-6, 13e-6]],
    }
    (o,) = coll.overlap_rows([rec])
    assert (
        o.coll_s == pytest.approx(10e-6)
        and o.comp_s == pytest.approx(8e-6)
        and o.overlap_s == pytest.approx(12e-6)
    )
    assert o.beta == pytest.approx(0.5)
    assert o.osu_percent == pytest.approx(60.0)
    assert o.imb_percent == pytest.approx(75.0)
    assert (
        "| MPI_Iallreduce | 2 | 2 | 64 | 0 | 10.00 | 8.00 | 12.00 | +0.500 | 60.0 | 75.0 |"
        in coll.overlap_table([o])
    )


def test_report_draws_the_collective_figures(tmp_path, coll_records):
    ov = {
        "benchmark": "overlap",
        "mpi_name": "MPI_Ialltoall",
        "procs": 2,
        "message_bytes": 8,
        "test_calls": 0,
        "coll_s": [[1e-6]],
        "comp_s": [[1e-6]],
        "overlap_s": [[1.5e-6]],
    }
    mon = [
        {
            "benchmark": "monitor",
            "config": c,
            "ranks": 2,
            "size": 16,
            "reductions_per_sample": n,
            "date_utc": "d",
            "sim_s_per_step": [s],
            "lb_s_per_step": [s / 2],
            "halo_s_per_step": [s / 4],
            "wait_s_per_step": [w],
            "mon_s_per_step": [0.0],
            "sups": [4096 / s],
        }
        for c, n, s, w in (("off", 0, 1e-3, 0.0), ("blocking", 10, 1.2e-3, 1e-4))
    ]
    clock = {
        "benchmark": "clock",
        "rank": 1,
        "skew_s": 1e-4,
        "mean_skew_s": 1e-4,
        "stddev_skew_s": 2e-6,
        "min_round_trip_s": 1e-6,
        "bound_s": 5e-7,
    }
    path = tmp_path / "r.jsonl"
    meta = {"haloex_version": "0", "ranks": 2, "threads_per_rank": 1, "date_utc": "d", "host": "h"}
    meta["mpi_library"] = "m"  # (all from one machine: one part of the report)
    path.write_text("".join(json.dumps({**meta, **r}) + "\n" for r in [*coll_records, ov, clock, *mon]))
    report, _ = build_report(path, tmp_path / "out")
    text = report.read_text()
    for heading in (
        "## Global clock",
        "## Collectives with a delayed rank",
        "## Overlap availability",
        "## LB monitoring reductions",
    ):
        assert heading in text
    figs = tmp_path / "out" / "figures"
    for name in ("coll_delay_allreduce_8_np4.png", "overlap_beta.png", "monitor.png"):
        assert (figs / name).stat().st_size > 1000, name
    assert "| 2 | 16 | blocking | 10 | 1.2000 |" in text and "| 1.200 |" in text


def test_gzipped_results_read_and_truncated_ones_refused(tmp_path):
    import gzip

    from haloex_lab.results import ResultsError, read_records

    rec = {"benchmark": "clock", "haloex_version": "0", "ranks": 2, "threads_per_rank": 1, "rank": 1}
    data = gzip.compress((json.dumps(rec) + "\n").encode())
    good, bad = tmp_path / "r.jsonl.gz", tmp_path / "t.jsonl.gz"
    good.write_bytes(data)
    bad.write_bytes(data[: len(data) // 2])
    assert read_records(good) == [rec]
    with pytest.raises(ResultsError, match="not a complete gzip file"):
        read_records(bad)
