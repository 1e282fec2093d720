"""One migration runner for every table Remnant keeps, in every database it keeps them in.

A :class:`Component` is a numbered list of SQL files per dialect (``<component>/<dialect>/NNNN_name.sql``
in this package): the memories store itself, the privacy vault, the API keys, the training pool,
the knowledge partitions and the REST API's idempotency keys. :func:`migrate` applies the files a
database lacks, in order, in one transaction, and records each in the component's own schema-version table; a database newer than
this code raises :class:`~remnant.core.errors.SchemaTooNewError`.

It runs on a :class:`Database`: a :class:`~remnant.store.sql.SQLStore`, or a plain ``sqlite3``
connection wrapped in :class:`SQLiteConnection` (the small files of the keys, pool and partitions).
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from remnant.core.errors import SchemaTooNewError, StoreError
from remnant.store.filter_sql import MIGRATION_LOCK, Dialect, SQLiteDialect

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str


@dataclass(frozen=True)
class Component:
    """A set of tables migrated together; ``table`` records which of its migrations a database has."""

    name: str
    table: str
    dialects: tuple[str, ...] = ("sqlite", "postgres")

    def migrations(self, dialect: str) -> list[Migration]:
        """The migration files for ``dialect``, numbered 1..n."""
        if dialect not in self.dialects:
            raise StoreError(f"the {self.name} tables have no {dialect} schema")
        root = resources.files(__name__).joinpath(self.name, dialect)
        found = []
        for entry in root.iterdir():
            match = _NAME.match(entry.name)
            if match:
                found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
        found.sort(key=lambda m: m.number)
        numbers = [m.number for m in found]
        if numbers != list(range(1, len(numbers) + 1)):
            raise StoreError(f"migrations of {self.name}/{dialect} are not numbered 1..n: {numbers}")
        return found


# The version tables keep the names earlier releases used, so their databases open unchanged.
MEMORIES = Component("memories", "schema_migrations")
VAULT = Component("vault", "vault_schema_version")
API_KEYS = Component("api_keys", "api_keys_schema_version", ("sqlite",))
TRAINING_POOL = Component("training_pool", "pool_schema_version", ("sqlite",))
PARTITIONS = Component("partitions", "part_schema_version", ("sqlite",))
IDEMPOTENCY = Component("idempotency", "idempotency_schema_version")
COMPONENTS: dict[str, Component] = {
    c.name: c for c in (MEMORIES, VAULT, API_KEYS, TRAINING_POOL, PARTITIONS, IDEMPOTENCY)
}


class Database(Protocol):
    """What the runner needs of a database (the public seam of :class:`~remnant.store.sql.SQLStore`)."""

    @property
    def dialect(self) -> Dialect: ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def execute(self, query: str, params: Sequence[Any] = ()) -> int: ...

    def fetch(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


class SQLiteConnection:
    """A plain ``sqlite3`` connection as a :class:`Database`; a transaction the caller already has
    open is joined (and left for the caller to commit)."""

    dialect: Dialect = SQLiteDialect()

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN IMMEDIATE")  # one migrator at a time across processes
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def execute(self, query: str, params: Sequence[Any] = ()) -> int:
        return int(self.conn.execute(query, params).rowcount)

    def fetch(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.conn.execute(query, params).fetchall()]


def migrate(db: Database, component: Component) -> int:
    """Bring ``component``'s tables in ``db`` up to the newest schema; return the resulting version."""
    d = db.dialect
    migrations = component.migrations(d.name)
    latest = migrations[-1].number
    table = component.table
    with db.transaction():
        lock = d.lock_sql()
        if lock is not None:
            db.fetch(lock, (MIGRATION_LOCK,))  # concurrent first opens must not race on CREATE TABLE
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {table} "
            "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at DOUBLE PRECISION)"
        )
        # version tables of earlier releases (pool, partitions) had no applied_at column
        if "applied_at" not in {r[0] for r in db.fetch(d.columns_sql(), (table,))}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN applied_at DOUBLE PRECISION")
        current = int(db.fetch(f"SELECT COALESCE(MAX(version), 0) FROM {table}")[0][0])
        if current > latest:
            raise SchemaTooNewError(
                f"database schema version {current} of the {component.name} tables is newer than this "
                f"Remnant understands ({latest}); upgrade the remnant package"
            )
        for m in migrations:
            if m.number > current:
                for statement in d.split_script(m.sql):
                    db.execute(statement)
                db.execute(
                    f"INSERT INTO {table} (version, name, applied_at) VALUES ({d.marks(3)})",
                    (m.number, m.name, time.time()),
                )
    return max(current, latest)
