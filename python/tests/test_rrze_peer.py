"""RRZE lbm-benchmark-kernels beside haloex bench lb: peers/rrze.py's reading
of RRZE's output (a real run kept in data/), a whole run of peers/rrze.py
against stand-ins for RRZE's binary, haloex and mpirun (one RRZE kernel
prints no rate), the report's RRZE section on hand-made records whose
ratios are known, and a folder that is not RRZE's."""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from haloex_lab.benchmarks.rrze import rrze_section
from haloex_lab.report import build_report

ROOT = Path(__file__).resolve().parents[2]
# Standard output of RRZE's lbmbenchk (8b9da56, built by peers/build-rrze.sh): list-aa-pv-soa,
# 32^3 channel, 20 iterations, 1 thread.
SAMPLE = Path(__file__).parent / "data" / "rrze-8b9da56-list-aa-pv-soa-t1-channel-L32.txt"


@pytest.fixture(scope="module")
def rz():
    sys.path.insert(0, str(ROOT / "peers"))
    try:
        import rrze  # peers/rrze.py

        return rrze
    finally:
        sys.path.pop(0)


def job(rz, kernel="list-aa-pv-soa", geometry="channel", steps=20):
    return rz.Job("rrze", kernel, 1, geometry, 32, steps)


def test_parser_reads_rrzes_rate_line(rz):
    got = rz.rrze_result(SAMPLE.read_text(), job(rz))
    assert got == {"mlups": 119.499387, "step_loop_s": 0.00482, "fluid_sites": 28800}
    assert got["fluid_sites"] == 32 * 30 * 30  # (the channel's walls are the outer layers)


def test_parser_refuses_what_is_not_the_run_asked_for(rz):
    text = SAMPLE.read_text()
    with pytest.raises(ValueError, match=r"no 'P: \.\.\. MFLUP/s' line"):
        rz.rrze_result(text.split("P:")[0], job(rz))
    with pytest.raises(ValueError, match=r"steps 20 \(asked 40\)"):
        rz.rrze_result(text, job(rz, steps=40))
    with pytest.raises(ValueError, match=r"geo channel \(asked box\)"):
        rz.rrze_result(text, job(rz, geometry="box"))
    with pytest.raises(ValueError, match="sp"):
        rz.rrze_result(text.replace("B  dp", "B  sp"), job(rz))


def test_commands_ask_the_same_of_both_codes(rz, tmp_path):
    a = argparse.Namespace(rrze="lbmbenchk", haloex="haloex", mpirun="mpirun --bind-to none",
                           out=str(tmp_path), rrze_version="?", haloex_kernels=["aa"], layouts=["soa"],
                           haloex_repeats=3)  # fmt: skip
    runner = rz.Runner(a)
    box = rz.Job("rrze", "aa-vec-sl-soa", 2, "box", 64, 190)
    assert runner.command(box, tmp_path / "x") == [
        "lbmbenchk", "-kernel", "aa-vec-sl-soa", "-dims", "64x64x64", "-geometry", "box", "-periodic-x",
        "-periodic-y", "-periodic-z", "-iterations", "190", "-t", "2",
    ]  # fmt: skip
    hx = " ".join(runner.command(rz.Job("haloex", "", 2, "channel", 64, 64), tmp_path / "x.jsonl"))
    assert hx.startswith("mpirun --bind-to none -n 1 haloex bench lb --velocity-set D3Q19 -m 64 -k aa")
    assert "--collision trt,bgk --geometry channel -t 2 -i 64 -r 3" in hx
    assert runner.env(box)["OMP_PROC_BIND"] == "close" and runner.env(box)["OMP_NUM_THREADS"] == "2"
    assert rz.steps_for(128, 5e7) == 24 and rz.steps_for(64, 5e7) % 2 == 0 and rz.steps_for(1000, 1) == 10


FAKE_RRZE = r"""
import sys
args = sys.argv[1:]
print("# LBM Benchmark Kernels 0.1, compiled today, type: benchmark")
if args == ["-list"]:
    print("Available kernels to benchmark:\n   aa-vec-sl-soa\n   push-aos\n   broken-soa")
    sys.exit(0)
opt = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("-")}
L = int(opt["-dims"].split("x")[0])
fluid = L**3 if opt["-geometry"] == "box" else L * (L - 2) ** 2
rate = {"aa-vec-sl-soa": 100.0, "push-aos": 20.0}.get(opt["-kernel"])
if rate is not None:  # (broken-soa prints no rate)
    print(f"P:   {rate:f} MFLUP/s  t: {opt['-t']}  d: 0.5 s  iter: {opt['-iterations']}  "
          f"fnodes: {fluid / 1e6:f} x1e6  geo: {opt['-geometry']}  kernel: {opt['-kernel']}  B  dp")
"""

