"""Layering: no module of src/remnant reaches into another module's underscored (private) names.

Flagged, in every file under src/remnant (parsed with ``ast``, nothing imported):

* an attribute access ``X._name`` (called or not) where ``X`` is not ``self``, ``cls`` or
  ``super()``, ``_name`` has one leading underscore (not a dunder), and no class or function of the
  same file defines ``_name``;
* ``from remnant.x import _name`` (or a relative import) of an underscored name from another module.

Which private names count: only those *defined somewhere in src/remnant* (a ``def``/``class``, an
assignment to a name or to ``self._name``/``cls._name``, an annotated class attribute, a
dataclass field). Third-party and standard-library privates such as ``sys._getframe``,
``os._exit`` or ``namedtuple._replace`` are public-by-convention APIs of other libraries and not a
layering concern of ours, so a name Remnant never defines is not flagged. Nothing is allow-listed:
every offence is printed as ``file:line  expr``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "remnant"
OWNERS = {"self", "cls"}


@cache
def _parse(source: str, filename: str) -> ast.Module:
    return ast.parse(source, filename=filename)


def _tree(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for all the checks of this module that read every file
    under src/ (each parse of it is a second or more); keyed by the text, so an edit is parsed
    again. The checks only read the trees."""
    return _parse(path.read_text(encoding="utf-8"), str(path))


@pytest.fixture(scope="module", autouse=True)
def _trees_for_this_module() -> Iterator[None]:
    yield
    _parse.cache_clear()  # the trees of every file are large: not kept for the rest of the run


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


@dataclass(frozen=True)
class Offence:
    path: str
    line: int
    expr: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}  {self.expr}"


