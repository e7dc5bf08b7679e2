#!/usr/bin/env python3
"""The documentation's code blocks, run as written (docs/testing.md, "Docs that run").

Every fenced block of README.md and docs/*.md in a runnable language (c, cpp,
fortran, python, sh/bash/shell, console with `$ ` lines) carries a marker,
an HTML comment on the line before its fence (it renders as nothing):

    <!-- snippet: run [np=N] [sub="OLD=>NEW"]... [needs=CMD,...] [timeout=S] -->
    <!-- snippet: skip: REASON -->
    <!-- snippet: part-of docs/OTHER.md -->

`run` runs it: shell blocks with bash -e from a scratch copy of the
checkout's root (build/ and .venv/ the real ones; `mpirun`, `mpicc`, `haloex` and a
stand-in for ParaView's window first on PATH); python under mpirun at np
ranks (plain python without np); c, cpp and fortran built by `build` with
find_package(haloex) against the build's install, then run under mpirun at
np ranks (default 1). `sub` replaces text before it runs (a doc's big sizes
by small ones; OLD must be in the block); `needs` names commands, or build
options (hdf5), without which the block is reported and not run. `skip`
says why it is not run. `part-of` blocks are not run either: each of their
lines (comments and blank lines aside) must be a line of a run block of
that document, so a shortened copy cannot drift from the one that runs.

    snippets.py check ROOT               every marker present and well formed
    snippets.py list ROOT                the documents with a run block
    snippets.py build ROOT WORK --build B      every document's C, C++, Fortran run blocks
    snippets.py run ROOT DOC WORK --build B --haloex H --python PY --mpiexec M [--programs WORK] ...

Standard library only.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

# Fence languages that are run or must say why not, by family.
LANGUAGES = {
    "c": "c",
    "cpp": "cpp",
    "c++": "cpp",
    "cxx": "cpp",
    "fortran": "fortran",
    "f90": "fortran",
    "f": "fortran",
    "python": "python",
    "py": "python",
    "python3": "python",
    "sh": "sh",
    "bash": "sh",
    "shell": "sh",
    "console": "console",
}
# Fence languages that are never run (data, output, other tools' files); any
# other language is an error until it is named in one of the two tables.
NOT_RUN = {"", "text", "toml", "json", "yaml", "ini", "cmake", "diff", "output", "markdown", "md"}
# A block without a language whose first line (comments aside) starts like
# this is a command sequence in disguise: it must say `sh` (and get a marker).
COMMAND_LIKE = re.compile(
    r"^(\$ |mpirun\s|mpiexec\s|srun\s|sbatch\s|haloex\s|haloex-lab\s|make\s|cmake\s|ctest\s|bash\s"
    r"|python3?\s|pip3?\s|sudo\s|cd\s|export\s|\./|build/|scripts/|\.venv/|[A-Z_]+=\S*\s)"
)
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")
RUN_KEYS = {"np", "sub", "needs", "timeout"}
FEATURES = {"hdf5"}  # what `needs` may name besides commands: the build's options (run --features)
# Directories copied into the scratch root (commands write beside their
# inputs there); the rest of the checkout is linked, but for what runs write.
COPIED = {"examples", "campaigns", "networks"}
LEFT_OUT = {"results", "output", "checkpoints"}


@dataclasses.dataclass
class Block:
    doc: str  # path relative to the root
    line: int  # the opening fence's line, from 1
    info: str  # the fence's language word, lower case
    text: str  # the block's lines, fence indentation removed
    marker: str | None  # the marker's text after "snippet:", or None

    @property
    def lang(self) -> str | None:
        return LANGUAGES.get(self.info)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclasses.dataclass
class Marker:
    verb: str  # run, skip, part-of
    np: int | None = None
    subs: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    needs: list[str] = dataclasses.field(default_factory=list)
    timeout: float = 120.0
    reason: str = ""
    other: str = ""


def documents(root: Path) -> list[str]:
    docs = ["README.md", *sorted(f"docs/{p.name}" for p in (root / "docs").glob("*.md"))]
    return [d for d in docs if (root / d).is_file()]


def blocks(root: Path, doc: str) -> tuple[list[Block], list[str]]:
    """The fenced blocks of one document, and the errors of markers that mark no block."""
    lines = (root / doc).read_text(encoding="utf-8").split("\n")
    out: list[Block] = []
    errors: list[str] = []
    pending: tuple[str, int] | None = None  # a marker waiting for its fence
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        if m:
            if pending:
                errors.append(f"{doc}:{pending[1]}: marker not followed by a code block")
            pending = (m.group(1), i + 1)
            i += 1
            continue
        f = FENCE.match(line)
        if f:
            indent, fence, info = f.group(1), f.group(2), f.group(3).lower()
            body = []
            j = i + 1
            close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            while j < len(lines) and not close.match(lines[j]):
                text = lines[j]
                body.append(text[len(indent) :] if text.startswith(indent) else text.lstrip())
                j += 1
            out.append(Block(doc, i + 1, info, "\n".join(body) + "\n", pending[0] if pending else None))
            pending = None
            i = j + 1
            continue
        if pending and line.strip():
            errors.append(f"{doc}:{pending[1]}: marker not right before a code block (no text between them)")
            pending = None
        i += 1
    if pending:
        errors.append(f"{doc}:{pending[1]}: marker not followed by a code block")
    return out, errors


def parse_marker(text: str) -> Marker:
    """A marker's text after "snippet:"; raises ValueError saying what is wrong."""
    verb, _, rest = text.partition(" ")
    verb = verb.rstrip(":")
    rest = rest.strip()
    if verb == "skip":
        reason = rest.lstrip(":—- ").strip()
        if not reason:
            raise ValueError("skip needs a reason: <!-- snippet: skip: WHY -->")
        return Marker("skip", reason=reason)
    if verb == "part-of":
        if not rest.endswith(".md") or " " in rest:
            raise ValueError("part-of needs one document: <!-- snippet: part-of docs/OTHER.md -->")
        return Marker("part-of", other=rest)
    if verb != "run":
        raise ValueError(f"unknown marker '{verb}' (run, skip or part-of)")
    m = Marker("run")
    for word in shlex.split(rest):
        key, eq, value = word.partition("=")
        if not eq or key not in RUN_KEYS:
            raise ValueError(f"run: '{word}' is not one of {', '.join(sorted(k + '=' for k in RUN_KEYS))}")
        if key == "np":
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"run: np={value} is not a rank count")
            m.np = int(value)
        elif key == "timeout":
            m.timeout = float(value)
        elif key == "needs":
            m.needs = [c for c in value.split(",") if c]
        else:
            old, arrow, new = value.partition("=>")
            if not arrow or not old:
                raise ValueError(f"run: sub='{value}' must read OLD=>NEW")
            m.subs.append((old, new))
    return m


