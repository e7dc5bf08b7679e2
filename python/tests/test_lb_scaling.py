"""scripts/simulate_lb_scaling.py's pieces that need no simulation: the
process grid it expects bench halo to choose, the update rate it injects,
and the table and figure it writes."""

import importlib.util
import json
from pathlib import Path

import pytest

_path = Path(__file__).resolve().parents[2] / "scripts" / "simulate_lb_scaling.py"
_spec = importlib.util.spec_from_file_location("simulate_lb_scaling", _path)
scaling = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scaling)


@pytest.mark.parametrize(
    ("ranks", "dims"),
    # What Open MPI 4.1's MPI_Dims_create(ranks, 3) returns.
    [
        (1, [1, 1, 1]),
        (2, [2, 1, 1]),
        (4, [2, 2, 1]),
        (8, [2, 2, 2]),
        (12, [3, 2, 2]),
        (27, [3, 3, 3]),
        (32, [4, 4, 2]),
        (4096, [16, 16, 16]),
        (8192, [32, 16, 16]),
    ],
)
def test_dims_create(ranks, dims):
    assert scaling.dims_create(ranks) == dims


def test_node_rate_scales_the_kernels_roofline_fraction(tmp_path):
    records = tmp_path / "lb.jsonl"
    rows = [
        {
            "benchmark": "lb",
            "velocity_set": "D3Q19",
            "roofline_fraction": 0.4,
            "outside_kernels_fraction_median": 0.2,
        },
        {"benchmark": "lb", "velocity_set": "D3Q19", "roofline_fraction": 0.3},
        {"benchmark": "lb", "velocity_set": "D2Q9", "roofline_fraction": 0.9},
    ]
    records.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rate, fraction = scaling.node_rate(records, 304e9)
    assert fraction == pytest.approx(0.5)  # 0.4 of the step, 0.8 of it in the kernels
    assert rate == pytest.approx(0.5e9)  # 304 GB/s at 304 bytes per update, half of it


def test_node_rate_without_records(tmp_path):
    (tmp_path / "none.jsonl").write_text(json.dumps({"benchmark": "halo"}) + "\n")
    with pytest.raises(SystemExit, match="no D3Q19 bench lb record"):
        scaling.node_rate(tmp_path / "none.jsonl", 1e9)


def test_table_and_figure(tmp_path):
    row = {
        "n": 128,
        "nodes": 1,
        "ranks": 2,
        "subdomain": [64, 128, 128],
        "exchange_s": 1e-4,
        "interior_s": 9e-4,
        "boundary_s": 1e-4,
        "step_s": 1.1e-3,
        "step_overlap_s": 1.0e-3,
        "fom": 128**3 / 1.1e-3,
        "fom_overlap": 128**3 / 1.0e-3,
        "wall_s": 1.0,
    }
    text = scaling.table([row], rate_node=128**3 / 1.0e-3)
    assert "| 128 | 1 | 2 | 64x128x128 | 100.0 | 1000.0 | 1100.0 | 1000.0 |" in text
    assert "| 0.91 / 1.00 |" in text
    scaling.figure([row], 128**3 / 1.0e-3, tmp_path / "f.png", "t")
    assert (tmp_path / "f.png").stat().st_size > 1000
