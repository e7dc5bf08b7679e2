"""Campaigns: expansion, dry run, failure and resume, with a stand-in for
mpirun and haloex that logs every call and writes a record."""

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from haloex_lab.campaign import CampaignError, load_campaign
from haloex_lab.cli import main
from haloex_lab.runner import run_campaign

FAKE_MPIRUN = """\
#!{python}
# Drops "-np N" and runs the rest, like mpirun with one rank.
import os, sys
args = sys.argv[1:]
i = args.index("-np")
del args[i:i + 2]
os.execv(args[0], args)
"""

FAKE_HALOEX = """\
#!{python}
# Answers `info --json` with a table of benchmarks (a campaign reads it);
# else logs its arguments, fails when FAIL_ON is among them, else writes a
# record.
import json, os, sys
args = sys.argv[1:]
if args == ["info", "--json"]:
    print(json.dumps({{"benchmarks": {{"halo": "-m", "lb": "-L", "pingpong": "-m"}}}}))
    sys.exit(0)
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(" ".join(args) + "\\n")
if os.environ.get("FAIL_ON") and os.environ["FAIL_ON"] in args:
    print("haloex: error: told to fail", file=sys.stderr)
    sys.exit(2)
out = args[args.index("-o") + 1]
with open(out, "w") as f:
    f.write(json.dumps({{"benchmark": args[1], "haloex_version": "fake", "ranks": 1,
                        "threads_per_rank": int(os.environ["OMP_NUM_THREADS"]), "args": args}}) + "\\n")
"""


def script(path: Path, text: str) -> str:
    path.write_text(text.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture(autouse=True)
def fake_haloex(tmp_path, monkeypatch) -> str:
    """A stand-in haloex as $HALOEX, for campaigns that name none."""
    haloex = script(tmp_path / "haloex", FAKE_HALOEX)
    monkeypatch.setenv("HALOEX", haloex)
    return haloex


@pytest.fixture
def setup(tmp_path, monkeypatch, fake_haloex):
    mpirun = script(tmp_path / "mpirun", FAKE_MPIRUN)
    haloex = fake_haloex
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.delenv("FAIL_ON", raising=False)
    monkeypatch.delenv("HALOEX", raising=False)
    camp = tmp_path / "c.toml"
    camp.write_text(
        textwrap.dedent(f"""\
        [campaign]
        name = "t"
        results = "{tmp_path / "out" / "results.jsonl"}"
        haloex = "{haloex}"
        mpirun = ["{mpirun}"]
        timeout_s = 60

        [[points]]
        benchmark = "halo"
        ranks = [1, 2]
        sizes = [8, 16]
        args = ["-i", "3"]

        [[points]]
        benchmark = "lb"
        threads = [1, 2]
        sizes = 12
        """)
    )
    return camp, log, tmp_path / "out" / "results.jsonl"


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_expansion(setup):
    camp, _, _ = setup
    c = load_campaign(camp)
    keys = [p.key for p in c.points]
    assert keys == [
        "halo np=1 threads=1 -m 8 -i 3",
        "halo np=1 threads=1 -m 16 -i 3",
        "halo np=2 threads=1 -m 8 -i 3",
        "halo np=2 threads=1 -m 16 -i 3",
        "lb np=1 threads=1 -L 12 -t 1",
        "lb np=1 threads=2 -L 12 -t 2",
    ]


def test_dry_run_runs_nothing(setup, capsys):
    camp, log, results = setup
    assert main(["run", str(camp), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "6 to run" in out
    assert out.count("bench halo -m") == 4 and "OMP_NUM_THREADS=2" in out
    assert calls(log) == [] and not results.exists()


def test_failure_then_resume(setup, monkeypatch):
    camp, log, results = setup
    monkeypatch.setenv("FAIL_ON", "16")  # the second point fails
    assert run_campaign(load_campaign(camp)) == 1
    assert len(calls(log)) == 2
    recs = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["campaign_point"] for r in recs] == ["halo np=1 threads=1 -m 8 -i 3"]
    monkeypatch.delenv("FAIL_ON")
    assert run_campaign(load_campaign(camp)) == 0
    # the first point is not run again; the five others are
    assert len(calls(log)) == 2 + 5
    recs = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(recs) == 6 and len({r["campaign_point"] for r in recs}) == 6
    assert {r["threads_per_rank"] for r in recs if r["benchmark"] == "lb"} == {1, 2}
    # and a third run has nothing left to do
    assert run_campaign(load_campaign(camp)) == 0
    assert len(calls(log)) == 7
    assert not any(p.name.endswith(".tmp") for p in results.parent.iterdir())


def test_keep_going(setup, monkeypatch):
    camp, log, results = setup
    monkeypatch.setenv("FAIL_ON", "16")
    assert run_campaign(load_campaign(camp), keep_going=True) == 1
    assert len(calls(log)) == 6
    assert len(results.read_text().splitlines()) == 4


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[points]]\nbenchmark = 'halo'\nsize = [8]\n", "unknown keys"),
        ("[[points]]\nbenchmark = 'halos'\n", "benchmark must be one of"),
        ("[[points]]\nbenchmark = 'halo'\nranks = [0]\n", "positive integer"),
        ("[[points]]\nbenchmark = 'pingpong'\nranks = 1\n", "at least 2 ranks"),
        ("[[points]]\nbenchmark = 'halo'\nsizes = [8]\nglobal = 32\n", "not both"),
        ("[campaign]\nname = 'x'\n", "no \\[\\[points\\]\\]"),
        ("[[points]\n", "not valid TOML"),
    ],
)
def test_bad_campaigns(tmp_path, text, message):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(CampaignError, match=message):
        load_campaign(f)


