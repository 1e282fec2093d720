"""Language knowledge is data: no module of src/remnant holds a word list or a regex of words.

Word lists, phrasings, attribute names and units live in data files per language that the module's
layer reads (``understand/data/<lang>/*.json``, ``extract/data/*.<lang>.json``,
``core/text/data/<lang>/``, ...; docs/architecture.md has the table). This guard keeps them there.

Flagged, in every module under src/remnant (parsed with ``ast``, nothing imported):

* a list, tuple or set literal with at least ``MIN_WORDS`` entries that look like words of a
  natural language (letters of any script, Han included, with spaces, apostrophes or hyphens; no
  digits, underscores or dots, so identifiers, paths and formats are not words);
* a dict literal with that many such values (keys alone are mostly field names);
* a string (a regular expression) with that many alternatives (``a|b|c``) that are words;
* a string of that many space-separated words made a list in code (``"a b c".split()``, or the
  argument of a function named ``*words*``).

``__all__``, ``Literal[...]`` types and docstrings are not scanned, and a collection all in capitals
(EMAIL, GET, PERSON) is a code's names. What is left is schema, not language: a name the code or the
wire defines (roles, columns, scopes, feature names), listed in ``SCHEMA`` with the reason, by
``module::name`` (the top-level name whose value holds the literal), never a whole module.

``NOT_YET_MOVED`` lists the modules whose words have not been moved out yet: the debt, which may
only shrink. A module in it that no longer holds words fails too, so the list cannot go stale.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "remnant"
MIN_WORDS = 5

# Letters of any script (\w without digits and underscore), joined by spaces, apostrophes, hyphens.
_WORD = re.compile(r"[^\W\d_]+(?:[ '’-]+[^\W\d_]+)*[ ]?")
# What a regex writes around its alternatives: groups, word boundaries, optional marks.
_REGEX_NOISE = re.compile(r"\(\?:|\(\?i\)|\\b|[()?]")

#: Collections of names that are schema (the code's or the wire's own names), not a language's words:
#: changing one changes an API, a column or a file format, never what a reader understands.
SCHEMA: dict[str, str] = {
    "engine/forgetting/erasure.py::_SYSTEM_WORDS": "chat roles, write sources, package names the engine writes",
    "assistant/context.py::_GENERIC_KEY_WORDS": "parts of attribute keys (preferred_x, order_x)",
    "assistant/knowledge.py::_FIELDS": "a knowledge record's fields",
    "bench/cli.py::_SUITE_CHOICES": "the eval suites' names",
    "bench/eval/suites/__init__.py::SUITE_NAMES": "the eval suites' names",
    "bench/eval/suites/timelines.py::GROUPS": "the timeline suite's report groups",
    "bench/eval/suites/deletion.py::PATHS": "the read paths the deletion suite checks",
    "bench/eval/locomo.py::CATEGORIES": "LoCoMo's question categories",
    "bench/eval/temporal_shapes.py::SHAPES": "the report's names of answer shapes",
    "core/durations.py::_PART": "the duration syntax of settings and the wire (30d, 12h)",
    "embed/registry.py::_ALIASES": "embedder model names",
    "extract/corrections.py::ALIGN_FEATURES": "the correction reader's aligned-step feature names (its words are data)",
    "extract/llm.py::kind_for_key": "attribute keys",
    "integrations/llamaindex.py::_ROLES": "chat roles",
    "integrations/openai_agents.py::_STRUCTURAL": "the Agents SDK's item fields",
    "privacy/policy.py::PrivacyPolicy": "the policy setting's spellings (auto, on, off)",
    "retrieval/entities.py::KINDS": "entity kinds",
    "retrieval/entities.py::LINKING_KINDS": "entity kinds",
    "retrieval/entities.py::SpacyEntityReader": "spaCy labels to entity kinds",
    "retrieval/ranker.py::FEATURES": "the ranker's feature names",
    "server/auth.py::SCOPES": "API key scopes",
    "server/errors.py::_STATUS_CODES": "error codes of the wire",
    "server/logs.py::_CHATTY": "logger names",
    "server/overview.py::CATEGORIES": "the overview's status buckets",
    "store/sql.py::COLUMNS": "table columns",
    "store/transfer.py::import_lines": "export file sections",
    "training/claims.py::_KNOWN": "a claim's fields",
    "understand/claim_gate.py::CUES": "the gate's feature names (the cue words are data)",
}

#: Modules whose word lists and word regexes are still in code (issue 27's remaining work): may only
#: shrink. Each says what is left, so whoever moves it knows where it goes.
NOT_YET_MOVED: dict[str, str] = {
    "bench/engine.py": "syllables of generated names",
    "bench/eval/scenarios.py": "the eval scenarios' generated texts",
    "bench/eval/suites/reinforcement.py": "unrelated questions of the suite",
    "bench/forgetting.py": "words of the generated bulk load",
    "bench/serve.py": "words of the generated load",
    "extract/expiry.py": "expiry phrasings in regexes (the word lists are already data/expiry.<lang>.json)",
    "extract/rules.py": "the rule patterns' inline words",
    "privacy/freetext.py": "name cues, street and address words",
    "training/attribute_data.py": "templates and values of the generated attribute set",
    "training/salience_data.py": "templates of the generated salience set",
    "training/synthetic.py": "product names of the synthetic set",
    "understand/attributes.py": "the attribute readers' regexes (their phrasings)",
    "understand/request_parts.py": "the request splitter's regexes",
    "understand/requests.py": "the request reader's regexes",
    "understand/timeexpr.py": "time expressions in regexes",
}


@dataclass(frozen=True)
class Offence:
    path: str
    line: int
    owner: str
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}  {self.owner}  {self.what}"


def _wordlike(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and _WORD.fullmatch(value) is not None


def _code_name(value: object) -> bool:
    """An entry in capitals (EMAIL, GET, PERSON, CJK) is a code's name, not a word."""
    return isinstance(value, str) and value.isupper()


