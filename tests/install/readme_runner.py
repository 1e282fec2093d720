"""Run the README's ``<!-- doctest -->`` Python blocks with nothing but the standard library and
the installed ``remnant``: what the wheel test runs inside a fresh virtual environment.

The claims are read as tests/test_doc_snippets.py reads them (``expr  # → repr`` and
``print(...)  # → lines``); each block runs in a fresh namespace, all in the current folder. Every
printed line goes to stdout; a claim that does not hold exits 1 with the difference.
Usage: python readme_runner.py README.md
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import sys
import tokenize

ARROW = re.compile(r"#\s*(?:→|->)\s?(.*)$")
BLOCK = re.compile(r"^<!-- doctest -->\n```python\n(.*?)^```", re.S | re.M)


def claims(source: str) -> dict[int, str]:
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and (m := ARROW.match(tok.string)):
            found[tok.start[0]] = m.group(1).strip()
    return found


def matches(claim: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in claim.split("…"))
    return re.fullmatch(pattern, actual.strip(), re.S) is not None


def is_print(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "print"
    )


def run(source: str, name: str) -> list[str]:
    tree = ast.parse(source)
    claimed = claims(source)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    problems = []
    last = len(source.splitlines())
    for i, stmt in enumerate(tree.body):
        upto = tree.body[i + 1].lineno - 1 if i + 1 < len(tree.body) else last
        mine = [claimed[n] for n in range(stmt.lineno, upto + 1) if n in claimed]
        if mine and isinstance(stmt, ast.Expr) and not is_print(stmt):
            value = eval(compile(ast.Expression(stmt.value), name, "eval"), namespace)
            print(repr(value))
            if not matches(mine[0], repr(value)):
                problems.append(f"{name} line {stmt.lineno}: claimed {mine[0]!r}, got {value!r}")
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(ast.Module([stmt], type_ignores=[]), name, "exec"), namespace)
        printed = out.getvalue().splitlines()
        for line in printed:
            print(line)
        for k, claim in enumerate(mine):
            if k >= len(printed) or not matches(claim, printed[k]):
                problems.append(f"{name} line {stmt.lineno}: claimed {mine!r}, printed {printed!r}")
                break
    return problems


def main(path: str) -> int:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    problems = []
    for n, m in enumerate(BLOCK.finditer(text), 1):
        problems += run(m.group(1), f"block {n}")
    for p in problems:
        print("CLAIM FAILED:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