def code_lines(block: Block) -> list[str]:
    """The block's lines without comments, blank lines and spacing differences."""
    if block.lang in ("c", "cpp"):
        comment = r"//.*$|/\*.*?\*/"
    elif block.lang == "fortran":
        comment = r"!.*$"
    else:
        comment = r"(^|\s)#.*$"
    out = []
    for line in block.text.split("\n"):
        line = " ".join(re.sub(comment, "", line).split())
        if line:
            out.append(line)
    return out


def check(root: Path, docs: list[str]) -> tuple[dict[str, list[tuple[Block, Marker | None]]], list[str]]:
    """Every document's blocks with their parsed markers, and every problem found."""
    found: dict[str, list[tuple[Block, Marker | None]]] = {}
    errors: list[str] = []
    for doc in docs:
        bs, errs = blocks(root, doc)
        errors += errs
        found[doc] = []
        for b in bs:
            marker = None
            if b.marker is not None:
                try:
                    marker = parse_marker(b.marker)
                except ValueError as e:
                    errors.append(f"{b.where}: {e}")
            runnable = b.lang is not None and (b.lang != "console" or re.search(r"^\$ ", b.text, re.M))
            if b.marker is None and runnable:
                errors.append(
                    f"{b.where}: a ```{b.info} block without a marker: put <!-- snippet: run -->, "
                    "<!-- snippet: skip: WHY --> or <!-- snippet: part-of DOC --> on the line before it"
                )
            if b.info not in LANGUAGES and b.info not in NOT_RUN:
                errors.append(
                    f"{b.where}: the fence language '{b.info}' is neither run nor known not to be: "
                    "name it in LANGUAGES or NOT_RUN (tests/docs/snippets.py)"
                )
            if not b.info and b.marker is None:
                first = next(
                    (ln for ln in b.text.split("\n") if ln.strip() and not ln.lstrip().startswith("#")), ""
                )
                if COMMAND_LIKE.match(first):
                    errors.append(
                        f"{b.where}: a block without a language that looks like commands: "
                        "write ```sh and a marker"
                    )
            if marker and marker.verb == "run":
                if not runnable:
                    errors.append(
                        f"{b.where}: 'run' on a ```{b.info or '(no language)'} block, which is not run"
                    )
                for old, _ in marker.subs:
                    if old not in b.text:
                        errors.append(f"{b.where}: sub: '{old}' is not in the block")
                if b.lang in ("sh", "console") and marker.np:
                    errors.append(f"{b.where}: np= is for programs; a shell block says mpirun itself")
            found[doc].append((b, marker))
    # part-of: every code line of the part is a line of a run block there.
    for items in found.values():
        for b, marker in items:
            if not marker or marker.verb != "part-of":
                continue
            if marker.other not in found:
                errors.append(f"{b.where}: part-of: {marker.other} is not a checked document")
                continue
            whole: set[str] = set()
            for ob, om in found[marker.other]:
                if om and om.verb == "run":
                    whole.update(code_lines(ob))
            missing = [ln for ln in code_lines(b) if ln not in whole]
            if missing:
                errors.append(
                    f"{b.where}: part-of {marker.other}: not in any of its run blocks: "
                    + " | ".join(missing[:3])
                )
    return found, errors


