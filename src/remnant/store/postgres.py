"""The PostgreSQL store: psycopg 3 with a connection pool, pgvector for embeddings, full text + trigrams.

It implements the same :class:`~remnant.store.base.Store` contract as SQLite (the contract suite in
``tests/store/test_contract.py`` runs against both), so the engine does not know which one it talks to.

Concurrency: several processes may share one database. Status changes are one ``UPDATE … WHERE
status <> target RETURNING`` statement, so two sweeps running at once never both apply (and audit) the
same change; the audit chain of a tenant is extended under ``pg_advisory_xact_lock(hashtext(tenant))``
so concurrent writers cannot fork it.

Failures: every write runs in an explicit transaction. A single-operation write whose connection
fails *before* COMMIT was sent is retried on a fresh connection (nothing of it was applied); a failure
while committing is reported, never retried blindly. Reads are retried. Pooled connections are checked
before use, so a restarted server costs a reconnect, not an error. A connection dropped in the middle
of a caller's :meth:`PostgresStore.transaction` rolls the whole block back on the server.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from importlib import resources
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from remnant.core.audit import GENESIS, AuditDraft, AuditEntry, entry_hash
from remnant.core.clock import from_epoch
from remnant.core.errors import (
    NotFoundError,
    SchemaTooNewError,
    StoreError,
    TransientConflict,
    ValidationError,
)
from remnant.core.model import DEFAULT_TENANT, MemoryRecord, Status
from remnant.core.text import index_text as default_index_text
from remnant.store.base import MemoryFilter, Order, Store, UserSummary, audit_entry_row, row_to_record, ts
from remnant.store.filter_sql import PostgresDialect, build_where, importance_params, importance_sql

if TYPE_CHECKING:
    from remnant.store.pg_vault import PgVaultStorage

T = TypeVar("T")
Conn = psycopg.Connection[Any]

_COLUMNS = (
    "id",
    "tenant",
    "user_id",
    "agent_id",
    "session_id",
    "kind",
    "key",
    "content",
    "source",
    "confidence",
    "importance",
    "pinned",
    "created_at",
    "last_accessed_at",
    "access_count",
    "review_count",
    "expires_at",
    "valid_from",
    "valid_to",
    "status",
    "status_reason",
    "status_changed_at",
    "superseded_by",
    "strength0",
    "stability",
    "anchor",
    "fade_at",
    "metadata",
)
_SELECT = ", ".join(f"m.{c}" for c in _COLUMNS)
_INSERT = (
    f"INSERT INTO memories ({', '.join(_COLUMNS)}, index_text) "
    f"VALUES ({', '.join(['%s'] * (len(_COLUMNS) + 1))})"
)
_ORDERS: dict[str, str] = {
    "created_at": "m.created_at ASC, m.rid ASC",
    "-created_at": "m.created_at DESC, m.rid DESC",
    "fade_at": "m.fade_at ASC, m.rid ASC",
    "-fade_at": "m.fade_at DESC, m.rid ASC",
    "last_accessed_at": "m.last_accessed_at ASC NULLS FIRST, m.rid ASC",
    "-last_accessed_at": "m.last_accessed_at DESC NULLS LAST, m.rid ASC",
    "importance": "m.importance ASC, m.rid ASC",
    "-importance": "m.importance DESC, m.rid ASC",
}
_AUDIT_COLUMNS = (
    "seq, tenant, at, actor, action, reason, user_id, policy, batch_id, memory_ids, summary, details, "
    "prev_hash, hash"
)
_QUOTED_TERM = re.compile(r'"((?:[^"]|"")*)"')
_MIGRATION_LOCK = "remnant-schema-migration"
_HNSW_LOCK = "remnant-hnsw-index"


def _migrations() -> list[tuple[int, str, str]]:
    folder = resources.files("remnant.store.migrations.postgres")
    found = []
    for item in folder.iterdir():
        name = item.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, item.read_text(encoding="utf-8")))
    return sorted(found)


def redact_url(url: str) -> str:
    """The URL with its password masked, for error messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def record_to_row(r: MemoryRecord, index_text: str) -> tuple[Any, ...]:
    return (
        r.id,
        r.tenant,
        r.user_id,
        r.agent_id,
        r.session_id,
        r.kind.value,
        r.key,
        r.content,
        r.source,
        r.confidence,
        r.importance,
        bool(r.pinned),
        ts(r.created_at),
        ts(r.last_accessed_at),
        r.access_count,
        r.review_count,
        ts(r.expires_at),
        ts(r.valid_from),
        ts(r.valid_to),
        r.status.value,
        r.status_reason,
        ts(r.status_changed_at),
        r.superseded_by,
        r.strength0,
        r.stability,
        r.anchor,
        r.fade_at,  # double precision holds Infinity, so "never fades" round-trips as inf
        Jsonb(r.metadata),
        index_text,
    )


_DIALECT = PostgresDialect()
_SCORE_SQL = importance_sql(_DIALECT)  # the eviction score, one expression for both stores


def where_clause(flt: MemoryFilter, alias: str = "m") -> tuple[str, list[Any]]:
    """Translate a :class:`MemoryFilter` into this backend's SQL condition and its parameters."""
    return build_where(flt, _DIALECT, alias)


