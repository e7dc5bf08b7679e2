"""Ludwig beside haloex lb: peers/ludwig.py's reading of Ludwig's own output
(a real run of Ludwig 0.23.0 kept in data/), and the report's Ludwig
section on hand-made records whose ratios are known."""

import sys
from pathlib import Path

import pytest

from haloex_lab.benchmarks.ludwig import ludwig_section
from haloex_lab.report import build_report

ROOT = Path(__file__).resolve().parents[2]
# Standard output of `mpirun -np 2 Ludwig.exe` (0.23.0, 7a12d00), 32^3, 40 steps, made by peers/ludwig.py
SAMPLE = Path(__file__).parent / "data" / "ludwig-0.23.0-p2-L32.txt"


@pytest.fixture(scope="module")
def lw():
    sys.path.insert(0, str(ROOT / "peers"))
    try:
        import ludwig  # peers/ludwig.py

        return ludwig
    finally:
        sys.path.pop(0)


def test_parser_reads_ludwigs_timer_table(lw):
    t = lw.ludwig_timers(SAMPLE.read_text())
    assert t["Time step loop"] == {"min_s": 0.002, "max_s": 0.019, "total_s": 0.325, "per_call_s": 0.008126,
                                   "calls": 40}  # fmt: skip
    assert t["Collision"]["per_call_s"] == 0.002149 and t["Propagation"]["per_call_s"] == 0.001638
    assert t["Lattice halos"]["per_call_s"] == 0.003994
    assert t["Lattice halos -> pack"]["total_s"] == 0.039  # ("-> pack" is the halo's part)
    assert t["Propagtn (krnl)"]["calls"] == 40 and t["Total"]["calls"] == 1
    assert "Section" not in t


def test_result_from_ludwigs_output(lw):
    got = lw.ludwig_result(SAMPLE.read_text(), lw.Job("check", "ludwig", 2, 32, 40))
    assert got["step_loop_s"] == pytest.approx(0.008126 * 40)
    assert got["mlups"] == pytest.approx(32**3 * 40 / (0.008126 * 40) / 1e6)
    assert got["halo_s_per_step"] == pytest.approx(0.003994)
    assert got["collision_s_per_step"] == pytest.approx(0.002149)
    assert got["propagation_s_per_step"] == pytest.approx(0.001638)
    assert got["mass_initial"] == got["mass_final"] == 32768.0 and got["mass_conserved"]


def test_parser_refuses_what_is_not_a_finished_run(lw):
    text = SAMPLE.read_text()
    with pytest.raises(ValueError, match="Time step loop"):
        lw.ludwig_timers(text.split("Timer statistics")[0])
    with pytest.raises(ValueError, match="not 80"):
        lw.ludwig_result(text, lw.Job("rate", "ludwig", 2, 32, 80))
    lost = text.replace("[rho]       32768.00  1.00000000000", "[rho]       32767.00  0.99996948242", 1)
    assert not lw.ludwig_result(lost, lw.Job("check", "ludwig", 2, 32, 40))["mass_conserved"]


def test_input_file_says_the_job(lw):
    text = lw.ludwig_input(lw.Job("rate", "ludwig", 2, 128, 40))
    want = ["N_cycles 40", "size 128_128_128", "grid 2_1_1", "periodicity 1_1_1", "lb_relaxation_scheme bgk",
            "distribution_uniform_u 0.02_0.01_0.0", "config_at_end no"]  # fmt: skip
    assert set(want) <= set(text.splitlines())
    eta = float(next(x for x in text.splitlines() if x.startswith("viscosity ")).split()[1])
    assert eta == pytest.approx(1 / 6)  # tau = 1
    assert "procs = [2, 1, 1]" in lw.haloex_case(lw.Job("rate", "haloex", 2, 128, 40))


