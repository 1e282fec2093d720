"""API keys and tenancy: who is calling, for which tenant, allowed to do what.

A key is ``rk_<key id>_<secret>``, 32 random bytes of secret, shown once when it is made. Only its
SHA-256 is stored, so a leaked key file does not leak usable keys. Each key is bound to one tenant
and a set of scopes; the server builds the caller's :class:`~remnant.Memory` from the key's tenant,
so a request can never name another tenant.

Keys live in their own small SQLite file next to the memory database (``remnant.keys.db`` beside
``remnant.db``) rather than in the memory database: credentials are not memories (exports,
erasure and compaction of the memory store never touch them, and the file is created ``0600``),
the key file works the same whichever store backend holds the memories (SQLite or PostgreSQL), and
the memory schema stays the store's. The table itself is the ``api_keys`` component of
:mod:`remnant.store.migrations`, so it is created and upgraded like every other table.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from remnant.core.errors import AuthenticationError, NotFoundError, PermissionDeniedError, ValidationError
from remnant.core.model import DEFAULT_TENANT, check_identifier
from remnant.store.migrations import API_KEYS, SQLiteConnection, migrate

SCOPES: tuple[str, ...] = ("read", "write", "forget", "admin", "vault")
"""read: look and recall; write: remember, review, pin, hide; forget: forget requests, purge, user
erasure; admin: sweeps and everything but the vault; vault: reveal redacted personal data."""

_PREFIX = "rk_"


class AuthError(AuthenticationError):
    """No key, an unknown or revoked key (HTTP 401)."""


class ForbiddenError(PermissionDeniedError):
    """The key is valid but lacks the scope the operation needs (HTTP 403)."""


@dataclass(frozen=True)
class Principal:
    """The authenticated caller: a tenant and what it may do there."""

    tenant: str
    scopes: frozenset[str]
    key_id: str | None = None  # None in --no-auth mode and over stdio

    @property
    def actor(self) -> str:
        return f"key:{self.key_id}" if self.key_id else "local"

    def allows(self, scope: str) -> bool:
        if scope in self.scopes:
            return True
        return scope != "vault" and "admin" in self.scopes

    def require(self, scope: str) -> None:
        if not self.allows(scope):
            raise ForbiddenError(f"this key lacks the {scope!r} scope")


LOCAL_PRINCIPAL = Principal(DEFAULT_TENANT, frozenset(SCOPES))


@dataclass(frozen=True)
class ApiKey:
    """A stored key, without its secret."""

    key_id: str
    tenant: str
    scopes: tuple[str, ...]
    name: str
    created_at: float
    revoked_at: float | None = None
    last_used_at: float | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "key_id": self.key_id,
            "tenant": self.tenant,
            "scopes": list(self.scopes),
            "name": self.name,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "last_used_at": self.last_used_at,
        }


@dataclass(frozen=True)
class NewKey:
    """A freshly made key: ``secret`` is the full key, shown once and never stored."""

    key: ApiKey
    secret: str = field(repr=False)


def hash_key(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def parse_scopes(scopes: Iterable[str]) -> tuple[str, ...]:
    out = []
    for s in scopes:
        for part in str(s).split(","):
            part = part.strip().lower()
            if not part:
                continue
            if part not in SCOPES:
                raise ValidationError(f"unknown scope {part!r}; expected some of: {', '.join(SCOPES)}")
            if part not in out:
                out.append(part)
    if not out:
        raise ValidationError("a key needs at least one scope")
    return tuple(out)


def default_keys_path(db: str | os.PathLike[str] | None) -> Path:
    """``remnant.keys.db`` next to a SQLite database; under the data folder for PostgreSQL or memory."""
    from remnant.core.settings import read

    env = read("REMNANT_KEYS_DB")
    if env:
        return Path(env)
    from remnant.store import default_db_path

    target = str(db) if db is not None else str(default_db_path())
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///") :]
    if target == ":memory:" or target.startswith(("postgresql://", "postgres://")):
        return default_db_path().with_name("remnant.keys.db")
    p = Path(target)
    return p.with_name(f"{p.stem}.keys.db")


class KeyStore:
    """API keys in a small SQLite file; lookups are by the key's hash and cached briefly."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, Principal | None]] = {}
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                # create it private before SQLite writes anything secret-adjacent into it
                fd = os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
        self._conn.execute("PRAGMA busy_timeout = 10000")
        migrate(SQLiteConnection(self._conn), API_KEYS)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def create(self, tenant: str, scopes: Iterable[str], name: str = "") -> NewKey:
        check_identifier(tenant, "tenant")
        scope_t = parse_scopes(scopes)
        if len(name) > 200:
            raise ValidationError("key name is too long (max 200 characters)")
        key_id = secrets.token_hex(6)
        secret = f"{_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        now = time.time()
        with self._lock:
            self._conn.execute(
                "INSERT INTO api_keys (key_id, key_hash, tenant, scopes, name, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key_id, hash_key(secret), tenant, ",".join(scope_t), name, now),
            )
        return NewKey(ApiKey(key_id, tenant, scope_t, name, now), secret)

    def list_keys(self, *, tenant: str | None = None, include_revoked: bool = False) -> list[ApiKey]:
        sql = "SELECT key_id, tenant, scopes, name, created_at, revoked_at, last_used_at FROM api_keys WHERE 1=1"
        params: list[object] = []
        if tenant is not None:
            sql += " AND tenant = ?"
            params.append(tenant)
        if not include_revoked:
            sql += " AND revoked_at IS NULL"
        sql += " ORDER BY created_at"
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [ApiKey(r[0], r[1], tuple(r[2].split(",")), r[3], r[4], r[5], r[6]) for r in rows]

    def tenants(self) -> list[str]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT DISTINCT tenant FROM api_keys WHERE revoked_at IS NULL ORDER BY tenant"
            ).fetchall()
        return [r[0] for r in rows]

    def revoke(self, key_id: str) -> ApiKey:
        with self._lock:
            cur = self._conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                (time.time(), key_id),
            )
            self._cache.clear()
        if cur.rowcount == 0:
            raise NotFoundError(f"no active key {key_id!r}")
        return next(k for k in self.list_keys(include_revoked=True) if k.key_id == key_id)

    def cached(self, secret: str | None) -> Principal | None:
        """The principal of a key checked in the last few seconds, without touching the database
        (``None``: call :meth:`authenticate`). Cheap enough for the event loop."""
        if not secret or not secret.startswith(_PREFIX) or len(secret) > 200:
            return None
        hit = self._cache.get(hash_key(secret))
        if hit is None or hit[1] is None or time.monotonic() - hit[0] >= 5.0:
            return None
        return hit[1]

    def authenticate(self, secret: str | None) -> Principal:
        """The principal of a presented key; :class:`AuthError` for a missing, unknown or revoked one."""
        if not secret:
            raise AuthError(
                "missing API key: send 'Authorization: Bearer <key>' (or 'Token <key>') or 'X-API-Key: <key>'"
            )
        if not secret.startswith(_PREFIX) or len(secret) > 200:
            raise AuthError("invalid API key")
        digest = hash_key(secret)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and now - cached[0] < 5.0:
            principal = cached[1]
        else:
            with self._lock:
                # requests that all missed the expired entry at once: the first one refreshed it
                again = self._cache.get(digest)
                if again is not None and time.monotonic() - again[0] < 5.0:
                    if again[1] is None:
                        raise AuthError("invalid or revoked API key")
                    return again[1]
                row = self._conn.execute(
                    "SELECT key_id, tenant, scopes FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL",
                    (digest,),
                ).fetchone()
                if row is not None:
                    self._conn.execute(
                        "UPDATE api_keys SET last_used_at = ? WHERE key_id = ?", (time.time(), row[0])
                    )
                principal = Principal(row[1], frozenset(row[2].split(",")), row[0]) if row else None
                if len(self._cache) > 10_000:
                    self._cache.clear()
                self._cache[digest] = (time.monotonic(), principal)
        if principal is None:
            raise AuthError("invalid or revoked API key")
        return principal


def key_from_headers(headers: object) -> str | None:
    """The key in ``Authorization: Bearer …``, ``Authorization: Token …`` (the scheme mem0's
    clients send) or ``X-API-Key``, if any."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    auth = get("authorization") or get("Authorization")
    if auth:
        scheme, _, value = str(auth).partition(" ")
        if scheme.lower() in ("bearer", "token") and value.strip():
            return value.strip()
        return str(auth).strip()
    key = get("x-api-key") or get("X-API-Key")
    return str(key).strip() if key else None
