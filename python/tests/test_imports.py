"""The lab's modules import each other in one direction only: no circle,
however long, among haloex_lab's modules (docs: ../shared/DESIGN.md,
"Layers": the launchers below the campaign runner, each benchmark's module
below the report). Imports inside functions count as well: a lazy import
hides a circle from the interpreter, not from a reader."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "haloex_lab"
ROOT = PACKAGE.name


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """haloex_lab's modules (packages by their __init__.py) and their files."""
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    """The module a `from ... import` names, made absolute."""
    if node.level == 0:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _with_parents(name: str, known: dict[str, Path]) -> set[str]:
    """Importing a.b.c runs a/__init__ and a/b/__init__ first: each is a
    dependency too."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & set(known)


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The haloex_lab modules `name` imports, anywhere in its file."""
    out: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                out |= _with_parents(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(node, name, is_package)
            out |= _with_parents(target, known)
            # `from . import coll` imports the module coll, not a name of the package.
            out |= {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known}
    return {m for m in out if m.startswith(ROOT) and m != name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected group of modules (Tarjan), each as
    the path a -> b -> ... -> a through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [_circle(sorted(g)[0], g, edges) for g in groups]


def _circle(start: str, group: set[str], edges: dict[str, set[str]]) -> list[str]:
    """The shortest path from start back to start within the group."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v] & group):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    return [start]


def test_no_import_circle_among_the_lab_modules():
    found = cycles(graph())
    assert not found, "import circles in haloex_lab:\n" + "\n".join(" -> ".join(c) for c in found)


def _reach(edges: dict[str, set[str]], v: str, seen: set[str]) -> set[str]:
    """Every module v imports, however indirectly."""
    for w in edges[v] - seen:
        seen.add(w)
        _reach(edges, w, seen)
    return seen


def test_the_launchers_are_below_the_campaign_runner():
    """mpirun/srun/sbatch, the emulated cluster and the simulator never
    reach the runner, however indirectly."""
    edges = graph()
    for launcher in ("launchers", "batch", "cluster", "simulate"):
        below = _reach(edges, f"{ROOT}.{launcher}", set())
        assert f"{ROOT}.runner" not in below, f"{launcher} reaches the campaign runner"


def test_the_benchmarks_are_below_the_report():
    """A benchmark's module gives the report its section; it never reaches
    the report or the command line."""
    edges = graph()
    for name in (m for m in edges if m.startswith(f"{ROOT}.benchmarks")):
        below = _reach(edges, name, set())
        assert not {f"{ROOT}.report", f"{ROOT}.cli"} & below, f"{name} reaches the report"


def test_the_circle_finder_names_a_circle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