# ---- running ----

CMAKE_TARGET = {"c": "haloex::haloex_c", "cpp": "haloex::haloex", "fortran": "haloex::haloex_fortran"}
SUFFIX = {"c": ".c", "cpp": ".cpp", "fortran": ".f90"}


def run_blocks(
    found: dict[str, list[tuple[Block, Marker | None]]], doc: str
) -> list[tuple[str, Block, Marker, str]]:
    """A document's run blocks: (name, block, marker, the text with its subs made)."""
    out = []
    stem = Path(doc).stem.replace("-", "_")
    for n, (b, marker) in enumerate(found[doc], 1):
        if marker and marker.verb == "run" and b.lang:
            text = b.text
            for old, new in marker.subs:
                text = text.replace(old, new)
            out.append((f"{stem}_{n}", b, marker, text))
    return out


def build_programs(a: argparse.Namespace) -> int:
    """Install the build into WORK/prefix and build every document's C, C++
    and Fortran run blocks against it, as another CMake project would
    (find_package(haloex)), going on past a block that does not compile: the
    docs_ test of its document reports it, with the compiler's messages."""
    root, work = a.root.resolve(), a.work.resolve()
    found, _ = check(root, documents(root))
    if work.exists():
        shutil.rmtree(work)
    src = work / "programs"
    src.mkdir(parents=True)
    cmake = [
        "cmake_minimum_required(VERSION 3.20)",
        "project(haloex_doc_snippets LANGUAGES C CXX)",
        "find_package(haloex REQUIRED)",
    ]
    count = 0
    for doc in found:
        for name, b, _, text in run_blocks(found, doc):
            if b.lang not in CMAKE_TARGET:
                continue
            (src / (name + SUFFIX[b.lang])).write_text(text)
            target = CMAKE_TARGET[b.lang]
            cmake += [
                f"if(TARGET {target})  # {b.where}",
                f"  add_executable({name} {name}{SUFFIX[b.lang]})",
                f"  target_link_libraries({name} PRIVATE {target})",
                "endif()",
            ]
            count += 1
    (src / "CMakeLists.txt").write_text("\n".join(cmake) + "\n")
    flags = [f"-DCMAKE_{lang}_FLAGS={a.flags}" for lang in ("C", "CXX", "Fortran")]
    steps = [
        [a.cmake, "--install", str(a.build.resolve()), "--prefix", str(work / "prefix")],
        [
            a.cmake,
            "-S",
            str(src),
            "-B",
            str(work / "build"),
            "-G",
            a.generator,
            f"-DCMAKE_PREFIX_PATH={work / 'prefix'}",
            *flags,
        ],
        [a.cmake, "--build", str(work / "build")] + (["--", "-k", "0"] if a.generator == "Ninja" else []),
    ]
    t0 = time.monotonic()
    for i, cmd in enumerate(steps):
        # The install and configure steps' output in setup.log, the compiler's in build.log.
        log_file = work / ("build.log" if i == 2 else "setup.log")
        with open(log_file, "a") as log:
            log.write(f"$ {shlex.join(cmd)}\n")
            log.flush()
            r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
        if r.returncode and i < 2:
            print(log_file.read_text())
            return 1
    print(
        f"built {count} program(s) of the documentation against the installed library in "
        f"{time.monotonic() - t0:.1f} s (log: {work / 'build.log'})"
    )
    return 0


