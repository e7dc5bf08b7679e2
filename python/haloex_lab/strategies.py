"""The halo strategies by family: what the model (model.py), the projection
(projection.py) and the simulator's comparison (simulate.py) need to know
of a strategy to cost it.

This table mirrors src/halo/registry.cpp, the one place strategies are
registered: a strategy added there gets its line here. `haloex info --json`
prints the registry's families ("strategy_families"), and
tests/test_strategies.py compares them with this table whenever build/haloex
exists; the table is here for the lab to read without a binary at hand (the
unit tests, a laptop with results from a cluster)."""

from __future__ import annotations

# name -> family:
#   staged        one dimension after another, two messages a dimension, packed by haloex
#   staged-types  as staged, with MPI subarray datatypes: MPI packs
#   direct        every neighbour at once, one message per peer rank
#   shm           as direct; node neighbours through a shared-memory window, no message
#   node-gather   one message per pair of nodes; node neighbours as direct
#   auto          runs the strategy it chose (its records name it: resolved_strategy)
# In the registry's order, but for prepost before red-black: the order the
# projection has always printed the staged family in.
FAMILY = {
    "staged": "staged",
    "staged-types": "staged-types",
    "direct": "direct",
    "direct-waitany": "direct",
    "persistent": "direct",
    "neighbor": "direct",
    "sendrecv": "staged",
    "irecv-send": "staged",
    "isend-recv": "staged",
    "irecv-isend": "staged",
    "irecv-issend": "staged",
    "prepost": "staged",
    "red-black": "staged",
    "shm": "shm",
    "node-gather": "node-gather",
    "auto": "auto",
}


def members(*families: str) -> list[str]:
    """The strategies of these families, in the table's order."""
    return [name for name, family in FAMILY.items() if family in families]
