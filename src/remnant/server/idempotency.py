"""Idempotency keys for the REST API's writes (the ``Idempotency-Key`` header).

A write sent with a key is done once: the same key with the same request (method, path and body)
gets the first answer again, with ``Idempotent-Replayed: true``, and writes nothing; the same key
with another request is refused (422 ``idempotency_key_reused``). The key's row is claimed, the
write done and its answer recorded in one transaction of the store, so a crash leaves either both
or neither, and a failed write (any error) records nothing: retrying it is safe. Rows live in the
store's database (the ``idempotency`` migration component) for :data:`RETENTION_S`; every erasure
the server does (REST, mem0) first deletes the rows whose answers mention the user.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from remnant.core.errors import RemnantError, ValidationError
from remnant.core.limits import MAX_IDEMPOTENCY_KEY_CHARS
from remnant.store.base import Store
from remnant.store.migrations import IDEMPOTENCY, Database, migrate

RETENTION_S = 24 * 3600.0
HEADER = "idempotency-key"


class IdempotencyKeyReused(RemnantError):
    """The key was used before with another request."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    replayed: bool = False


def users_in(body: Any) -> list[str]:
    """Every ``user_id`` an answer mentions: whose memories its recorded copy holds."""
    found: set[str] = set()
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            uid = item.get("user_id")
            if isinstance(uid, str):
                found.add(uid)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return sorted(found)


def check_key(value: str) -> str:
    if not 1 <= len(value) <= MAX_IDEMPOTENCY_KEY_CHARS or not value.isprintable() or not value.isascii():
        raise ValidationError(
            f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters"
        )
    return value


def fingerprint(method: str, path: str, body: Any) -> str:
    canonical = json.dumps([method.upper(), path, body], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class IdempotencyKeys:
    """The keys of every tenant, in one store's database."""

    def __init__(self, store: Store, *, now: Callable[[], float] = time.time) -> None:
        self.db: Database | None = store if _is_database(store) else None  # type: ignore[assignment]
        self._now = now
        if self.db is not None:
            migrate(self.db, IDEMPOTENCY)

    def run(self, tenant: str, key: str, print_: str, write: Callable[[], Answer]) -> Answer:
        """Do ``write`` once for ``key``: claim the key, write, record the answer (with the users it
        mentions, for erasure); or replay it."""
        db = self.db
        if db is None:  # a store without the SQL seam: no replay, the write still happens once here
            return write()
        p = db.dialect.ph
        now = self._now()
        with db.transaction():
            db.execute(
                f"DELETE FROM idempotency_keys WHERE tenant = {p} AND created_at < {p}",
                (tenant, now - RETENTION_S),
            )
            # a concurrent claim of the same key waits here (row lock) until the first commits
            claimed = db.execute(
                "INSERT INTO idempotency_keys (tenant, idem_key, fingerprint, users, created_at) "
                f"VALUES ({p}, {p}, {p}, {p}, {p}) ON CONFLICT DO NOTHING",
                (tenant, key, print_, "[]", now),
            )
            if not claimed:
                rows = db.fetch(
                    "SELECT fingerprint, status, response FROM idempotency_keys "
                    f"WHERE tenant = {p} AND idem_key = {p}",
                    (tenant, key),
                )
                if rows:
                    seen, status, response = rows[0]
                    if seen != print_:
                        raise IdempotencyKeyReused(
                            "this Idempotency-Key was used with another request; use a new key"
                        )
                    if status is not None:
                        return Answer(int(status), json.loads(response), replayed=True)
            answer = write()
            db.execute(
                f"UPDATE idempotency_keys SET status = {p}, response = {p}, users = {p} "
                f"WHERE tenant = {p} AND idem_key = {p}",
                (
                    answer.status,
                    json.dumps(answer.body, separators=(",", ":")),
                    json.dumps(users_in(answer.body)),
                    tenant,
                    key,
                ),
            )
        return answer

    def forget_user(self, tenant: str, user_id: str) -> int:
        """Delete the recorded answers of requests about ``user_id`` (their bodies hold its memories)."""
        if self.db is None:
            return 0
        p = self.db.dialect.ph
        needle = json.dumps(user_id)
        pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return self.db.execute(
            f"DELETE FROM idempotency_keys WHERE tenant = {p} AND users LIKE {p} ESCAPE '\\'",
            (tenant, pattern),
        )


def _is_database(store: Store) -> bool:
    return all(hasattr(store, name) for name in ("dialect", "execute", "fetch", "transaction"))