def shadow_root(root: Path, work: Path, build: Path, venv: Path) -> Path:
    """A copy of the checkout's root to run shell blocks from: the small input
    folders copied, the rest linked; build/ a folder of links to the build's
    entries but for python/ and prefix/ (what a pip install writes), .venv/
    the real one."""
    top = work / "root"
    top.mkdir(parents=True)
    for entry in root.iterdir():
        name = entry.name
        if name.startswith(".") or name.startswith("build") or name in LEFT_OUT:
            continue
        if name in COPIED and entry.is_dir():
            shutil.copytree(entry, top / name, symlinks=True)
        else:
            (top / name).symlink_to(entry)
    (top / "build").mkdir()
    for entry in build.iterdir():
        if entry.name not in ("python", "prefix"):
            (top / "build" / entry.name).symlink_to(entry)
    if venv.is_dir():
        (top / ".venv").symlink_to(venv)
    return top


def tools(work: Path, haloex: Path, mpiexec: list[str], mpicc: str) -> Path:
    """mpirun and mpiexec (this build's launcher and its test flags), mpicc
    (this build's MPI C compiler wrapper), haloex, and a stand-in for
    ParaView's window, which a test cannot open: it checks that the files it
    is given exist."""
    bin_dir = work / "bin"
    bin_dir.mkdir()
    launcher = "#!/bin/sh\nexec " + " ".join(shlex.quote(w) for w in mpiexec) + ' "$@"\n'
    stand_in = (
        '#!/bin/sh\nfor f in "$@"; do\n'
        '  [ -e "$f" ] || { echo "paraview (stand-in): no file $f" >&2; exit 1; }\ndone\n'
    )
    compiler = f'#!/bin/sh\nexec {shlex.quote(mpicc)} "$@"\n'
    made = {"mpirun": launcher, "mpiexec": launcher, "mpicc": compiler, "paraview": stand_in}
    for name, text in made.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (bin_dir / "haloex").symlink_to(haloex)
    return bin_dir


def block_command(a: argparse.Namespace, b: Block, marker: Marker, name: str, text: str, work: Path,
                  programs: Path | None) -> list[str] | str:  # fmt: skip
    """The command that runs block b, or a message saying why it does not
    run ("did not compile" in it: the block fails)."""
    launch = [a.mpiexec, a.numproc_flag]
    if b.lang in CMAKE_TARGET:
        exe = programs / "build" / name if programs else None
        if exe is not None and exe.exists():
            return [*launch, str(marker.np or 1), *a.mpiexec_flags, str(exe)]
        targets = programs / "prefix/lib/cmake/haloex/haloexTargets.cmake" if programs else None
        if (
            b.lang == "fortran"
            and targets
            and targets.exists()
            and "haloex_fortran" not in targets.read_text()
        ):
            return f"{b.where}: not run here: this build has no Fortran module"
        log = (programs / "build.log").read_text() if programs and (programs / "build.log").exists() else ""
        source = name + SUFFIX[b.lang]
        head = f"----- {b.where} ({b.info}) did not compile (docs_programs built it as {source}):"
        return f"{head}\n{text}-----\n{log}"
    if b.lang == "python":
        script = work / (name + ".py")
        script.write_text(text)
        return ([*launch, str(marker.np), *a.mpiexec_flags] if marker.np else []) + [a.python, str(script)]
    if b.lang == "console":
        text = "".join(ln[2:] + "\n" for ln in text.split("\n") if ln.startswith("$ "))
    script = work / (name + ".sh")
    script.write_text(text)
    return ["bash", "-e", "-o", "pipefail", "-x", str(script)]


