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
# The C and C++ translation units of src/ and tests/ as the build compiles
# them (not the generated ones, not the Fortran module): a unity source of
# the build (CMakeLists.txt) is checked whole, its files' findings reported
# at their own lines. Checked file by file, each file parsed the standard
# library and MPI headers again, and clang-tidy's matchers walked them each
# time: 114 files took 17 min on a 2-vCPU machine, its 36 units 5.8 min.
# (What unity checking cannot see is a file that leans on an include of
# another file of its unity source; -DCMAKE_UNITY_BUILD=OFF builds find
# that.) In a copy of the compilation database without the
# GCC-only flags clang does not know; two at a time. clang-tidy exits
# non-zero on any finding (WarningsAsErrors).
mkdir -p "$build/tidy"
python3 - "$build/compile_commands.json" "$build/tidy/compile_commands.json" "$build/tidy/units.txt" <<'PY'
import json, re, sys
gcc_only = ("-fno-tree-loop-distribute-patterns",)


def sources(entry):
    """The files a compile command compiles: a unity source's includes, or the file itself."""
    if "/Unity/unity_" not in entry["file"]:
        return [entry["file"]]
    return re.findall(r'^#include "(.+)"$', open(entry["file"]).read(), re.M)


def ours(f):
    return ("/src/" in f or "/tests/" in f) and f.endswith((".cpp", ".c"))


db, units = [], []
for e in json.load(open(sys.argv[1])):
    files = sources(e)
    if not any(ours(f) for f in files):
        continue
    db.append({"directory": e["directory"], "file": e["file"],
               "command": " ".join(w for w in e["command"].split(" ") if w not in gcc_only)})
    # The checks a unit gets besides .clang-tidy's: a unity source includes
    # .cpp files by design, and lies in the build folder, where
    # tests/.clang-tidy (no static analyzer) is not seen.
    unity = "/Unity/unity_" in e["file"]
    tests = any("/tests/" in f for f in files)
    extra = (["-bugprone-suspicious-include"] if unity else []) + (["-clang-analyzer-*"] if tests else [])
    # The longest first (the GoogleTest files, then the command files), so
    # that neither core idles at the end waiting for one.
    rank = 0 if any("/tests/test_" in f for f in files) else 1 if len(files) > 1 else 2
    units.append((rank, e["file"], ",".join(extra)))
json.dump(db, open(sys.argv[2], "w"), indent=1)
# (no blank at a line's end: xargs -L would join the next line to it)
open(sys.argv[3], "w").write("".join(f"{f} {c}".rstrip() + "\n" for _, f, c in sorted(units, key=lambda u: u[0])))
PY
# (each line: the file, then its extra checks if any)
xargs -P 2 -L 1 bash -c 'clang-tidy -p "$0" --quiet ${2:+--checks="$2"} "$1"' "$build/tidy" <"$build/tidy/units.txt" 2>&1 |
  grep -v "warnings generated\|^Suppressed\|NOLINT\|-header-filter" > "$build/clang-tidy.log"
grep -q "warning:\|error:" "$build/clang-tidy.log" && { cat "$build/clang-tidy.log"; status=1; }
[[ $status == 0 ]] && echo "lint: clean"
exit $status
