#!/usr/bin/env python3
"""No C++ function in src/ longer than a screen.

    check_function_length.py ROOT [LIMIT]

Counts each function of ROOT/src (.cpp and .hpp) from the first line of its
signature to its closing brace, lambdas inside it included, and reports every
one over LIMIT lines (60 by default) with its file, line and length. (The
Python lab's functions are checked by python/tests/test_function_length.py.)
It reads the code as text: comments and string literals are blanked, then a
brace that follows a parameter list (or a constructor's initialiser list)
outside any function opens a function. Exit 1 on any finding.
"""

import re
import sys
from pathlib import Path

SIGNATURE_END = re.compile(r"\)\s*(?:const|noexcept|override|final|mutable|&|&&|\s|->\s*[\w:<>,\s*&]+)*$")
CONTROL = re.compile(r"\b(?:if|for|while|switch|catch)\s*\(.*\)\s*$")
INITIALISERS = re.compile(r"\)\s*:\s*[^;{}]*$")


def blank(match: re.Match) -> str:
    """The matched text with everything but line breaks made spaces."""
    return re.sub(r"[^\n]", " ", match.group())


def code_only(text: str) -> str:
    """The text with comments and string and character literals blanked."""
    text = re.sub(r'R"(\w*)\(.*?\)\1"', blank, text, flags=re.S)
    text = re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', blank, text)
    return re.sub(r"'(?:\\.|[^'\\\n])'", blank, text)


def functions(text: str):
    """(first line, last line) of each outermost function body in the text."""
    code, stack = code_only(text), []
    for i, ch in enumerate(code):
        if ch == "{":
            before = code[max(0, i - 400) : i].rstrip()
            outside = not any(kind == "function" for kind, _ in stack)
            opens = outside and (
                (SIGNATURE_END.search(before) and not CONTROL.search(before[-200:])) or INITIALISERS.search(before)
            )
            stack.append(("function" if opens else "block", signature_start(code, i) if opens else i))
        elif ch == "}" and stack:
            kind, start = stack.pop()
            if kind == "function":
                yield code.count("\n", 0, start) + 1, code.count("\n", 0, i) + 1


def signature_start(code: str, brace: int) -> int:
    """Where the declaration that ends at `brace` begins: after the last ;, { or }
    (or preprocessor line) before it."""
    start = max(code.rfind(c, 0, brace) for c in ";{}") + 1
    while True:
        line_end = code.find("\n", start)
        line = code[start:line_end] if line_end >= 0 else ""
        if line_end >= 0 and (not line.strip() or line.strip().startswith(("#", "public:", "private:", "protected:"))):
            start = line_end + 1
        else:
            return start + len(line) - len(line.lstrip())


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    long_ones = []
    for path in sorted(p for p in (root / "src").rglob("*") if p.suffix in {".cpp", ".hpp"}):
        for first, last in functions(path.read_text()):
            if last - first + 1 > limit:
                long_ones.append(f"{path.relative_to(root)}:{first}: a function of {last - first + 1} lines")
    for line in long_ones:
        print(line)
    if long_ones:
        print(f"{len(long_ones)} function(s) in src/ longer than {limit} lines", file=sys.stderr)
        return 1
    print(f"function length: every function in src/ has at most {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
