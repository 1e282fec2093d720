"""The embedded SQLite store: one file, WAL, foreign keys, busy timeout, numbered migrations.

Several processes may share one file: writes take ``BEGIN IMMEDIATE`` so they queue on SQLite's
lock instead of failing half-way, and every operation is one transaction. ``secure_delete`` is on,
so purged rows are overwritten with zeros in the file; :meth:`SQLiteStore.compact` also merges the
full-text index and truncates the WAL so purged text leaves every byte of the store.

The queries shared with PostgreSQL are in :mod:`remnant.store.sql`; this module holds the
connection, the FTS5 index, the vector blobs and maintenance.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import queue
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from remnant.core.errors import NotFoundError, RemnantError, StoreError, ValidationError
from remnant.core.model import DEFAULT_TENANT, MemoryRecord
from remnant.store.base import MemoryFilter
from remnant.store.filter_sql import SQLiteDialect
from remnant.store.lexical_index import LOG_KEEP, LexicalIndex, best_first
from remnant.store.migrations import MEMORIES, migrate
from remnant.store.sql import COLUMNS, SQLStore, rarest_terms
from remnant.store.vector_file import VectorFiles, unit_rows, vector_files

log = logging.getLogger(__name__)

T = TypeVar("T")

WIDE_SCOPE = 0.9  # a scope with this share of the file's memories is searched without its token
#: lexical searches between two re-reads of the full-text table's size (:meth:`SQLiteStore._fts_size`)
LEXICAL_SIZE_EVERY = 1024
MAX_READERS = 4  # read connections per store (two cores: more would only queue in SQLite)
_PHRASE = re.compile(r'"(?:[^"]|"")*"\*?')


def fts_phrases(match: str) -> list[str]:
    """The quoted phrases of an ``"a" OR "b"*`` expression as the engine builds it ([] otherwise: the
    expression is then run as it is)."""
    found = _PHRASE.findall(match)
    rest = _PHRASE.sub(" ", match).replace(" OR ", " ").strip()
    return list(dict.fromkeys(found)) if found and not rest else []


def sqlite_error(exc: sqlite3.Error, where: str) -> RemnantError:
    """A sqlite3 exception as Remnant's error (what the store raises instead)."""
    msg = str(exc)
    if isinstance(exc, sqlite3.IntegrityError):
        return ValidationError(f"rejected by {where}: {msg}")
    if "not a database" in msg or "malformed" in msg or "file is encrypted" in msg:
        return StoreError(
            f"{where} is not a Remnant database or is corrupt ({msg}); "
            "restore it from a backup or choose another --db"
        )
    if "locked" in msg or "busy" in msg:
        return StoreError(f"{where} is locked by another process ({msg})")
    return StoreError(f"SQLite error in {where}: {msg}")


