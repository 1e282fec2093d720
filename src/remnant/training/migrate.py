"""Numbered SQL migrations for the small SQLite files this layer owns.

Each package keeps ``migrations/NNNN_name.sql`` files; they are applied in order inside one
transaction each and recorded in a ``<prefix>_schema_version`` table, so opening an old file
upgrades it and opening a current one is a no-op. The SQL is kept portable (no SQLite-only
types or pragmas) so the same files can seed another database.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str


def discover(package: str) -> list[Migration]:
    """Find the migration files of ``package`` (``<package>.migrations``) in number order."""
    root = resources.files(package).joinpath("migrations")
    found = []
    for entry in root.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.number)
    numbers = [m.number for m in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuntimeError(f"migrations of {package} are not numbered 1..n: {numbers}")
    return found


def apply(conn: sqlite3.Connection, package: str, prefix: str) -> int:
    """Bring ``conn`` up to the newest schema of ``package``; return the resulting version."""
    table = f"{prefix}_schema_version"
    conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    current = conn.execute(f"SELECT COALESCE(MAX(version), 0) FROM {table}").fetchone()[0]
    version = int(current)
    for migration in discover(package):
        if migration.number <= version:
            continue
        with conn:
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(
                f"INSERT INTO {table} (version, name) VALUES (?, ?)", (migration.number, migration.name)
            )
        version = migration.number
    return version


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (our files contain no semicolons inside literals)."""
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]
