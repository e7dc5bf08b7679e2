#!/usr/bin/env python3
"""Every include of src/ and include/ against the layers' table.

    check_layers.py ROOT

ROOT/cmake/layers.txt names each layer and the layers it may use. A file in
src/<layer>/ or include/haloex/<layer>/ may include headers of its own layer
and of those; an include of "haloex/<other>/..." (or a relative include that
leads into another layer's folder) is reported with its file and line. The
table itself must be closed (a layer may use whatever the layers it uses
may) and name every folder of src/ and include/haloex/. Exit 1 on any
finding, after printing all of them.
"""

import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# Folders of src/ that hold no C or C++ of a layer of their own.
NOT_LAYERS = {"fortran"}


def read_table(path: Path) -> dict[str, set[str]]:
    """The layers and what each may use, in the table's order."""
    table: dict[str, set[str]] = {}
    for line in path.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            table[words[0]] = set(words[1:])
    return table


def table_problems(table: dict[str, set[str]]) -> list[str]:
    """Uses of unknown layers, uses of a later layer and missing closure."""
    problems, order = [], list(table)
    for layer, uses in table.items():
        for used in sorted(uses):
            if used not in table:
                problems.append(f"cmake/layers.txt: {layer} uses {used}, which is no layer")
            elif order.index(used) >= order.index(layer):
                problems.append(f"cmake/layers.txt: {layer} uses {used}, which is not listed before it")
            else:
                for indirect in sorted(table[used] - uses - {layer}):
                    problems.append(
                        f"cmake/layers.txt: {layer} uses {used}, which uses {indirect}: {layer} must name it too"
                    )
    return problems


def layer_of(path: Path, root: Path) -> str | None:
    """The layer a file of src/ or include/haloex/ belongs to."""
    parts = path.relative_to(root).parts
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ("include", "haloex"):
        return parts[2] if len(parts) > 3 else "capi"  # (haloex.h, the C API's header)
    return None


def included_layer(name: str, including: Path, root: Path) -> str | None:
    """The layer an include names, or None for a generated or outside header."""
    m = re.match(r"haloex/([a-z_]+)/", name)
    if m:
        return m.group(1)
    if name == "haloex/haloex.h":
        return "capi"
    target = (including.parent / name).resolve()
    if target.is_file() and target.is_relative_to(root):
        return layer_of(target, root)
    return None  # (haloex/build_info.hpp and the like: build facts, any layer)


def include_problems(root: Path, table: dict[str, set[str]]) -> list[str]:
    problems = []
    files = sorted(p for d in ("src", "include") for p in (root / d).rglob("*") if p.suffix in {".cpp", ".hpp", ".h"})
    for path in files:
        layer = layer_of(path, root)
        if layer is None or layer in NOT_LAYERS:
            continue
        if layer not in table:
            problems.append(f"{path.relative_to(root)}: folder {layer!r} is not a layer of cmake/layers.txt")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            used = included_layer(m.group(1), path, root) if m else None
            if used and used != layer and used not in table[layer]:
                problems.append(
                    f'{path.relative_to(root)}:{number}: #include "{m.group(1)}": '
                    f"the {layer} layer may not use {used} (cmake/layers.txt)"
                )
    return problems


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    table = read_table(root / "cmake" / "layers.txt")
    problems = table_problems(table) + include_problems(root, table)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) against the layers' direction", file=sys.stderr)
        return 1
    print(f"layers: every include of src/ and include/ follows cmake/layers.txt ({len(table)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