def match_terms(match: str) -> list[str]:
    """The terms of a lexical query: the quoted terms of an FTS5 ``"a" OR "b"`` expression, else words."""
    quoted = [t.replace('""', '"') for t in _QUOTED_TERM.findall(match)]
    if quoted:
        terms = quoted
    else:
        terms = [w for w in re.split(r"\s+", match) if w and w.upper() not in {"OR", "AND", "NOT", "NEAR"}]
    return [t.strip() for t in terms if t.strip()]


def _tsquery_text(terms: Sequence[str]) -> str:
    """``'a' | 'b'``: every term a quoted lexeme, so no user text is parsed as tsquery syntax."""
    return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in terms)


def _lock_id(*parts: str) -> int:
    """A signed 64-bit advisory lock id for a tuple of strings (any characters)."""
    digest = hashlib.sha256(json.dumps(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _hnsw_index_name(model: str, dim: int) -> str:
    return f"ix_embeddings_hnsw_{hashlib.sha1(model.encode()).hexdigest()[:12]}_{dim}"


class PostgresStore(Store):
    """A :class:`Store` in a PostgreSQL database (``postgresql://user:pass@host/db``).

    Needs the ``vector`` (pgvector) and ``pg_trgm`` extensions; they are created on first use when the
    role may do so. Tables go into the first schema of the connection's ``search_path``.
    """

    shared_vector_index = True  # pgvector HNSW: retrievers search here, not in a per-process copy

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 8,
        timeout: float = 30.0,
        connect_timeout: int = 10,
        retries: int = 3,
        ef_search: int = 100,
        exact_below: int = 20_000,
    ) -> None:
        self.url = url
        self._safe_url = redact_url(url)
        self._timeout = timeout
        self._retries = retries
        self._local = threading.local()
        self._hnsw_ready: set[str] = set()
        self._deferred: set[tuple[str, int]] | None = None
        self.ef_search = ef_search
        self.exact_below = exact_below
        self._conn_kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": connect_timeout}
        try:
            first = psycopg.connect(url, **self._conn_kwargs)
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {self._safe_url}: {str(exc).strip()}; "
                "check the host, port, database name and credentials (is the server running?)"
            ) from exc
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"not a valid PostgreSQL URL {self._safe_url}: {str(exc).strip()}") from exc
        try:
            self._ensure_extensions(first)
            self._migrate(first)
            row = first.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            version = tuple(int(p) for p in re.findall(r"\d+", row[0] if row else "0")[:2])
            self._iterative_scan = version >= (0, 8)  # hnsw.iterative_scan arrived in pgvector 0.8
        finally:
            first.close()
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs=self._conn_kwargs,
            configure=self._configure,
            check=ConnectionPool.check_connection,
            timeout=timeout,
            name="remnant",
            open=False,
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
        except PoolTimeout as exc:
            self._pool.close()
            raise StoreError(f"cannot fill a connection pool for {self._safe_url}: {exc}") from exc

    # -- lifecycle -------------------------------------------------------------------------------
    @staticmethod
    def _configure(conn: Conn) -> None:
        from pgvector.psycopg import register_vector

        register_vector(conn)

    def _ensure_extensions(self, conn: Conn) -> None:
        have = {r[0] for r in conn.execute("SELECT extname FROM pg_extension").fetchall()}
        for ext, purpose in (("vector", "pgvector, for embeddings"), ("pg_trgm", "trigram search")):
            if ext in have:
                continue
            try:
                conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))
            except psycopg.Error as exc:
                available = conn.execute(
                    "SELECT 1 FROM pg_available_extensions WHERE name = %s", (ext,)
                ).fetchone()
                if available is None:
                    how = (
                        "install it on the database server (e.g. the postgresql-NN-pgvector package, "
                        "or build from https://github.com/pgvector/pgvector)"
                        if ext == "vector"
                        else "install the postgresql contrib package on the database server"
                    )
                else:
                    how = "ask a superuser (or the database owner) to run it once in this database"
                raise StoreError(
                    f"the PostgreSQL extension {ext!r} ({purpose}) is missing in {self._safe_url} "
                    f"and this role cannot create it ({str(exc).strip()}): {how}, then run "
                    f"CREATE EXTENSION {ext}; in that database (psql {self._safe_url} -c "
                    f"'CREATE EXTENSION {ext}')"
                ) from exc

    def _migrate(self, conn: Conn) -> None:
        migrations = _migrations()
        latest = migrations[-1][0]
        try:
            with conn.transaction():
                # one migrator at a time when several processes open a fresh database together
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_MIGRATION_LOCK,))
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    "version integer PRIMARY KEY, name text NOT NULL, applied_at double precision NOT NULL)"
                )
                row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
                current = (row[0] if row else None) or 0
                if current > latest:
                    raise SchemaTooNewError(
                        f"database schema version {current} is newer than this Remnant understands "
                        f"({latest}); upgrade the remnant package"
                    )
                for version, name, text in migrations:
                    if version > current:
                        conn.execute(text.encode("utf-8"))
                        conn.execute(
                            "INSERT INTO schema_migrations VALUES (%s, %s, extract(epoch FROM now()))",
                            (version, name),
                        )
        except psycopg.Error as exc:
            raise StoreError(f"cannot prepare the schema in {self._safe_url}: {str(exc).strip()}") from exc

    def close(self) -> None:
        try:
            self._pool.close()
        except Exception:
            pass

    def _tx_conn(self) -> Conn | None:
        return getattr(self._local, "conn", None)

    def in_transaction(self) -> bool:
        return self._tx_conn() is not None

    def lock_rows(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> None:
        if ids:
            self._write(
                lambda c: c.execute(
                    "SELECT id FROM memories WHERE tenant = %s AND id = ANY(%s) ORDER BY id FOR UPDATE",
                    (tenant, sorted(set(ids))),
                )
            )

    def _getconn(self) -> Conn:
        try:
            return self._pool.getconn(timeout=self._timeout)
        except PoolTimeout as exc:
            raise StoreError(
                f"no connection to PostgreSQL at {self._safe_url} within {self._timeout:.0f}s: {exc}"
            ) from exc

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._tx_conn() is not None:
            self._local.depth += 1
            try:
                yield
            finally:
                self._local.depth -= 1
            return
        conn = self._begin()
        self._local.conn, self._local.depth = conn, 1
        try:
            try:
                yield
            except BaseException:
                self._rollback(conn)
                raise
            self._commit(conn)
        finally:
            self._local.conn, self._local.depth = None, 0
            self._pool.putconn(conn)

    def _begin(self) -> Conn:
        """A checked pooled connection with BEGIN sent; retried, since nothing has happened yet."""
        last: Exception | None = None
        for attempt in range(self._retries + 1):
            conn = self._getconn()
            try:
                conn.execute("BEGIN")
                return conn
            except psycopg.OperationalError as exc:
                last = exc
                self._pool.putconn(conn)
                self._backoff(attempt)
        raise StoreError(f"cannot start a transaction on {self._safe_url}: {last}")

    def _commit(self, conn: Conn) -> None:
        try:
            conn.execute("COMMIT")
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"the connection to {self._safe_url} failed while committing; the transaction may or may "
                f"not have been applied ({str(exc).strip()})"
            ) from exc
        except psycopg.Error as exc:
            raise self._mapped(exc) from exc

    @staticmethod
    def _rollback(conn: Conn) -> None:
        if conn.closed or conn.broken:
            return  # the server rolls back a transaction whose connection is gone
        try:
            conn.execute("ROLLBACK")
        except psycopg.Error:
            pass

    @staticmethod
    def _backoff(attempt: int) -> None:
        time.sleep(min(0.05 * (2**attempt), 1.0))

    def _mapped(self, exc: psycopg.Error) -> Exception:
        # only the primary message: DETAIL lines can quote a row's content, which must not leak into logs
        message = (exc.diag.message_primary or str(exc)).strip()
        if isinstance(exc, psycopg.errors.DeadlockDetected | psycopg.errors.SerializationFailure):
            # PostgreSQL rolled the whole transaction back: the caller may run it again
            return TransientConflict(
                f"PostgreSQL at {self._safe_url}: {message}; the transaction was rolled back"
            )
        if isinstance(exc, psycopg.DataError | psycopg.IntegrityError):
            return ValidationError(message)
        if isinstance(exc, psycopg.OperationalError):
            return StoreError(f"PostgreSQL at {self._safe_url} failed: {message}")
        return StoreError(f"PostgreSQL error: {message}")

    def _write(self, fn: Callable[[Conn], T]) -> T:
        """Run ``fn`` in a transaction: the caller's, or a new one retried if it fails before COMMIT."""
        conn = self._tx_conn()
        if conn is not None:
            try:
                return fn(conn)
            except psycopg.Error as exc:
                raise self._mapped(exc) from exc
        last: Exception | None = None
        for attempt in range(self._retries + 1):
            conn = self._begin()
            try:
                try:
                    result = fn(conn)
                except psycopg.OperationalError as exc:
                    # the transaction never committed, so running it again cannot apply it twice
                    last = exc
                    self._rollback(conn)
                    self._backoff(attempt)
                    continue
                except psycopg.Error as exc:
                    self._rollback(conn)
                    raise self._mapped(exc) from exc
                except BaseException:
                    self._rollback(conn)
                    raise
                self._commit(conn)
                return result
            finally:
                self._pool.putconn(conn)
        raise StoreError(f"PostgreSQL at {self._safe_url} kept failing: {last}")

    def _read(
        self, query: str | sql.Composed, params: Sequence[Any] = (), *, binary: bool = False
    ) -> list[Any]:
        conn = self._tx_conn()
        if conn is not None:
            try:
                return conn.cursor(binary=binary).execute(query, params).fetchall()
            except psycopg.Error as exc:
                raise self._mapped(exc) from exc
        last: Exception | None = None
        for attempt in range(self._retries + 1):
            conn = self._getconn()
            try:
                return conn.cursor(binary=binary).execute(query, params).fetchall()
            except psycopg.OperationalError as exc:
                last = exc
                self._backoff(attempt)
            except psycopg.Error as exc:
                raise self._mapped(exc) from exc
            finally:
                self._pool.putconn(conn)
        raise StoreError(f"PostgreSQL at {self._safe_url} kept failing: {last}")

    def schema_version(self) -> int:
        return int(self._read("SELECT MAX(version) FROM schema_migrations")[0][0])

    def get_meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM remnant_meta WHERE key = %s", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._write(
            lambda c: c.execute(
                "INSERT INTO remnant_meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        )

    def meta(self) -> dict[str, str]:
        """Every meta key and value (for export)."""
        return {r[0]: r[1] for r in self._read("SELECT key, value FROM remnant_meta ORDER BY key")}

    # -- memories --------------------------------------------------------------------------------
    def insert(self, record: MemoryRecord, *, index_text: str | None = None) -> None:
        text = index_text if index_text is not None else default_index_text(record.content)
        row = record_to_row(record, text)
        self._write(lambda c: c.execute(_INSERT, row))

    def insert_many(self, items: Sequence[tuple[MemoryRecord, str | None]]) -> None:
        """Insert many memories in one transaction (pipelined); used by import and bulk loads."""
        rows = [
            record_to_row(r, text if text is not None else default_index_text(r.content)) for r, text in items
        ]
        if rows:
            self._write(lambda c: c.cursor().executemany(_INSERT, rows))

    def update(self, record: MemoryRecord) -> None:
        sets = ", ".join(f"{c} = %s" for c in _COLUMNS[1:])
        row = record_to_row(record, "")[1:-1]

        def run(c: Conn) -> None:
            # user_id in the key keeps this a single-shard statement when distributed by user
            cur = c.execute(
                f"UPDATE memories SET {sets} WHERE id = %s AND tenant = %s AND user_id = %s",
                (*row, record.id, record.tenant, record.user_id),
            )
            if cur.rowcount == 0:
                raise NotFoundError(f"no memory {record.id}")

        self._write(run)

    def get(self, memory_id: str, *, tenant: str = DEFAULT_TENANT) -> MemoryRecord | None:
        rows = self._read(
            f"SELECT {_SELECT} FROM memories m WHERE m.id = %s AND m.tenant = %s", (memory_id, tenant)
        )
        return row_to_record(rows[0]) if rows else None

    def get_many(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> list[MemoryRecord]:
        if not ids:
            return []
        rows = self._read(
            f"SELECT {_SELECT} FROM memories m WHERE m.tenant = %s AND m.id = ANY(%s)", (tenant, list(ids))
        )
        out = {r[0]: row_to_record(r) for r in rows}
        return [out[i] for i in ids if i in out]

    def query(
        self, flt: MemoryFilter, *, order: Order = "created_at", limit: int | None = None, offset: int = 0
    ) -> list[MemoryRecord]:
        where, params = where_clause(flt)
        q = f"SELECT {_SELECT} FROM memories m WHERE {where} ORDER BY {_ORDERS[order]}"
        if limit is not None:
            q += " LIMIT %s OFFSET %s"
            params += [limit, offset]
        elif offset:
            q += " OFFSET %s"
            params.append(offset)
        return [row_to_record(r) for r in self._read(q, params)]

    def count(self, flt: MemoryFilter) -> int:
        where, params = where_clause(flt)
        return int(self._read(f"SELECT COUNT(*) FROM memories m WHERE {where}", params)[0][0])

    def ids(self, flt: MemoryFilter, *, limit: int | None = None) -> list[str]:
        where, params = where_clause(flt)
        q = f"SELECT m.id FROM memories m WHERE {where} ORDER BY m.rid"
        if limit is not None:
            q += " LIMIT %s"
            params.append(limit)
        return [r[0] for r in self._read(q, params)]

    def set_status(
        self,
        flt: MemoryFilter,
        status: Status,
        *,
        reason: str,
        at: float,
        superseded_by: str | None = None,
        close_validity: bool = False,
    ) -> list[tuple[str, str]]:
        where, params = where_clause(flt)
        validity = ", valid_to = LEAST(m.valid_to, %s)" if close_validity else ""
        # One statement: a concurrent sweep that changed a row first makes this one skip it
        # (PostgreSQL re-checks ``status <> target`` on the newest row version after the lock wait).
        q = (
            "WITH changed AS ("
            f"UPDATE memories m SET status = %s, status_reason = %s, status_changed_at = %s, "
            f"superseded_by = COALESCE(%s, m.superseded_by){validity} "
            f"WHERE {where} AND m.status <> %s RETURNING m.rid, m.id, m.user_id"
            ") SELECT id, user_id FROM changed ORDER BY rid"
        )
        args: list[Any] = [status.value, reason, at, superseded_by]
        if close_validity:
            args.append(at)
        args += [*params, status.value]
        # Superseding by key: two writers of the same (user, key) at once must not both leave their
        # new memory active. A transaction lock per key makes the second wait until the first has
        # committed its new memory; its UPDATE then starts with a snapshot that includes it.
        # (SQLite gets this for free: BEGIN IMMEDIATE serialises whole write transactions.)
        locks = (
            sorted(_lock_id("supersede", flt.tenant, flt.user_id, k) for k in flt.keys)
            if status == Status.SUPERSEDED and flt.keys and flt.user_id is not None
            else []
        )

        def run(c: Conn) -> list[tuple[str, str]]:
            for lock in locks:
                c.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
            return [(r[0], r[1]) for r in c.execute(q, args).fetchall()]

        return self._write(run)

    def touch(self, ids: Sequence[str], *, at: float, tenant: str = DEFAULT_TENANT) -> None:
        if not ids:
            return
        self._write(
            lambda c: c.execute(
                "UPDATE memories SET last_accessed_at = %s, access_count = access_count + 1 "
                "WHERE tenant = %s AND id = ANY(%s)",
                (at, tenant, list(ids)),
            )
        )

    def delete(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> int:
        if not ids:
            return 0
        # embeddings go with their memory (ON DELETE CASCADE); the tsvector and trigram entries are
        # part of the row
        return self._write(
            lambda c: (
                c.execute(
                    "DELETE FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, list(ids))
                ).rowcount
            )
        )

    def index_texts(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> dict[str, str]:
        """The lexical index text of each memory (for export)."""
        rows = self._read(
            "SELECT id, index_text FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, list(ids))
        )
        return {r[0]: r[1] for r in rows}

    def lexical_search(self, match: str, flt: MemoryFilter, *, limit: int = 50) -> list[tuple[str, float]]:
        """Full-text search over the ``'english'`` tsvector (stems, like SQLite's porter), ranked by ``ts_rank``.

        ``match`` is the FTS5-style ``"a" OR "b"`` expression the engine builds; its terms are OR-ed.
        When that finds fewer than ``limit`` rows, a trigram-indexed substring match (terms of 3+
        characters) fills up the rest below every full-text hit, so parts of words, stopwords and
        Chinese runs without bigram boundaries still match.
        """
        terms = match_terms(match)
        if not terms:
            raise ValidationError(f"bad full-text query {match!r}: no terms")
        where, params = where_clause(flt)
        tsq = _tsquery_text([t.lower() for t in terms[:64]])
        q = (
            f"SELECT m.id, ts_rank(m.tsv, q.query, 1) AS score FROM memories m, "
            f"(SELECT to_tsquery('english', %s) AS query) q "
            f"WHERE m.tsv @@ q.query AND {where} ORDER BY score DESC, m.rid ASC LIMIT %s"
        )
        hits = [(r[0], float(r[1])) for r in self._read(q, [tsq, *params, limit])]
        if len(hits) >= limit:
            return hits
        # shorter patterns cannot use the trigram index and would scan every row
        patterns = [
            "%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            for t in terms[:64]
            if len(t) >= 3
        ]
        if not patterns:
            return hits
        seen = [h[0] for h in hits]
        floor = min((h[1] for h in hits), default=1.0)
        q2 = (
            f"SELECT m.id, word_similarity(%s, m.index_text) AS sim FROM memories m "
            f"WHERE m.index_text ILIKE ANY(%s) AND NOT (m.id = ANY(%s)) AND {where} "
            f"ORDER BY sim DESC, m.rid ASC LIMIT %s"
        )
        extra = self._read(q2, [" ".join(terms[:64]), patterns, seen, *params, limit - len(hits)])
        # substring hits rank below every full-text hit
        return hits + [(r[0], floor * 0.5 * (0.5 + 0.5 * float(r[1]))) for r in extra]

    # -- embeddings ------------------------------------------------------------------------------
    def put_embeddings(
        self, items: Sequence[tuple[str, str, np.ndarray]], *, tenant: str = DEFAULT_TENANT
    ) -> None:
        if not items:
            return
        prepared = [
            (memory_id, model, np.asarray(vector, dtype=np.float32).ravel())
            for memory_id, model, vector in items
        ]
        shapes = {(model, vec.size) for _, model, vec in prepared}

        def run(c: Conn) -> None:
            ids = list(dict.fromkeys(p[0] for p in prepared))
            owners = dict(
                c.execute(
                    "SELECT id, user_id FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, ids)
                ).fetchall()
            )
            missing = [i for i in ids if i not in owners]
            if missing:
                raise NotFoundError(f"no memory {missing[0]}")
            c.cursor().executemany(
                "INSERT INTO embeddings (memory_id, tenant, user_id, model, dim, embedding) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (memory_id) DO UPDATE SET "
                "model = excluded.model, dim = excluded.dim, embedding = excluded.embedding",
                [(mid, tenant, owners[mid], model, vec.size, vec) for mid, model, vec in prepared],
            )

        self._write(run)
        if self._deferred is not None:
            self._deferred |= shapes
            return
        for model, dim in shapes:
            self._ensure_hnsw(model, dim)

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Defer HNSW index creation to the end of a bulk load: building once is ~10x faster than
        inserting every vector into the graph (20k x 384: 17 s against 225 s on 2 cores)."""
        if self._deferred is not None:
            yield
            return
        self._deferred = set()
        try:
            yield
            # fresh statistics first: without them the planner may walk the HNSW graph for a filter
            # that an exact scan of a few rows answers (a user with 5 vectors: 168 ms instead of 1 ms)
            self._write(lambda c: c.execute("ANALYZE memories, embeddings"))
            for model, dim in sorted(self._deferred):
                self._ensure_hnsw(model, dim)
        finally:
            self._deferred = None

    def _ensure_hnsw(self, model: str, dim: int) -> None:
        """A partial HNSW (cosine) index for one (model, dim), made once; pgvector needs a fixed dim."""
        name = _hnsw_index_name(model, dim)
        if name in self._hnsw_ready or dim > 2000:  # pgvector's HNSW indexes vectors up to 2000 dims
            return

        def run(c: Conn) -> None:
            row = c.execute("SELECT to_regclass(%s)", (name,)).fetchone()
            if row is not None and row[0] is not None:
                return
            c.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_HNSW_LOCK,))
            # the graph must fit in maintenance_work_mem or the build crawls on disk: raise a small
            # default to 256 MB, but never lower what the server or the URL's options already allow
            # (1M x 64-d vectors need about 700 MB)
            row = c.execute("SELECT pg_size_bytes(current_setting('maintenance_work_mem'))").fetchone()
            if row is None or int(row[0]) < 256 * 1024 * 1024:
                c.execute("SET LOCAL maintenance_work_mem = '256MB'")
            c.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {name} ON embeddings USING hnsw "
                    "((embedding::vector({dim})) vector_cosine_ops) WHERE model = {model} AND dim = {dim}"
                ).format(name=sql.Identifier(name), dim=sql.Literal(dim), model=sql.Literal(model))
            )

        self._write(run)
        if self._tx_conn() is None:  # inside a transaction it could still roll back
            self._hnsw_ready.add(name)

    def embeddings(self, flt: MemoryFilter, *, model: str) -> tuple[list[str], np.ndarray]:
        where, params = where_clause(flt)
        rows = self._read(
            f"SELECT m.id, e.embedding FROM embeddings e JOIN memories m ON m.id = e.memory_id AND m.user_id = e.user_id "
            f"WHERE e.tenant = %s AND e.model = %s AND {where} ORDER BY m.rid",
            (flt.tenant, model, *params),
            binary=True,
        )
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.vstack([r[1].to_numpy() for r in rows]).astype(np.float32, copy=False)
        return [r[0] for r in rows], matrix

    def vector_search(
        self, query_vec: np.ndarray, flt: MemoryFilter, *, model: str, limit: int = 50
    ) -> list[tuple[str, float]]:
        """Nearest memories by cosine similarity: (id, score), best first.

        Across a tenant this walks the HNSW index (``ORDER BY embedding <=> q``), the filter applied
        during the scan (pgvector's iterative scan reads on until ``limit`` rows pass it). Within one
        user holding at most ``exact_below`` vectors it scores that user's vectors exactly instead.
        """
        vec = np.asarray(query_vec, dtype=np.float32).ravel()
        dim = int(vec.size)
        where, params = where_clause(flt)
        scope = sql.SQL("")
        scope_args: list[Any] = []
        exact = False
        if flt.user_id is not None:
            # one user's vectors are few: scoring them all is exact and faster than walking the graph
            # until enough of that user's rows turn up (100 rows of 100k: 1.5 ms against 21 ms)
            scope, scope_args = sql.SQL("AND e.user_id = %s "), [flt.user_id]
            # counting stops past the threshold: a user with a million vectors costs no more to
            # classify than one with exact_below (a full COUNT would grow with the user)
            rows = self._read(
                "SELECT COUNT(*) FROM (SELECT 1 FROM embeddings WHERE tenant = %s AND user_id = %s "
                "AND model = %s LIMIT %s) few",
                (flt.tenant, flt.user_id, model, self.exact_below + 1),
            )
            exact = int(rows[0][0]) <= self.exact_below
        dist = sql.SQL("(e.embedding::vector({dim}) <=> %s::vector({dim}))").format(dim=sql.Literal(dim))
        # "+ 0" hides the expression from the HNSW index, so the planner sorts the few rows exactly
        order = sql.SQL("({dist} + 0)").format(dist=dist) if exact else dist
        q = sql.SQL(
            "SELECT m.id, {dist} AS distance FROM embeddings e JOIN memories m ON m.id = e.memory_id AND m.user_id = e.user_id "
            "WHERE e.model = {model} AND e.dim = {dim} AND e.tenant = %s {scope}AND {where} "
            "ORDER BY {order} LIMIT %s"
        ).format(
            dist=dist,
            model=sql.Literal(model),
            dim=sql.Literal(dim),
            scope=scope,
            where=sql.SQL(where),  # type: ignore[arg-type]
            order=order,
        )
        args = [vec, flt.tenant, *scope_args, *params, vec, limit]
        ef = max(self.ef_search, min(1000, 2 * limit))

        def run(c: Conn) -> list[Any]:
            settings = sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef))
            if self._iterative_scan:
                settings = settings + sql.SQL("; SET LOCAL hnsw.iterative_scan = 'relaxed_order'")
            c.execute(settings)  # one round trip for both settings
            return c.execute(q, args).fetchall()

        if exact:
            rows = self._read(q, args)
        elif self._tx_conn() is None:
            rows = self._write(run)  # SET LOCAL needs a transaction of its own
        else:
            rows = run(self._tx_conn())  # type: ignore[arg-type]
        hits = [(r[0], 1.0 - float(r[1])) for r in rows if r[1] is not None and not math.isnan(r[1])]
        hits.sort(key=lambda h: -h[1])  # relaxed order: re-sort the few rows exactly
        return hits

    def embedding_count(self, tenant: str, model: str) -> int:
        """How many vectors ``model`` has in ``tenant`` (for export)."""
        rows = self._read("SELECT COUNT(*) FROM embeddings WHERE tenant = %s AND model = %s", (tenant, model))
        return int(rows[0][0])

    def unembedded_ids(self, flt: MemoryFilter, *, model: str, limit: int | None = None) -> list[str]:
        where, params = where_clause(flt)
        q = (
            f"SELECT m.id FROM memories m WHERE {where} AND NOT EXISTS "
            "(SELECT 1 FROM embeddings e WHERE e.memory_id = m.id AND e.model = %s) ORDER BY m.rid"
        )
        params.append(model)
        if limit is not None:
            q += " LIMIT %s"
            params.append(limit)
        return [r[0] for r in self._read(q, params)]

    def embedding_models(self, *, tenant: str = DEFAULT_TENANT) -> list[str]:
        return [
            r[0]
            for r in self._read(
                "SELECT DISTINCT model FROM embeddings WHERE tenant = %s ORDER BY model", (tenant,)
            )
        ]

    # -- audit -----------------------------------------------------------------------------------
    def append_audit(self, draft: AuditDraft) -> AuditEntry:
        at = draft.at.timestamp()
        memory_ids = json.dumps(list(draft.memory_ids))
        details = json.dumps(draft.details, sort_keys=True, default=str)

        def run(c: Conn) -> tuple[int, str, str]:
            # the chain of a tenant grows one link at a time, whichever process writes
            c.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (draft.tenant,))
            row = c.execute(
                "SELECT hash FROM audit_log WHERE tenant = %s ORDER BY seq DESC LIMIT 1", (draft.tenant,)
            ).fetchone()
            prev = row[0] if row else GENESIS
            digest = entry_hash(prev, draft, at)
            seq_row = c.execute(
                "INSERT INTO audit_log (tenant, at, actor, action, reason, user_id, policy, batch_id, "
                "memory_ids, summary, details, prev_hash, hash) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq",
                (
                    draft.tenant,
                    at,
                    draft.actor,
                    draft.action,
                    draft.reason,
                    draft.user_id,
                    draft.policy,
                    draft.batch_id,
                    memory_ids,
                    draft.summary,
                    details,
                    prev,
                    digest,
                ),
            ).fetchone()
            assert seq_row is not None
            return int(seq_row[0]), prev, digest

        seq, prev, digest = self._write(run)
        return AuditEntry(
            seq,
            draft.tenant,
            from_epoch(at) or draft.at,
            draft.actor,
            draft.action,
            draft.reason,
            draft.user_id,
            draft.policy,
            draft.batch_id,
            tuple(draft.memory_ids),
            draft.summary,
            dict(draft.details),
            prev,
            digest,
        )

    def import_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Insert audit entries verbatim (seq, hashes and all), for import into an empty store."""
        if not entries:
            return
        rows = [audit_entry_row(e) for e in entries]

        def run(c: Conn) -> None:
            c.cursor().executemany(
                f"INSERT INTO audit_log ({_AUDIT_COLUMNS}) VALUES ({', '.join(['%s'] * 14)})", rows
            )
            # later appends continue after the imported sequence numbers
            c.execute(
                "SELECT setval(pg_get_serial_sequence('audit_log', 'seq'), "
                "GREATEST((SELECT MAX(seq) FROM audit_log), 1))"
            )

        self._write(run)

    def audit_entries(
        self,
        *,
        tenant: str = DEFAULT_TENANT,
        user_id: str | None = None,
        since_seq: int = 0,
        limit: int | None = None,
        action: str | None = None,
    ) -> list[AuditEntry]:
        q = f"SELECT {_AUDIT_COLUMNS} FROM audit_log WHERE tenant = %s AND seq > %s"
        params: list[Any] = [tenant, since_seq]
        if user_id is not None:
            q += " AND user_id = %s"
            params.append(user_id)
        if action is not None:
            q += " AND action = %s"
            params.append(action)
        q += " ORDER BY seq"
        if limit is not None:
            q += " LIMIT %s"
            params.append(limit)
        return [
            AuditEntry(
                int(r[0]),
                r[1],
                from_epoch(r[2]) or from_epoch(0.0),  # type: ignore[arg-type]
                r[3],
                r[4],
                r[5],
                r[6],
                r[7],
                r[8],
                tuple(json.loads(r[9])),
                r[10],
                json.loads(r[11]),
                r[12],
                r[13],
            )
            for r in self._read(q, params)
        ]

    # -- importance (eviction), in one statement: the score from filter_sql.importance_sql --------
    def low_importance(
        self, flt: MemoryFilter, *, now: float, decay_per_day: float, mark_weight: float, below: float
    ) -> list[tuple[str, str, float]]:
        where, params = where_clause(flt)
        q = (
            f"SELECT id, user_id, score FROM (SELECT m.id, m.user_id, {_SCORE_SQL} AS score "
            f"FROM memories m WHERE {where} AND NOT m.pinned) s WHERE score < %s"
        )
        rows = self._read(q, [*importance_params(now, decay_per_day, mark_weight), *params, below])
        return [(r[0], r[1], float(r[2])) for r in rows]

    def over_capacity(
        self, flt: MemoryFilter, *, now: float, decay_per_day: float, mark_weight: float, keep: int
    ) -> list[tuple[str, str, float]]:
        where, params = where_clause(flt)
        # pinned rows rank first (as if their score were +inf) and are never returned; only users
        # over the limit are ranked, so a sweep where nobody is over capacity stays one grouped pass
        q = (
            "SELECT id, user_id, score FROM (SELECT id, user_id, pinned, score, ROW_NUMBER() OVER "
            "(PARTITION BY user_id ORDER BY pinned DESC, score DESC, created_at DESC) AS rank FROM "
            f"(SELECT m.id, m.user_id, m.pinned, m.created_at, {_SCORE_SQL} AS score "
            f"FROM memories m WHERE {where} AND m.user_id IN (SELECT m.user_id FROM memories m "
            f"WHERE {where} GROUP BY m.user_id HAVING COUNT(*) > %s)) s) r WHERE rank > %s AND NOT pinned"
        )
        sp = importance_params(now, decay_per_day, mark_weight)
        rows = self._read(q, [*sp, *params, *params, keep, keep])
        return [(r[0], r[1], float(r[2])) for r in rows]

    # -- activity --------------------------------------------------------------------------------
    def mark_active(self, tenant: str, user_id: str, day: date) -> None:
        self._write(
            lambda c: c.execute(
                "INSERT INTO activity (tenant, user_id, day) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                (tenant, user_id, day),
            )
        )

    def active_day_count(self, tenant: str, user_id: str, until: date) -> int:
        return int(
            self._read(
                "SELECT COUNT(*) FROM activity WHERE tenant = %s AND user_id = %s AND day <= %s",
                (tenant, user_id, until),
            )[0][0]
        )

    def forget_activity(self, tenant: str, user_id: str) -> int:
        return self._write(
            lambda c: int(
                c.execute(
                    "DELETE FROM activity WHERE tenant = %s AND user_id = %s", (tenant, user_id)
                ).rowcount
            )
        )

    def activity(self, tenant: str) -> list[tuple[str, date]]:
        """Every (user_id, day) a user of ``tenant`` was active (for export)."""
        rows = self._read(
            "SELECT user_id, day FROM activity WHERE tenant = %s ORDER BY user_id, day", (tenant,)
        )
        return [(r[0], r[1]) for r in rows]

    def tenants(self) -> list[str]:
        """Every tenant with memories, audit entries or activity (for export)."""
        rows = self._read(
            "SELECT tenant FROM memories UNION SELECT tenant FROM audit_log "
            "UNION SELECT tenant FROM activity ORDER BY 1"
        )
        return [r[0] for r in rows]

    def vault_storage(self) -> PgVaultStorage:
        """Storage for the privacy vault in this database (see :mod:`remnant.store.pg_vault`)."""
        from remnant.store.pg_vault import PgVaultStorage

        return PgVaultStorage(self)

    # -- overview and maintenance ----------------------------------------------------------------
    def users(self, *, tenant: str = DEFAULT_TENANT, limit: int = 1000) -> list[UserSummary]:
        rows = self._read(
            "SELECT user_id, COUNT(*), COUNT(*) FILTER (WHERE status = 'active') FROM memories "
            "WHERE tenant = %s GROUP BY user_id ORDER BY user_id LIMIT %s",
            (tenant, limit),
        )
        return [UserSummary(r[0], int(r[1]), int(r[2] or 0)) for r in rows]

    def status_counts(self, flt: MemoryFilter) -> dict[str, int]:
        where, params = where_clause(flt)
        rows = self._read(
            f"SELECT m.status, COUNT(*) FROM memories m WHERE {where} GROUP BY m.status", params
        )
        return {r[0]: int(r[1]) for r in rows}

    def compact(self) -> None:
        """VACUUM the tables that hold memory text and vault ciphertext, so purged rows' space is reused.

        PostgreSQL keeps dead tuples until VACUUM; after it their space is free to be overwritten
        (the bytes are not zeroed: use ``VACUUM FULL`` in a maintenance window to rewrite files).
        """
        if self._tx_conn() is not None:
            return  # VACUUM cannot run inside a transaction; the next autovacuum does it
        conn = self._getconn()
        try:
            for table in ("memories", "embeddings", "vault_entries"):
                if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone() != (None,):
                    conn.execute(sql.SQL("VACUUM {}").format(sql.Identifier(table)))
        except psycopg.Error as exc:
            raise self._mapped(exc) from exc
        finally:
            self._pool.putconn(conn)
