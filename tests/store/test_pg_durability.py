"""PostgreSQL's commit durability (``REMNANT_PG_SYNCHRONOUS_COMMIT``) and the audit chain's
three-statement append: what each session runs with, and that the chain stays whole and signed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remnant.core.audit import AuditDraft, verify_chain
from remnant.core.errors import ValidationError
from remnant.core.settings import Settings
from remnant.store.postgres import PostgresStore, synchronous_commit_setting

pytestmark = pytest.mark.pg


def _session_value(store: PostgresStore) -> str:
    return str(store._read("SHOW synchronous_commit")[0][0])


def _server_value(store: PostgresStore) -> str:
    return str(store._read("SELECT boot_val FROM pg_settings WHERE name = 'synchronous_commit'")[0][0])


@pytest.mark.parametrize("value", ["off", "on"])
def test_the_setting_reaches_every_pooled_session(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("REMNANT_PG_SYNCHRONOUS_COMMIT", value)
    store = PostgresStore(pg_url, min_size=2, max_size=2)
    try:
        assert store.synchronous_commit == value
        assert _session_value(store) == value
        with store.transaction():  # a write's connection, too
            assert _session_value(store) == value
    finally:
        store.close()


def test_unset_leaves_the_servers_setting(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REMNANT_PG_SYNCHRONOUS_COMMIT", raising=False)
    store = PostgresStore(pg_url)
    try:
        assert store.synchronous_commit is None
        # the test server's configuration sets it off (ALTER SYSTEM); the session keeps that
        configured = store._read("SELECT reset_val FROM pg_settings WHERE name = 'synchronous_commit'")
        assert _session_value(store) == configured[0][0]
        assert _server_value(store) == "on"  # PostgreSQL's own default
    finally:
        store.close()


def test_an_explicit_value_wins_and_a_bad_one_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_PG_SYNCHRONOUS_COMMIT", "Off")
    assert synchronous_commit_setting() == "off"
    assert synchronous_commit_setting("on") == "on"
    monkeypatch.setenv("REMNANT_PG_SYNCHRONOUS_COMMIT", "sometimes")
    with pytest.raises(ValidationError, match="REMNANT_PG_SYNCHRONOUS_COMMIT must be one of on, off"):
        synchronous_commit_setting()
    assert Settings.load({"REMNANT_PG_SYNCHRONOUS_COMMIT": "off"}).pg_synchronous_commit == "off"


def test_the_audit_append_is_three_statements_and_the_chain_verifies(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    seen: list[str] = []
    key = b"k" * 32
    try:
        first = store.append_audit(
            AuditDraft("default", datetime(2026, 1, 1, tzinfo=UTC), "system", "test", "one"), key=key
        )
        store.set_trace_callback(lambda q, p: seen.append(q))
        second = store.append_audit(
            AuditDraft("default", datetime(2026, 1, 2, tzinfo=UTC), "system", "test", "two"), key=key
        )
        store.set_trace_callback(None)
        unsigned = store.append_audit(
            AuditDraft("other", datetime(2026, 1, 2, tzinfo=UTC), "system", "test", "three")
        )
        assert len([q for q in seen if q not in ("BEGIN", "COMMIT")]) == 3
        assert second.seq > first.seq and second.prev_hash == first.hash and second.mac
        assert unsigned.mac is None and store.audit_head("other") is None
        head = store.audit_head("default")
        assert head is not None and (head.seq, head.hash, head.signed_from) == (
            second.seq,
            second.hash,
            first.seq,
        )
        entries = store.audit_entries()
        assert [e.seq for e in entries] == [first.seq, second.seq]
        assert verify_chain(entries, key=key, head=head).ok
    finally:
        store.close()
