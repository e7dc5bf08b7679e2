#!/usr/bin/env bash
# lint.sh BUILD: the checks CI runs besides the tests. Every C++ file in the
# house style (.clang-format), clang-tidy's checks (.clang-tidy) clean on
# every translation unit of BUILD's compile_commands.json, and ruff's lint
# and format checks clean on the Python package. Exits non-zero on any
# finding, after printing all of them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cd "$root"
status=0

echo "== clang-format"
mapfile -t cxx < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c')
clang-format --dry-run --Werror "${cxx[@]}" || status=1

echo "== ruff"
# (python/, the ParaView test scripts and the haloex package with its test, with python/'s settings)
(cd python && "$root/.venv/bin/ruff" check . ../tests/paraview ../tests/python ../tests/docs ../bindings/python ../examples ../peers ../clients &&
  "$root/.venv/bin/ruff" format --check . ../tests/paraview ../tests/python ../tests/docs ../bindings/python ../examples ../peers ../clients) || status=1

echo "== clang-tidy (${build}/compile_commands.json)"
if [[ ! -f $build/compile_commands.json ]]; then
  echo "no $build/compile_commands.json: configure that build first" >&2
  exit 1
fi
# The C and C++ translation units of src/ and tests/ (not the generated
# ones, not the Fortran module), each on its own: a unity source of the
# build (CMakeLists.txt) stands for the files it includes, each checked
# with its command. In a copy of the compilation database without the
# GCC-only flags clang does not know; two at a time. clang-tidy exits
# non-zero on any finding (WarningsAsErrors).
mkdir -p "$build/tidy"
python3 - "$build/compile_commands.json" "$build/tidy/compile_commands.json" <<'PY'
import json, re, sys
gcc_only = ("-fno-tree-loop-distribute-patterns",)


def sources(entry):
    """The files a compile command compiles: a unity source's includes, or the file itself."""
    if "/Unity/unity_" not in entry["file"]:
        return [entry["file"]]
    return re.findall(r'^#include "(.+)"$', open(entry["file"]).read(), re.M)


db, seen = [], set()
for e in json.load(open(sys.argv[1])):
    for f in sources(e):
        # (tests/mpi_main.cpp is in every MPI test program: checked once)
        if ("/src/" in f or "/tests/" in f) and f.endswith((".cpp", ".c")) and f not in seen:
            seen.add(f)
            words = [f if w == e["file"] else w for w in e["command"].split(" ") if w not in gcc_only]
            db.append({"directory": e["directory"], "file": f, "command": " ".join(words)})
# The longest first (the GoogleTest files, 25-45 s each, then the command
# files, about 20 s), so that neither core idles at the end waiting for one.
db.sort(key=lambda e: 0 if "/tests/test_" in e["file"] else 1 if "/src/cli/" in e["file"] or e["file"].endswith("_command.cpp") else 2)
json.dump(db, open(sys.argv[2], "w"), indent=1)
PY
python3 -c 'import json, sys; print("\n".join(e["file"] for e in json.load(open(sys.argv[1]))))' \
  "$build/tidy/compile_commands.json" |
  xargs -P 2 -n 1 clang-tidy -p "$build/tidy" --quiet 2>&1 |
  grep -v "warnings generated\|^Suppressed\|NOLINT\|-header-filter" > "$build/clang-tidy.log"
grep -q "warning:\|error:" "$build/clang-tidy.log" && { cat "$build/clang-tidy.log"; status=1; }
[[ $status == 0 ]] && echo "lint: clean"
exit $status