def _defined(tree: ast.AST) -> set[str]:
    """Private names a file defines: defs, classes, assigned names and attributes of self/cls."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            base = node.value
            if isinstance(base, ast.Name) and base.id in OWNERS:
                out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)  # keyword parameters such as `_lock=` (not reached through X._)
        elif isinstance(node, ast.alias) and node.asname is None and "." not in node.name:
            out.add(node.name)  # `from m import _x` binds _x (itself checked below)
    return {n for n in out if _private(n)}


def _is_owner(base: ast.expr) -> bool:
    if isinstance(base, ast.Name) and base.id in OWNERS:
        return True
    return isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super"


def _module_of(path: Path, src: Path) -> str:
    rel = path.relative_to(src.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(path: Path, src: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = _module_of(path, src).split(".")
    if path.name != "__init__.py":
        package.pop()
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def find_offences(src: Path = SRC) -> list[Offence]:
    files = sorted(src.rglob("*.py"))
    trees = {p: _tree(p) for p in files}
    local = {p: _defined(t) for p, t in trees.items()}
    ours = set().union(*local.values())
    offences: list[Offence] = []
    for path, tree in trees.items():
        rel = str(path.relative_to(src.parents[1]))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                if _is_owner(node.value) or node.attr in local[path] or node.attr not in ours:
                    continue
                offences.append(Offence(rel, node.lineno, ast.unparse(node)))
            elif isinstance(node, ast.ImportFrom):
                module = _resolve(path, src, node)
                if not (module == "remnant" or module.startswith("remnant.")):
                    continue
                if module == _module_of(path, src):
                    continue
                for alias in node.names:
                    if _private(alias.name):
                        offences.append(Offence(rel, node.lineno, f"from {module} import {alias.name}"))
    return sorted(set(offences), key=lambda o: (o.path, o.line, o.expr))


def test_the_checker_flags_what_it_should(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "remnant"
    (pkg / "store").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "store" / "__init__.py").write_text("")
    (pkg / "store" / "sqlite.py").write_text(
        "_COLUMNS = ('id',)\n"
        "class Store:\n"
        "    def __init__(self):\n        self._lock = None\n"
        "    def _write(self, q):\n        return self._lock, super()._x, Store._write\n"
    )
    (pkg / "engine.py").write_text(
        "import os, sys\n"
        "from remnant.store.sqlite import Store, _COLUMNS\n"
        "from .store.sqlite import _COLUMNS as C\n"
        "def go(store, row):\n"
        "    store._write('x')\n"
        "    return store._lock, os._exit, sys._getframe(), row._replace(), store.__dict__\n"
    )
    got = [str(o) for o in find_offences(pkg)]
    assert got == [
        "src/remnant/engine.py:2  from remnant.store.sqlite import _COLUMNS",
        "src/remnant/engine.py:3  from remnant.store.sqlite import _COLUMNS",
        "src/remnant/engine.py:5  store._write",
        "src/remnant/engine.py:6  store._lock",
    ], got


def test_no_module_reaches_into_another_modules_private_names() -> None:
    offences = find_offences()
    print(f"{len(offences)} cross-module private accesses:")
    for o in offences:
        print(f"  {o}")
    assert not offences, "\n".join(["cross-module private accesses:", *map(str, offences)])


def _import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """Module → the remnant modules it imports (lazy and TYPE_CHECKING imports included: a
    dependency is a dependency wherever the import statement sits)."""
    modules = {_module_of(p, src): p for p in src.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        for node in ast.walk(_tree(path)):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = _resolve(path, src, node)
                # ``from pkg import module`` depends on that module; ``from pkg import name`` on pkg
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                while name and name not in modules:
                    name = name.rpartition(".")[0]
                if name and name != mod:
                    graph[mod].add(name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _collapse(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    """The graph between the direct children of ``package`` (each child package as one node)."""
    prefix = package + "."

    def child(mod: str) -> str | None:
        if not mod.startswith(prefix):
            return None
        return prefix + mod[len(prefix) :].split(".")[0]

    out: dict[str, set[str]] = {}
    for mod, deps in graph.items():
        a = child(mod)
        if a is None:
            continue
        out.setdefault(a, set())
        for dep in deps:
            b = child(dep)
            if b is not None and b != a:
                out[a].add(b)
    return out


def test_no_import_cycles_between_modules_or_packages() -> None:
    graph = _import_graph()
    found = [" → ".join(c) for c in _cycles(graph)]
    packages = {m.rpartition(".")[0] for m in graph} | {"remnant"}
    for package in sorted(packages):
        found += [f"[{package}] " + " → ".join(c) for c in _cycles(_collapse(graph, package))]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    graph = {"p.x.m": {"p.y.n"}, "p.y.n": {"p.x.k"}, "p.x.k": set()}
    assert _cycles(_collapse(graph, "p")) == [["p.x", "p.y"]]


def test_one_cjk_table() -> None:
    """CJK script ranges live in core/text/scripts.py only: every other rule uses its helpers."""

    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.parent.name == "text" and path.parent.parent.name == "core":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\\u(?:4e00|3400|3040|30a0|ac00|9fff)", line, re.I):
                found.append(f"{path.relative_to(SRC)}:{n}")
    assert not found, "CJK ranges outside remnant.core.text: " + ", ".join(found)


# -- one writer of memories ---------------------------------------------------------------------------
# Every change to a memory (status, content, metadata, reinforcement, links, digests, index text,
# vectors) goes through remnant.engine.ledger.Ledger, so the audit, redaction, index text and the
# neighbours' index text stay right by construction. Outside the ledger no module calls a store's
# memory-writing methods or writes the memory tables in SQL. Allowed besides the ledger: the store
# package itself (the backends, their migrations, export/import in store/transfer.py) and the
# store-level benchmarks, which load fixture rows straight into a store to time the store.

#: the store methods that write memories, their index rows, vectors or digests
MEMORY_WRITES = frozenset(
    {
        "insert",
        "insert_many",
        "update",
        "update_many",
        "set_index_texts",
        "set_status",
        "touch",
        "delete",
        "put_embeddings",
        "set_digests",
        "set_entities",
        "rebuild_vectors",
    }
)
#: every other public method of the stores: reads, locks and transactions, the audit chain, the
#: activity clock, the meta table, maintenance (a new store method must be sorted into one of the two)
OTHER_STORE_METHODS = frozenset(
    {
        "active_day_count",
        "activity",
        "append_audit",
        "audit_entries",
        "audit_head",
        "audit_heads",
        "bulk_load",
        "by_digest",
        "by_digests",
        "claim_meta",
        "close",
        "compact",
        "keyword_index",
        "connection",
        "count",
        "count_many",
        "digests_of",
        "embedding_count",
        "embedding_models",
        "embeddings",
        "entities_of",
        "entity_memories",
        "exclusive",
        "execute",
        "execute_returning",
        "fetch",
        "files",
        "forget_activity",
        "get",
        "get_many",
        "get_meta",
        "holds_lock",
        "id_users",
        "ids",
        "import_audit",
        "import_audit_heads",
        "in_transaction",
        "index_texts",
        "lexical_candidates",
        "lexical_search",
        "lock_digests",
        "lock_rows",
        "locked_rows",
        "low_importance",
        "mark_active",
        "meta",
        "metadata_values",
        "over_capacity",
        "probing",  # a read hint: one batched vector probe for a batch of checked writes
        "query",
        "record_row",
        "schema_version",
        "scrub",
        "set_cursor_class",
        "set_meta",
        "set_trace_callback",
        "status_counts",
        "tenants",
        "transaction",
        "unembedded_ids",
        "users",
        "vector_search",
        "vectors_complete",
        "where",
        "write_mark",
        "written_since",
    }
)
#: the memory tables and their side tables (full-text index, vectors, vector files)
MEMORY_TABLES = frozenset(
    {
        "memories",
        "memory_fts",
        "embeddings",
        "vector_files",
        "vector_tombstones",
        "memory_entities",
        "lexical_log",
    }
)
#: what else the memories migrations create: the audit chain, the activity clock, the meta table
OTHER_MEMORY_MIGRATION_TABLES = frozenset({"activity", "audit_heads", "audit_log", "remnant_meta"})
LEDGER = "src/remnant/engine/ledger.py"
WRITERS_ALLOWED = (
    "src/remnant/store/",  # the backends, their migrations, export and import
    LEDGER,
    "src/remnant/bench/forgetting.py",  # loads a million fixture rows to time the sweep's SQL
    "src/remnant/bench/postgres.py",  # loads fixture rows and vectors to time vector search
)
_WRITE_SQL = re.compile(
    r"\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE(?:\s+ONLY)?|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)"
    r"\s+[\"`]?(" + "|".join(sorted(MEMORY_TABLES)) + r")\b",
    re.IGNORECASE,
)


def _is_store(expr: ast.expr, aliases: set[str]) -> bool:
    """``store``, ``x.store``, ``self._store``, ``pg_store`` … or a name bound to one of them."""
    if isinstance(expr, ast.Name):
        name = expr.id
    elif isinstance(expr, ast.Attribute):
        name = expr.attr
    else:
        return False
    return name.lower().rstrip("_").endswith("store") or name in aliases


def _store_aliases(tree: ast.AST) -> set[str]:
    """Names assigned a store expression (``s = ledger.store``), so an alias is no way around."""
    out: set[str] = set()
    for _ in range(2):  # an alias of an alias
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                value = node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if value is not None and _is_store(value, out):
                    out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string literal (and the literal parts of an f-string), with its line."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            out.append((node.lineno, text))
    return out


def find_memory_writes(src: Path = SRC, allowed: tuple[str, ...] = WRITERS_ALLOWED) -> list[Offence]:
    """Calls of the stores' memory-writing methods, and SQL that writes the memory tables, outside
    the ledger and the store package."""
    offences: list[Offence] = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src.parents[1]).as_posix()
        if any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in allowed):
            continue
        tree = _tree(path)
        aliases = _store_aliases(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MEMORY_WRITES
                and _is_store(node.func.value, aliases)
            ):
                offences.append(Offence(rel, node.lineno, ast.unparse(node.func)))
        for line, text in _strings(tree):
            m = _WRITE_SQL.search(text)
            if m:
                offences.append(Offence(rel, line, f"SQL {m.group(0)!r}"))
    return sorted(set(offences), key=lambda o: (o.path, o.line, o.expr))


def test_the_writer_check_flags_what_it_should(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "remnant"
    (pkg / "store").mkdir(parents=True)
    (pkg / "engine").mkdir()
    (pkg / "store" / "sqlite.py").write_text(
        "def f(store, c):\n    store.delete([])\n    c.execute('DELETE FROM memories')\n"
    )
    (pkg / "engine" / "ledger.py").write_text("def f(self):\n    self.store.update(r)\n")
    (pkg / "engine" / "policy.py").write_text(
        "def f(ledger, engine, rows, t):\n"
        "    ledger.store.update(rows)\n"
        "    s = ledger.store\n"
        "    s.set_status(None)\n"
        "    engine.store.put_embeddings([])\n"
        "    rows.update({})\n"  # a dict
        "    ledger.save(rows)\n"  # the ledger's own verb
        "    ledger.store.get_many([])\n"  # a read
        "    rows.execute(f'UPDATE memories SET status = {t}')\n"
        "    rows.execute('insert into memory_fts (rowid) values (1)')\n"
        "    rows.execute('DELETE FROM vault_entries')\n"  # not a memory table
    )
    got = [str(o) for o in find_memory_writes(pkg, ("src/remnant/store/", "src/remnant/engine/ledger.py"))]
    assert got == [
        "src/remnant/engine/policy.py:2  ledger.store.update",
        "src/remnant/engine/policy.py:4  s.set_status",
        "src/remnant/engine/policy.py:5  engine.store.put_embeddings",
        "src/remnant/engine/policy.py:9  SQL 'UPDATE memories'",
        "src/remnant/engine/policy.py:10  SQL 'insert into memory_fts'",
    ], got


def test_only_the_ledger_writes_memories() -> None:
    """No module but the ledger (and the store package) changes a memory: see the block comment."""
    offences = find_memory_writes()
    assert not offences, "\n".join(
        ["memory writes outside remnant.engine.ledger (add a Ledger method instead):", *map(str, offences)]
    )


def _store_methods() -> set[str]:
    out: set[str] = set()
    for name in ("base.py", "sql.py", "sqlite.py", "postgres.py"):
        tree = _tree(SRC / "store" / name)
        for cls in tree.body:
            if isinstance(cls, ast.ClassDef) and cls.name.endswith("Store"):
                out.update(
                    f.name
                    for f in cls.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and not f.name.startswith("_")
                )
    return out


def test_every_store_method_is_sorted_into_writes_or_not() -> None:
    """The list of memory-writing methods cannot fall behind the stores: a new public method of a
    store is either one of them or named among the others."""
    methods = _store_methods()
    unsorted = methods - MEMORY_WRITES - OTHER_STORE_METHODS
    assert not unsorted, f"store methods in neither MEMORY_WRITES nor OTHER_STORE_METHODS: {sorted(unsorted)}"
    assert methods >= MEMORY_WRITES, sorted(MEMORY_WRITES - methods)
    assert not MEMORY_WRITES & OTHER_STORE_METHODS


def test_every_memory_table_is_known() -> None:
    """The memory tables the SQL check looks for are the ones the memories migrations create."""
    created: set[str] = set()
    for sql in (SRC / "store" / "migrations" / "memories").rglob("*.sql"):
        created.update(
            m.lower()
            for m in re.findall(
                r"CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", sql.read_text(), re.I
            )
        )
    assert created == MEMORY_TABLES | OTHER_MEMORY_MIGRATION_TABLES, sorted(created)


def test_a_retriever_without_the_declared_members_is_refused() -> None:
    """The ledger reads the retriever's declared members (no getattr probes): one that lacks them
    is refused when the engine is built, with what it lacks, not on its first write."""
    import pytest

    from remnant.core.clock import ManualClock
    from remnant.core.decay import DecayConfig
    from remnant.engine.ledger import Ledger
    from remnant.engine.seams import LexicalRetriever
    from remnant.store.sqlite import SQLiteStore

    class Old:  # the protocol before embedder and index_text were declared
        def search(self, engine: object, query: str, flt: object, limit: int) -> list[tuple[str, float]]:
            return []

        def on_write(self, engine: object, ids: object) -> None: ...

        def on_delete(self, engine: object, ids: object) -> None: ...

    from datetime import UTC, datetime

    store = SQLiteStore(":memory:")
    try:
        kw = {"clock": ManualClock(datetime(2025, 1, 1, tzinfo=UTC)), "decay": DecayConfig(), "tenant": "t"}
        Ledger(store, retriever=LexicalRetriever(), **kw)  # type: ignore[arg-type]
        with pytest.raises(
            TypeError,
            match="lacks embedder, text_embedder, index_text, neighbour_window, vectors_hold_context ",
        ):
            Ledger(store, retriever=Old(), **kw)  # type: ignore[arg-type]
    finally:
        store.close()
