"""`haloex-lab compare` on arrays whose differences are known."""

import json
from pathlib import Path

import numpy as np
import pytest

from haloex_lab.cli import main
from haloex_lab.compare import CompareError, compare_arrays, compare_files


@pytest.fixture
def ref():
    return np.random.default_rng(7).uniform(0.5, 1.5, size=(6, 5, 4))


def test_identical_arrays_pass_bit_for_bit(ref):
    c = compare_arrays(ref.copy(), ref)
    assert c.ok and c.identical and c.max_abs == 0 and c.outside == 0


def test_relative_tolerance_is_numpys_rule(ref):
    inside = ref * (1 + 5e-6)  # |a - b| = 5e-6 |b| <= 1e-8 + 1e-5 |b|
    outside = ref.copy()
    outside[1, 2, 3] *= 1 + 3e-5
    c = compare_arrays(inside, ref)
    assert c.ok and not c.identical
    assert c.max_rel == pytest.approx(5e-6, rel=1e-6)
    c = compare_arrays(outside, ref)
    assert not c.ok and c.outside == 1
    assert c.max_rel == pytest.approx(3e-5, rel=1e-6)
    assert c.max_abs == pytest.approx(3e-5 * ref[1, 2, 3], rel=1e-6)


def test_absolute_tolerance_near_zero():
    zero = np.zeros(10)
    assert compare_arrays(np.full(10, 5e-9), zero).ok
    c = compare_arrays(np.full(10, 2e-8), zero)
    assert not c.ok and c.outside == 10 and c.max_rel == 0  # no relative difference where b == 0


def test_nan_never_passes(ref):
    a = ref.copy()
    a[0, 0, 0] = np.nan
    c = compare_arrays(a, ref)
    assert not c.ok and c.nonfinite == 1


def test_single_against_double_passes_at_the_paper_tolerance(ref):
    assert compare_arrays(ref.astype(np.float32), ref).ok


def test_files_and_exit_codes(tmp_path, ref, capsys):
    a, b, other, broken = (tmp_path / n for n in ["a.npy", "b.npy", "other.npy", "broken.npy"])
    np.save(b, ref)
    np.save(a, ref * (1 + 1e-4))
    np.save(other, np.zeros((3, 3)))
    broken.write_bytes(b.read_bytes()[:200])  # header intact, data cut short
    assert main(["compare", str(b), str(b)]) == 0
    assert "bit-identical" in capsys.readouterr().out
    assert main(["compare", str(a), str(b)]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert main(["compare", str(a), str(b), "--rtol", "1e-3"]) == 0
    assert main(["compare", str(other), str(b)]) == 2
    assert "shapes differ" in capsys.readouterr().err
    assert main(["compare", str(broken), str(b)]) == 2
    assert "not a readable .npy" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "missing.npy"), str(b)]) == 2
    with pytest.raises(CompareError):
        compare_files(other, b)


def _records(tmp_path, name, host, scale, env):
    lines = (Path(__file__).parent / "data" / "small.jsonl").read_text().splitlines()
    base = [json.loads(line) for line in lines]
    out = []
    for r in base:
        r = dict(r, host=host, placement={"hosts": [host], "launcher": "mpirun", "mpi_env": env})
        if "time_per_call_s" in r:
            r["time_per_call_s"] = [t * scale for t in r["time_per_call_s"]]
        out.append(r)
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in out))
    return path


def test_results_side_by_side(tmp_path, capsys):
    a = _records(tmp_path, "a", "alpha", 1.0, {})
    b = _records(tmp_path, "b", "beta", 2.0, {"OMPI_MCA_btl": "self,tcp"})
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "A: " in out and "alpha" in out and "beta" in out and "OMPI_MCA_btl=self,tcp" in out
    rows = [line for line in out.splitlines() if line.startswith("| halo |")]
    assert rows and all(line.endswith("| 2.000 |") for line in rows), rows[:3]


def test_results_with_nothing_in_common(tmp_path, capsys):
    a = _records(tmp_path, "a", "alpha", 1.0, {})
    c = {"benchmark": "stream", "kernel": "copy", "bandwidth_bytes_per_s": [1e9]}
    c.update(haloex_version="0", ranks=1, threads_per_rank=1)
    (tmp_path / "c.jsonl").write_text(json.dumps(c) + "\n")
    assert main(["compare", str(a), str(tmp_path / "c.jsonl")]) == 2
    assert "no benchmark point in common" in capsys.readouterr().err


def test_results_in_two_machine_states_are_told_apart(tmp_path, capsys):
    def probed(name, probe_s):
        path = _records(tmp_path, name, "alpha", 1.0, {})
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for r in records:
            if r.get("benchmark") == "halo":
                r["link_probe_s"] = [probe_s] * 5
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        return path

    a, b, c = probed("a", 25e-6), probed("b", 77e-6), probed("c", 27e-6)
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "Link probe (machine state, docs/statistics.md): A 25.0 us, B 77.0 us." in out
    assert "not measured in the same machine state (their probes differ by 3.1x" in out
    assert main(["compare", str(a), str(c)]) == 0
    out = capsys.readouterr().out
    assert "A 25.0 us, B 27.0 us" in out and "not measured in the same machine state" not in out
    assert "changed machine state" not in out
    # B at 25 us at its fastest, like A, but part of it at 77 us: B changed state
    records = [json.loads(line) for line in b.read_text().splitlines()]
    halo = [r for r in records if r.get("benchmark") == "halo"]
    halo[0]["link_probe_s"] = [25e-6] * 5
    b.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "Warning: B changed machine state during its run" in out and "not measured in the same" not in out
