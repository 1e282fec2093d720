"""The privacy vault's storage inside a SQL store's database (``VaultStorage``, PostgreSQL foremost).

Rows hold only ciphertext, a keyed HMAC and metadata. Every statement goes through the store's
public extension seam (:meth:`~remnant.store.sql.SQLStore.execute`, ``fetch``, ``transaction``), so a
vault write made inside ``store.transaction()`` (the engine redacting a memory it is about to
insert) commits or rolls back with the memory itself. The tables are the store layer's ``vault``
migration component, so they are created and upgraded like every other table.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from remnant.privacy.storage import ENTRY_COLUMNS, VaultEntry, entry_from_row
from remnant.store.migrations import VAULT, migrate
from remnant.store.sql import SQLStore


class PgVaultStorage:
    """``VaultStorage`` in a store's database (tables ``vault_entries``, ``vault_counters``)."""

    def __init__(self, store: SQLStore) -> None:
        self.store = store
        self._p = store.dialect.ph
        migrate(store, VAULT)

    def _where(self, extra: str = "") -> str:
        p = self._p
        return f"WHERE tenant = {p} AND user_id = {p}{extra}"

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
        marks = self.store.dialect.marks(len(row))
        sql = f"INSERT INTO vault_entries ({ENTRY_COLUMNS}) VALUES ({marks}) ON CONFLICT DO NOTHING"
        return self.store.execute(sql, row) == 1

    def lookup(self, tenant: str, user_id: str, value_hmacs: Sequence[str]) -> VaultEntry | None:
        if not value_hmacs:
            return None
        params: list[Any] = [tenant, user_id]
        match = self.store.dialect.within("value_hmac", value_hmacs, params)
        rows = self.store.fetch(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries {self._where()} AND {match} LIMIT 1", params
        )
        return entry_from_row(rows[0]) if rows else None

    def get(self, tenant: str, user_id: str, placeholder: str) -> VaultEntry | None:
        rows = self.store.fetch(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries {self._where(f' AND placeholder = {self._p}')}",
            (tenant, user_id, placeholder),
        )
        return entry_from_row(rows[0]) if rows else None

    def list_for_user(self, tenant: str, user_id: str) -> list[VaultEntry]:
        rows = self.store.fetch(
            f"SELECT {ENTRY_COLUMNS} FROM vault_entries {self._where()} ORDER BY created_at, placeholder",
            (tenant, user_id),
        )
        return [entry_from_row(r) for r in rows]

    def iter_all(self) -> Iterator[VaultEntry]:
        for r in self.store.fetch(f"SELECT {ENTRY_COLUMNS} FROM vault_entries ORDER BY tenant, user_id"):
            yield entry_from_row(r)

    def key_ids(self) -> set[str]:
        return {str(r[0]) for r in self.store.fetch("SELECT DISTINCT key_id FROM vault_entries")}

    def replace(self, entry: VaultEntry) -> None:
        p = self._p
        self.store.execute(
            f"UPDATE vault_entries SET value_hmac = {p}, key_id = {p}, nonce = {p}, ciphertext = {p} "
            f"{self._where(f' AND placeholder = {p}')}",
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

    def next_index(self, tenant: str, user_id: str, entity_type: str) -> int:
        rows = self.store.execute_returning(
            f"INSERT INTO vault_counters (tenant, user_id, entity_type, last_index) "
            f"VALUES ({self.store.dialect.marks(3)}, 1) ON CONFLICT (tenant, user_id, entity_type) "
            "DO UPDATE SET last_index = vault_counters.last_index + 1 RETURNING last_index",
            (tenant, user_id, entity_type),
        )
        return int(rows[0][0])

    def delete_placeholder(self, tenant: str, user_id: str, placeholder: str) -> int:
        return self.store.execute(
            f"DELETE FROM vault_entries {self._where(f' AND placeholder = {self._p}')}",
            (tenant, user_id, placeholder),
        )

    def delete_entity_types(self, tenant: str, user_id: str, entity_types: Sequence[str]) -> int:
        if not entity_types:
            return 0
        params: list[Any] = [tenant, user_id]
        match = self.store.dialect.within("entity_type", entity_types, params)
        return self.store.execute(f"DELETE FROM vault_entries {self._where()} AND {match}", params)

    def delete_for_user(self, tenant: str, user_id: str) -> int:
        with self.store.transaction():
            n = self.store.execute(f"DELETE FROM vault_entries {self._where()}", (tenant, user_id))
            self.store.execute(f"DELETE FROM vault_counters {self._where()}", (tenant, user_id))
        return n