def _alternatives(pattern: str) -> list[str]:
    """The word alternatives of a regex: ``(?:do|does|did)`` -> do, does, did."""
    if "|" not in pattern:
        return []
    return [p for p in _REGEX_NOISE.sub("|", pattern).split("|") if _wordlike(p)]


def _split_words(node: ast.Call) -> list[str]:
    """The words of ``"a b c".split()`` or ``_words("a b c")``: a word list written as one string."""
    text: object = None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "split" and not node.args:
        text = func.value.value if isinstance(func.value, ast.Constant) else None
    elif isinstance(func, ast.Name) and "words" in func.id.lower() and node.args:
        text = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
    if not isinstance(text, str):
        return []
    tokens = text.split()
    return tokens if all(_wordlike(t) for t in tokens) else []


def _docstrings(tree: ast.Module) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _owner(stmt: ast.stmt) -> str:
    """The top-level name a statement binds (``_SUFFIXES = ...``, ``def f``, ``class C``)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return stmt.name
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return names[0] if names else f"<line {stmt.lineno}>"


def scan(path: Path, root: Path = SRC) -> list[Offence]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(root).as_posix()
    skip = _docstrings(tree)
    out: list[Offence] = []
    for stmt in tree.body:
        owner = _owner(stmt)
        if owner == "__all__":
            continue
        nodes = list(ast.walk(stmt))
        literal_types = {
            id(n.slice)
            for n in nodes
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == "Literal"
        }
        for node in nodes:
            what = ""
            if id(node) in literal_types:
                continue  # Literal["fact", "preference", ...]: a type's values are schema
            if isinstance(node, ast.List | ast.Tuple | ast.Set):
                words = [e.value for e in node.elts if isinstance(e, ast.Constant) and _wordlike(e.value)]
                if len(words) >= MIN_WORDS and not all(map(_code_name, words)):
                    what = f"{len(words)} words {words[:4]}"
            elif isinstance(node, ast.Dict):
                # keys alone are mostly a record's field names (schema); words mapped to words are not
                values = [v.value for v in node.values if isinstance(v, ast.Constant) and _wordlike(v.value)]
                if len(values) >= MIN_WORDS:
                    what = f"a dict of {len(values)} words {values[:4]}"
            elif isinstance(node, ast.Call) and len(split := _split_words(node)) >= MIN_WORDS:
                what = f"a string of {len(split)} words {split[:4]}"
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                alts = _alternatives(node.value)
                if len(alts) >= MIN_WORDS:
                    what = f"a regex of {len(alts)} words {alts[:4]}"
            if what:
                out.append(Offence(rel, node.lineno, owner, what))
    return out


@cache
def _offences() -> tuple[Offence, ...]:
    return tuple(o for path in sorted(SRC.rglob("*.py")) for o in scan(path))


def test_no_module_holds_a_languages_words() -> None:
    found = [o for o in _offences() if f"{o.path}::{o.owner}" not in SCHEMA and o.path not in NOT_YET_MOVED]
    assert not found, (
        "language knowledge in code (move it to the layer's data/<lang>/ files; see docs/architecture.md):\n"
        + "\n".join(map(str, found))
    )


def test_the_allow_lists_are_not_stale() -> None:
    offences = _offences()
    owners = {f"{o.path}::{o.owner}" for o in offences}
    paths = {o.path for o in offences}
    assert not set(SCHEMA) - owners, "SCHEMA names no longer holding words: drop them"
    assert not set(NOT_YET_MOVED) - paths, "moved modules still in NOT_YET_MOVED: drop them"
    assert all(reason.strip() for reason in (*SCHEMA.values(), *NOT_YET_MOVED.values()))


def test_the_guard_sees_what_it_is_meant_to_see(tmp_path: Path) -> None:
    # the scanner itself, on invented code: a word list, a word regex, a word dict; and what is not
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import re\n"
        '__all__ = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"]\n'
        'CITIES = ["北京", "上海", "广州", "深圳", "杭州"]\n'
        'AUX = re.compile(r"\\b(?:do|does|did|am|is)\\b")\n'
        'IRREGULAR = {"went": "go", "grew": "grow", "ran": "run", "ate": "eat", "saw": "see"}\n'
        'FIELDS = ("user_id", "created_at", "kind_v2", "a.b", "x-1")\n'
        'FEW = ("yes", "no", "maybe", "later")\n'
        'STATES = "AL AK AZ AR CA".split()\n'
        'SENTENCE = "a sentence, with punctuation and 5 digits".split()\n',
        encoding="utf-8",
    )
    found = {o.owner for o in scan(sample, tmp_path)}
    assert found == {"CITIES", "AUX", "IRREGULAR", "STATES"}