FAKE_HALOEX = r"""
import itertools, json, sys
args = sys.argv[3:]
opt = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("-")}
L, t = int(opt["-m"]), int(opt["-t"])
meta = {"benchmark": "lb", "host": "test", "git_commit": "abc", "mpi_library": "Test MPI",
        "haloex_version": "t", "ranks": 1, "threads_per_rank": t, "size": L,
        "placement": {"hosts": ["test"], "launcher": "mpirun"}}
out = [dict(meta, config="stream")]
for k, lay, c in itertools.product(*(opt[o].split(",") for o in ("-k", "--layouts", "--collision"))):
    m = {"aa": 90.0, "pull": 60.0}[k] * (1 if lay == "soa" else 0.3) * (1.05 if c == "bgk" else 1)
    out.append(dict(meta, config=f"{k}/{lay}/x/{c}", kernel=k, layout=lay, collision=c,
                    geometry=opt["--geometry"], mlups_median=m, mlups_samples=[m] * 3,
                    lattice_sites=float(L**3)))
open(opt["-o"], "a").write("".join(json.dumps(r) + "\n" for r in out))
"""


def fake(path: Path, body: str) -> str:
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return str(path)


def test_a_whole_run_with_a_kernel_that_prints_no_rate(rz, tmp_path):
    """Two rounds of one cell: every run recorded, the silent kernel as
    failed (exit 1), and the report's table from the records."""
    rrze, haloex = fake(tmp_path / "lbmbenchk", FAKE_RRZE), fake(tmp_path / "haloex", FAKE_HALOEX)
    mpirun = fake(tmp_path / "mpirun", "import os, sys\nos.execv(sys.argv[3], sys.argv[3:])")  # (drops -n 1)
    out = tmp_path / "out"
    cmd = [sys.executable, str(ROOT / "peers" / "rrze.py"), "--haloex", haloex, "--rrze", rrze,
           "--mpirun", mpirun, "-o", str(out), "-r", "2", "--sizes", "16", "--threads", "1",
           "--geometries", "channel", "--haloex-kernels", "aa,pull", "--layouts", "soa",
           "--updates", str(20 * 16**3)]  # fmt: skip
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "broken-soa-t1-channel-L16-r0 broken-soa FAILED (status 0): unreadable output (no 'P:" in p.stderr
    recs = [json.loads(x) for x in (out / "peers-rrze.jsonl").read_text().splitlines()]
    assert len(recs) == 2 * (3 + 4)  # per round: 3 RRZE kernels, 2 x 1 x 2 haloex configurations
    assert {r["host"] for r in recs} == {"test"} and {r["versions"]["haloex"] for r in recs} == {"abc"}
    push = next(r for r in recs if r["config"] == "push-aos")
    assert push["fluid_sites"] == 16 * 14 * 14 and push["mlups"] == 20.0 and push["layout"] == "aos"
    assert push["command"].endswith("-geometry channel -periodic-x -iterations 20 -t 1")
    assert [r["ok"] for r in recs if r["config"] == "broken-soa"] == [False, False]
    md = "\n".join(rrze_section(recs, tmp_path, ["png"]))
    assert row(md, "1 | channel | 16")[3:8] == [
        "aa-vec-sl-soa", "100.0 [100.0, 100.0]", "aa/soa/trt", "90.0 [90.0, 90.0]",
        "0.90 [0.90, 0.90], ahead 0/2",
    ]  # fmt: skip
    assert "- rrze broken-soa, 1 threads, channel, L=16, round 1: unreadable output" in md


