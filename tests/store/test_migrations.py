"""One migration runner for every table: old files open (their version bookkeeping is carried over),
new ones are made, and a database newer than the code is refused."""

from __future__ import annotations

import sqlite3
from importlib import resources
from pathlib import Path

import pytest

from remnant.core.errors import SchemaTooNewError
from remnant.store.migrations import (
    API_KEYS,
    COMPONENTS,
    MEMORIES,
    PARTITIONS,
    TRAINING_POOL,
    VAULT,
    Component,
    SQLiteConnection,
    migrate,
)


def _files(component: Component, dialect: str = "sqlite") -> list[str]:
    return [m.sql for m in component.migrations(dialect)]


def _versions(path: Path, table: str) -> list[tuple[int, str, bool]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(f"SELECT version, name, applied_at IS NOT NULL FROM {table} ORDER BY version")
        return [(int(v), str(n), bool(a)) for v, n, a in rows]


def test_every_component_has_numbered_files_for_its_dialects() -> None:
    assert set(COMPONENTS) == {"memories", "vault", "api_keys", "training_pool", "partitions", "idempotency"}
    for c in COMPONENTS.values():
        for dialect in c.dialects:
            assert c.migrations(dialect)[0].number == 1
    assert len({c.table for c in COMPONENTS.values()}) == len(COMPONENTS)


def test_an_old_training_pool_file_opens_and_keeps_its_versions(tmp_path: Path) -> None:
    from remnant.training.pool import TrainingPool

    # what the earlier per-package runner left behind: (version, name) rows, no applied_at
    path = tmp_path / "pool.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pool_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    for number, sql in enumerate(_files(TRAINING_POOL)[:2], start=1):
        conn.executescript(sql)
        conn.execute("INSERT INTO pool_schema_version VALUES (?, ?)", (number, f"{number:04d}_old.sql"))
    conn.execute(
        "INSERT INTO pool_example VALUES ('e1', 'h1', 'text', '\"hi\"', '2026-01-01T00:00:00.000000Z', "
        "'2026-01-01T00:00:00.000000Z', 'test', 1.0, 1.0, '[]', '{}')"
    )
    conn.commit()
    conn.close()
    with TrainingPool(path) as pool:
        assert len(pool) == 1
    versions = _versions(path, "pool_schema_version")
    assert [v for v, _, _ in versions] == [1, 2, 3]
    assert versions[0][1] == "0001_old.sql" and not versions[0][2]  # earlier rows are kept verbatim
    assert versions[2] == (3, "0003_pool_superseded.sql", True)


def test_an_old_partitions_file_opens(tmp_path: Path) -> None:
    from remnant.partitions.manager import PartitionManager

    path = tmp_path / "parts.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE part_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    conn.executescript(_files(PARTITIONS)[0])
    conn.execute("INSERT INTO part_schema_version VALUES (1, '0001_partitions.sql')")
    conn.commit()
    conn.close()
    manager = PartitionManager(path)
    try:
        manager.list()
    finally:
        manager.conn.close()
    assert [v for v, _, _ in _versions(path, "part_schema_version")] == [1]


def test_an_old_key_file_opens_and_its_keys_still_work(tmp_path: Path) -> None:
    from remnant.server.auth import KeyStore

    path = tmp_path / "remnant.keys.db"
    ks = KeyStore(path)
    made = ks.create("acme", ["read"], "k")
    ks.close()
    # the file as releases before the runner made it: the table, no version table
    with sqlite3.connect(path) as conn:
        conn.execute(f"DROP TABLE {API_KEYS.table}")
    ks = KeyStore(path)
    try:
        assert ks.authenticate(made.secret).tenant == "acme"
    finally:
        ks.close()
    assert [v for v, _, _ in _versions(path, API_KEYS.table)] == [1]


def test_an_old_memory_database_with_a_vault_opens(tmp_path: Path) -> None:
    from remnant.privacy.storage import SqliteVaultStorage, VaultEntry
    from remnant.store.sqlite import SQLiteStore

    # a database as the earlier code made it: the store schema with julianday() bookkeeping, and
    # vault tables made by CREATE TABLE IF NOT EXISTS without any version row
    path = tmp_path / "remnant.db"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    conn.executescript(_files(MEMORIES)[0])
    conn.execute("INSERT INTO schema_migrations VALUES (1, '0001_initial.sql', julianday('now'))")
    conn.executescript(_files(VAULT)[0])
    conn.execute(
        "INSERT INTO vault_entries VALUES ('t', 'u', '[EMAIL_1]', 'EMAIL', 'h', 'k', x'00', x'01', '2026-01-01')"
    )
    conn.execute("INSERT INTO remnant_meta VALUES ('decay_clock_mode', 'wall')")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        assert store.schema_version() == len(MEMORIES.migrations("sqlite"))
        assert store.get_meta("decay_clock_mode") == "wall"
        vault = SqliteVaultStorage(store.connection)
        assert vault.get("t", "u", "[EMAIL_1]") == VaultEntry(
            "t", "u", "[EMAIL_1]", "EMAIL", "h", "k", b"\x00", b"\x01", "2026-01-01"
        )
    assert [v for v, _, _ in _versions(path, VAULT.table)] == [1]


@pytest.mark.parametrize(
    "component", [TRAINING_POOL, PARTITIONS, API_KEYS, VAULT, MEMORIES], ids=lambda c: c.name
)
def test_a_component_newer_than_the_code_is_refused(tmp_path: Path, component: Component) -> None:
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    db = SQLiteConnection(conn)
    assert migrate(db, component) == len(component.migrations("sqlite"))
    assert migrate(db, component) == len(component.migrations("sqlite"))  # a no-op the second time
    conn.execute(f"INSERT INTO {component.table} VALUES (99, '0099_future.sql', 0)")
    with pytest.raises(SchemaTooNewError, match="newer"):
        migrate(db, component)
    conn.close()


def test_a_failed_migration_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = Component("training_pool", "broken_schema_version", ("sqlite",))
    real = broken.migrations("sqlite")
    from remnant.store import migrations as mod

    bad = [*real, mod.Migration(len(real) + 1, "9999_bad.sql", "CREATE TABLE pool_example (x INTEGER);")]
    monkeypatch.setattr(Component, "migrations", lambda self, dialect: bad)
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    with pytest.raises(sqlite3.OperationalError):
        migrate(SQLiteConnection(conn), broken)
    assert conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall() == []
    conn.close()


def test_migration_files_live_in_the_store_layer() -> None:
    root = resources.files("remnant.store.migrations")
    assert root.joinpath("vault", "postgres", "0001_vault.sql").is_file()
