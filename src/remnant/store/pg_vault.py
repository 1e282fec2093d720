"""The privacy vault's storage on PostgreSQL (``VaultStorage`` from :mod:`remnant.privacy.storage`).

Rows hold only ciphertext, a keyed HMAC and metadata. Every statement goes through the store's
transaction handling, so a vault write made inside ``store.transaction()`` (the engine redacting a
memory it is about to insert) commits or rolls back with the memory itself, as on SQLite.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from remnant.privacy.storage import ENTRY_COLUMNS, entry_from_row

if TYPE_CHECKING:
    from remnant.privacy.storage import VaultEntry
    from remnant.store.postgres import PostgresStore

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS vault_entries (
        tenant text NOT NULL,
        user_id text NOT NULL,
        placeholder text NOT NULL,
        entity_type text NOT NULL,
        value_hmac text NOT NULL,
        key_id text NOT NULL,
        nonce bytea NOT NULL,
        ciphertext bytea NOT NULL,
        created_at text NOT NULL,
        PRIMARY KEY (tenant, user_id, placeholder),
        UNIQUE (tenant, user_id, value_hmac)
    )""",
    "CREATE INDEX IF NOT EXISTS vault_entries_type ON vault_entries (tenant, user_id, entity_type)",
    """CREATE TABLE IF NOT EXISTS vault_counters (
        tenant text NOT NULL,
        user_id text NOT NULL,
        entity_type text NOT NULL,
        last_index bigint NOT NULL,
        PRIMARY KEY (tenant, user_id, entity_type)
    )""",
)
_SCHEMA_LOCK = "remnant-vault-schema"


class PgVaultStorage:
    """``VaultStorage`` in the store's database (tables ``vault_entries``, ``vault_counters``)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

        def create(c: Any) -> None:
            # concurrent first opens must not race on CREATE TABLE IF NOT EXISTS (it is not atomic)
            c.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_SCHEMA_LOCK,))
            for stmt in SCHEMA:
                c.execute(stmt)

        store._write(create)

    def put(self, entry: VaultEntry) -> bool:
        row = (
            entry.tenant,
            entry.user_id,
            entry.placeholder,
            entry.entity_type,
            entry.value_hmac,
            entry.key_id,
            entry.nonce,
            entry.ciphertext,
            entry.created_at,
        )
        return bool(
            self.store._write(
                lambda c: (
                    c.execute(
                        f"INSERT INTO vault_entries ({ENTRY_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
                        "ON CONFLICT DO NOTHING",
                        row,
                    ).rowcount
                    == 1
                )
            )
        )

    def lookup(self, tenant: str, user_id: str, value_hmacs: Sequence[str]) -> VaultEntry | None:
        if not value_hmacs:
            return None
        rows = self.store._read(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries WHERE tenant = %s AND user_id = %s AND value_hmac = ANY(%s) "
            "LIMIT 1",
            (tenant, user_id, list(value_hmacs)),
        )
        return entry_from_row(rows[0]) if rows else None

    def get(self, tenant: str, user_id: str, placeholder: str) -> VaultEntry | None:
        rows = self.store._read(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries WHERE tenant = %s AND user_id = %s AND placeholder = %s",
            (tenant, user_id, placeholder),
        )
        return entry_from_row(rows[0]) if rows else None

    def list_for_user(self, tenant: str, user_id: str) -> list[VaultEntry]:
        rows = self.store._read(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries WHERE tenant = %s AND user_id = %s "
            "ORDER BY created_at, placeholder",
            (tenant, user_id),
        )
        return [entry_from_row(r) for r in rows]

    def iter_all(self) -> Iterator[VaultEntry]:
        for r in self.store._read(f"SELECT {ENTRY_COLUMNS} FROM vault_entries ORDER BY tenant, user_id"):
            yield entry_from_row(r)

    def key_ids(self) -> set[str]:
        return {str(r[0]) for r in self.store._read("SELECT DISTINCT key_id FROM vault_entries")}

    def replace(self, entry: VaultEntry) -> None:
        self.store._write(
            lambda c: c.execute(
                "UPDATE vault_entries SET value_hmac = %s, key_id = %s, nonce = %s, ciphertext = %s "
                "WHERE tenant = %s AND user_id = %s AND placeholder = %s",
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
        )

    def next_index(self, tenant: str, user_id: str, entity_type: str) -> int:
        def run(c: Any) -> int:
            row = c.execute(
                "INSERT INTO vault_counters (tenant, user_id, entity_type, last_index) VALUES (%s, %s, %s, 1) "
                "ON CONFLICT (tenant, user_id, entity_type) DO UPDATE SET last_index = vault_counters.last_index + 1 "
                "RETURNING last_index",
                (tenant, user_id, entity_type),
            ).fetchone()
            return int(row[0])

        return int(self.store._write(run))

    def delete_placeholder(self, tenant: str, user_id: str, placeholder: str) -> int:
        return int(
            self.store._write(
                lambda c: (
                    c.execute(
                        "DELETE FROM vault_entries WHERE tenant = %s AND user_id = %s AND placeholder = %s",
                        (tenant, user_id, placeholder),
                    ).rowcount
                )
            )
        )

    def delete_entity_types(self, tenant: str, user_id: str, entity_types: Sequence[str]) -> int:
        if not entity_types:
            return 0
        return int(
            self.store._write(
                lambda c: (
                    c.execute(
                        "DELETE FROM vault_entries WHERE tenant = %s AND user_id = %s AND entity_type = ANY(%s)",
                        (tenant, user_id, list(entity_types)),
                    ).rowcount
                )
            )
        )

    def delete_for_user(self, tenant: str, user_id: str) -> int:
        def run(c: Any) -> int:
            n = c.execute(
                "DELETE FROM vault_entries WHERE tenant = %s AND user_id = %s", (tenant, user_id)
            ).rowcount
            c.execute("DELETE FROM vault_counters WHERE tenant = %s AND user_id = %s", (tenant, user_id))
            return int(n)

        return int(self.store._write(run))
