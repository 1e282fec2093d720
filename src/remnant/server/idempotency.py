"""Idempotency keys for the REST API's writes (the ``Idempotency-Key`` header).

A write sent with a key is done once: the same key from the same API key with the same request
(method, path and body) gets the first answer again, with ``Idempotent-Replayed: true``, and writes nothing; the same key
with another request is refused (422 ``idempotency_key_reused``). The key's row is claimed, the
write done and its answer recorded in one transaction of the store, so a crash leaves either both
or neither, and a failed write (any error) records nothing: retrying it is safe. Rows live in the
store's database (the ``idempotency`` migration component) for :data:`RETENTION_S`; every erasure
the server does (REST, mem0) first deletes the rows whose answers mention the user.

A record is bound to the API key that made it: the same Idempotency-Key from another API key of
the tenant is another record (its own write), never a replay of the first one's answer, which a
write-only key could otherwise read. The fingerprint is an HMAC under a server secret (derived
from the audit key, kept outside the database; else a random one in the store's meta table), not
a plain hash of a body that may hold a personal value a database reader could confirm by guessing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
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


_SECRET_CONTEXT = b"remnant/idempotency/v1"
_SECRET_META = "idempotency_secret"


def fingerprint(method: str, path: str, body: Any, *, secret: bytes) -> str:
    """The request's fingerprint: an HMAC-SHA256 under the server's secret, never a plain hash."""
    canonical = json.dumps([method.upper(), path, body], sort_keys=True, separators=(",", ":"), default=str)
    return hmac.new(secret, canonical.encode("utf-8"), hashlib.sha256).hexdigest()


def owned(key: str, owner: str | None) -> str:
    """The stored key: the API key's id and the client's Idempotency-Key (bound to the API key)."""
    return f"{owner or 'local'}\x1f{key}"


class IdempotencyKeys:
    """The keys of every tenant, in one store's database."""

    def __init__(
        self,
        store: Store,
        *,
        now: Callable[[], float] = time.time,
        audit_key: Callable[[], bytes | None] | None = None,
    ) -> None:
        self.db: Database | None = store if _is_database(store) else None  # type: ignore[assignment]
        self._now = now
        self._store = store
        self._audit_key = audit_key
        self._secret: bytes | None = None
        if self.db is not None:
            migrate(self.db, IDEMPOTENCY)

    @property
    def secret(self) -> bytes:
        """The fingerprints' key: derived from the audit key, read at the first write (the engine that
        write opens has made the key file by then); else a random one claimed in the meta table."""
        if self._secret is None:
            key = self._audit_key() if self._audit_key is not None else None
            if key:
                self._secret = hmac.new(key, _SECRET_CONTEXT, hashlib.sha256).digest()
            else:
                claim = getattr(self._store, "claim_meta", None)
                token = secrets.token_hex(32)
                self._secret = bytes.fromhex(claim(_SECRET_META, token) if claim is not None else token)
        return self._secret

    def fingerprint(self, method: str, path: str, body: Any) -> str:
        return fingerprint(method, path, body, secret=self.secret)

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