def records():
    """RRZE's best kernel at 100 MLUP/s, haloex's best TRT at 0.9 and best
    BGK at 1.1 of it every round, all wobbling alike from round to round
    (the paired ratio cancels it); a weaker kernel and configuration each."""
    w = [1.0, 0.8, 1.2, 1.0, 0.9, 1.1, 1.0]
    out = []
    for i, x in enumerate(w):
        for code, cfg, m in (("rrze", "aa-vec-sl-soa", 100), ("rrze", "push-aos", 20),
                             ("haloex", "aa/soa/trt", 90), ("haloex", "pull/aos/trt", 15),
                             ("haloex", "aa/soa/bgk", 110)):  # fmt: skip
            out.append({
                "benchmark": "peers_rrze", "haloex_version": "test", "ranks": 1, "threads_per_rank": 2,
                "code": code, "config": cfg, "geometry": "box", "lattice_size": 128, "round": i, "ok": True,
                "why": "", "mlups": m * x, "steps": 24, "repeats": 3 if code == "haloex" else 1,
                "command": f"{code} {cfg}", "environment": {"OMP_NUM_THREADS": "2"}, "cpu_model": "Test CPU",
                "versions": {"rrze": "0.1 commit 8b9da56", "haloex": "abc"},
            })  # fmt: skip
    return out


def row(md: str, start: str) -> list[str]:
    """The cells of the table line whose first cells are `start` (the
    table pads its columns)."""
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[: len(start.split("|"))] == [c.strip() for c in start.split("|")]:
            return cells
    raise AssertionError(f"no line starting {start!r} in\n{md}")


def test_section_bests_and_paired_ratios(tmp_path):
    md = "\n".join(rrze_section(records(), tmp_path, ["png"]))
    assert row(md, "2 | box | 128") == [
        "2", "box", "128", "aa-vec-sl-soa", "100.0 [80.0, 120.0]", "aa/soa/trt", "90.0 [72.0, 108.0]",
        "0.90 [0.90, 0.90], ahead 0/7", "aa/soa/bgk", "110.0 [88.0, 132.0]", "1.10 [1.10, 1.10], ahead 7/7",
        "7 (98%)",
    ]  # fmt: skip
    assert row(md, "RRZE | push-aos")[2] == "20.0" and row(md, "haloex | pull/aos/trt")[2] == "15.0"
    assert "RRZE's kernels collide with TRT only (it has no BGK)" in md
    assert "RRZE 0.1 commit 8b9da56; haloex abc" in md and "OMP_NUM_THREADS=2 rrze aa-vec-sl-soa" in md
    table = md.split("### Best of each code\n\n")[1].split("\n\n")[0].splitlines()
    assert len(table) == 3 and len({len(x) for x in table}) == 1  # (aligned)


def test_section_pairs_by_round_and_lists_failures(tmp_path):
    # RRZE's best failed in round 2: haloex's round 2 has no partner and drops out of the ratio
    recs = [dict(r, ok=False, mlups=None, why="status 1: out of memory")
            if (r["config"], r["round"]) == ("aa-vec-sl-soa", 2) else r for r in records()]  # fmt: skip
    md = "\n".join(rrze_section(recs, tmp_path, ["png"]))
    assert row(md, "2 | box | 128")[7] == "0.90 [0.90, 0.90], ahead 0/6"
    assert row(md, "2 | box | 128")[11] == "6 (97%)"
    assert "- rrze aa-vec-sl-soa, 2 threads, box, L=128, round 2: status 1: out of memory" in md


def test_report_carries_the_section(tmp_path):
    (tmp_path / "peers-rrze.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records()))
    path, _ = build_report(tmp_path)
    assert "## RRZE lbm-benchmark-kernels: the same lattices" in path.read_text()
    assert rrze_section([{"benchmark": "halo"}], tmp_path, ["png"]) == []


def test_a_folder_that_is_not_rrzes(tmp_path):
    """build-rrze.sh and peers.sh stop with status 2 and say what is missing."""
    not_rrze = "is not an RRZE lbm-benchmark-kernels source folder"
    p = subprocess.run(["bash", str(ROOT / "peers" / "build-rrze.sh"), str(tmp_path), str(tmp_path / "work")],
                       capture_output=True, text=True)  # fmt: skip
    assert p.returncode == 2 and f"{tmp_path} {not_rrze} (no src/Main.c" in p.stderr
    build = tmp_path / "build"
    build.mkdir()
    fake(build / "haloex", "")
    cmd = ["bash", str(ROOT / "peers" / "peers.sh"), str(build), str(tmp_path / "w"), str(tmp_path / "o")]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, RRZE_SRC=str(tmp_path)))
    assert p.returncode == 2 and f"RRZE_SRC={tmp_path} {not_rrze}" in p.stderr
