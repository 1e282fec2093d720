"""The privacy vault on PostgreSQL: the engine built from config redacts, and the vault follows the store."""

from __future__ import annotations

import psycopg
import pytest

from remnant.config import build_memory
from remnant.privacy import generate_key
from remnant.privacy.pg_storage import PgVaultStorage
from remnant.store.postgres import PostgresStore

pytestmark = pytest.mark.pg


def test_memory_on_postgres_redacts_into_a_pg_vault(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    monkeypatch.delenv("REMNANT_PRIVACY", raising=False)
    mem = build_memory(pg_url)
    try:
        assert isinstance(mem.redactor.vault.storage, PgVaultStorage)  # type: ignore[union-attr]
        r = mem.remember("mail me at ana.silva@example.com", user_id="ana")
        assert "ana.silva@example.com" not in r.content and "[EMAIL_1]" in r.content
        with psycopg.connect(pg_url) as conn:
            stored = conn.execute("SELECT content, index_text FROM memories").fetchone()
            assert stored is not None and "ana.silva" not in " ".join(stored)
            assert conn.execute("SELECT count(*) FROM vault_entries").fetchone() == (1,)
        assert mem.redactor.vault.rehydrate(r.content, "default", "ana").endswith("ana.silva@example.com")  # type: ignore[union-attr]
        # a vault write inside a failed transaction goes with it
        with pytest.raises(RuntimeError), mem.store.transaction():
            mem.remember("or bob.jones@example.com", user_id="ana")
            raise RuntimeError("boom")
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM vault_entries").fetchone() == (1,)
        mem.erase_user("ana")
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM vault_entries").fetchone() == (0,)
    finally:
        mem.close()


def test_vault_storage_contract(pg_url: str) -> None:
    from remnant.privacy.storage import VaultEntry

    with PostgresStore(pg_url) as store:
        vs = PgVaultStorage(store)
        e = VaultEntry("t", "u", "[EMAIL_1]", "EMAIL", "h1", "k1", b"n", b"c", "2026-01-01")
        assert vs.put(e) and not vs.put(e)
        assert vs.lookup("t", "u", ["x", "h1"]) == e and vs.lookup("t", "u", []) is None
        assert vs.get("t", "u", "[EMAIL_1]") == e and vs.list_for_user("t", "u") == [e]
        assert list(vs.iter_all()) == [e] and vs.key_ids() == {"k1"}
        assert [vs.next_index("t", "u", "EMAIL") for _ in range(3)] == [1, 2, 3]
        vs.replace(VaultEntry("t", "u", "[EMAIL_1]", "EMAIL", "h2", "k2", b"n2", b"c2", "2026-01-01"))
        assert vs.key_ids() == {"k2"}
        assert vs.delete_entity_types("t", "u", ["PHONE"]) == 0
        assert vs.delete_placeholder("t", "u", "[EMAIL_1]") == 1
        vs.put(e)
        assert vs.delete_for_user("t", "u") == 1 and vs.next_index("t", "u", "EMAIL") == 1
