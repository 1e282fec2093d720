"""PostgreSQL failure modes: bad URLs, a missing extension, dropped connections, a server restart."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import psycopg
import pytest

from remnant.core.errors import StoreError
from remnant.core.model import MemoryRecord, new_id
from remnant.store import open_store
from remnant.store.base import MemoryFilter
from remnant.store.postgres import PostgresStore

pytestmark = pytest.mark.pg


def rec(i: int = 0) -> MemoryRecord:
    return MemoryRecord(id=new_id(), user_id="ana", content=f"note {i}", created_at=datetime.now(UTC))


def test_unreachable_url_is_a_clear_store_error() -> None:
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL"):
        PostgresStore("postgresql://remnant:secret@127.0.0.1:1/remnant", connect_timeout=2)
    with pytest.raises(StoreError) as info:
        open_store("postgresql://remnant:secret@127.0.0.1:1/remnant")
    assert "secret" not in str(info.value)


def test_missing_database_is_a_clear_store_error(pg_server) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(StoreError, match="does not exist"):
        PostgresStore(pg_server.uri("no_such_database"))


def test_missing_vector_extension_says_how_to_create_it(pg_server) -> None:  # type: ignore[no-untyped-def]
    pg_server.execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'plain') "
        "THEN CREATE ROLE plain LOGIN; END IF; END $$",
        "CREATE DATABASE noext OWNER plain",
    )
    url = pg_server.uri("noext").replace("postgres:@", "plain:@", 1)
    with pytest.raises(StoreError, match="CREATE EXTENSION vector") as info:
        PostgresStore(url)
    assert "superuser" in str(info.value)


def test_dropped_connection_mid_transaction_leaves_nothing(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    a, b = rec(1), rec(2)
    with pytest.raises(StoreError), store.transaction():
        store.insert(a)
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        store.insert(b)
    assert store.get(a.id) is None and store.get(b.id) is None
    store.insert(b)  # the pool replaced the dead connection
    assert store.count(MemoryFilter()) == 1
    store.close()


def test_killed_idle_connections_are_replaced_transparently(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.insert(rec(0))
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    store.insert(rec(1))
    assert store.count(MemoryFilter()) == 2
    store.close()


def test_server_restart_mid_run_loses_no_acknowledged_write(pg_server, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    store = PostgresStore(pg_url, timeout=60)
    acknowledged: list[str] = []
    failures: list[Exception] = []
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            r = rec(i)
            i += 1
            try:
                store.insert(r)
            except StoreError as exc:  # allowed only if the outcome was unknown; checked below
                failures.append(exc)
                continue
            acknowledged.append(r.id)

    t = threading.Thread(target=writer)
    t.start()
    while len(acknowledged) < 50:
        time.sleep(0.01)
    pg_server.restart()
    before = len(acknowledged)
    deadline = time.monotonic() + 60
    while len(acknowledged) < before + 50 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    t.join(60)
    assert len(acknowledged) >= before + 50, f"no writes after the restart: {failures[:3]}"
    present = {r.id for r in store.get_many(acknowledged)}
    assert present == set(acknowledged)
    # a write that raised may only be one whose commit outcome could not be known
    assert all("committing" in str(f) for f in failures), failures[:3]
    store.close()