def test_missing_program_is_an_error(setup, capsys):
    camp, _, _ = setup
    assert main(["run", str(camp), "--haloex", "/nonexistent/haloex"]) == 2
    assert "haloex program not found" in capsys.readouterr().err


def test_benchmarks_come_from_the_program(setup, tmp_path):
    """A campaign may run what its program's `info --json` lists, and a
    program that gives no table is one clear error."""
    camp, _, _ = setup
    text = camp.read_text()
    (tmp_path / "s.toml").write_text(text + '\n[[points]]\nbenchmark = "stream"\n')
    listed = r"benchmark must be one of \['halo', 'lb', 'pingpong'\], got 'stream'"
    with pytest.raises(CampaignError, match=listed):
        load_campaign(tmp_path / "s.toml")
    mute = script(tmp_path / "mute", "#!/bin/sh\necho 'haloex: error: broken' >&2\nexit 3\n")
    with pytest.raises(CampaignError, match="gave no table of benchmarks: haloex: error: broken"):
        load_campaign(camp, haloex=mute)


HALOEX = Path(os.environ.get("HALOEX") or Path(__file__).resolve().parents[2] / "build" / "haloex")


@pytest.mark.skipif(not (HALOEX.is_file() and os.access(HALOEX, os.X_OK)), reason="no build/haloex")
def test_example_campaigns_load():
    """Every campaign in campaigns/ runs benchmarks the real program has."""
    root = Path(__file__).resolve().parents[2] / "campaigns"
    files = sorted(root.glob("*.toml"))
    assert len(files) >= 4
    for f in files:
        assert load_campaign(f, haloex=str(HALOEX)).points, f


SLURM = """
[campaign]
name = "c"
results = "r/results.jsonl"
launcher = "{launcher}"
srun = ["srun", "--mpi=pmix"]
[campaign.sbatch]
time = "00:02:00"
partition = "small"
extra = ["--qos=short"]
[[points]]
benchmark = "halo"
nodes = [1, 2]
tasks_per_node = [2, 4]
threads = 3
args = ["-i", "5"]
"""


@pytest.mark.parametrize("launcher", ["mpirun", "srun", "sbatch", "cluster"])
def test_launchers_and_placement_axes(tmp_path, launcher):
    """nodes x tasks_per_node expand into ranks; each launcher places them."""
    from haloex_lab.campaign import batch_script, command

    (tmp_path / "c.toml").write_text(SLURM.format(launcher=launcher))
    camp = load_campaign(tmp_path / "c.toml")
    assert [(p.nodes, p.tasks_per_node, p.ranks) for p in camp.points] == [
        (1, 2, 2),
        (1, 4, 4),
        (2, 2, 4),
        (2, 4, 8),
    ]
    assert len({p.key for p in camp.points}) == 4  # (2 x 2) and (1 x 4) are different points
    p = camp.points[2]
    cmd = command(camp, p, "o.jsonl")
    if launcher == "mpirun":
        assert cmd[cmd.index("-np") :][:4] == ["-np", "4", "--npernode", "2"]
    elif launcher == "cluster":
        at = cmd.index("cluster")
        assert cmd[at : at + 9] == [
            "cluster",
            "mpirun",
            "--name",
            "haloex",
            "-np",
            "4",
            "--npernode",
            "2",
            "--",
        ]
        assert cmd[at + 9].endswith("haloex") and cmd[at + 10 : at + 12] == ["bench", "halo"]
    else:
        assert cmd[:10] == [
            "srun",
            "--mpi=pmix",
            "-n",
            "4",
            "-N",
            "2",
            "--ntasks-per-node",
            "2",
            "--cpus-per-task",
            "3",
        ]
    if launcher == "sbatch":
        text = batch_script(camp, p, 3, Path("o.jsonl"), Path("o.log"))
        for line in ("#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=2", "#SBATCH --cpus-per-task=3",
                     "#SBATCH --time=00:02:00", "#SBATCH --partition=small", "#SBATCH --qos=short",
                     "#SBATCH --output=o.log", "export OMP_NUM_THREADS=3"):  # fmt: skip
            assert line in text.splitlines(), line
        assert text.splitlines()[-1].startswith("exec srun --mpi=pmix -n 4 -N 2")


