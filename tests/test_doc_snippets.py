"""Every code block in README.md and docs/ that claims an output runs here and shows that output.

A fenced ``python`` block preceded by the line ``<!-- doctest -->`` is run, top to bottom, in a
scratch folder (each block on its own, in a fresh namespace); ``<!-- doctest needs langgraph -->``
skips it when that optional package is not installed. In it a claim is a comment that starts
with an arrow:

- ``expression  # → text``: ``repr()`` of the expression's value is ``text``;
- ``print(...)  # → text`` (also inside a loop or a ``with``): the lines the statement prints begin
  with the claimed lines, in order.

A marked ``console`` block is a shell session: each ``$ remnant …`` line runs (the CLI of this
checkout, in the scratch folder; a trailing ``# comment`` is prose) and the lines after it, up to the
next ``$``, must appear in its output in that order. A fenced block preceded by
``<!-- file: NAME -->`` is written to ``NAME`` in the scratch folder first (the input the session
reads, shown to the reader as it is). Blocks of one page share its scratch folder, in page order.

``…`` in a claim stands for any text. A block that claims an output without the marker fails
:func:`test_every_block_that_claims_an_output_is_run`, so a claim cannot be left unchecked.
Benchmark records (``docs/benchmarks/``) are measurements of a machine, not claims a test can
repeat; the commands that make them are ``remnant bench …``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
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
    pages = (p for p in (ROOT / "docs").rglob("*.md") if p.name not in GENERATED)
    return [ROOT / "README.md", *sorted(p for p in pages if "benchmarks" not in p.parts)]


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


@dataclass(frozen=True)
class Session:
    """A page's marked console blocks and the input files they read, in page order."""

    path: Path
    steps: tuple[tuple[str, str, str], ...]  # ("file", name, text) | ("console", line, text)

    @property
    def id(self) -> str:
        return str(self.path.relative_to(ROOT))


def console_claims(body: str) -> bool:
    """A console block claims an output when a line that is not a ``$`` command follows one."""
    lines = [ln for ln in body.splitlines() if ln.strip()]
    return any(not ln.startswith("$ ") for ln in lines[1:]) and lines[0].startswith("$ ")


def console_blocks() -> list[tuple[Path, int, str, bool]]:
    found = []
    for path in doc_files():
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M):
            before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
            found.append((path, text[: m.start()].count("\n") + 1, m.group(1), before == MARKER))
    return found


def sessions() -> list[Session]:
    out = []
    for path in doc_files():
        text = path.read_text(encoding="utf-8")
        steps: list[tuple[str, str, str]] = []
        for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
            before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
            file = re.fullmatch(r"<!-- file: ([\w.-]+) -->", before)
            if file:
                steps.append(("file", file.group(1), m.group(2)))
            elif before == MARKER and m.group(1) == "console":
                line = text[: m.start()].count("\n") + 1
                steps.append(("console", str(line), m.group(2)))
        if any(kind == "console" for kind, _, _ in steps):
            out.append(Session(path, tuple(steps)))
    return out


def run_console(session: Session, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ``$ remnant …`` through the CLI in this process (as ``remnant`` runs it, plug-ins
    included; one process keeps this fast), in ``cwd``, with stdout and stderr as one stream."""
    from click.testing import CliRunner

    from remnant.cli import cli

    monkeypatch.chdir(cwd)
    env = {
        "REMNANT_DB": str(cwd / "remnant.db"),
        "REMNANT_POOL": str(cwd / "pool.db"),
        "REMNANT_PARTITIONS": str(cwd / "partitions.db"),
        "REMNANT_EMBEDDER": "static",
        "REMNANT_REDACT_PRESIDIO": "off",
        "REMNANT_VAULT_KEY": None,
        "REMNANT_VAULT_KEY_FILE": None,
        "REMNANT_PRIVACY": None,
    }
    runner = CliRunner()
    for kind, name, body in session.steps:
        if kind == "file":
            (cwd / name).write_text(body, encoding="utf-8")
            continue
        commands: list[tuple[str, list[str]]] = []
        for ln in body.splitlines():
            if ln.startswith("$ "):
                commands.append((ln[2:], []))
            elif ln.strip():
                commands[-1][1].append(ln)
        for command, expected in commands:
            argv = shlex.split(command, comments=True)
            where = f"{session.id}:{name}: $ {command}"
            assert argv[0] == "remnant", f"{where}: only remnant commands run here"
            result = runner.invoke(cli, argv[1:], env=env, prog_name="remnant")
            assert result.exit_code == 0, (
                f"{where}: exit {result.exit_code}: {result.output}{result.exception!r}"
            )
            printed = result.output.splitlines()
            at = 0
            for claim in expected:
                while at < len(printed) and not matches(claim, printed[at]):
                    at += 1
                assert at < len(printed), f"{where}: claimed {claim!r}; printed {printed!r}"
                at += 1


MARKED = [b for b in python_blocks() if b.marked]
SESSIONS = sessions()


def test_the_docs_have_runnable_blocks() -> None:
    assert len(MARKED) >= 5
    assert all(claims(b.source) for b in MARKED), "a marked block should claim something"


def test_every_block_that_claims_an_output_is_run() -> None:
    unmarked = [b.id for b in python_blocks() if not b.marked and claims(b.source)]
    unmarked += [
        f"{p.relative_to(ROOT)}:{line}"
        for p, line, body, marked in console_blocks()
        if not marked and console_claims(body)
    ]
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


@pytest.mark.parametrize("session", SESSIONS, ids=[s.id for s in SESSIONS])
def test_console_sessions_print_what_they_claim(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_console(session, tmp_path, monkeypatch)


def test_the_runner_catches_a_wrong_claim() -> None:
    good = Block(ROOT / "README.md", 0, "x = [1, 2]\nx  # → [1, …]\nfor i in x:\n    print(i)  # → 1\n", True)
    run_block(good)
    bad = Block(ROOT / "README.md", 0, "print('a')  # → b\n", True)
    with pytest.raises(AssertionError, match="claimed 'b'"):
        run_block(bad)
    wrong_value = Block(ROOT / "README.md", 0, "1 + 1  # → 3\n", True)
    with pytest.raises(AssertionError, match="claimed '3'"):
        run_block(wrong_value)


def test_the_console_runner_catches_a_wrong_claim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ok = Session(
        ROOT / "README.md", (("file", "a.txt", "x"), ("console", "1", "$ remnant --version\n…0.1…\n"))
    )
    run_console(ok, tmp_path, monkeypatch)
    assert (tmp_path / "a.txt").read_text() == "x"
    wrong = Session(ROOT / "README.md", (("console", "1", "$ remnant --version  # prose\nversion 9\n"),))
    with pytest.raises(AssertionError, match="claimed 'version 9'"):
        run_console(wrong, tmp_path, monkeypatch)
