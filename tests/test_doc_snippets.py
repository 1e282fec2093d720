"""Every code block in README.md and docs/ that claims an output runs here and shows that output.

A fenced ``python`` block preceded by the line ``<!-- doctest -->`` is run, top to bottom, in a
scratch folder (each block on its own, in a fresh namespace); ``<!-- doctest needs langgraph -->``
skips it when that optional package is not installed. In it a claim is a comment that starts
with an arrow:

- ``expression  # → text``: ``repr()`` of the expression's value is ``text``;
- ``print(...)  # → text`` (also inside a loop or a ``with``): the lines the statement prints begin
  with the claimed lines, in order.

``…`` in a claim stands for any text. A block that claims an output without the marker fails
:func:`test_every_block_that_claims_an_output_is_run`, so a claim cannot be left unchecked.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- doctest -->"
_MARK = re.compile(r"<!-- doctest(?: needs ([\w., -]+))? -->")
GENERATED = {"cli.md", "api.md"}  # generated from --help and docstrings; checked for freshness elsewhere
ARROW = re.compile(r"#\s*(?:→|->)\s?(.*)$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    source: str
    marked: bool
    needs: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name not in GENERATED)]


def python_blocks() -> list[Block]:
    blocks = []
    for path in doc_files():
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
            before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
            mark = _MARK.fullmatch(before)
            needs = tuple(n.strip() for n in (mark.group(1) or "").split(",") if n.strip()) if mark else ()
            line = text[: m.start()].count("\n") + 1
            blocks.append(Block(path, line, m.group(1), mark is not None, needs))
    return blocks


def claims(source: str) -> dict[int, str]:
    """Line number → claimed output, for every ``# →`` comment."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            m = ARROW.match(tok.string)
            if m:
                found[tok.start[0]] = m.group(1).strip()
    return found


def matches(claim: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in claim.split("…"))
    return re.fullmatch(pattern, actual.strip(), re.S) is not None


def _is_print(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "print"
    )


def run_block(block: Block) -> None:
    tree = ast.parse(block.source)
    claimed = claims(block.source)
    namespace: dict[str, object] = {"__name__": "__doc_snippet__"}
    checked: set[int] = set()
    last = len(block.source.splitlines())
    for i, stmt in enumerate(tree.body):
        # a claim on a comment line after a statement (a second printed line) belongs to it
        upto = tree.body[i + 1].lineno - 1 if i + 1 < len(tree.body) else last
        lines = range(stmt.lineno, upto + 1)
        mine = {n: claimed[n] for n in lines if n in claimed}
        where = f"{block.id} (block line {stmt.lineno})"
        if mine and isinstance(stmt, ast.Expr) and not _is_print(stmt):
            value = eval(compile(ast.Expression(stmt.value), block.id, "eval"), namespace)
            (claim,) = mine.values()
            assert matches(claim, repr(value)), f"{where}: claimed {claim!r}, got {value!r}"
            checked.update(mine)
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(ast.Module([stmt], type_ignores=[]), block.id, "exec"), namespace)
        if mine:
            printed = out.getvalue().splitlines()
            expected = list(mine.values())
            assert len(printed) >= len(expected), f"{where}: claimed {expected!r}, printed {printed!r}"
            for claim, actual in zip(expected, printed, strict=False):
                assert matches(claim, actual), f"{where}: claimed {claim!r}, printed {actual!r}"
            checked.update(mine)
    assert checked == set(claimed), (
        f"{block.id}: claims on lines {sorted(set(claimed) - checked)} not checked"
    )


MARKED = [b for b in python_blocks() if b.marked]


def test_the_docs_have_runnable_blocks() -> None:
    assert len(MARKED) >= 5
    assert all(claims(b.source) for b in MARKED), "a marked block should claim something"


def test_every_block_that_claims_an_output_is_run() -> None:
    unmarked = [b.id for b in python_blocks() if not b.marked and claims(b.source)]
    assert not unmarked, f"blocks claim an output (# →) but are not run: add {MARKER} above {unmarked}"


@pytest.mark.parametrize("block", MARKED, ids=[b.id for b in MARKED])
def test_block_prints_what_it_claims(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in block.needs:
        pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)  # files the snippet makes (memories.db, its vault key) land here
    monkeypatch.setenv("REMNANT_EMBEDDER", "static")  # the snippets' claims do not depend on the model
    for name in ("REMNANT_DB", "REMNANT_PRIVACY", "REMNANT_VAULT_KEY", "REMNANT_VAULT_KEY_FILE"):
        monkeypatch.delenv(name, raising=False)
    run_block(block)


def test_the_runner_catches_a_wrong_claim() -> None:
    good = Block(ROOT / "README.md", 0, "x = [1, 2]\nx  # → [1, …]\nfor i in x:\n    print(i)  # → 1\n", True)
    run_block(good)
    bad = Block(ROOT / "README.md", 0, "print('a')  # → b\n", True)
    with pytest.raises(AssertionError, match="claimed 'b'"):
        run_block(bad)
    wrong_value = Block(ROOT / "README.md", 0, "1 + 1  # → 3\n", True)
    with pytest.raises(AssertionError, match="claimed '3'"):
        run_block(wrong_value)
