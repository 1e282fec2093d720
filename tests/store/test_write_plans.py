"""The default write path is planned on its own indexes, on SQLite and PostgreSQL (issue 30).

Every statement the product's ``Memory(path)`` runs for ``remember``, ``remember_many`` and ``add``
(dedup, the contradiction check, the paired context vectors, the audit chain) is captured and its
plan read: ``EXPLAIN QUERY PLAN`` on SQLite, ``EXPLAIN (FORMAT JSON)`` on PostgreSQL. A write
must touch the memories table only through an index condition on a column that picks a few rows
(the id, the row id, the text digest, the key, the session), never by scanning the table or walking
the user's whole scope (an index range on tenant and user alone, as the duplicate lookup did on
``ix_memories_created``: 24 ms a write at 10k memories, a default 100k ingest that never finished).

The scope holds a few thousand memories first, and warm-up writes run before the capture, so
what a process does once per scope (the vector file's completeness check, the scope's share of the
file for the lexical bounds) is left out: it is not a per-write cost. On PostgreSQL the plans are
read with ``enable_seqscan`` off: the planner may seq-scan a small table whatever its indexes, and
the question here is whether an index serves the statement at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.sqlite_trace import ours

from remnant import ManualClock
from remnant.config import Memory
from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.store import open_store

# columns whose equality (or, for the row id, range) condition picks a few rows of one scope; on
# PostgreSQL also the text indexes (tsvector and trigram GIN), probed for a write's words with a
# LIMIT, as FTS5 is on SQLite
SELECTIVE = ("id", "rid", "rowid", "digest", "key", "session_id", "memory_id")
TEXT_INDEXES = ("tsv", "index_text")
FILL = 3000
_SKIP = ("BEGIN", "COMMIT", "ROLLBACK", "PRAGMA", "SAVEPOINT", "RELEASE", "SET ", "RESET ")


def _words(i: int) -> str:
    # a vocabulary where some words are in most rows and most words in few, as in natural text
    common = ("note", "today", "work", "home")[i % 4]
    return f"{common} item{i} group{i % 97} batch{i % 13} entry{i}"


def _fill(mem: Memory, facts_every: int = 50) -> None:
    """FILL memories in one scope, fast: the fill is not what is checked (no dedup, no check).
    Mostly conversation turns, a few facts, as an imported history is: the contradiction check
    looks for facts among them."""
    bulk = Memory(
        store=mem.store,
        clock=mem.clock,
        embedder="static",
        dedup=False,
        ingestor=None,
        contradictions=ContradictionPolicy(mode="off"),
        privacy=False,
    )
    for s in range(0, FILL, 1000):
        bulk.remember_many(
            {
                "content": _words(i),
                "user_id": "ana",
                "kind": "fact" if i % facts_every == 0 else "episode",
                "session_id": f"s{i // 50}",
            }
            for i in range(s, min(s + 1000, FILL))
        )


def _writes(mem: Memory, tag: str) -> None:
    """The default write path: a fact, a repeat of it (dedup), a batch, a conversation."""
    mem.remember(f"I live in Lisbon {tag}", user_id="ana")
    mem.remember(f"I live in Lisbon {tag}", user_id="ana")  # a repeat: reinforces the first
    # words in most of the scope's facts: the contradiction check's candidates past their budget
    # (each term's rows counted, then the rarest terms ranked and the newest rows holding any)
    mem.remember(f"note today work home {tag}", user_id="ana")
    mem.remember(f"note today work item7 {tag}", user_id="ana", kind="episode", session_id="s3")
    mem.remember_many(
        [
            {"content": f"my favourite colour is green {tag}", "user_id": "ana"},
            {"content": f"group5 batch3 entry9 {tag}", "user_id": "ana", "kind": "preference"},
            {"content": f"I live in Lisbon {tag}", "user_id": "ana"},
        ]
    )
    mem.add(
        [
            {"role": "user", "content": f"I moved to Porto last week {tag}"},
            {"role": "assistant", "content": f"Porto is lovely {tag}"},
            {"role": "user", "content": f"my sister Ana lives there too {tag}"},
        ],
        user_id="ana",
        session_id=f"chat-{tag}",
    )
    mem.add(
        [{"role": "user", "content": f"and I work from home now {tag}"}],
        user_id="ana",
        session_id=f"chat-{tag}",
    )


def _product(store: Any, clock: ManualClock) -> Memory:
    # the shipped defaults, with the static test model in e5-small's place (same code path:
    # hybrid retriever, paired context vectors, the contradiction check with vector neighbours)
    return Memory(store=store, clock=clock, embedder="static")


# -- SQLite --------------------------------------------------------------------------------------
def _sqlite_problems(plan: Sequence[str]) -> list[str]:
    ctes = {m.group(2) for line in plan if (m := re.match(r"(MATERIALIZE|CO-ROUTINE) (\w+)", line))}
    bad = []
    for line in plan:
        scan = re.match(r"SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?$", line)
        if scan and scan.group(1) in ("memories", "m") and scan.group(1) not in ctes:
            bad.append(f"scans the memories table: {line}")
        search = re.match(r"SEARCH (\w+) USING (?:COVERING )?INDEX (\w+) \((.*)\)", line)
        if search and search.group(1) in ("memories", "m") and search.group(1) not in ctes:
            columns = set(re.findall(r"(\w+)\s*[=<>]", search.group(3)))
            if not columns & set(SELECTIVE):
                bad.append(f"walks the scope: {line}")
        # the vectors: by slot or row (a few), never a walk of every slot of the model
        search = re.match(r"SEARCH (\w+) USING (?:COVERING )?INDEX (\w+) \((.*)\)", line)
        scan = re.match(r"SCAN (\w+)\b", line)
        if (scan and scan.group(1) in ("embeddings", "e")) or (
            search
            and search.group(1) in ("embeddings", "e")
            and not re.search(r"\b(slot|rid|rowid)=", search.group(3))
        ):
            bad.append(f"walks the vectors: {line}")
    return bad


@contextmanager
def _sqlite_statements(mem: Memory) -> Iterator[list[str]]:
    seen: list[str] = []

    def trace(statement: str) -> None:
        if ours(statement):  # not FTS5's own bookkeeping
            seen.append(statement)

    mem.store.set_trace_callback(trace)  # type: ignore[attr-defined]
    try:
        yield seen
    finally:
        mem.store.set_trace_callback(None)  # type: ignore[attr-defined]


def test_sqlite_write_path_is_planned_on_indexes(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    store = open_store(tmp_path / "w.db")
    try:
        mem = _product(store, clock)
        _fill(mem)
        _writes(mem, "warm")
        with _sqlite_statements(mem) as seen:
            _writes(mem, "checked")
        statements = [s for s in dict.fromkeys(seen) if not s.lstrip().upper().startswith(_SKIP)]
        assert len(statements) > 20, statements  # the capture saw the write path
        conn = store.connection  # type: ignore[attr-defined]
        problems = {}
        for s in statements:
            plan = [str(r[-1]) for r in conn.execute(f"EXPLAIN QUERY PLAN {s}").fetchall()]
            bad = _sqlite_problems(plan)
            if bad:
                problems[s[:300]] = bad
        assert not problems, json.dumps(problems, indent=1)
    finally:
        store.close()


def test_sqlite_checker_catches_the_scope_walk(tmp_path: Path) -> None:
    """The check fails on the plan the duplicate lookup had (so the test above can fail)."""
    store = open_store(tmp_path / "c.db")
    try:
        conn = store.connection  # type: ignore[attr-defined]
        walk = (
            "SELECT m.id FROM memories m WHERE m.tenant = 'default' AND m.user_id = 'ana' "
            "AND m.digest = 'x' ORDER BY m.created_at, m.rid"
        )
        plan = [str(r[-1]) for r in conn.execute(f"EXPLAIN QUERY PLAN {walk}").fetchall()]
        assert any("ix_memories_created" in line for line in plan), plan
        assert _sqlite_problems(plan), plan
        scan = "SELECT m.id FROM memories m WHERE m.content = 'x'"
        plan = [str(r[-1]) for r in conn.execute(f"EXPLAIN QUERY PLAN {scan}").fetchall()]
        assert _sqlite_problems(plan), plan
        lookup = (
            "SELECT m.id FROM memories m WHERE m.tenant = 'default' AND m.user_id = 'ana' AND m.digest = 'x'"
        )
        plan = [str(r[-1]) for r in conn.execute(f"EXPLAIN QUERY PLAN {lookup}").fetchall()]
        assert not _sqlite_problems(plan), plan
    finally:
        store.close()


# -- PostgreSQL ----------------------------------------------------------------------------------
def _pg_nodes(
    node: dict[str, Any], parent: dict[str, Any] | None = None
) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    yield node, parent
    for child in node.get("Plans", ()):
        yield from _pg_nodes(child, node)


def _newest_window(node: dict[str, Any], parent: dict[str, Any] | None) -> bool:
    """The contradiction candidates' "newest rows holding a term" (only past the candidate budget:
    more of the scope's rows hold a term than a check may read): a walk back along the row id that
    stops at the LIMIT's few rows, as SQLite's rowid order. Bounded by the LIMIT over a dense match,
    not a scan of the scope: allowed by name."""
    return (
        node.get("Index Name") == "memories_rid_key"
        and node.get("Scan Direction") == "Backward"
        and parent is not None
        and parent.get("Node Type") == "Limit"
    )


def _pg_problems(plan: dict[str, Any]) -> list[str]:
    bad = []
    for node, parent in _pg_nodes(plan["Plan"]):
        if _newest_window(node, parent):
            continue
        index = str(node.get("Index Name") or "")
        # a bitmap index scan names its index only; the memories table's all start so
        on_memories = node.get("Relation Name") == "memories" or index.startswith(
            ("ix_memories", "memories_")
        )
        if not on_memories:
            continue
        kind = node["Node Type"]
        if kind == "Seq Scan":
            bad.append("Seq Scan on memories")
        elif kind in ("Index Scan", "Index Only Scan", "Bitmap Index Scan"):
            cond = str(node.get("Index Cond", ""))
            columns = set(re.findall(r"(\w+)\s*(?:=|<|>|@@|~~)", cond))
            if not columns & set(SELECTIVE + TEXT_INDEXES):
                bad.append(f"{kind} using {index} walks the scope: {cond or 'no condition'}")
    return bad


@pytest.mark.pg
def test_postgres_write_path_is_planned_on_indexes(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import psycopg
    from pgvector.psycopg import register_vector

    from remnant.privacy.keys import generate_key

    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())  # a server database's vault key

    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    store = open_store(pg_url)
    # a user's vectors are scored exactly up to exact_below (a bounded scan by design); past it the
    # HNSW index serves the neighbour search: check the plan a large scope gets
    store.exact_below = 0  # type: ignore[attr-defined]
    try:
        mem = _product(store, clock)
        # half facts: with a few facts among many turns PostgreSQL's planner reads the facts-only
        # vector and trigram searches off a bitmap of every active row (the filtered-vector-search
        # problem of pgvector; see docs/benchmarks/engine.md, issue 30): not fixed in this round
        _fill(mem, facts_every=2)
        # what autovacuum does to a filled table: the planner's statistics, and the GIN indexes'
        # pending lists merged (a long list makes the planner shun the text indexes)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        _writes(mem, "warm")
        seen: list[tuple[str, Sequence[Any] | None]] = []
        store.set_trace_callback(lambda q, p: seen.append((q, p)))  # type: ignore[attr-defined]
        try:
            _writes(mem, "checked")
        finally:
            store.set_trace_callback(None)  # type: ignore[attr-defined]
        planned = ("SELECT", "WITH", "INSERT", "UPDATE", "DELETE")
        statements = [(q, p) for q, p in seen if q.lstrip().upper().startswith(planned)]
        assert len(statements) > 20, statements
        problems: dict[str, list[str]] = {}
        with psycopg.connect(pg_url, autocommit=True) as conn:
            register_vector(conn)
            conn.execute("SET enable_seqscan = off")
            for q, p in statements:
                if q.lstrip().upper().startswith("SELECT PG_ADVISORY"):
                    continue
                rows = conn.execute(f"EXPLAIN (FORMAT JSON) {q}", p).fetchone()
                assert rows is not None
                got = rows[0] if isinstance(rows[0], list) else json.loads(rows[0])
                bad = _pg_problems(got[0])
                if bad:
                    problems[q[:300]] = bad
        assert not problems, json.dumps(problems, indent=1)
    finally:
        store.close()
