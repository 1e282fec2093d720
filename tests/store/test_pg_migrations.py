"""PostgreSQL schema migrations: a database made by an older Remnant is brought up to date with its
data intact (here v1 → v2, which moves the lexical text to ``memory_text``)."""

from __future__ import annotations

from importlib import resources

import psycopg
import pytest

from remnant.store.base import MemoryFilter
from remnant.store.postgres import PostgresStore, _migrations

pytestmark = pytest.mark.pg


def test_a_v1_database_migrates_with_its_memories_searchable(pg_url: str) -> None:
    v1 = resources.files("remnant.store.migrations.postgres").joinpath("0001_initial.sql").read_text("utf-8")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(v1.encode("utf-8"))
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
            "applied_at double precision NOT NULL)"
        )
        conn.execute("INSERT INTO schema_migrations VALUES (1, '0001_initial.sql', 0)")
        conn.execute(
            "INSERT INTO memories (id, tenant, user_id, kind, content, confidence, importance, created_at, "
            "strength0, stability, anchor, fade_at, index_text) VALUES "
            "('mem_old', 'default', 'ana', 'fact', 'Ana keeps bees', 1, 0.5, 0, 1, 30, 0, 'Infinity', "
            "'Ana keeps bees on the roof')"
        )
    with PostgresStore(pg_url) as store:
        assert store.schema_version() == _migrations()[-1][0] >= 2
        old = store.get("mem_old")
        assert old is not None and old.content == "Ana keeps bees"
        assert [h[0] for h in store.lexical_search('"roof"', MemoryFilter(user_id="ana"))] == ["mem_old"]
        assert store.index_texts(["mem_old"]) == {"mem_old": "Ana keeps bees on the roof"}
        store.delete(["mem_old"])
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM memory_text").fetchone() == (0,)  # the text went too
        cols = {
            r[0]
            for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'memories'"
            ).fetchall()
        }
        assert "index_text" not in cols and "tsv" not in cols
