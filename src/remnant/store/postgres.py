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
of a caller's :meth:`PostgresStore.transaction` rolls the whole block back on the server. Every
driver error leaves as Remnant's (:meth:`PostgresStore._mapped`): deadlocks and serialization
failures as :class:`~remnant.core.errors.TransientConflict`, constraint violations as
``ValidationError``, the rest as ``StoreError``.

The queries shared with SQLite are in :mod:`remnant.store.sql`; this module holds the pool and
its retries, the tsvector/trigram search, pgvector and its HNSW indexes, and maintenance.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from remnant.core.audit import GENESIS, AuditDraft, AuditHead, entry_hash, entry_mac
from remnant.core.errors import (
    NotFoundError,
    SchemaTooNewError,
    StoreError,
    TransientConflict,
    ValidationError,
)
from remnant.core.extras import needs
from remnant.core.model import DEFAULT_TENANT, MemoryRecord, Status
from remnant.core.settings import read as read_setting
from remnant.store.base import MemoryFilter, row_to_record
from remnant.store.filter_sql import PostgresDialect
from remnant.store.migrations import MEMORIES, migrate
from remnant.store.sql import (
    AUDIT_COLUMNS,
    AUDIT_HEAD_UPSERT,
    COLUMNS,
    SELECT,
    SQLStore,
    audit_row,
    rarest_terms,
)

with needs("the PostgreSQL store", "pg"):
    import psycopg
    from psycopg import sql
    from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

T = TypeVar("T")
Conn = psycopg.Connection[Any]


def synchronous_commit_setting(value: str | None = None) -> str | None:
    """The ``synchronous_commit`` this store's sessions set: ``value``, else
    ``REMNANT_PG_SYNCHRONOUS_COMMIT``; ``None`` (unset) leaves the server's own setting.

    ``off`` is the durability SQLite's WAL with ``synchronous = NORMAL`` gives: a commit returns
    before its WAL is flushed, so a crash of the server (or the machine) can lose the commits of the
    last ~3 x ``wal_writer_delay``; it never corrupts the database or applies half a transaction.
    """
    chosen = read_setting("REMNANT_PG_SYNCHRONOUS_COMMIT") if value is None else value
    if chosen is None:
        return None
    chosen = chosen.strip().lower()
    if chosen not in SYNCHRONOUS_COMMIT_VALUES:
        raise ValidationError(
            f"REMNANT_PG_SYNCHRONOUS_COMMIT must be one of {', '.join(SYNCHRONOUS_COMMIT_VALUES)}, "
            f"not {chosen!r} (unset: the server's own setting)"
        )
    return chosen


_INSERT = (
    f"INSERT INTO memories ({', '.join(COLUMNS)}, index_text, digest) "
    f"VALUES ({', '.join(['%s'] * (len(COLUMNS) + 2))})"
)


def _term_counts_sql(where: str) -> str:
    """Each term's rows in the scope, up to a limit, as one array in term order: one correlated
    subquery over the terms (parameters: the scope's, the limit, the terms' tsquery texts). It was
    one scalar subquery per term, and planning those (10 terms: 5-18 ms, each a choice among the
    table's indexes) cost the server more than running them (about 1 ms)."""
    return (
        "ARRAY(SELECT (SELECT count(*) FROM (SELECT 1 FROM memories m WHERE m.tsv @@ "
        f"to_tsquery('english', t.w) AND {where} LIMIT %s) c) "
        "FROM unnest(%s::text[]) WITH ORDINALITY t(w, i) ORDER BY t.i)"
    )


_QUOTED_TERM = re.compile(r'"((?:[^"]|"")*)"(\*?)')  # a trailing * marks a prefix term
#: bounded lexical searches between two reads of the tsvector column's statistics
LEXEME_STATS_EVERY = 1024
_HNSW_LOCK = "remnant-hnsw-index"
#: a pooled connection idle longer than this is checked (one round trip) before use; a fresher one
#: is used as it is, and if it turns out dead the retry checks the whole pool first
CHECK_AFTER_IDLE_S = 5.0
#: the most a GIN index's pending list holds in this store's sessions (see PostgresStore._configure_session)
GIN_PENDING_LIMIT = "256kB"
#: the values REMNANT_PG_SYNCHRONOUS_COMMIT accepts (see synchronous_commit_setting)
SYNCHRONOUS_COMMIT_VALUES = ("on", "off")
#: vector searches between two counts of a user's vectors (the exact-or-HNSW choice), at most
SCOPE_SIZE_EVERY = 256


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


def match_terms(match: str) -> list[tuple[str, bool]]:
    """The terms of a lexical query with their prefix flag: the quoted terms of an FTS5
    ``"a" OR "b"*`` expression (a lone CJK character is a prefix term), else words."""
    quoted = [(t.replace('""', '"'), star == "*") for t, star in _QUOTED_TERM.findall(match)]
    if not quoted:
        words = [w for w in re.split(r"\s+", match) if w and w.upper() not in {"OR", "AND", "NOT", "NEAR"}]
        quoted = [(w, False) for w in words]
    return [(t.strip(), prefix) for t, prefix in quoted if t.strip()]