def rec(code, part, ranks, L, rnd, mlups, ok=True, **kw):
    r = {
        "benchmark": "peers_ludwig", "haloex_version": "test", "threads_per_rank": 1, "code": code,
        "part": part, "ranks": ranks, "lattice_size": L, "steps": 40, "round": rnd, "ok": ok, "why": "",
        "mlups": mlups, "halo_s_per_step": 0.002 if code == "ludwig" else 0.0005,
        "collision_s_per_step": 0.05 if code == "ludwig" else None,
        "propagation_s_per_step": 0.03 if code == "ludwig" else None,
        "update_s_per_step": 0.04 if code == "haloex" else None, "command": f"mpirun -np {ranks} {code}",
        "input": f"raw/{part}-{code}-r{rnd}", "versions": {"ludwig": "0.23.0 7a12d00", "haloex": "abc"},
        "cpu_model": "Test CPU",
    }  # fmt: skip
    r.update(kw)
    return r


def records():
    """haloex at 3x Ludwig's MLUPS every round, both wobbling alike from
    round to round (the paired ratio cancels it); a sweep over 2 sizes."""
    w = [1.0, 0.8, 1.2, 1.0, 0.9]
    out = []
    for p in (1, 2):
        for i, x in enumerate(w):
            out += [
                rec("ludwig", "rate", p, 128, i, 10.0 * p * x),
                rec("haloex", "rate", p, 128, i, 30.0 * p * x),
            ]
    for L, m in ((8, 2.0), (16, 8.0)):
        for i in range(3):
            out += [rec("ludwig", "sizes", 2, L, i, m), rec("haloex", "sizes", 2, L, i, 4 * m)]
    return out


def test_section_rates_ratios_and_figure(tmp_path):
    md = "\n".join(ludwig_section(records(), tmp_path, ["png"]))
    assert "| 2 | 128 | Ludwig | 20.0 [16.0, 24.0] | 2.00 [2.00, 2.00] | 50.00 [50.00, 50.00] |" in md
    assert (
        "| 1 | 128 | haloex lb | 30.0 [24.0, 36.0] | 0.50 [0.50, 0.50] | - | - | 40.00 [40.00, 40.00] | 5 |"
        in md
    )
    assert "| 1 | 128 | 3.00 [3.00, 3.00] (94% interval; haloex ahead in 5 of 5 rounds) |" in md
    assert (
        "| 2 | 16 | 40, 40 | 8.0 [8.0, 8.0] | 32.0 [32.0, 32.0] | 4.00 [4.00, 4.00] (75% interval; haloex"
        in md
    )
    assert (tmp_path / "ludwig_sizes.png").stat().st_size > 0 and "](figures/ludwig_sizes.png)" in md
    assert "760 with the write-allocate" in md and "all 26 neighbour regions" in md
    assert "Ludwig 0.23.0 7a12d00; haloex abc" in md and "CPU Test CPU" in md


def test_section_pairs_by_round_and_lists_failures(tmp_path):
    recs = [r for r in records() if r["part"] == "rate" and r["ranks"] == 2]
    # Ludwig's round 2 failed: haloex's round 2 (1.2x) has no partner and drops out of the ratio
    recs = [rec("ludwig", "rate", 2, 128, 2, None, ok=False, why="status 1: out of memory") if
            (r["code"], r["round"]) == ("ludwig", 2) else r for r in recs]  # fmt: skip
    md = "\n".join(ludwig_section(recs, tmp_path, ["png"]))
    assert (
        "3.00 [3.00, 3.00] (88% interval; haloex ahead in 4 of 4 rounds)" in md
        and "| 2 | 128 | Ludwig | 19.0 [16.0, 20.0] |" in md
    )
    assert "- rate, ludwig, 2 ranks, L=128, round 2: status 1: out of memory" in md
    assert not (tmp_path / "ludwig_sizes.png").exists()  # (no sweep, no figure)


def test_report_carries_the_section(tmp_path):
    import json

    (tmp_path / "peers-ludwig.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records()))
    path, _ = build_report(tmp_path)
    text = path.read_text()
    assert (
        "## Ludwig: the same lattice Boltzmann job" in text
        and (tmp_path / "figures" / "ludwig_sizes.png").exists()
    )
    assert ludwig_section([{"benchmark": "halo"}], tmp_path, ["png"]) == []
