"""Where vault entries live: a narrow ``VaultStorage`` protocol and its SQLite implementation.

Entries hold only ciphertext, a keyed HMAC of the normalized value (for "same value, same
placeholder" lookups) and metadata; never plaintext. The tables are the ``vault`` component of
:mod:`remnant.store.migrations`; the PostgreSQL storage is :mod:`remnant.privacy.pg_storage`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from remnant.store.migrations import VAULT, SQLiteConnection, migrate


@dataclass(frozen=True, slots=True)
class VaultEntry:
    """One encrypted original value, addressed by (tenant, user_id, placeholder)."""

    tenant: str
    user_id: str
    placeholder: str
    entity_type: str
    value_hmac: str
    key_id: str
    nonce: bytes
    ciphertext: bytes
    created_at: str


@runtime_checkable
class VaultStorage(Protocol):
    """Persistence the vault needs; nothing else may read these rows."""

    def put(self, entry: VaultEntry) -> bool:
        """Insert; ``False`` (no change) when the placeholder or value HMAC already exists."""
        ...

    def lookup(self, tenant: str, user_id: str, value_hmacs: Sequence[str]) -> VaultEntry | None:
        """The entry whose value HMAC is any of ``value_hmacs`` (one per configured key)."""
        ...

    def get(self, tenant: str, user_id: str, placeholder: str) -> VaultEntry | None: ...

    def list_for_user(self, tenant: str, user_id: str) -> list[VaultEntry]: ...

    def iter_all(self) -> Iterator[VaultEntry]:
        """Every entry (for key rotation)."""
        ...

    def key_ids(self) -> set[str]:
        """Ids of every key some entry is encrypted with."""
        ...

    def replace(self, entry: VaultEntry) -> None:
        """Overwrite hmac/key/nonce/ciphertext of the entry with the same address (rotation)."""
        ...

    def next_index(self, tenant: str, user_id: str, entity_type: str) -> int:
        """Allocate the next placeholder number for this user and type (never reused)."""
        ...

    def delete_placeholder(self, tenant: str, user_id: str, placeholder: str) -> int: ...

    def delete_entity_types(self, tenant: str, user_id: str, entity_types: Sequence[str]) -> int: ...

    def delete_for_user(self, tenant: str, user_id: str) -> int:
        """Remove every entry and counter of the user."""
        ...


ENTRY_COLUMNS = "tenant, user_id, placeholder, entity_type, value_hmac, key_id, nonce, ciphertext, created_at"


def entry_from_row(r: Sequence[Any]) -> VaultEntry:
    """A vault entry from a row of ``ENTRY_COLUMNS`` (shared by the SQLite and PostgreSQL storages)."""
    return VaultEntry(
        tenant=str(r[0]),
        user_id=str(r[1]),
        placeholder=str(r[2]),
        entity_type=str(r[3]),
        value_hmac=str(r[4]),
        key_id=str(r[5]),
        nonce=bytes(r[6]),
        ciphertext=bytes(r[7]),
        created_at=str(r[8]),
    )


class SqliteVaultStorage:
    """``VaultStorage`` on a plain ``sqlite3.Connection`` (tables ``vault_entries``, ``vault_counters``).

    ``commit=True`` commits each write that this class started; a write made while the caller
    already has a transaction open (``BEGIN IMMEDIATE`` in the store) joins it and is left for
    the caller to commit. ``commit=False`` never commits.
    """

    def __init__(self, conn: sqlite3.Connection, *, commit: bool = True, create: bool = True) -> None:
        self.conn = conn
        self._commit = commit
        if create:
            self.create_schema()

    def create_schema(self) -> None:
        # the tables are the store layer's "vault" migration component; a transaction the caller
        # has open is joined
        migrate(SQLiteConnection(self.conn), VAULT)

    def _done(self, was_open: bool = False) -> None:
        if self._commit and not was_open:
            self.conn.commit()

    def put(self, entry: VaultEntry) -> bool:
        was_open = self.conn.in_transaction
        cur = self.conn.execute(
            f"INSERT INTO vault_entries ({ENTRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                entry.tenant,
                entry.user_id,
                entry.placeholder,
                entry.entity_type,
                entry.value_hmac,
                entry.key_id,
                entry.nonce,
                entry.ciphertext,
                entry.created_at,
            ),
        )
        self._done(was_open)
        return cur.rowcount == 1

    def lookup(self, tenant: str, user_id: str, value_hmacs: Sequence[str]) -> VaultEntry | None:
        if not value_hmacs:
            return None
        marks = ", ".join("?" for _ in value_hmacs)
        r = self.conn.execute(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries WHERE tenant = ? AND user_id = ? AND value_hmac IN ({marks})",
            (tenant, user_id, *value_hmacs),
        ).fetchone()
        return entry_from_row(r) if r else None

    def get(self, tenant: str, user_id: str, placeholder: str) -> VaultEntry | None:
        r = self.conn.execute(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries WHERE tenant = ? AND user_id = ? AND placeholder = ?",
            (tenant, user_id, placeholder),
        ).fetchone()
        return entry_from_row(r) if r else None

    def list_for_user(self, tenant: str, user_id: str) -> list[VaultEntry]:
        rows = self.conn.execute(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries WHERE tenant = ? AND user_id = ? ORDER BY created_at, placeholder",
            (tenant, user_id),
        ).fetchall()
        return [entry_from_row(r) for r in rows]

    def iter_all(self) -> Iterator[VaultEntry]:
        rows = self.conn.execute(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries ORDER BY tenant, user_id"
        ).fetchall()
        for r in rows:
            yield entry_from_row(r)

    def key_ids(self) -> set[str]:
        return {str(r[0]) for r in self.conn.execute("SELECT DISTINCT key_id FROM vault_entries")}

    def replace(self, entry: VaultEntry) -> None:
        was_open = self.conn.in_transaction
        self.conn.execute(
            "UPDATE vault_entries SET value_hmac = ?, key_id = ?, nonce = ?, ciphertext = ? "
            "WHERE tenant = ? AND user_id = ? AND placeholder = ?",
            (
                entry.value_hmac,
                entry.key_id,
                entry.nonce,
                entry.ciphertext,
                entry.tenant,
                entry.user_id,
                entry.placeholder,
            ),
        )
        self._done(was_open)

    def next_index(self, tenant: str, user_id: str, entity_type: str) -> int:
        was_open = self.conn.in_transaction
        self.conn.execute(
            "INSERT INTO vault_counters (tenant, user_id, entity_type, last_index) VALUES (?, ?, ?, 1) "
            "ON CONFLICT (tenant, user_id, entity_type) DO UPDATE SET last_index = vault_counters.last_index + 1",
            (tenant, user_id, entity_type),
        )
        r = self.conn.execute(
            "SELECT last_index FROM vault_counters WHERE tenant = ? AND user_id = ? AND entity_type = ?",
            (tenant, user_id, entity_type),
        ).fetchone()
        self._done(was_open)
        return int(r[0])

    def delete_placeholder(self, tenant: str, user_id: str, placeholder: str) -> int:
        was_open = self.conn.in_transaction
        cur = self.conn.execute(
            "DELETE FROM vault_entries WHERE tenant = ? AND user_id = ? AND placeholder = ?",
            (tenant, user_id, placeholder),
        )
        self._done(was_open)
        return cur.rowcount

    def delete_entity_types(self, tenant: str, user_id: str, entity_types: Sequence[str]) -> int:
        if not entity_types:
            return 0
        marks = ", ".join("?" for _ in entity_types)
        was_open = self.conn.in_transaction
        cur = self.conn.execute(
            f"DELETE FROM vault_entries WHERE tenant = ? AND user_id = ? AND entity_type IN ({marks})",
            (tenant, user_id, *entity_types),
        )
        self._done(was_open)
        return cur.rowcount

    def delete_for_user(self, tenant: str, user_id: str) -> int:
        was_open = self.conn.in_transaction
        cur = self.conn.execute(
            "DELETE FROM vault_entries WHERE tenant = ? AND user_id = ?", (tenant, user_id)
        )
        self.conn.execute("DELETE FROM vault_counters WHERE tenant = ? AND user_id = ?", (tenant, user_id))
        self._done(was_open)
        return cur.rowcount