class SQLiteStore(SQLStore):
    """A :class:`Store` in one SQLite file (or ``:memory:`` for throwaway use)."""

    dialect = SQLiteDialect()
    #: From this many rows in the full-text table on, the bounded lexical candidates are scored in
    #: SQL (:func:`_own_scoring`) instead of by FTS5's ``bm25()``, whose IDF pass reads every row of
    #: the table holding a query word or the scope's token; below it, ``bm25()`` as always.
    own_scoring_above: int = 200_000
    #: From this many rows in the full-text table on, a lexical search is answered by the keyword
    #: index kept in memory beside the file (:mod:`remnant.store.lexical_index`: the same BM25
    #: scores as ``bm25()``, without its walk over every row holding a term); below it FTS5 is as
    #: fast. The index is built on a thread of its own (``keyword_index_background``) at the first
    #: search that could use it; FTS5 answers until it is ready.
    keyword_index_from: int = 5_000
    keyword_index_background: bool = True

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self.url = f"sqlite:///{path}"
        self._name = str(path)
        self._lock = threading.RLock()
        self._probes = threading.local()  # a batch's probe scores (:meth:`probing`)
        self._depth = 0
        self._owner: int | None = None  # the thread inside the open transaction
        self._exclusive_owner: int | None = None  # the thread inside exclusive()
        self._timeout = timeout
        # reads outside a transaction use a small pool of their own connections (file databases only):
        # in WAL mode they see the last commit and never wait for another thread's write transaction
        self._readers: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._reader_count = 0
        self._max_readers = MAX_READERS if self.path is not None else 0
        self._pool_lock = threading.Lock()
        self._trace: Callable[[str], object] | None = None
        # (tenant, user) -> (its memories, greatest rowid when counted), and the file's (_wide_scope)
        self._shares: dict[tuple[str, str | None], tuple[float, int]] = {}
        self._file_rows: tuple[float, int] | None = None
        self._vectors: VectorFiles | None = None
        self._zero_pending = False  # a committed delete tombstoned vector slots: zero them
        # rows of the full-text table, re-read every LEXICAL_SIZE_EVERY searches: it picks the scorer
        self._fts_rows: int | None = None
        self._fts_searches = 0
        self._keyword: LexicalIndex | None = None
        self._keyword_pending = False  # a transaction removed or rewrote full-text rows
        if self.path is not None:
            if self.path.is_dir():
                raise StoreError(f"{self.path} is a directory, not a database file")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # memories are personal data: the file is private to its owner from the first byte
                # (SQLite gives its -wal and -shm files the database file's mode)
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                os.close(fd)
            except FileExistsError:
                pass
            except OSError as exc:
                raise StoreError(f"cannot create the folder for {self.path}: {exc}") from exc
        try:
            self._conn = sqlite3.connect(
                str(path), timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA secure_delete = ON")
            if self.path is not None:
                mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"could not switch {self.path} to WAL mode (got {mode})")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA cache_size = -65536")  # 64 MiB of page cache
            self._conn.execute("PRAGMA temp_store = MEMORY")
        except sqlite3.Error as exc:
            raise sqlite_error(exc, self._name) from exc
        migrate(self, MEMORIES)
        if self.path is not None:  # :memory: has one connection and small tables: FTS5 alone
            self._keyword = LexicalIndex(self.path, _tokenizer(self._conn), timeout=timeout)
        # the vector index beside the file (none for :memory:, whose retriever keeps one in memory)
        self._vectors = VectorFiles(self.path) if self.path is not None else None
        self.shared_vector_index = self._vectors is not None
        if self._vectors is not None:
            vectors = self._vectors
            names = self._read("SELECT name FROM vector_files")
            if any(not vectors.owns(str(r[0])) for r in names):
                self._write(vectors.adopt)  # a copied or renamed database: build its own files
        if self._vectors is not None and self._read("SELECT 1 FROM vector_tombstones LIMIT 1"):
            self._zero_tombstones()  # a process died between a purge's commit and its erasure

    # -- lifecycle and the backend seam ----------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._vectors is not None:
                self._vectors.close()
            if self._keyword is not None:
                self._keyword.close()
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._max_readers = 0
            while True:
                try:
                    self._readers.get_nowait().close()
                except queue.Empty:
                    break
                except sqlite3.Error:
                    pass

    @contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection]:
        """The connection for one read: the shared one inside this thread's own transaction (which
        must see its uncommitted writes) and for ``:memory:``, else one from the read pool."""
        if self._max_readers == 0 or self._owner == threading.get_ident():
            with self._lock:
                yield self._conn
            return
        conn = self._take_reader()
        try:
            yield conn
        finally:
            self._readers.put(conn)

    def _take_reader(self) -> sqlite3.Connection:
        try:
            return self._readers.get_nowait()
        except queue.Empty:
            pass
        with self._pool_lock:
            grow = self._reader_count < self._max_readers
            if grow:
                self._reader_count += 1
        if not grow:
            return self._readers.get(timeout=self._timeout)
        try:
            conn = sqlite3.connect(
                str(self.path), timeout=self._timeout, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
            conn.execute("PRAGMA query_only = ON")
            conn.execute("PRAGMA cache_size = -65536")  # as the main connection: a cold cache is slow
            # pages come straight from the OS page cache (shared by every connection), so a commit
            # on another connection costs a reader little when it invalidates the reader's own cache
            conn.execute("PRAGMA mmap_size = 268435456")
            conn.execute("PRAGMA temp_store = MEMORY")
            conn.set_trace_callback(self._trace)
        except sqlite3.Error as exc:
            with self._pool_lock:
                self._reader_count -= 1
            raise sqlite_error(exc, self._name) from exc
        return conn

    def exclusive(self) -> AbstractContextManager[Any]:
        return self._exclusive()  # one shared connection: every transaction of this object takes it

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        with self._lock:
            outer = self._exclusive_owner
            self._exclusive_owner = threading.get_ident()
            try:
                yield
            finally:
                self._exclusive_owner = outer

    def holds_lock(self) -> bool:
        return self.in_transaction() or self._exclusive_owner == threading.get_ident()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self._name) from exc
            self._depth = 1
            self._owner = threading.get_ident()
            try:
                yield
            except BaseException:
                self._depth, self._owner = 0, None
                self._zero_pending = self._keyword_pending = False
                self._quietly("ROLLBACK")
                raise
            self._depth, self._owner = 0, None
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._zero_pending = self._keyword_pending = False
                self._quietly("ROLLBACK")
                raise sqlite_error(exc, self._name) from exc
            if self._zero_pending:
                self._zero_tombstones()
            if self._keyword_pending:
                # a purged or rewritten row's words leave this process's index at its commit
                self._keyword_pending = False
                if self._keyword is not None:
                    self._keyword.sync_now()

    def _zero_tombstones(self) -> None:
        # after the commit that tombstoned them: a rollback must not have erased a live vector
        self._zero_pending = False
        if self._vectors is not None:
            vectors = self._vectors
            self._write(vectors.zero_tombstones)

    def _quietly(self, statement: str) -> None:
        try:
            self._conn.execute(statement)
        except sqlite3.Error:
            pass  # the connection is unusable; the error that got us here is the one to report

    def in_transaction(self) -> bool:
        return self._depth > 0 and self._owner == threading.get_ident()  # this thread's, as documented

    def set_trace_callback(self, callback: Callable[[str], object] | None) -> None:
        """``sqlite3``'s statement trace on every connection of this store, the read pool's included
        (for tests that count statements)."""
        self._trace = callback
        with self._lock:
            self._conn.set_trace_callback(callback)
        held = []
        while True:
            try:
                held.append(self._readers.get_nowait())
            except queue.Empty:
                break
        for conn in held:
            conn.set_trace_callback(callback)
            self._readers.put(conn)

    def _write(self, fn: Callable[[Any], T]) -> T:
        with self.transaction():
            try:
                return fn(self._conn)
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self._name) from exc

    def _read(self, query: Any, params: Sequence[Any] = (), *, binary: bool = False) -> list[Any]:
        with self._reader() as conn:
            try:
                return conn.execute(query, params).fetchall()
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self._name) from exc

    @property
    def keyword_index(self) -> LexicalIndex | None:
        """The keyword index kept in memory beside the file (None for ``:memory:``)."""
        return self._keyword

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for extensions that keep their own tables in this file (the vault)."""
        return self._conn

    # -- memories: the FTS5 row beside each memory -----------------------------------------------
    def _insert(self, c: Any, rows: Sequence[tuple[MemoryRecord, str, str | None]]) -> None:
        sql = (
            f"INSERT INTO memories ({', '.join(COLUMNS)}, digest) "
            f"VALUES ({self.dialect.marks(len(COLUMNS) + 1)})"
        )
        rids = []
        for record, text, digest in rows:
            rid = c.execute(sql, (*self.record_row(record), digest)).lastrowid
            c.execute(
                "INSERT INTO memory_fts (rowid, scope, text) VALUES (?, ?, ?)",
                (rid, scope_tokens(record.tenant, record.user_id), text),
            )
            rids.append(rid)
        _log_lexical(c, rids)

    def _delete(self, c: Any, tenant: str, ids: Sequence[str]) -> int:
        q = self.dialect.marks(len(ids))
        rids = [
            r[0]
            for r in c.execute(f"SELECT rid FROM memories WHERE +tenant = ? AND id IN ({q})", (tenant, *ids))
        ]
        if not rids:
            return 0
        rq = self.dialect.marks(len(rids))
        c.execute(f"DELETE FROM memory_fts WHERE rowid IN ({rq})", rids)
        _log_lexical(c, rids)
        self._keyword_pending = True
        self._tombstone(c, f"rid IN ({rq}) AND slot IS NOT NULL", rids)
        c.execute(f"DELETE FROM embeddings WHERE rid IN ({rq})", rids)
        return int(c.execute(f"DELETE FROM memories WHERE rid IN ({rq})", rids).rowcount)

    def index_texts(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> dict[str, str]:
        """The lexical index text of each memory (for export)."""
        rows = self._read(
            f"SELECT m.id, f.text FROM memories m JOIN memory_fts f ON f.rowid = m.rid "
            f"WHERE m.tenant = ? AND m.id IN ({self.dialect.marks(len(ids))})",
            (tenant, *ids),
        )
        return {r[0]: r[1] for r in rows}

    def _set_index_text(self, c: Any, tenant: str, memory_id: str, text: str) -> None:
        row = c.execute(
            "SELECT rid FROM memories WHERE tenant = ? AND id = ?", (tenant, memory_id)
        ).fetchone()
        if row is not None:
            c.execute("UPDATE memory_fts SET text = ? WHERE rowid = ?", (text, row[0]))
            _log_lexical(c, [row[0]])
            self._keyword_pending = True

    def write_mark(self) -> int | None:
        # writers are serialised (BEGIN IMMEDIATE): a row committed later has a greater rowid
        return int(self._read("SELECT COALESCE(MAX(rid), 0) FROM memories")[0][0])

    def lexical_search(self, match: str, flt: MemoryFilter, *, limit: int = 50) -> list[tuple[str, float]]:
        """BM25 over the scope's full-text rows.

        From ``keyword_index_from`` rows on, the keyword index beside the file answers
        (:mod:`remnant.store.lexical_index`): the exact query's ids, order and scores, from postings
        in memory, without FTS5's walk over every row that holds a term. Below it, or for what the
        index does not answer, FTS5 as follows.

        FTS5's ``bm25()`` has no top-k pruning: an OR query scores every row that holds any term, so
        a common word made a 100k-memory scope cost 50-140 ms. Here each term's rows are counted up
        to ``lexical_budget`` (cheap: FTS5 stops at the limit). When all terms together match at
        most that many rows, one exact query scores them (the usual case, and every LoCoMo
        conversation). Otherwise the rarest terms whose rows fit the budget are scored exactly over
        every row that holds one of them, and the common terms only over the newest
        ``lexical_window`` rows of the scope that hold them; the scores are the same ``bm25()`` as
        the exact query (see :func:`_rare_first`). What can be missed: an old row holding only
        common words, which BM25 ranks low anyway.

        The scope's FTS token is left out of a statement whenever that cannot change its answer
        (see :meth:`_lexical`): intersecting with a 100k-row scope's doclist, and ``bm25()``
        walking it for its IDF, were half the cost of a recall in one big scope.
        """
        return self._lexical(match, flt, limit, candidates=False)

    def lexical_candidates(
        self, match: str, flt: MemoryFilter, *, limit: int = 20
    ) -> list[tuple[str, float]]:
        """Memories sharing words with ``match``, for a check that judges them (contradictions):
        the exact ranking while the terms' rows fit ``candidate_budget``; beyond it only the rows of
        the rarest terms (up to ``candidate_budget`` rows, ranked by their BM25) and then the
        newest rows of the scope holding any term (score 0). Bounded work at any scope size."""
        return self._lexical(match, flt, limit, candidates=True)

    def _lexical(
        self, match: str, flt: MemoryFilter, limit: int, *, candidates: bool
    ) -> list[tuple[str, float]]:
        where, params = self.where(flt)
        token = scope_token(flt.tenant, flt.user_id)
        terms = fts_phrases(match)
        # candidates are judged one by one, not ranked for a reader: past the rows a candidate
        # search may read, counting on (up to the ranking's budget) only costs time on every write
        budget = self.candidate_budget if candidates else self.lexical_budget
        with self._reader() as c:
            try:
                table_rows = self._fts_size(c) if terms and not candidates else 0
                got = self._keyword_ranked(match, token, table_rows) if table_rows else None
                if got is not None:
                    rows = _keyword_rows(c, got, where, params, limit)
                elif table_rows >= self.own_scoring_above and table_rows:
                    counts = _counts_upto(c, token, terms, budget + 1)[0]
                    bounds = (budget, self.lexical_window)
                    rows = _own_scoring(c, token, terms, counts, bounds, table_rows, where, params, limit)
                elif len(terms) <= 1:
                    rows = _exact_lexical(c, token, match, where, params, limit)
                else:
                    # Counted in the whole file first: when every row holding a term fits the
                    # budget, scoring them without the scope token gives the scoped query's rows
                    # (the filter below keeps the scope) with the same scores (the token's column
                    # weighs 0 and bm25()'s IDF is the file's either way), at bounded cost.
                    counts, top = _counts_upto(c, None, terms, budget + 1)
                    if sum(counts) <= budget:
                        rows = _exact_lexical(c, None, match, where, params, limit)
                    else:
                        # A scope holding nearly the whole file (one user) gains nothing from its
                        # token: the file's counts stand for the scope's, statements leave it out.
                        wide = self._wide_scope(c, flt, top)
                        if not wide:
                            counts = _counts_upto(c, token, terms, budget + 1)[0]
                        scored = None if wide else token
                        if not wide and sum(counts) <= budget:
                            rows = _exact_lexical(c, token, match, where, params, limit)
                        elif candidates:
                            bounds = (self.candidate_budget, limit)
                            rows = _rare_candidates(c, token, scored, terms, counts, bounds, where, params)
                        else:
                            bounds = (budget, self.lexical_window)
                            rows = _rare_first(c, token, scored, terms, counts, bounds, where, params, limit)
            except sqlite3.OperationalError as exc:
                raise ValidationError(f"bad full-text query {match!r}: {exc}") from exc
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self._name) from exc
        return [(r[0], -float(r[1])) for r in rows]  # bm25() is lower-is-better; flip it

    def _keyword_ranked(
        self, match: str, token: str, table_rows: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The keyword index's ranking of ``match`` in the scope, or None where FTS5 answers: a
        small table, a thread inside its own transaction (the index holds committed rows only),
        the index not built yet, or an expression it does not answer exactly."""
        index = self._keyword
        if index is None or table_rows < self.keyword_index_from or self._owner == threading.get_ident():
            return None
        if not index.ready:
            index.start(background=self.keyword_index_background)
        # every phrase, repeats included: bm25() scores each phrase of the expression
        return index.ranked(_PHRASE.findall(match), token)

    def _wide_scope(self, c: sqlite3.Connection, flt: MemoryFilter, top: int) -> bool:
        """Whether the scope holds at least :data:`WIDE_SCOPE` of the file's memories. Counted once
        and again after the file grew by a tenth (``top``: its greatest rowid now): the file's rows
        once for every scope, each scope's along its own index range; a stale answer only costs
        time, never a wrong row (every statement is filtered by the scope after)."""

        def stale(got: tuple[float, int] | None) -> bool:
            return got is None or top > got[1] + max(1000, got[1] // 10)

        total = self._file_rows
        if total is None or stale(total):
            total = (float(c.execute("SELECT count(*) FROM memories").fetchone()[0]), top)
            self._file_rows = total
        key = (flt.tenant, flt.user_id)
        got = self._shares.get(key)
        if got is None or stale(got):
            mine = "tenant = ?" if flt.user_id is None else "tenant = ? AND user_id = ?"
            args = (flt.tenant,) if flt.user_id is None else (flt.tenant, flt.user_id)
            got = (float(c.execute(f"SELECT count(*) FROM memories WHERE {mine}", args).fetchone()[0]), top)
            self._shares[key] = got
        return got[0] >= WIDE_SCOPE * max(total[0], 1.0)

    def _fts_size(self, c: sqlite3.Connection) -> int:
        """Rows of the full-text table (its largest rowid), re-read every ``LEXICAL_SIZE_EVERY``
        searches: it only picks the scorer, so a slightly stale figure is fine."""
        with self._pool_lock:
            self._fts_searches += 1
            fresh = self._fts_rows is not None and self._fts_searches % LEXICAL_SIZE_EVERY
        if fresh:
            return int(self._fts_rows or 0)
        got = int(c.execute("SELECT COALESCE(MAX(rid), 0) FROM memories").fetchone()[0])
        with self._pool_lock:
            self._fts_rows = got
        return got

    # -- embeddings: float32 blobs, and the vector file beside the database ---------------------
    def _tombstone(self, c: Any, cond: str, params: Sequence[Any]) -> None:
        """Tombstone the file slots of the embeddings rows matching ``cond`` (zeroed after commit)."""
        if self._vectors is None:
            return
        cur = c.execute(
            f"INSERT OR IGNORE INTO vector_tombstones (tenant, model, slot) "
            f"SELECT tenant, model, slot FROM embeddings WHERE {cond}",
            params,
        )
        if cur.rowcount:
            self._zero_pending = True

    def put_embeddings(
        self, items: Sequence[tuple[str, str, np.ndarray]], *, tenant: str = DEFAULT_TENANT
    ) -> None:
        def run(c: Any) -> None:
            fresh: dict[str, tuple[list[int], list[np.ndarray]]] = {}
            for memory_id, model, vector in items:
                vec = np.asarray(vector, dtype=np.float32).ravel()
                row = c.execute(
                    "SELECT rid FROM memories WHERE tenant = ? AND id = ?", (tenant, memory_id)
                ).fetchone()
                if row is None:
                    raise NotFoundError(f"no memory {memory_id}")
                # a replaced vector's old slot is erased; the new one goes to a new slot
                self._tombstone(c, "rid = ? AND slot IS NOT NULL", (row[0],))
                c.execute(
                    "INSERT INTO embeddings (rid, tenant, model, dim, vector) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (rid) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
                    "vector = excluded.vector, slot = NULL",
                    (row[0], tenant, model, vec.size, vec.tobytes()),
                )
                rids, vecs = fresh.setdefault(model, ([], []))
                rids.append(int(row[0]))
                vecs.append(vec)
            if self._vectors is not None:
                for model, (rids, vecs) in fresh.items():
                    if len({v.size for v in vecs}) > 1:
                        raise ValidationError(f"vectors of {model!r} differ in dimension")
                    self._vectors.append(c, tenant, model, rids, np.stack(vecs))

        self._write(run)

    def _sync_vectors(self, tenant: str, model: str) -> tuple[int, int, str] | None:
        """The (dim, rows, name) of the (tenant, model) file, after appending any embeddings rows it
        lacks (a database from before the file, or a file being rebuilt): constant time when none."""
        assert self._vectors is not None
        vectors = self._vectors
        st = self._read(
            "SELECT f.dim, f.rows, f.name, EXISTS (SELECT 1 FROM embeddings WHERE tenant = ? AND model = ? "
            "AND slot IS NULL) FROM (SELECT 1) LEFT JOIN vector_files f ON f.tenant = ? AND f.model = ?",
            (tenant, model, tenant, model),
        )[0]
        if not st[3]:
            return None if st[0] is None else (int(st[0]), int(st[1]), str(st[2]))

        def fill(c: Any) -> tuple[int, int, str] | None:
            while True:
                rows = c.execute(
                    "SELECT rid, vector FROM embeddings WHERE tenant = ? AND model = ? AND slot IS NULL "
                    "ORDER BY rid LIMIT 4096",
                    (tenant, model),
                ).fetchall()
                if not rows:
                    return vectors.state(c, tenant, model)
                mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
                vectors.append(c, tenant, model, [r[0] for r in rows], mat)

        return self._write(fill)

    def rebuild_vectors(self, *, tenant: str = DEFAULT_TENANT, model: str | None = None) -> None:
        """Rewrite the vector files from the embeddings table (the table is the truth)."""
        if self._vectors is None:
            return
        vectors = self._vectors
        models = [model] if model is not None else self.embedding_models(tenant=tenant)
        for m in models:

            def reset(c: Any, m: str = m) -> None:
                vectors.reset(c, tenant, m)

            self._write(reset)
            self._sync_vectors(tenant, m)

    @contextmanager
    def probing(self, query_vecs: np.ndarray, *, tenant: str, model: str, limit: int) -> Iterator[None]:
        """One product of the vector file with every probe of a batch (see :class:`Store`); each
        :meth:`vector_search` probe in the block with one of these vectors takes its nearest slots
        from it (the file read once a batch, not once a write), then applies the filter as ever."""
        st = self._sync_vectors(tenant, model) if self._vectors is not None and limit > 0 else None
        mat = self._vectors.matrix(st[2], st[1], st[0]) if self._vectors is not None and st else None
        if st is None or mat is None or st[1] == 0 or getattr(self._probes, "memo", None) is not None:
            yield
            return
        dim, rows, name = st
        qs = unit_rows(np.asarray(query_vecs, dtype=np.float32).reshape(len(query_vecs), -1))
        if qs.shape[1] != dim:
            yield
            return
        want = min(rows, limit + max(limit // 2, 20))
        tops = mat.top_many(qs, want)
        # this thread's only: the file is fixed while the write holds the lock, not for others
        self._probes.memo = {
            (tenant, model, name, rows, want, q.tobytes()): t for q, t in zip(qs, tops, strict=True)
        }
        try:
            yield
        finally:
            self._probes.memo = None

    def vector_search(
        self,
        query_vec: np.ndarray,
        flt: MemoryFilter,
        *,
        model: str,
        limit: int = 50,
        exhaustive: bool = True,
    ) -> list[tuple[str, float]]:
        """Nearest memories by cosine similarity, exact, from the memory-mapped vector file: the
        best slots first, the recall filter then applied to them in SQL; when a narrow filter (one
        user among many) leaves too few, only the slots it allows are scored."""
        if self._vectors is None:
            return super().vector_search(query_vec, flt, model=model, limit=limit)
        st = self._sync_vectors(flt.tenant, model)
        if st is None or limit <= 0:
            return []
        dim, rows, name = st
        q = unit_rows(np.asarray(query_vec, dtype=np.float32).reshape(1, -1))[0]
        if q.size != dim:
            return []  # vectors of another dimension cannot be compared
        mat = self._vectors.matrix(name, rows, dim)
        if mat is None:  # the file lost its tail (an OS crash): rebuild it from the table
            self.rebuild_vectors(tenant=flt.tenant, model=model)
            st = self._sync_vectors(flt.tenant, model)
            if st is None:
                return []
            dim, rows, name = st
            mat = self._vectors.matrix(name, rows, dim)
            if mat is None:
                raise StoreError(f"the vector index {self._vectors.path(name)} cannot be rebuilt")
        # over-fetch by half (as the in-process index did): most of a scope passes the recall filter,
        # and a filter that removes more falls through to scoring only what it allows, below
        want = min(rows, limit + max(limit // 2, 20))
        memo: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray]] | None = getattr(
            self._probes, "memo", None
        )
        key = (flt.tenant, model, name, rows, want, q.tobytes())
        got = memo.get(key) if memo is not None and not exhaustive else None
        slots, scores = got if got is not None else mat.top(q, want)
        hits = self._slot_hits(flt, model, slots, scores)
        # a probe (not exhaustive) keeps what the nearest slots gave: the fallback below walks
        # every slot the filter allows, which grows with the scope
        if exhaustive and len(hits) < limit and want < rows:
            where, params = self.where(flt)
            allowed = self._read(
                f"SELECT e.slot FROM embeddings e JOIN memories m ON m.rid = e.rid "
                f"WHERE e.tenant = ? AND e.model = ? AND e.slot < ? AND {where}",
                (flt.tenant, model, rows, *params),
            )
            if allowed:
                subset = np.fromiter((r[0] for r in allowed), dtype=np.int64, count=len(allowed))
                sub, sub_scores = mat.top_of(subset, q, limit)
                hits = self._slot_hits(flt, model, subset[sub], sub_scores)
        return hits[:limit]

    def _slot_hits(
        self, flt: MemoryFilter, model: str, slots: np.ndarray, scores: np.ndarray
    ) -> list[tuple[str, float]]:
        """(id, score) of the slots that still belong to a memory passing ``flt``, in slot order given."""
        if slots.size == 0:
            return []
        where, params = self.where(flt)
        found: dict[int, str] = {}
        batch = 900
        order = slots.tolist()
        for s in range(0, len(order), batch):
            part = order[s : s + batch]
            # CROSS JOIN keeps the few slots as the outer loop (0.3 ms for 200 at 10k); otherwise the
            # planner walks the whole scope through the recall index and probes each (4.7 ms)
            rows = self._read(
                f"SELECT e.slot, m.id FROM embeddings e CROSS JOIN memories m ON m.rid = e.rid "
                f"WHERE e.tenant = ? AND e.model = ? AND e.slot IN ({self.dialect.marks(len(part))}) AND {where}",
                (flt.tenant, model, *part, *params),
            )
            found.update((int(r[0]), r[1]) for r in rows)
        return [(found[x], sc) for x, sc in zip(order, scores.tolist(), strict=True) if x in found]

    def embeddings(self, flt: MemoryFilter, *, model: str) -> tuple[list[str], np.ndarray]:
        where, params = self.where(flt)
        rows = self._read(
            f"SELECT m.id, e.dim, e.vector FROM embeddings e JOIN memories m ON m.rid = e.rid "
            f"WHERE e.model = ? AND {where} ORDER BY m.rid",
            (model, *params),
        )
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        dim = rows[0][1]
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), dim)
        return [r[0] for r in rows], matrix

    # -- importance scans and maintenance --------------------------------------------------------
    def _scan_source(self, flt: MemoryFilter) -> str:
        # a tenant-wide scoring pass reads most rows: scanning the table in order is several times
        # faster than walking a (tenant, ...) index with one random row lookup each (measured 0.9 s
        # vs 5.6 s at 1M rows); a per-user pass keeps the index
        return "memories m NOT INDEXED" if flt.user_id is None and flt.ids is None else "memories m"

    def _maintain(self, *statements: str) -> None:
        with self._lock:
            try:
                for statement in statements:
                    if statement.startswith("PRAGMA wal_checkpoint"):
                        self._checkpoint(statement)
                    else:
                        self._conn.execute(statement)
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self._name) from exc

    def _checkpoint(self, statement: str) -> None:
        # The checkpoint waits for readers on older snapshots (the busy timeout) but stops short
        # when one outlasts it; the WAL then keeps page images of what was just erased. Say so.
        row = self._conn.execute(statement).fetchone()
        if row is not None and row[0]:
            log.warning(
                "%s: the WAL could not be checkpointed (a reader held an old snapshot past the busy "
                "timeout); erased page images stay in it until the next checkpoint",
                self._name,
            )

    def compact(self) -> None:
        # a vector file mostly made of purged (zeroed) slots is rewritten with only the live ones
        if self._vectors is not None:
            vectors = self._vectors
            for tenant, model, live in self._write(vectors.live_fraction):
                if live < 0.5:
                    self.rebuild_vectors(tenant=tenant, model=model)
        # merge FTS segments so deleted terms leave the index, then flush and truncate the WAL
        self._maintain(
            "INSERT INTO memory_fts (memory_fts) VALUES ('optimize')",
            "VACUUM",
            "PRAGMA wal_checkpoint(TRUNCATE)",
        )

    def scrub(self) -> None:
        # secure_delete zeroes freed cells, but FTS5 keeps deleted terms in old index segments until
        # they are merged, and the WAL keeps old page images until a checkpoint: clear both.
        self._maintain(
            "INSERT INTO memory_fts (memory_fts) VALUES ('optimize')", "PRAGMA wal_checkpoint(TRUNCATE)"
        )

    def files(self) -> list[Path]:
        if self.path is None:
            return []
        db = [p for p in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")) if p.exists()]
        return db + vector_files(self.path)


def _tokenizer(c: sqlite3.Connection) -> str:
    """The full-text table's ``tokenize`` option, as its schema declares it."""
    row = c.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchone()
    found = re.search(r"tokenize\s*=\s*'([^']*)'", str(row[0]) if row else "")
    return found.group(1) if found else "unicode61"


def _log_lexical(c: Any, rids: Sequence[int]) -> None:
    """Log the full-text rows a write changed (in its transaction), for every process's keyword
    index, and drop the entries older than the newest :data:`LOG_KEEP`."""
    if not rids:
        return
    c.executemany("INSERT INTO lexical_log (rid) VALUES (?)", [(r,) for r in rids])
    c.execute("DELETE FROM lexical_log WHERE seq <= (SELECT MAX(seq) FROM lexical_log) - ?", (LOG_KEEP,))


def _keyword_rows(
    c: sqlite3.Connection, got: tuple[np.ndarray, np.ndarray], where: str, params: Sequence[Any], limit: int
) -> list[tuple[str, float]]:
    """The best ``limit`` rows of the keyword index's ranking that pass the filter, as (id,
    bm25()): the ranking is read best first in growing chunks until enough rows pass."""
    rids, scores = got
    out: list[tuple[str, float]] = []
    start, count = 0, max(4 * limit, 64)
    while len(out) < limit and start < len(rids):
        part, part_scores = best_first(rids, scores, start, count)
        ids = part.tolist()
        # CROSS JOIN keeps the ranked rows the outer loop (a primary-key lookup each): with
        # "rid IN (...)" the planner walked the whole scope through the filter's index
        passed = dict(
            c.execute(
                "SELECT m.rid, m.id FROM json_each(?) j CROSS JOIN memories m ON m.rid = j.value "
                f"WHERE {where}",
                (json.dumps(ids), *params),
            ).fetchall()
        )
        out += [(passed[r], -s) for r, s in zip(ids, part_scores.tolist(), strict=True) if r in passed]
        start += count
        count *= 4
    return out[:limit]


def _expr(token: str | None, body: str) -> str:
    """An FTS5 expression bounded to a scope token, or to the whole file (``token`` None)."""
    return body if token is None else f'scope : "{token}" AND {body}'


def _counts_upto(
    c: sqlite3.Connection, token: str | None, phrases: Sequence[str], cap: int
) -> tuple[list[int], int]:
    """Each phrase's rows in the scope (the file for ``token`` None), counted up to ``cap`` (FTS5
    stops there), and the file's greatest rowid, in one statement."""
    one = "(SELECT count(*) FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?))"
    args: list[Any] = []
    for phrase in phrases:
        args += [_expr(token, f"text : {phrase}"), cap]
    top = "(SELECT COALESCE(MAX(rid), 0) FROM memories)"
    row = c.execute(f"SELECT {', '.join([one] * len(phrases))}, {top}", args).fetchone()
    return [int(v) for v in row[:-1]], int(row[-1])


def _exact_lexical(
    c: sqlite3.Connection, token: str | None, match: str, where: str, params: Sequence[Any], limit: int
) -> list[Any]:
    # Bound the FTS query to the scope inside FTS5 itself, and materialise the matches first: a plain
    # join lets SQLite run one FTS lookup per candidate row, which is orders of magnitude slower.
    # CROSS JOIN keeps the matches as the outer loop (a primary-key lookup each); otherwise the
    # planner may walk every memory of the scope through the recall index and probe the matches.
    sql = (
        "WITH hits AS MATERIALIZED (SELECT rowid AS rid, bm25(memory_fts, 0.0, 1.0) AS score "
        "FROM memory_fts WHERE memory_fts MATCH ?) "
        f"SELECT m.id, hits.score FROM hits CROSS JOIN memories m ON m.rid = hits.rid WHERE {where} "
        "ORDER BY hits.score LIMIT ?"
    )
    return c.execute(sql, (_expr(token, f"text : ({match})"), *params, limit)).fetchall()


def _rare_first(
    c: sqlite3.Connection,
    token: str,
    scored: str | None,
    terms: Sequence[str],
    counts: Sequence[int],
    bounds: tuple[int, int],
    where: str,
    params: Sequence[Any],
    limit: int,
) -> list[Any]:
    """``token``: the scope, whose newest rows are the window; ``scored``: the token the scoring
    statements are bounded by (None: the file, for a scope holding nearly all of it)."""
    rare = rarest_terms(terms, counts, bounds[0])
    common = [t for t in terms if t not in rare]
    every = " OR ".join(terms)
    floor = c.execute(
        "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        (_expr(token, f"text : ({' OR '.join(common)})"), bounds[1]),
    ).fetchone()
    bm25 = "SELECT rowid AS rid, bm25(memory_fts, 0.0, 1.0) AS s FROM memory_fts WHERE memory_fts MATCH ?"
    # each FTS query runs once (MATERIALIZED): as a plain subquery SQLite may probe it per row
    ctes = [f"w AS MATERIALIZED ({bm25} AND rowid > ?)"]
    args: list[Any] = [_expr(scored, f"text : ({every})"), floor[0] if floor else 0]
    union = "SELECT rid, s FROM w"
    if rare:
        any_rare = " OR ".join(rare)
        # bm25() adds one term per phrase of the expression, so "all terms AND a rare term" minus
        # "the rare terms" is exactly the full query's score, while FTS5 visits only the rows
        # that hold a rare term
        ctes += [f"a AS MATERIALIZED ({bm25})", f"b AS MATERIALIZED ({bm25})"]
        args += [
            _expr(scored, f"text : ({every}) AND text : ({any_rare})"),
            _expr(scored, f"text : ({any_rare})"),
        ]
        union += " UNION ALL SELECT a.rid, a.s - b.s FROM a JOIN b ON b.rid = a.rid"
    sql = (
        f"WITH {', '.join(ctes)}, hits (rid, score) AS MATERIALIZED "
        f"(SELECT rid, min(s) FROM ({union}) GROUP BY rid) "
        f"SELECT m.id, hits.score FROM hits CROSS JOIN memories m ON m.rid = hits.rid WHERE {where} "
        "ORDER BY hits.score LIMIT ?"
    )
    return c.execute(sql, (*args, *params, limit)).fetchall()


def _rare_candidates(
    c: sqlite3.Connection,
    token: str,
    scored: str | None,
    terms: Sequence[str],
    counts: Sequence[int],
    bounds: tuple[int, int],
    where: str,
    params: Sequence[Any],
) -> list[Any]:
    """Candidates beyond the budget (``bounds``: rows the rare terms may hold, how many to return):
    the rows of the rarest terms ranked by those terms' BM25, then the newest rows of the scope
    holding any term, in one statement; FTS5 never walks a common term's doclist."""
    rare, limit = rarest_terms(terms, counts, bounds[0]), bounds[1]
    arms: list[str] = []
    args: list[Any] = []
    if rare:
        arms.append(
            "SELECT * FROM (SELECT 0 AS arm, m.id AS id, r.s AS s, r.s AS k FROM r "
            f"CROSS JOIN memories m ON m.rid = r.rid WHERE {where} ORDER BY r.s LIMIT ?)"
        )
        args += [*params, limit]
    arms.append(
        "SELECT * FROM (SELECT 1 AS arm, m.id AS id, 0.0 AS s, -n.rid AS k FROM n "
        f"CROSS JOIN memories m ON m.rid = n.rid WHERE {where} ORDER BY n.rid DESC LIMIT ?)"
    )
    args += [*params, limit]
    # the newest rows are taken before the filter: a few more than wanted, for those it drops
    ctes = [
        "n AS MATERIALIZED (SELECT rowid AS rid FROM memory_fts WHERE memory_fts MATCH ? "
        "ORDER BY rowid DESC LIMIT ?)"
    ]
    cte_args: list[Any] = [_expr(token, f"text : ({' OR '.join(terms)})"), 3 * limit]
    if rare:
        ctes.append(
            "r AS MATERIALIZED (SELECT rowid AS rid, bm25(memory_fts, 0.0, 1.0) AS s FROM memory_fts "
            "WHERE memory_fts MATCH ? ORDER BY s LIMIT ?)"
        )
        # the best rows before the filter (not every rare row read from the table): candidates
        # need not be exactly the best that pass it
        cte_args += [_expr(scored, f"text : ({' OR '.join(rare)})"), 4 * limit]
    sql = f"WITH {', '.join(ctes)} SELECT id, s FROM ({' UNION ALL '.join(arms)}) ORDER BY arm, k"
    rows = c.execute(sql, (*cte_args, *args)).fetchall()
    seen: set[str] = set()
    out = []
    for row in rows:
        if row[0] not in seen:
            seen.add(row[0])
            out.append(row)
    return out[:limit]


def _own_scoring(
    c: sqlite3.Connection,
    token: str,
    terms: Sequence[str],
    counts: Sequence[int],
    bounds: tuple[int, int],
    table_rows: int,
    where: str,
    params: Sequence[Any],
    limit: int,
) -> list[Any]:
    """The bounded candidates of :func:`_rare_first`, scored in SQL without FTS5's ``bm25()``.

    In a large table ``bm25()`` costs more than the rows it scores: before the first row it counts
    every row of the table holding each phrase of the expression, for the IDF (~20 ms per common
    word or large scope token at 1M rows, measured), whatever the candidate set. Here each term's
    candidates come from its own FTS5 query (bounded by the rare terms' rows and the newest
    ``lexical_window`` rows of the common ones, as in :func:`_rare_first`), and a row scores the
    sum of the IDFs of the terms it holds, the IDF from the term's row count in the scope (exact
    up to the budget; a common term counts as budget + 1), scaled by BM25's length normalisation
    (the memory's characters against the candidates' mean). No term frequency: each term counts
    once, as it mostly occurs in a short memory. Returns (id, -score), lower-is-better like
    ``bm25()``.
    """
    budget, window = bounds
    rare = rarest_terms(terms, counts, budget)  # all of them when every row fits: no window
    common = [t for t in terms if t not in rare]
    scope = f'scope : "{token}"'
    floor_rid = 0
    if common:
        floor = c.execute(
            "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
            (f"{scope} AND text : ({' OR '.join(common)})", window),
        ).fetchone()
        floor_rid = int(floor[0]) if floor else 0
    arm = "SELECT rowid AS rid, ? AS w FROM memory_fts WHERE memory_fts MATCH ?"
    arms: list[str] = []
    args: list[Any] = []
    any_rare = " OR ".join(rare)
    n = max(table_rows, 1)
    for term, count in zip(terms, counts, strict=True):
        idf = math.log(1.0 + (n - count + 0.5) / (count + 0.5))
        if common:  # the newest rows holding a common term: every term of the query in them
            arms.append(f"{arm} AND rowid > ?")
            args += [idf, f"{scope} AND text : {term}", floor_rid]
        if rare:  # every row holding a rare term, below the window (or all of them: no window)
            arms.append(f"{arm} AND rowid <= ?" if common else arm)
            args += [idf, f"{scope} AND text : {term} AND text : ({any_rare})"]
            if common:
                args.append(floor_rid)
    # BM25's length normalisation (k1 = 1.2, b = 0.75, one occurrence per term) with the memory's
    # characters for its length and the candidates' mean for the average
    sql = (
        f"WITH hits (rid, idf) AS MATERIALIZED (SELECT rid, sum(w) FROM ({' UNION ALL '.join(arms)}) "
        f"GROUP BY rid), passed AS MATERIALIZED (SELECT m.id, m.rid, hits.idf, length(m.content) AS len "
        f"FROM hits CROSS JOIN memories m ON m.rid = hits.rid WHERE {where}), "
        "mean (len) AS (SELECT max(avg(len), 1) FROM passed) "
        "SELECT p.id, -(p.idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * p.len / mean.len))) AS score "
        "FROM passed p, mean ORDER BY score, p.rid DESC LIMIT ?"
    )
    return c.execute(sql, (*args, *params, limit)).fetchall()


def scope_token(tenant: str, user_id: str | None) -> str:
    """An opaque FTS token for a tenant, or a tenant and user (ids may hold any characters)."""
    raw = tenant if user_id is None else f"{tenant}\x00{user_id}"
    return ("t" if user_id is None else "u") + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:20]


def scope_tokens(tenant: str, user_id: str) -> str:
    return f"{scope_token(tenant, None)} {scope_token(tenant, user_id)}"
