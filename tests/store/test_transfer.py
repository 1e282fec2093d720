"""Export/import JSONL: SQLite -> PostgreSQL -> SQLite round-trips exactly; the CLI commands."""

from __future__ import annotations

import io
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import psycopg
import pytest
from click.testing import CliRunner

from remnant.cli import cli
from remnant.core.clock import ManualClock
from remnant.core.errors import ConflictError, ValidationError
from remnant.engine import Memory
from remnant.store import open_store
from remnant.store.base import SCHEMA_VERSION, MemoryFilter, Store
from remnant.store.sqlite import SQLiteStore
from remnant.store.transfer import export_lines, export_store, import_lines

pytestmark = pytest.mark.pg


def populate(path: Path) -> None:
    clock = ManualClock(datetime(2026, 1, 1, 9, 30, 15, 123456, tzinfo=UTC))
    for tenant in ("default", "acme"):
        mem = Memory(path, clock=clock, tenant=tenant)
        a = mem.remember("Ana lives in Lisbon", user_id="ana", key="city", metadata={"tags": ["home"]})
        mem.remember("Ana lives in Porto", user_id="ana", key="city", importance=0.9)
        mem.remember("我喜欢喝绿茶", user_id="ana", kind="preference")
        mem.remember("temporary code 1234", user_id="bob", ttl=timedelta(hours=2))
        pinned = mem.remember("allergic to peanuts", user_id="bob", pinned=True)
        clock.advance(days=3)
        mem.recall("where does Ana live", user_id="ana")
        mem.sweep()
        mem.hide([pinned.id], reason="asked")
        ids = mem.store.ids(MemoryFilter(tenant=tenant, statuses=None))
        rng = np.random.default_rng(len(tenant))
        mem.store.put_embeddings([(i, "mini", rng.normal(size=6)) for i in ids], tenant=tenant)
        mem.store.mark_active(tenant, "ana", date(2026, 1, 2))
        assert mem.get(a.id) is not None
        mem.close()


def snapshot(store: Store) -> dict[str, object]:
    out: dict[str, object] = {}
    for tenant in ("default", "acme"):
        flt = MemoryFilter(tenant=tenant, statuses=None)
        ids = store.ids(flt)
        emb_ids, matrix = store.embeddings(flt, model="mini")
        out[tenant] = {
            "ids": ids,
            "memories": store.get_many(ids, tenant=tenant),
            "audit": store.audit_entries(tenant=tenant),
            "emb_ids": emb_ids,
            "matrix": matrix.tolist(),
            "active_days": store.active_day_count(tenant, "ana", date(2027, 1, 1)),
        }
    out["meta"] = store.get_meta("decay_clock_mode")
    return out


def body(store: Store) -> list[str]:
    return list(export_lines(store, with_embeddings=True))[1:]


def test_sqlite_to_postgres_to_sqlite_is_exact(tmp_path: Path, pg_url: str) -> None:
    src_path = tmp_path / "a.db"
    populate(src_path)
    with SQLiteStore(src_path) as src, open_store(pg_url) as pg, SQLiteStore(tmp_path / "b.db") as back:
        buf = io.StringIO()
        exported = export_store(src, buf, with_embeddings=True)
        # five memories a tenant, less the temporary code: expired and purged by the sweep
        assert exported.memories == 8 and exported.embeddings == 8 and exported.audit > 4
        header = json.loads(buf.getvalue().splitlines()[0])
        assert header["schema_version"] == SCHEMA_VERSION and header["counts"]["memories"] == 8
        report = import_lines(pg, io.StringIO(buf.getvalue()))
        assert report.chain_ok == {"acme": True, "default": True}
        assert snapshot(pg) == snapshot(src)
        assert body(pg) == body(src)
        # the deferred HNSW index was built at the end of the import, and finds what exact search finds
        q = np.ones(6, dtype=np.float32)
        flt = MemoryFilter(statuses=None)
        assert [h[0] for h in pg.vector_search(q, flt, model="mini", limit=3)] == [
            h[0] for h in src.vector_search(q, flt, model="mini", limit=3)
        ]
        with psycopg.connect(pg_url) as conn:
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'ix_embeddings_hnsw%'"
                )
            ]
        assert len(names) == 1
        import_lines(back, export_lines(pg, with_embeddings=True))
        assert snapshot(back) == snapshot(src)
        assert body(back) == body(src)
        # the imported chain keeps growing from where it was
        with Memory(store=pg) as mem:
            before = mem.audit_log()[-1].seq
            entry = mem.ledger.audit("hide", "after import", ids=["mem_x"], user_id="ana")
            assert entry.seq > before and mem.verify_audit().ok


def test_import_refuses_a_store_with_data_and_is_all_or_nothing(tmp_path: Path, pg_url: str) -> None:
    populate(tmp_path / "a.db")
    with SQLiteStore(tmp_path / "a.db") as src:
        lines = list(export_lines(src))
    with open_store(pg_url) as pg:
        import_lines(pg, lines)
        with pytest.raises(ConflictError, match="empty store"):
            import_lines(pg, lines)
    tampered = []
    for line in lines:
        obj = json.loads(line)
        if obj["type"] == "audit" and obj["action"] == "hide":
            obj["reason"] = "rewritten history"
        tampered.append(json.dumps(obj))
    with SQLiteStore(tmp_path / "c.db") as target:
        with pytest.raises(ValidationError, match="does not verify"):
            import_lines(target, tampered)
        assert target.count(MemoryFilter(statuses=None)) == 0 and target.audit_entries() == []
        with pytest.raises(ValidationError, match="incomplete"):
            import_lines(target, lines[:-3])
        with pytest.raises(ValidationError, match="not a Remnant export"):
            import_lines(target, ['{"type": "memory"}'])


def test_cli_export_import_migrate(tmp_path: Path, pg_url: str) -> None:
    src = tmp_path / "a.db"
    populate(src)
    out = tmp_path / "dump.jsonl"
    runner = CliRunner()
    res = runner.invoke(cli, ["export", "--db", str(src), "--out", str(out), "--with-embeddings"])
    assert res.exit_code == 0, res.output
    assert '"type":"embedding"' in out.read_text()
    res = runner.invoke(cli, ["import", "--db", pg_url, str(out), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["memories"] == 8
    res = runner.invoke(cli, ["import", "--db", pg_url, str(out)])
    assert res.exit_code == 1 and "empty store" in res.output
    res = runner.invoke(cli, ["migrate", "--from", pg_url, "--to", str(tmp_path / "m.db")])
    assert res.exit_code == 0, res.output
    with SQLiteStore(src) as a, SQLiteStore(tmp_path / "m.db") as m:
        assert snapshot(a) == snapshot(m)
