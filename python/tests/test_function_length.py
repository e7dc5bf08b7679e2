"""Functions that fit a screen: none in python/ (the lab and its tests)
longer than 60 lines, counted from its `def` (decorators aside) to its last
line, docstring and comments included. A longer one is split into
functions named after what they do (issue 46)."""

from __future__ import annotations

import ast
from pathlib import Path

PYTHON = Path(__file__).resolve().parents[1]
LIMIT = 60


def sources() -> list[Path]:
    """python/'s own files: the package and its tests, not caches or build output."""
    skip = {".ruff_cache", "build", "dist", "__pycache__"}
    return [
        p
        for p in sorted(PYTHON.rglob("*.py"))
        if not skip & set(p.relative_to(PYTHON).parts) and ".egg-info" not in str(p)
    ]


def long_functions(limit: int = LIMIT) -> list[str]:
    """'file:line name (n lines)' of every function or method over `limit`."""
    out = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    out.append(f"{path.relative_to(PYTHON)}:{node.lineno} {node.name} ({n} lines)")
    return out


def test_no_function_longer_than_60_lines():
    found = long_functions()
    assert not found, f"functions longer than {LIMIT} lines:\n" + "\n".join(found)


def test_the_counter_sees_the_lab_and_its_tests():
    names = {p.relative_to(PYTHON).parts[0] for p in sources()}
    assert {"haloex_lab", "tests"} <= names