def _tsquery_text(terms: Sequence[tuple[str, bool]]) -> str:
    """``'a' | 'b':*``: every term a quoted lexeme, so no user text is parsed as tsquery syntax."""
    return " | ".join(
        "'" + t.replace("\\", "\\\\").replace("'", "''") + "'" + (":*" if prefix else "")
        for t, prefix in terms
    )


def _lock_id(*parts: str) -> int:
    """A signed 64-bit advisory lock id for a tuple of strings (any characters)."""
    digest = hashlib.sha256(json.dumps(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _traced_cursor(callback: Callable[[str, Sequence[Any] | None], object]) -> type[psycopg.Cursor[Any]]:
    """A cursor class that tells ``callback`` each statement (as text) and its parameters first."""

    class Traced(psycopg.Cursor[Any]):
        def execute(self, query: Any, params: Any = None, **kw: Any) -> Any:
            text = query if isinstance(query, str) else query.as_string(self.connection)
            callback(text, params)
            return super().execute(query, params, **kw)

        def executemany(self, query: Any, params_seq: Any, **kw: Any) -> Any:
            rows = list(params_seq)
            text = query if isinstance(query, str) else query.as_string(self.connection)
            for row in rows:
                callback(text, row)
            return super().executemany(query, rows, **kw)

    return Traced


def _hnsw_index_name(model: str, dim: int) -> str:
    return f"ix_embeddings_hnsw_{hashlib.sha1(model.encode()).hexdigest()[:12]}_{dim}"


class PostgresStore(SQLStore):
    """A :class:`Store` in a PostgreSQL database (``postgresql://user:pass@host/db``).

    Needs the ``vector`` (pgvector) and ``pg_trgm`` extensions; they are created on first use when the
    role may do so. Tables go into the first schema of the connection's ``search_path``.
    """

    shared_vector_index = True  # pgvector HNSW: retrievers search here, not in a per-process copy
    dialect = PostgresDialect()
    _EMBEDDING_OF = "e.memory_id = m.id"

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
        exact_below: int = 2_000,
        synchronous_commit: str | None = None,
    ) -> None:
        self.url = url
        self.synchronous_commit = synchronous_commit_setting(synchronous_commit)
        self._safe_url = redact_url(url)
        self._timeout = timeout
        self._retries = retries
        self._local = threading.local()
        self._hnsw_ready: set[str] = set()
        self._deferred: set[tuple[str, int]] | None = None
        self.ef_search = ef_search
        self.exact_below = exact_below
        # the planner's statistics of the tsvector column (lexeme -> share of rows, and the row
        # count), re-read every LEXEME_STATS_EVERY bounded searches (see _globally_common)
        self._lexeme_stats: tuple[dict[str, float], float] | None = None
        self._lexeme_reads = 0
        self._stats_lock = threading.Lock()
        self._conn_kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": connect_timeout}
        self._cursor_class: type[psycopg.Cursor[Any]] = psycopg.Cursor  # see set_trace_callback
        # when each pooled connection went back to the pool, and the hnsw settings of its session
        self._returned_at: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()
        self._hnsw_session: weakref.WeakKeyDictionary[Conn, tuple[int, bool]] = weakref.WeakKeyDictionary()
        # (tenant, user, model) -> (exact search?, searches left before the next count)
        self._scope_exact: dict[tuple[str, str, str], tuple[bool, int]] = {}
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
            row = first.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            version = tuple(int(p) for p in re.findall(r"\d+", row[0] if row else "0")[:2])
            self._iterative_scan = version >= (0, 8)  # hnsw.iterative_scan arrived in pgvector 0.8
        except psycopg.Error as exc:
            raise StoreError(f"cannot prepare {self._safe_url}: {self._mapped(exc)}") from exc
        finally:
            first.close()
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs=self._conn_kwargs,
            configure=self._configure_session,
            check=self._check_idle,
            reset=self._stamp_return,
            timeout=timeout,
            name="remnant",
            open=False,
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
        except PoolTimeout as exc:
            self._pool.close()
            raise StoreError(f"cannot fill a connection pool for {self._safe_url}: {exc}") from exc
        try:
            migrate(self, MEMORIES)
        except SchemaTooNewError:
            self._pool.close()
            raise
        except StoreError as exc:
            self._pool.close()
            raise StoreError(f"cannot prepare the schema in {self._safe_url}: {exc}") from exc

    # -- lifecycle -------------------------------------------------------------------------------
    def _configure_session(self, conn: Conn) -> None:
        from pgvector.psycopg import register_vector

        register_vector(conn)
        # New rows' words wait in a GIN index's pending list (up to 4 MB by default) until a vacuum
        # or the inserting session merges them; every search reads the whole list, and the planner,
        # which counts it, turns to a sequential scan of the table: 10k memories just written in
        # one scope, 20-70 ms a lexical statement instead of 1-2 ms. A short list keeps it off.
        settings = f"SET gin_pending_list_limit = '{GIN_PENDING_LIMIT}'"
        if self.synchronous_commit is not None:  # checked against SYNCHRONOUS_COMMIT_VALUES
            settings += f"; SET synchronous_commit = {self.synchronous_commit}"
        conn.execute(settings)  # one round trip, once per pooled connection

    def _check_idle(self, conn: Conn) -> None:
        # the pool's check is a round trip per checkout (5 per recall): only after an idle spell
        returned = self._returned_at.get(conn)
        if returned is None or time.monotonic() - returned > CHECK_AFTER_IDLE_S:
            ConnectionPool.check_connection(conn)

    def _stamp_return(self, conn: Conn) -> None:
        self._returned_at[conn] = time.monotonic()

    def _recover(self, attempt: int) -> None:
        """After a connection failed: check every idle pooled connection (a server restart leaves
        them all dead, and they skip the check while fresh), then back off."""
        try:
            self._pool.check()
        except Exception:
            pass  # the next attempt reports the failure
        self._backoff(attempt)

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

    def locked_rows(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> list[MemoryRecord]:
        if not ids:
            return []
        # locked in id order, as lock_rows does (two writers never deadlock), read in the same
        # statement: each row as it is once its lock is held (READ COMMITTED re-reads a row it waited for)
        rows = self._write(
            lambda c: c.execute(
                f"SELECT {SELECT} FROM memories m WHERE m.tenant = %s AND m.id = ANY(%s) ORDER BY m.id FOR UPDATE",
                (tenant, sorted(set(ids))),
            ).fetchall()
        )
        got = {r.id: r for r in map(row_to_record, rows)}
        return [got[i] for i in dict.fromkeys(ids) if i in got]

    def lock_digests(self, digests: Sequence[str], *, tenant: str, user_id: str) -> None:
        # one transaction lock per (user, digest), taken in a fixed order so two batches never deadlock
        locks = sorted({_lock_id("digest", tenant, user_id, d) for d in digests})
        if locks:
            # one statement, the locks taken in the (sorted) array's order, as unnest reads it (it
            # was a round trip per digest)
            self._write(
                lambda c: c.execute(
                    "SELECT pg_advisory_xact_lock(k) FROM unnest(%s::bigint[]) k",
                    (locks,),
                )
            )

    def set_trace_callback(self, callback: Callable[[str, Sequence[Any] | None], object] | None) -> None:
        """Hand every statement this store's connections run, with its parameters, to ``callback``
        (``None``: stop); for tests that read the plan of each statement a verb runs, as the SQLite
        store's ``set_trace_callback`` does (there the parameters are already in the text)."""
        self._cursor_class = psycopg.Cursor if callback is None else _traced_cursor(callback)

    def set_cursor_class(self, cls: type[psycopg.Cursor[Any]] | None) -> None:
        """The psycopg cursor class this store's connections use from now on (``None``: psycopg's
        own): for a profile that counts or times each round trip (``remnant bench round-trips``)."""
        self._cursor_class = psycopg.Cursor if cls is None else cls

    def _getconn(self) -> Conn:
        try:
            conn = self._pool.getconn(timeout=self._timeout)
            conn.cursor_factory = self._cursor_class
            return conn
        except PoolClosed as exc:
            raise StoreError(f"the store for {self._safe_url} is closed") from exc
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
        self._local.conn, self._local.depth, self._local.hnsw = conn, 1, None
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
                self._recover(attempt)
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

    def _gave_up(self, last: Exception | None) -> Exception:
        if isinstance(last, psycopg.errors.DeadlockDetected | psycopg.errors.SerializationFailure):
            return self._mapped(last)  # still a conflict after the retries: the caller may run it again
        return StoreError(f"PostgreSQL at {self._safe_url} kept failing: {last}")

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
            failed = False
            try:
                try:
                    result = fn(conn)
                except psycopg.OperationalError as exc:
                    # the transaction never committed, so running it again cannot apply it twice
                    last, failed = exc, True
                    self._rollback(conn)
                except psycopg.Error as exc:
                    self._rollback(conn)
                    raise self._mapped(exc) from exc
                except BaseException:
                    self._rollback(conn)
                    raise
                else:
                    self._commit(conn)
                    return result
            finally:
                self._pool.putconn(conn)
            if failed:
                self._recover(attempt)
        raise self._gave_up(last)

    def _read(
        self,
        query: str | sql.Composed,
        params: Sequence[Any] = (),
        *,
        binary: bool = False,
        prepare: bool | None = None,
    ) -> list[Any]:
        return self._reading(
            lambda c: c.cursor(binary=binary).execute(query, params, prepare=prepare).fetchall()
        )

    def _read_text(self, query: str, params: Sequence[Any]) -> list[Any]:
        """A text search, planned for its own terms each time: never a prepared statement, whose
        generic plan (PostgreSQL's choice after five runs of one text) cannot see how common a
        term is. The candidates' ranking ran 3.9 ms of server CPU on its generic plan against
        1.4 ms planned each time (a 2,900-row table), planning included."""
        return self._read(query, params, prepare=False)

    def _reading(self, fn: Callable[[Conn], T]) -> T:
        """Run the read-only ``fn`` in the caller's transaction, else on a pooled connection in
        autocommit (no BEGIN/COMMIT round trips), retried when the connection fails."""
        conn = self._tx_conn()
        if conn is not None:
            try:
                return fn(conn)
            except psycopg.Error as exc:
                raise self._mapped(exc) from exc
        last: Exception | None = None
        for attempt in range(self._retries + 1):
            conn = self._getconn()
            try:
                return fn(conn)
            except psycopg.OperationalError as exc:
                last = exc
            except psycopg.Error as exc:
                raise self._mapped(exc) from exc
            finally:
                self._pool.putconn(conn)
            self._recover(attempt)
        raise self._gave_up(last)

    # -- memories: the tsvector and trigram index live in the row ----------------------------
    def _insert(self, c: Conn, rows: Sequence[tuple[MemoryRecord, str, str | None]]) -> None:
        c.cursor().executemany(_INSERT, [(*self.record_row(r), text, d) for r, text, d in rows])

    def _delete(self, c: Conn, tenant: str, ids: Sequence[str]) -> int:
        # embeddings go with their memory (ON DELETE CASCADE); the index entries are part of the row
        return int(
            c.execute("DELETE FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, list(ids))).rowcount
        )

    def digests_of(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> dict[str, str]:
        if not ids:
            return {}
        rows = self._read(
            "SELECT id, digest FROM memories WHERE tenant = %s AND id = ANY(%s) AND digest IS NOT NULL",
            (tenant, list(dict.fromkeys(ids))),
        )
        return {r[0]: str(r[1]) for r in rows}

    def set_digests(self, items: Sequence[tuple[str, str]], *, tenant: str = DEFAULT_TENANT) -> None:
        if items:  # executemany pipelines the updates: one round trip for the batch
            self._write(
                lambda c: c.cursor().executemany(
                    "UPDATE memories SET digest = %s WHERE id = %s AND tenant = %s",
                    [(d, mid, tenant) for mid, d in items],
                )
            )

    def _lock_keys(self, c: Conn, flt: MemoryFilter, status: Status) -> None:
        # Superseding by key: two writers of the same (user, key) at once must not both leave their
        # new memory active. A transaction lock per key makes the second wait until the first has
        # committed its new memory; its UPDATE then starts with a snapshot that includes it.
        # (SQLite gets this for free: BEGIN IMMEDIATE serialises whole write transactions.)
        if status == Status.SUPERSEDED and flt.keys and flt.user_id is not None:
            for lock in sorted(_lock_id("supersede", flt.tenant, flt.user_id, k) for k in flt.keys):
                c.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))

    def _extend_chain(
        self, c: Conn, draft: AuditDraft, at: float, key: bytes | None
    ) -> tuple[int, str, str, str | None]:
        # three round trips where the shared version takes five. The lock is a statement of its own:
        # a statement's snapshot is taken when it starts, so reads in the statement that waits for
        # the lock could miss the link another writer committed meanwhile (a forked chain). After
        # it, one read gets the tail, the head's start and the entry's seq (the sequence's next value
        # under the lock: seq order stays chain order), and one statement writes entry and head.
        self._lock_audit_chain(c, draft.tenant)
        row = c.execute(
            "SELECT (SELECT hash FROM audit_log WHERE tenant = %s ORDER BY seq DESC LIMIT 1), "
            "(SELECT signed_from FROM audit_heads WHERE tenant = %s), "
            "nextval(pg_get_serial_sequence('audit_log', 'seq'))",
            (draft.tenant, draft.tenant),
        ).fetchone()
        assert row is not None  # a SELECT without FROM returns its one row
        prev = row[0] if row[0] is not None else GENESIS
        seq = int(row[2])
        digest = entry_hash(prev, draft, at)
        mac = entry_mac(key, draft.tenant, digest) if key is not None else None
        entry = f"INSERT INTO audit_log ({AUDIT_COLUMNS}) VALUES ({', '.join(['%s'] * 15)})"
        values = (seq, *audit_row(draft, at, prev, digest), mac)
        if key is None:
            c.execute(entry, values)
            return seq, prev, digest, None
        # the head moves in the same statement (so the same transaction) as the entry it names
        head = AuditHead.sign(key, draft.tenant, seq, digest, int(row[1]) if row[1] is not None else seq)
        c.execute(
            f"WITH entry AS ({entry}) INSERT INTO audit_heads (tenant, seq, hash, signed_from, mac) "
            f"VALUES (%s, %s, %s, %s, %s) {AUDIT_HEAD_UPSERT}",
            (*values, head.tenant, head.seq, head.hash, head.signed_from, head.mac),
        )
        return seq, prev, digest, mac

    def _after_audit_import(self, c: Conn) -> None:
        c.execute(
            "SELECT setval(pg_get_serial_sequence('audit_log', 'seq'), GREATEST((SELECT MAX(seq) FROM audit_log), 1))"
        )

    def index_texts(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> dict[str, str]:
        """The lexical index text of each memory (for export)."""
        rows = self._read(
            "SELECT id, index_text FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, list(ids))
        )
        return {r[0]: r[1] for r in rows}

    def _set_index_text(self, c: Conn, tenant: str, memory_id: str, text: str) -> None:
        # the tsvector is generated from index_text, so it follows
        c.execute(
            "UPDATE memories SET index_text = %s WHERE tenant = %s AND id = %s", (text, tenant, memory_id)
        )

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
        where, params = self.where(flt)
        lowered = [(t.lower(), prefix) for t, prefix in terms[:64]]
        tsq = _tsquery_text(lowered)
        budget = self.lexical_budget
        # a word the statistics put far above the budget: no exact ranking to try first
        known_common = self._globally_common(lowered, 4 * budget)
        unmatched: list[str] | None = None  # the terms with no full-text hit in the scope, if known
        if known_common and len(lowered) >= 2:
            return self._bounded_lexical(lowered, tsq, where, params, limit, known_common)
        if known_common:
            hits = self._exact_lexical(tsq, where, params, limit)
        else:
            n, hits, counts, unmatched = self._guarded_lexical(lowered, tsq, where, params, limit)
            if n > budget:
                if len(lowered) >= 2:  # the terms match more rows than the budget: no substring fill
                    return self._bounded_lexical(lowered, tsq, where, params, limit, set(), counts)
                hits = self._exact_lexical(tsq, where, params, limit)
                unmatched = None
        if len(hits) >= limit:
            return hits
        # shorter patterns cannot use the trigram index and would scan every row
        # (a term that has full-text hits needs none: when fewer than ``limit`` rows matched, every
        # one came back with the terms it holds; before, the fill ran for every term, 10 ms at 2k)
        patterns = [
            "%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            for t, _ in terms[:64]
            if len(t) >= 3 and (unmatched is None or t.lower() in unmatched)
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
        extra = self._read_text(
            q2, [" ".join(t for t, _ in terms[:64]), patterns, seen, *params, limit - len(hits)]
        )
        # substring hits rank below every full-text hit
        return hits + [(r[0], floor * 0.5 * (0.5 + 0.5 * float(r[1]))) for r in extra]

    def lexical_candidates(
        self, match: str, flt: MemoryFilter, *, limit: int = 20
    ) -> list[tuple[str, float]]:
        """Memories sharing words with ``match``, for a check that judges each one (contradictions),
        as SQLite's: the exact ranking while the scope's rows holding a term fit
        ``candidate_budget`` (one statement); beyond it the rows of the rarest terms that fit it,
        ranked by those terms, then the newest rows of the scope holding any term (score 0), in a
        second. No substring fill: a judge gains nothing from parts of words. It was the full
        :meth:`lexical_search` (a 2,000-row budget, up to four statements), 45-100 ms a checked write
        in a 10k scope at load 11, most of a sweep's consolidation."""
        terms = match_terms(match)
        if not terms:
            raise ValidationError(f"bad full-text query {match!r}: no terms")
        where, params = self.where(flt)
        lowered = [(t.lower(), prefix) for t, prefix in terms[:64]]
        tsq = _tsquery_text(lowered)
        budget = self.candidate_budget
        known_common = self._globally_common(lowered, 4 * budget)
        if known_common:
            counts = [budget + 1] * len(lowered)
            todo = [i for i in range(len(lowered)) if i not in known_common]
            if todo:
                texts = [_tsquery_text([lowered[i]]) for i in todo]
                got = self._read_text(f"SELECT {_term_counts_sql(where)}", [*params, budget + 1, texts])[0][0]
                for i, v in zip(todo, got, strict=True):
                    counts[i] = int(v)
        else:
            n, hits, counted, _ = self._guarded_lexical(lowered, tsq, where, params, limit, budget)
            if n <= budget:
                return hits
            counts = list(counted or [n] * len(lowered))
        rare = rarest_terms(lowered, counts, budget)
        ctes = (
            "n AS MATERIALIZED (SELECT m.rid FROM memories m WHERE m.tsv @@ to_tsquery('english', %s) "
            f"AND {where} ORDER BY m.rid DESC LIMIT %s)"
        )
        args = [tsq, *params, limit]
        arms = "SELECT 1 AS arm, rid, 0.0::real AS s, -rid::real AS k FROM n"
        if rare:
            ctes += (
                ", r AS MATERIALIZED (SELECT m.rid, ts_rank(m.tsv, q.query, 1) AS s FROM memories m, "
                "(SELECT to_tsquery('english', %s) AS query) q "
                f"WHERE m.tsv @@ q.query AND {where} ORDER BY s DESC, m.rid ASC LIMIT %s)"
            )
            args += [_tsquery_text(rare), *params, limit]
            arms = "SELECT 0 AS arm, rid, s, -s AS k FROM r UNION ALL " + arms
        rows = self._read_text(
            f"WITH {ctes} SELECT m.id, x.s FROM ({arms}) x JOIN memories m ON m.rid = x.rid "
            "ORDER BY x.arm, x.k",
            args,
        )
        out: dict[str, float] = {}
        for mid, score in rows:
            out.setdefault(mid, float(score))
        return list(out.items())[:limit]

    def _exact_lexical(
        self, tsq: str, where: str, params: Sequence[Any], limit: int
    ) -> list[tuple[str, float]]:
        """``ts_rank`` over every row of the scope that holds a term."""
        q = (
            f"SELECT m.id, ts_rank(m.tsv, q.query, 1) AS score FROM memories m, "
            f"(SELECT to_tsquery('english', %s) AS query) q "
            f"WHERE m.tsv @@ q.query AND {where} ORDER BY score DESC, m.rid ASC LIMIT %s"
        )
        return [(r[0], float(r[1])) for r in self._read_text(q, [tsq, *params, limit])]

    def _guarded_lexical(
        self,
        terms: Sequence[tuple[str, bool]],
        tsq: str,
        where: str,
        params: Sequence[Any],
        limit: int,
        budget: int | None = None,
    ) -> tuple[int, list[tuple[str, float]], list[int] | None, list[str] | None]:
        """The exact ranking when the scope's rows holding a term fit the budget, in one statement
        (it was two, the terms' counts and then the ranking): ``(rows, hits, counts, unmatched)``.

        ``rows`` is how many rows hold a term, up to the budget plus one. Within the budget,
        ``hits`` is the ranking, and ``unmatched`` the terms that no returned row holds (when fewer
        than ``limit`` came back, every matching row did: those terms have no hit at all). Past it,
        ``hits`` is empty and ``counts`` each term's rows up to the budget plus one (a subquery
        that only runs then: PostgreSQL evaluates an InitPlan when its value is first needed).
        ``budget``: :attr:`lexical_budget` unless given."""
        budget = self.lexical_budget if budget is None else budget
        texts = [_tsquery_text([t]) for t in terms]
        count_args: list[Any] = [*params, budget + 1, texts]
        # one term's count is the statement's own (``rows``)
        counts_sql = (
            f"CASE WHEN c.n > %s THEN {_term_counts_sql(where)} END" if len(terms) >= 2 else "NULL::bigint[]"
        )
        holds = ", ".join(["m.tsv @@ to_tsquery('english', %s)"] * len(terms))
        # ``rid = ANY(ARRAY(...))``: probes of the rid index for the few rows, never a merge join
        # along the whole index that ``rid IN (SELECT ...)`` may get
        q = (
            "WITH h AS MATERIALIZED (SELECT m.rid FROM memories m WHERE m.tsv @@ to_tsquery('english', %s) "
            f"AND {where} LIMIT %s), c AS (SELECT count(*) AS n FROM h) "
            f"SELECT c.n, r.id, r.score, r.holds, {counts_sql} "
            "FROM c LEFT JOIN LATERAL (SELECT m.id, m.rid, ts_rank(m.tsv, to_tsquery('english', %s), 1) AS score, "
            # which terms each row holds, only wanted when fewer than ``limit`` rows match (for the
            # substring fill); constant tsqueries, folded once (a per-row to_tsquery of each term
            # was 12 of a 15 ms statement)
            f"CASE WHEN c.n < %s THEN ARRAY[{holds}] "
            "END AS holds FROM memories m "
            "WHERE c.n <= %s AND m.rid = ANY(ARRAY(SELECT rid FROM h)) "
            "ORDER BY score DESC, m.rid ASC LIMIT %s) r ON true ORDER BY r.score DESC NULLS LAST, r.rid ASC"
        )
        args = [tsq, *params, budget + 1, *([budget, *count_args] if len(terms) >= 2 else []), tsq, limit]
        args += [*texts, budget, limit]
        rows = self._read_text(q, args)
        n = int(rows[0][0])
        if n > budget:
            counts = rows[0][4]
            return n, [], [int(v) for v in counts] if counts is not None else [n], None
        hits = [(r[1], float(r[2])) for r in rows if r[1] is not None]
        if len(hits) >= limit:
            return n, hits, None, None
        held = [any(r[3][i] for r in rows if r[1] is not None) for i in range(len(terms))]
        return n, hits, None, [t for (t, _), h in zip(terms, held, strict=True) if not h]

    def _bounded_lexical(
        self,
        terms: Sequence[tuple[str, bool]],
        tsq: str,
        where: str,
        params: Sequence[Any],
        limit: int,
        known_common: set[int],
        counted: Sequence[int] | None = None,
    ) -> list[tuple[str, float]]:
        """``ts_rank`` over a bounded candidate set, for terms that together match more than the
        budget's rows of the scope (``known_common``: positions the statistics put far above it;
        ``counted``: each term's rows, up to the budget, when already counted).

        ``ts_rank`` reads the tsvector of every row it scores, so a common word made a large scope
        slow. Each term's rows in the scope are counted up to the budget (one statement); when they
        exceed it, the rows of the rarest terms that fit are ranked, plus the newest
        ``lexical_window`` rows of the common ones, all by the full query (as SQLite does: see
        :meth:`remnant.store.sqlite.SQLiteStore.lexical_search`).
        """
        budget = self.lexical_budget
        # counting a common term's rows up to the budget visits that many heap rows (~2,000 page
        # reads, 10-30 ms at 1M): a term the statistics put far above the budget counts as common
        counts = list(counted) if counted is not None else [budget + 1] * len(terms)
        todo = [i for i in range(len(terms)) if i not in known_common and counted is None]
        if todo:
            texts = [_tsquery_text([terms[i]]) for i in todo]
            got = self._read_text(f"SELECT {_term_counts_sql(where)}", [*params, budget + 1, texts])[0][0]
            for i, v in zip(todo, got, strict=True):
                counts[i] = int(v)
        rare = rarest_terms(terms, counts, budget)
        common = _tsquery_text([t for t in terms if t not in rare])
        # the newest rows of the common terms and every row of the rare ones, found and ranked in one
        # statement: the window is a walk down the rid index that stops at ``lexical_window`` rows
        # (it was two, a floor rid and then a second walk over the same rows for the ranking)
        ctes = (
            "w AS MATERIALIZED (SELECT m.rid FROM memories m WHERE m.tsv @@ to_tsquery('english', %s) "
            f"AND {where} ORDER BY m.rid DESC LIMIT %s)"
        )
        cte_args: list[Any] = [common, *params, self.lexical_window]
        candidates = "SELECT rid FROM w"
        if rare:
            ctes += (
                ", r AS MATERIALIZED (SELECT m.rid FROM memories m "
                f"WHERE m.tsv @@ to_tsquery('english', %s) AND {where})"
            )
            cte_args += [_tsquery_text(rare), *params]
            candidates += " UNION SELECT rid FROM r"
        q = (
            f"WITH {ctes} SELECT m.id, ts_rank(m.tsv, to_tsquery('english', %s), 1) AS score "
            f"FROM memories m WHERE m.rid IN ({candidates}) ORDER BY score DESC, m.rid ASC LIMIT %s"
        )
        return [(r[0], float(r[1])) for r in self._read_text(q, [*cte_args, tsq, limit])]

    def _globally_common(self, terms: Sequence[tuple[str, bool]], above: int) -> set[int]:
        """Positions of the terms (whole words) that the planner's statistics of ``memories.tsv``
        (``pg_stats.most_common_elems``, kept by ANALYZE/autovacuum) put in more than ``above`` rows
        of the table. Only a word equal to its lexeme is looked up (no stemming here): another is
        counted, as is every word without statistics (a small or new table).

        The figure is for the whole table, not the scope: a word common in the table but rare in a
        user's large scope is then ranked only in that scope's newest rows (a smaller scope's
        newest rows are all of them)."""
        with self._stats_lock:
            self._lexeme_reads += 1
            stats = self._lexeme_stats
            stale = stats is None or self._lexeme_reads % LEXEME_STATS_EVERY == 0
        if stale:
            rows = self._read(
                "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples "
                "FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename "
                "AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = s.schemaname) "
                "WHERE s.schemaname = current_schema() AND s.tablename = 'memories' AND s.attname = 'tsv'"
            )
            stats = ({}, 0.0)
            if rows and rows[0][0] and rows[0][1]:
                stats = (dict(zip(rows[0][0], rows[0][1], strict=False)), float(rows[0][2] or 0.0))
            with self._stats_lock:
                self._lexeme_stats = stats
        assert stats is not None
        freqs, table_rows = stats
        return {
            i
            for i, (word, prefix) in enumerate(terms)
            if not prefix and freqs.get(word, 0.0) * table_rows > above
        }

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

        # the last vector given for a memory wins (one INSERT may not touch a row twice)
        latest = {mid: (mid, model, vec) for mid, model, vec in prepared}

        def run(c: Conn) -> None:
            # the owner comes from the memory row in the same statement (it was a SELECT first); a
            # memory that is not there inserts nothing, and the row count says so
            cur = c.cursor()
            cur.executemany(
                "INSERT INTO embeddings (memory_id, tenant, user_id, model, dim, embedding) "
                "SELECT m.id, m.tenant, m.user_id, %s, %s, %s FROM memories m WHERE m.tenant = %s "
                "AND m.id = %s ON CONFLICT (memory_id) DO UPDATE SET "
                "model = excluded.model, dim = excluded.dim, embedding = excluded.embedding",
                [(model, vec.size, vec, tenant, mid) for mid, model, vec in latest.values()],
            )
            if cur.rowcount < len(latest):
                got = {
                    r[0]
                    for r in c.execute(
                        "SELECT id FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, list(latest))
                    ).fetchall()
                }
                missing = [i for i in latest if i not in got]
                raise NotFoundError(f"no memory {missing[0] if missing else '?'}")

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
            # the text indexes' pending lists merged (a bulk load fills them; searches read them
            # whole) and fresh statistics: without them the planner may walk the HNSW graph for a
            # filter that an exact scan of a few rows answers (a user with 5 vectors: 168 ms
            # instead of 1 ms)
            self._write(
                lambda c: c.execute(
                    "SELECT gin_clean_pending_list(to_regclass('ix_memories_tsv')), "
                    "gin_clean_pending_list(to_regclass('ix_memories_trgm')); ANALYZE memories, embeddings"
                )
            )
            for model, dim in sorted(self._deferred):
                self._ensure_hnsw(model, dim)
        finally:
            self._deferred = None

    def _ensure_hnsw(self, model: str, dim: int) -> None:
        """A partial HNSW (cosine) index for one (model, dim), made once; pgvector needs a fixed dim."""
        name = _hnsw_index_name(model, dim)
        if name in self._hnsw_ready or dim > 2000:  # pgvector's HNSW indexes vectors up to 2000 dims
            return

        def run(c: Conn) -> bool:
            row = c.execute("SELECT to_regclass(%s)", (name,)).fetchone()
            if row is not None and row[0] is not None:
                return True  # there already: no rollback of this transaction can take it away
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
            return False

        existed = self._write(run)
        if existed or self._tx_conn() is None:  # one made inside a transaction could still roll back
            self._hnsw_ready.add(name)

    def embeddings(self, flt: MemoryFilter, *, model: str) -> tuple[list[str], np.ndarray]:
        where, params = self.where(flt)
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

    def _exact_scope(self, tenant: str, user_id: str, model: str) -> bool:
        """Whether one user's ``model`` vectors are few enough (``exact_below``) to score exactly.

        Counting stops past the threshold, so a user with a million vectors costs no more to
        classify than one with ``exact_below``; the answer is kept for :data:`SCOPE_SIZE_EVERY`
        searches of that scope (a scope near the threshold searched either way is still answered
        right: exactly, or by the index with the filter in the scan)."""
        key = (tenant, user_id, model)
        with self._stats_lock:
            known = self._scope_exact.get(key)
            if known is not None and known[1] > 0:
                self._scope_exact[key] = (known[0], known[1] - 1)
                return known[0]
        rows = self._read(
            "SELECT COUNT(*) FROM (SELECT 1 FROM embeddings WHERE tenant = %s AND user_id = %s "
            "AND model = %s LIMIT %s) few",
            (tenant, user_id, model, self.exact_below + 1),
        )
        exact = int(rows[0][0]) <= self.exact_below
        with self._stats_lock:
            if len(self._scope_exact) > 100_000:
                self._scope_exact.clear()  # bounded memory over very many users
            self._scope_exact[key] = (exact, SCOPE_SIZE_EVERY)
        return exact

    def _hnsw_settings(self, c: Conn, wanted: tuple[int, bool]) -> None:
        """pgvector's ``ef_search`` (and iterative scan) for the next statement on ``c``: set once
        per pooled session and changed only when a search wants other values (it was BEGIN, SET
        LOCAL and COMMIT around every search, three round trips); inside a caller's transaction a
        SET LOCAL, which ends with it."""
        local = c is self._tx_conn()
        if (self._local.hnsw if local else self._hnsw_session.get(c)) == wanted:
            return
        ef, iterative = wanted
        scope = sql.SQL("LOCAL" if local else "SESSION")
        settings = sql.SQL("SET {} hnsw.ef_search = {}").format(scope, sql.Literal(ef))
        if iterative:
            settings += sql.SQL("; SET {} hnsw.iterative_scan = 'relaxed_order'").format(scope)
        c.execute(settings)  # one round trip for both settings
        if local:
            self._local.hnsw = wanted  # until the transaction ends
        else:
            self._hnsw_session[c] = wanted

    def vector_search(
        self,
        query_vec: np.ndarray,
        flt: MemoryFilter,
        *,
        model: str,
        limit: int = 50,
        exhaustive: bool = True,
    ) -> list[tuple[str, float]]:
        """Nearest memories by cosine similarity: (id, score), best first. Every search here is
        bounded (``exhaustive`` changes nothing): exact below ``exact_below`` vectors, else HNSW.

        Across a tenant this walks the HNSW index (``ORDER BY embedding <=> q``), the filter applied
        during the scan (pgvector's iterative scan reads on until ``limit`` rows pass it). Within one
        user holding at most ``exact_below`` vectors it scores that user's vectors exactly instead.
        """
        vec = np.asarray(query_vec, dtype=np.float32).ravel()
        dim = int(vec.size)
        where, params = self.where(flt)
        scope = sql.SQL("")
        scope_args: list[Any] = []
        exact = False
        if flt.user_id is not None:
            # one user's vectors are few: scoring them all is exact and faster than walking the graph
            # until enough of that user's rows turn up (100 rows of 100k: 1.5 ms against 21 ms)
            scope, scope_args = sql.SQL("AND e.user_id = %s "), [flt.user_id]
            exact = self._exact_scope(flt.tenant, flt.user_id, model)
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
        wanted = (max(self.ef_search, min(1000, 2 * limit)), self._iterative_scan)

        def run(c: Conn) -> list[Any]:
            if not exact:
                self._hnsw_settings(c, wanted)
            return c.execute(q, args).fetchall()

        rows = self._reading(run)
        hits = [(r[0], 1.0 - float(r[1])) for r in rows if r[1] is not None and not math.isnan(r[1])]
        hits.sort(key=lambda h: -h[1])  # relaxed order: re-sort the few rows exactly
        return hits

    # -- maintenance -------------------------------------------------------------------------------

    def compact(self) -> None:
        """VACUUM the tables that hold memory text (and the entity keys read from it) and vault
        ciphertext, so purged rows' space is reused.

        PostgreSQL keeps dead tuples until VACUUM; after it their space is free to be overwritten
        (the bytes are not zeroed: use ``VACUUM FULL`` in a maintenance window to rewrite files).
        """
        if self._tx_conn() is not None:
            return  # VACUUM cannot run inside a transaction; the next autovacuum does it
        conn = self._getconn()
        try:
            for table in ("memories", "embeddings", "memory_entities", "vault_entries"):
                if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone() != (None,):
                    conn.execute(sql.SQL("VACUUM {}").format(sql.Identifier(table)))
        except psycopg.Error as exc:
            raise self._mapped(exc) from exc
        finally:
            self._pool.putconn(conn)
