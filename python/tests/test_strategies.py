"""The lab's table of the strategy families (strategies.py) against `haloex
info --json`, when build/haloex (or $HALOEX) exists; and what the model and
the projection take from the families. (Campaigns read the benchmarks from
the program itself: test_campaign.py.)"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from haloex_lab.strategies import FAMILY, members

HALOEX = Path(os.environ.get("HALOEX") or Path(__file__).resolve().parents[2] / "build" / "haloex")


def _info() -> dict:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    }
    out = subprocess.run(
        [str(HALOEX), "info", "--json"], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout)


@pytest.mark.skipif(not (HALOEX.is_file() and os.access(HALOEX, os.X_OK)), reason="no build/haloex")
def test_the_table_names_the_registered_strategies():
    info = _info()
    assert set(info["strategies"]) == set(FAMILY), (
        "strategies.py's FAMILY mirrors src/halo/registry.cpp: "
        f"only in the registry {sorted(set(info['strategies']) - set(FAMILY))}, "
        f"only in the table {sorted(set(FAMILY) - set(info['strategies']))}"
    )
    assert info["strategy_families"] == FAMILY


def test_families_as_the_model_and_the_projection_use_them():
    from haloex_lab.model import PER_PEER, STAGED
    from haloex_lab.projection import FAMILIES

    assert members("staged-types", "shm") == ["staged-types", "shm"]
    assert STAGED.isdisjoint(PER_PEER) and set(FAMILY) == STAGED | PER_PEER
    assert FAMILIES["direct"] == "direct, direct-waitany, persistent, neighbor"
    assert "node-gather" not in " ".join(FAMILIES.values())