@pytest.mark.parametrize(
    "change, message",
    [
        (
            ('launcher = "srun"', 'launcher = "qsub"'),
            "campaign.launcher must be one of mpirun, srun, sbatch, cluster",
        ),
        (('partition = "small"', 'queue = "small"'), r"\[campaign.sbatch\] takes"),
        (("nodes = [1, 2]", "nodes = [1, 2]\nranks = 4"), "give ranks, or nodes and tasks_per_node"),
        (("tasks_per_node = [2, 4]", ""), "nodes needs tasks_per_node"),
    ],
)
def test_bad_slurm_campaigns(tmp_path, change, message):
    (tmp_path / "c.toml").write_text(SLURM.format(launcher="srun").replace(*change))
    with pytest.raises(CampaignError, match=message):
        load_campaign(tmp_path / "c.toml")


def test_a_timeout_ends_the_whole_process_group(tmp_path):
    """A point that times out leaves nothing running: the launcher's
    children (mpirun's ranks, smpirun's simulator) are ended with it."""
    import subprocess
    import time

    from haloex_lab.launchers import run_bounded

    pidfile = tmp_path / "child.pid"
    # a shell (the launcher) whose child (the ranks) would outlive it
    cmd = ["sh", "-c", f"sleep 300 & echo $! > {pidfile}; wait"]
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_bounded(cmd, 1.0)
    assert time.monotonic() - t0 < 30
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, 9)
    pytest.fail("the launcher's child outlived the timeout")


def test_the_simulate_launcher(tmp_path):
    """launcher = "simulate": each point under haloex-lab simulate on the
    campaign's network description, nodes x tasks_per_node as its placement."""
    from haloex_lab.launchers import Launcher, Where
    from haloex_lab.simulate import split_program

    sim = Launcher("simulate", ["networks/archer2-like.toml"])
    words = sim.words(Where(8, 1, 2, 4))
    assert words[1:] == ["-m", "haloex_lab", "simulate", "networks/archer2-like.toml", "--ranks", "8",
                         "--ranks-per-node", "4", "--"]  # fmt: skip
    assert sim.words(Where(3))[-3:] == ["--ranks", "3", "--"]
    assert sim.described() == "haloex-lab simulate networks/archer2-like.toml"
    # what simulate makes of the words a campaign puts after --
    assert split_program(["b/haloex", "bench", "halo", "-q", "-o", "t.jsonl"], None, None) == (
        "b/haloex", ["bench", "halo", "-q"], Path("t.jsonl"))  # fmt: skip
    assert split_program(["bench", "halo", "-o", "t.jsonl"], None, Path("mine.jsonl")) == (
        None, ["bench", "halo", "-o", "t.jsonl"], Path("mine.jsonl"))  # fmt: skip
    from haloex_lab.simulate import SimulateError

    with pytest.raises(SimulateError, match="give the program once"):
        split_program(["b/haloex", "info"], "c/haloex", None)
    with pytest.raises(SimulateError, match="after --"):
        split_program([], None, None)
    # campaign.network goes with launcher = "simulate", and only with it
    for head in ('launcher = "simulate"', 'network = "n.toml"'):
        (tmp_path / "c.toml").write_text(f"[campaign]\n{head}\n[[points]]\nbenchmark = 'halo'\n")
        with pytest.raises(CampaignError, match=r"campaign\.network"):
            load_campaign(tmp_path / "c.toml")
