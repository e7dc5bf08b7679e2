"""The report's Peers section on hand-made records whose ratios are known,
and peers/run.py end to end with haloex alone (the peers need packages
that make test does not install; make peers runs them)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from haloex_lab.benchmarks.peers import peers_section, pingpong_section, python_section
from haloex_lab.report import build_report

ROOT = Path(__file__).resolve().parents[2]


def rec(peer, mode, times, rounds=None, L=32, ncomp=19, layout="aos", ranks=2, **kw):
    r = {
        "benchmark": "peers", "haloex_version": "test", "ranks": ranks, "threads_per_rank": 1,
        "peer": peer, "mode": mode, "local_size": L, "ncomp": ncomp, "layout": layout, "face_doubles": 0,
        "time_per_call_s": times, "round_index": rounds if rounds is not None else list(range(len(times))),
        "command": f"{peer} --mode {mode}",
    }  # fmt: skip
    r.update(kw)
    return r


def case(scale_ghex=4.0, scale_petsc=20.0, n=7):
    """haloex: shm 1.0, staged-types 1.5, staged 2.0 (us) every round, with a
    round-to-round wobble that the per-round ratios cancel; GHEX co and bulk
    and PETSc a multiple of shm."""
    w = [1.0, 0.9, 1.1, 1.0, 0.95, 1.05, 1.0][:n]  # median 1
    us = 1e-6
    return [
        rec("haloex", "shm", [1.0 * us * x for x in w]),
        rec("haloex", "staged-types", [1.5 * us * x for x in w]),
        rec("haloex", "staged", [2.0 * us * x for x in w]),
        rec("haloex", "auto", [1.5 * us * x for x in w], resolved_strategy="staged-types"),
        rec("ghex", "co", [scale_ghex * 1.2 * us * x for x in w]),
        rec("ghex", "bulk", [scale_ghex * us * x for x in w]),
        rec("petsc", "dmda", [scale_petsc * us * x for x in w]),
    ]


def test_section_gives_paired_ratios_and_their_ranges():
    md = "\n".join(peers_section(case()))
    row = next(line for line in md.splitlines() if line.startswith("| 2 | 32 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:6] == ["4.8", "4.0", "20.0"]  # GHEX co, bulk, PETSc (us, at the median wobble)
    assert cells[6] == "1.0 shm" and cells[7] == "1.5 (staged-types)" and cells[8] == "2.0"
    assert cells[9] == "1.5 staged-types"  # best without shm
    # best / GHEX best (bulk): 1/4; / PETSc: 1/20; without shm / GHEX: 1.5/4
    assert cells[10].startswith("0.25 [0.25, 0.25]")
    assert cells[11].startswith("0.05 [0.05, 0.05]")
    assert cells[12].startswith("0.38 [0.38, 0.38]")
    assert "- haloex's best over GHEX's best: 0.25x to 0.25x over 1 cases (paired medians)" in md
    assert "- haloex's best over PETSc's DMDA: 0.05x to 0.05x over 1 cases" in md
    assert "- haloex's best without shm over GHEX's best: 0.38x to 0.38x over 1 cases" in md


def test_ranges_span_the_cases_and_name_no_goals():
    other = [{**r, "local_size": 16} for r in case(scale_ghex=2.0, scale_petsc=5.0)]
    md = "\n".join(peers_section(case() + other))
    assert "- haloex's best over GHEX's best: 0.25x to 0.50x over 2 cases (paired medians)" in md
    assert "- haloex's best over PETSc's DMDA: 0.05x to 0.20x over 2 cases" in md
    assert "the interval below 1 in 2, above 1 in 0." in md
    assert "goal" not in md.lower() and "at most 0.3x" not in md  # (the project's aims stay out of reports)


def test_an_interval_across_1_counts_neither_way():
    # GHEX faster in 3 rounds and slower in 4: the median ratio is below 1, its interval reaches above
    w = [1.25, 0.8, 1.25, 0.8, 1.25, 0.8, 1.25]
    recs = [rec("haloex", "staged", [1e-6] * 7), rec("ghex", "bulk", [x * 1e-6 for x in w])]
    md = "\n".join(peers_section(recs))
    assert "- haloex's best over GHEX's best: 0.80x to 0.80x over 1 cases" in md
    assert "the interval below 1 in 0, above 1 in 0." in md


def test_failed_rounds_are_listed_and_untimed_tools_left_out():
    recs = case()
    recs[-1] = rec(
        "petsc", "dmda", [], failed_rounds=[{"round": 0, "status": 3, "why": "wrong halo at (0, 0, -1)"}]
    )
    md = "\n".join(peers_section(recs))
    row = next(line for line in md.splitlines() if line.startswith("| 2 | 32 |"))
    assert [c.strip() for c in row.strip("|").split("|")][5] == "-"  # PETSc's cell
    assert "- 2 ranks, L=32, 19 aos: petsc dmda, round 0: wrong halo at (0, 0, -1)" in md


def test_rounds_are_paired_by_index_not_position():
    # GHEX lost round 0: its first value belongs to round 1, not round 0.
    recs = [rec("haloex", "staged", [1e-6, 4e-6, 4e-6]), rec("ghex", "bulk", [8e-6, 8e-6], rounds=[1, 2])]
    md = "\n".join(peers_section(recs))
    row = next(line for line in md.splitlines() if line.startswith("| 2 | 32 |"))
    assert "0.50 [0.50, 0.50]" in row  # 4/8 twice; by position it would pair 1/8 and 4/8


def test_no_peer_records_no_section():
    assert peers_section([{"benchmark": "halo"}]) == []
    assert pingpong_section([{"benchmark": "halo"}]) == []


def test_python_section_pairs_the_packages():
    one = {"ncomp": 1}
    recs = [rec("python", "haloex", [1e-6] * 6, **one), rec("python", "ghex", [4e-6] * 6, **one),
            rec("python", "petsc4py", [2e-6] * 6, **one), rec("ghex", "co", [9e-6] * 6, **one)]  # fmt: skip
    md = "\n".join(python_section(recs))
    assert "| 2 | 32 | 1 aos | 1.0 | 4.0 | 2.0 | 0.25 [0.25, 0.25] | 0.50 [0.50, 0.50] |" in md
    assert "## Peers: GHEX" in "\n".join(peers_section(recs))  # (the C++ GHEX record)
    assert "| 1.0 " not in "\n".join(peers_section(recs))  # python records stay out of the C++ table


def pp(tool, b, lat, rounds=None):
    return {"benchmark": "peers_pingpong", "tool": tool, "message_bytes": b, "latency_s": lat,
            "round_index": rounds if rounds is not None else list(range(len(lat))),
            "command": tool}  # fmt: skip


def test_pingpong_section_ratios_against_osu():
    recs = [
        pp("haloex osu", 8, [1.1e-6] * 6),
        pp("haloex one", 8, [2.0e-6] * 6),
        pp("osu_latency", 8, [1e-6] * 6),
    ]
    md = "\n".join(pingpong_section(recs))
    row = next(line for line in md.splitlines() if line.startswith("| 8 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["8", "1.10", "2.00", "1.00", "1.10 [1.10, 1.10]", "2.00 [2.00, 2.00]"]
    alone = "\n".join(pingpong_section(recs[:2]))
    assert "osu_latency was not run" in alone and "| 8 | 1.10 | 2.00 |" in alone
    lost = {**pp("osu_latency", None, []), "failed_rounds": [{"round": 0, "why": "status 1: no such file"}]}
    md = "\n".join(pingpong_section([*recs[:2], lost]))
    assert "- osu_latency, round 0: status 1: no such file" in md and "| 8 | 1.10 | 2.00 | - | - | - |" in md


NEEDS_HALOEX = "needs the haloex program (HALOEX_PROGRAM=path; ctest peers_run sets it)"


def peers_script(name: str, *args: str) -> list[str]:
    cmd = [sys.executable, str(ROOT / "peers" / name), "--haloex", os.environ["HALOEX_PROGRAM"], *args]
    return cmd + (["--mpirun", os.environ["HALOEX_MPIRUN"]] if os.environ.get("HALOEX_MPIRUN") else [])


@pytest.mark.skipif(not os.environ.get("HALOEX_PROGRAM"), reason=NEEDS_HALOEX)
def test_run_py_with_haloex_alone(tmp_path):
    out = tmp_path / "peers"
    cmd = peers_script("run.py", "-o", str(out), "--ranks", "2", "-m", "8", "--faces", "",
                       "--values", "19soa", "-r", "2", "-s", "1")  # fmt: skip
    subprocess.run(cmd, check=True, timeout=300)
    recs = [json.loads(x) for x in (out / "peers.jsonl").read_text().splitlines()]
    # one case, every strategy and auto, 2 rounds each
    assert {(r["ncomp"], r["layout"], r["local_size"]) for r in recs} == {(19, "soa", 8)}
    staged = [r for r in recs if r["mode"] == "staged"]
    assert len(staged) == 1 and staged[0]["round_index"] == [0, 1] and not staged[0]["failed_rounds"]
    assert {"auto", "staged", "shm"} <= {r["mode"] for r in recs}
    assert all(r["host"] and r["placement"] for r in recs)  # metadata from haloex's records
    shutil.copy(out / "peers.jsonl", tmp_path / "peers.jsonl")
    path, _ = build_report(tmp_path)
    assert "## Peers: GHEX and PETSc's DMDA on the same job" in path.read_text()


@pytest.mark.skipif(not os.environ.get("HALOEX_PROGRAM"), reason=NEEDS_HALOEX)
def test_pingpong_py_with_haloex_alone(tmp_path):
    subprocess.run(
        peers_script("pingpong.py", "-o", str(tmp_path), "-m", "64", "-r", "2"), check=True, timeout=300
    )
    recs = [json.loads(x) for x in (tmp_path / "pingpong.jsonl").read_text().splitlines()]
    assert {(r["tool"], r["message_bytes"]) for r in recs} == {
        (t, b) for t in ("haloex osu", "haloex one") for b in (1, 2, 4, 8, 16, 32, 64)
    }
    assert all(len(r["latency_s"]) == 2 and r["latency_s"][0] > 0 for r in recs)
    path, _ = build_report(tmp_path)
    assert "osu_latency was not run" in path.read_text()


def test_cases_from_sizes_faces_and_values():
    sys.path.insert(0, str(ROOT / "peers"))
    try:
        import run  # peers/run.py
    finally:
        sys.path.pop(0)
    values = run.parse_values("1,19aos,19soa")
    assert values == [(1, "aos"), (19, "aos"), (19, "soa")]
    got = {(c.ranks, c.ncomp, c.layout, c.L, c.face_doubles) for c in run.cases([2], [16], [10000], values)}
    # faces: L = round(sqrt(faces / ncomp)): 100 for one value, 23 for 19
    assert got == {(2, 1, "aos", 16, 0), (2, 1, "aos", 100, 10000), (2, 19, "aos", 16, 0),
                   (2, 19, "aos", 23, 10000), (2, 19, "soa", 16, 0), (2, 19, "soa", 23, 10000)}  # fmt: skip
    for bad in ("19", "2xyz", "0"):
        with pytest.raises(ValueError):
            run.parse_values(bad)


@pytest.mark.parametrize("script", ["run.py", "pingpong.py"])
def test_scripts_refuse_a_missing_program(tmp_path, script):
    p = subprocess.run([sys.executable, str(ROOT / "peers" / script), "--haloex", str(tmp_path / "nope"),
                        "-o", str(tmp_path)], capture_output=True, text=True, check=False)  # fmt: skip
    assert p.returncode == 2 and "is not an executable program" in p.stderr


def test_run_py_refuses_cases_without_a_size(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "peers" / "run.py"), "--haloex", sys.executable,
                        "-o", str(tmp_path), "--faces", "0.5", "-m", ""], capture_output=True, text=True,
                       check=False)  # fmt: skip
    assert p.returncode == 2 and "must give at least one case" in p.stderr


def test_python_level_records_say_where_they_ran(monkeypatch):
    """A driver written in Python names its MPI, machine and launcher as
    haloex's records do, so the report files it with them (not under "?")."""
    sys.path.insert(0, str(ROOT / "peers"))
    try:
        import common  # peers/common.py
    finally:
        sys.path.pop(0)
    from haloex_lab.machines import machine, machine_text

    launchers_and_settings = ("OMPI_", "PMI", "SLURM_", "HALOEX_LAUNCHER", "MPIR_", "LD_PRELOAD")
    for k in [k for k in os.environ if k.startswith(launchers_and_settings)]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("PMI_RANK", "0")  # Hydra's
    monkeypatch.setenv("MPIR_CVAR_CH4_PROGRESS_THROTTLE", "1")  # a setting
    monkeypatch.setenv("OMPI_MCA_num_procs", "2")  # Open MPI 5's wiring, not a setting
    rec = common.where_run("MPICH Version:\t4.0.2\nMPICH Release date: ...\n", "4.0", ["n1", "n2", "n1"])
    p = rec["placement"]
    assert p["launcher"] == "mpiexec (Hydra)" and p["ranks_per_host"] == {"n1": 2, "n2": 1}
    assert p["mpi_env"] == {"MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1"}
    assert rec["mpi_standard"] == "4.0" and rec["date_utc"].endswith("Z") and rec["cpu_model"]
    text = machine_text(machine(rec))
    assert "MPICH Version:\t4.0.2" in text and "launcher mpiexec (Hydra)" in text and "?" not in text
