"""Recall on PostgreSQL is planned on indexes, never a scan of the scope (issue 30).

The write path has its test in ``test_write_plans.py``; this one captures every statement the
product's ``Memory.recall`` runs on PostgreSQL (the lexical half with its budget, the vector half on
pgvector's HNSW index, the records, the faded-memory hints, the reinforcement of the hits) and reads
each plan with ``EXPLAIN (FORMAT JSON)``, ``enable_seqscan`` off as there (the planner may
seq-scan a small table whatever its indexes; the question is whether an index serves the
statement). A statement fails when it reads the memories table by a sequential scan or walks the
user's scope on an index of tenant and user alone; the one walk allowed is down the row-id index
under a ``LIMIT`` (the newest rows holding a common word, bounded by ``lexical_window``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from tests.store.test_write_plans import SELECTIVE, TEXT_INDEXES, _fill, _pg_nodes, _product

from remnant import ManualClock
from remnant.store import open_store

pytestmark = pytest.mark.pg

PLANNED = ("SELECT", "WITH", "INSERT", "UPDATE", "DELETE")


def _problems(plan: dict[str, Any]) -> list[str]:
    bad = []

    def walk(node: dict[str, Any], under_limit: bool) -> None:
        index = str(node.get("Index Name") or "")
        on_memories = node.get("Relation Name") == "memories" or index.startswith(
            ("ix_memories", "memories_")
        )
        kind = node["Node Type"]
        if on_memories and kind == "Seq Scan":
            bad.append("Seq Scan on memories")
        elif on_memories and kind in ("Index Scan", "Index Only Scan", "Bitmap Index Scan"):
            cond = str(node.get("Index Cond", ""))
            columns = set(re.findall(r"(\w+)\s*(?:=|<|>|@@|~~)", cond))
            rid_walk = index == "memories_rid_key" and under_limit
            if not columns & set(SELECTIVE + TEXT_INDEXES) and not rid_walk:
                bad.append(f"{kind} using {index} walks the scope: {cond or 'no condition'}")
        for child in node.get("Plans", ()):
            walk(child, under_limit or kind == "Limit")

    walk(plan["Plan"], False)
    assert list(_pg_nodes(plan["Plan"]))  # the plan was read
    return bad


def test_postgres_recall_is_planned_on_indexes(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import psycopg
    from pgvector.psycopg import register_vector

    from remnant.privacy.keys import generate_key

    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    store = open_store(pg_url)
    # a user's vectors are scored exactly up to exact_below (a bounded scan by design); past it
    # the HNSW index serves the search: check the plan a large scope gets
    store.exact_below = 0  # type: ignore[attr-defined]
    try:
        mem = _product(store, clock)
        _fill(mem)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        # a query whose words fit the lexical budget (the exact ranking), one over it (each of the
        # four common words is in a quarter of the rows: the bounded ranking), one with a part of
        # a word (the substring fill)
        queries = ("group5 batch3 entry9", "note today work home", "entr item7")
        for q in queries:  # once per scope and process: the vectors' completeness check
            mem.recall(q, user_id="ana")
        seen: list[tuple[str, Sequence[Any] | None]] = []
        store.set_trace_callback(lambda q, p: seen.append((q, p)))  # type: ignore[attr-defined]
        try:
            for q in queries:
                assert mem.recall(q, user_id="ana")  # the product's recall: hints and touch on
                assert mem.recall(q, user_id="ana", limit=10, touch=False, hints=False)
        finally:
            store.set_trace_callback(None)  # type: ignore[attr-defined]
        statements = [(q, p) for q, p in seen if q.lstrip().upper().startswith(PLANNED)]
        assert any("ts_rank" in q for q, _ in statements) and any("<=>" in q for q, _ in statements)
        assert any("word_similarity" in q for q, _ in statements)  # the fill ran for "entr"
        problems: dict[str, list[str]] = {}
        with psycopg.connect(pg_url, autocommit=True) as conn:
            register_vector(conn)
            conn.execute("SET enable_seqscan = off")
            for q, p in statements:
                row = conn.execute(f"EXPLAIN (FORMAT JSON) {q}", p).fetchone()
                assert row is not None
                got = row[0] if isinstance(row[0], list) else json.loads(row[0])
                bad = _problems(got[0])
                if bad:
                    problems[q[:300]] = bad
        assert not problems, json.dumps(problems, indent=1)
    finally:
        store.close()


def test_checker_catches_a_walk_of_the_scope(pg_url: str) -> None:
    import psycopg

    store = open_store(pg_url)  # the schema
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        walk = (
            "SELECT m.id FROM memories m WHERE m.tenant = 'default' AND m.user_id = 'ana' AND m.kind = 'fact'"
        )
        row = conn.execute(f"EXPLAIN (FORMAT JSON) {walk}").fetchone()
        assert row is not None
        assert _problems(row[0][0]), row[0]
        conn.execute("SET enable_seqscan = on")
        conn.execute("SET enable_indexscan = off")
        conn.execute("SET enable_bitmapscan = off")
        row = conn.execute(f"EXPLAIN (FORMAT JSON) {walk}").fetchone()
        assert row is not None
        assert "Seq Scan on memories" in _problems(row[0][0])
