"""clients/ludwig_timing.py (make clients): the median's interval, the
fallback rule on a real Ludwig output with a haloex line added, and the
table's ratios on hand-made records whose ratios are known."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = Path(__file__).parent / "data" / "ludwig-0.23.0-p2-L32.txt"


@pytest.fixture(scope="module")
def lt():
    sys.path.insert(0, str(ROOT / "peers"))
    try:
        spec = importlib.util.spec_from_file_location("ludwig_timing", ROOT / "clients" / "ludwig_timing.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["ludwig_timing"] = mod  # (its dataclasses look themselves up there)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.pop(0)


def test_interval_is_the_order_statistic_pair(lt):
    lo, hi, cover = lt.interval([5.0, 1.0, 4.0, 2.0, 3.0])
    assert (lo, hi) == (1.0, 5.0) and cover == pytest.approx(1 - 2 / 32)  # 5 samples: the extremes, 94%
    lo, hi, cover = lt.interval([float(x) for x in range(1, 10)])
    assert (lo, hi) == (2.0, 8.0) and cover >= 0.95  # 9 samples: the 2nd and 8th


def test_measure_reads_the_timers_and_the_strategy(lt):
    text = SAMPLE.read_text()
    job = lt.Job("rate", "native", 2, 32, 40)
    m = lt.measure(text, job)
    assert m["step_s"] > 0 and m["halo_s"] > 0 and m["haloex_strategy"] is None
    assert 0 < m["halo_min_s"] <= m["halo_s"] <= m["halo_max_s"]
    m = lt.measure(text + "\nHalo type:        lb: haloex direct\n", job)
    assert m["haloex_strategy"] == "direct"
    with pytest.raises(ValueError):
        lt.measure(text, lt.Job("rate", "native", 2, 32, 41))


def test_table_ratios(lt):
    def rec(code, rnd, halo, fastest, step):
        return {"part": "rate", "ranks": 2, "lattice_size": 128, "code": code, "round": rnd, "ok": True,
                "halo_s": halo, "halo_min_s": fastest, "step_s": step}  # fmt: skip

    recs = [rec("native", r, 0.040, 0.020, 0.200) for r in range(3)] + [
        rec("direct", r, 0.010, 0.002, 0.160) for r in range(3)
    ]
    text = lt.table(recs)
    line = next(x for x in text.splitlines() if "| direct |" in x)
    cells = [c.strip() for c in line.split("|")]
    assert cells[6] == "2.00" and cells[8:12] == ["0.250", "0.100", "0.800", "0.800"]


def test_no_ratio_of_a_zero_timer(lt):
    # Ludwig prints its timers in ms: a fastest call of 0.000 s gives no ratio, not 0 or a division by 0
    assert lt.ratio([0.0, 0.0], [0.001]) == "-" and lt.ratio([0.001], [0.0]) == "-"
    assert lt.ratio([0.001, 0.003], [0.004]) == "0.500"