def run_doc(a: argparse.Namespace) -> int:
    root, doc, work = a.root.resolve(), a.doc, a.work.resolve()
    found, errors = check(root, documents(root))
    if doc not in found:
        print(f"{doc}: not a checked document (README.md, docs/*.md)")
        return 2
    errors = [e for e in errors if e.startswith(doc + ":")]
    if errors:
        print("\n".join(errors))
        return 1
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    venv = Path(os.path.abspath(a.python)).parent.parent  # not resolved: a venv's python is a link
    top = shadow_root(root, work, a.build.resolve(), venv)
    bin_dir = tools(work, a.haloex.resolve(), [a.mpiexec, *a.mpiexec_flags], a.mpicc)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    programs = a.programs.resolve() if a.programs else None

    for b, marker in found[doc]:
        if marker and marker.verb != "run":
            why = f"part of {marker.other}" if marker.verb == "part-of" else marker.reason
            print(f"{b.where}: not run ({why})")

    def lacking(need: str) -> bool:
        return need not in a.features if need in FEATURES else shutil.which(need, path=env["PATH"]) is None

    failed, ran, not_run = [], 0, 0
    for name, b, marker, text in run_blocks(found, doc):
        missing = [c for c in marker.needs if lacking(c)]
        if missing:
            print(f"{b.where}: not run here: needs {', '.join(missing)}, not in this build or on PATH")
            not_run += 1
            continue
        cmd = block_command(a, b, marker, name, text, work, programs)
        if isinstance(cmd, str):  # (not run: a message; a failure when it says so)
            print(cmd)
            if "did not compile" in cmd:
                failed.append(b.where)
            else:
                not_run += 1
            continue
        print(
            f"----- {b.where} ({b.info}{', np=' + str(marker.np) if marker.np else ''}): {shlex.join(cmd)}",
            flush=True,
        )
        t0 = time.monotonic()
        try:
            rc = subprocess.run(cmd, cwd=top, env=env, timeout=marker.timeout).returncode
        except subprocess.TimeoutExpired:
            rc = f"timeout after {marker.timeout:.0f} s"
        ran += 1
        verdict = "ok" if rc == 0 else f"FAILED ({rc})"
        print(f"----- {b.where}: {verdict} in {time.monotonic() - t0:.1f} s", flush=True)
        if rc != 0:
            print(f"the block as run:\n{text}")
            failed.append(b.where)
    print(f"{doc}: {ran - len(failed)} passed, {len(failed)} failed ({not_run} not run here)")
    if failed:
        return 1
    return 77 if ran == 0 else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="every runnable block has a well-formed marker")
    c.add_argument("root", type=Path)
    ls = sub.add_parser("list", help="the documents with a run block")
    ls.add_argument("root", type=Path)
    bp = sub.add_parser("build", help="build every document's C, C++ and Fortran run blocks")
    bp.add_argument("root", type=Path)
    bp.add_argument("work", type=Path, help="scratch folder (emptied first)")
    bp.add_argument("--build", type=Path, required=True, help="the haloex build folder")
    bp.add_argument("--cmake", default="cmake")
    bp.add_argument("--generator", default="Ninja")
    bp.add_argument("--flags", default="", help="compile flags of a sanitized or coverage build")
    r = sub.add_parser("run", help="run one document's run blocks")
    r.add_argument("root", type=Path)
    r.add_argument("doc", help="README.md or docs/NAME.md")
    r.add_argument("work", type=Path, help="scratch folder (emptied first)")
    r.add_argument("--build", type=Path, required=True, help="the haloex build folder")
    r.add_argument("--haloex", type=Path, required=True, help="the haloex program")
    r.add_argument(
        "--python", required=True, help="the Python with haloex and haloex-lab (its venv is .venv)"
    )
    r.add_argument("--programs", type=Path, help="where 'build' built the programs")
    r.add_argument("--mpiexec", required=True)
    r.add_argument("--mpicc", default="mpicc", help="the build's MPI C compiler wrapper")
    r.add_argument("--numproc-flag", default="-np")
    r.add_argument("--mpiexec-flags", default="", help="extra launcher flags, space-separated")
    r.add_argument("--features", default="", help="the build's options, comma-separated (hdf5)")
    a = p.parse_args()
    if a.command == "run":
        a.mpiexec_flags = a.mpiexec_flags.split()
        a.features = set(a.features.split(",")) - {""}
        return run_doc(a)
    if a.command == "build":
        return build_programs(a)
    root = a.root.resolve()
    found, errors = check(root, documents(root))
    if a.command == "list":
        for doc, items in found.items():
            if any(m and m.verb == "run" for _, m in items):
                print(doc)
        return 0
    for e in errors:
        print(e)
    counts = {"run": 0, "skip": 0, "part-of": 0}
    for items in found.values():
        for _, m in items:
            if m:
                counts[m.verb] += 1
    print(
        f"{len(found)} documents: {counts['run']} blocks run, {counts['skip']} skipped with a reason, "
        f"{counts['part-of']} part of a run block; {len(errors)} problem(s)"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
