"""The SQLite store's keyword index: BM25 postings of the full-text table in this process's memory.

Why (measured at 100k memories in one scope, docs/benchmarks/engine.md): FTS5's ``bm25()`` has no
top-k pruning, and before its first row it walks every row of the table holding each query word to
count it for the IDF; that was 73 % of a hybrid recall. Here each term's postings are numpy arrays
(rid, tf), so a query's scores are a few vector operations over its terms' postings, with the same
formula, constants and operation order as FTS5's ``bm25(memory_fts, 0.0, 1.0)``: the same scores to
the last bit, hence the same top-k as the exact FTS5 query (checked over the LoCoMo dev questions
by ``tests/store/test_lexical_index.py``).

The FTS5 table stays the source of truth; this is a cache of it:

- Built from the table's own tokens (an ``fts5vocab`` table over it, in one read transaction), so
  it tokenises exactly as FTS5 did; rows and query terms written later are tokenised by a private
  in-memory FTS5 table with the same tokenizer.
- Every write that changes a full-text row logs its rid in ``lexical_log`` in the same
  transaction (any process). Before each search the index applies the entries after the last one
  it saw (a purged row's postings go; a rewritten row is tokenised again), so several processes on
  one file stay correct; one that fell behind the trimmed log rebuilds.
- It holds only what the FTS5 index holds (stemmed tokens, counts), in memory, never on disk;
  a purge drops the row's postings at its commit (:meth:`LexicalIndex.sync_now`).

An expression it cannot answer exactly (a prefix term, a term FTS5 splits into a phrase, anything
but the engine's ``"a" OR "b"``) is answered by FTS5 as before (:meth:`LexicalIndex.ranked` is None).
"""

from __future__ import annotations

import logging
import math
import sqlite3
import threading
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

#: FTS5's bm25() constants (fts5_aux.c)
K1 = 1.2
B = 0.75
#: log entries kept: a process further behind rebuilds instead of replaying
LOG_KEEP = 50_000
#: changes applied one by one up to this many (more: a rebuild, which reads the table's tokens)
REPLAY_MAX = 20_000
#: query phrases whose tokens are remembered (each costs a private FTS5 round trip once)
_PHRASE_CACHE = 4096


def _unquote(phrase: str) -> str | None:
    """The text of a ``"..."`` phrase (None for a prefix ``"..."*`` or anything else)."""
    if len(phrase) < 2 or phrase[0] != '"' or phrase[-1] != '"':
        return None
    return phrase[1:-1].replace('""', '"')


def _varints(blob: bytes) -> int:
    """The sum of an FTS5 docsize blob's varints (the row's tokens in every column)."""
    if all(b < 0x80 for b in blob):
        return sum(blob)
    total = value = 0
    for b in blob:
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            total, value = total + value, 0
    return total


class _Tokenizer:
    """FTS5's tokenizer on a private in-memory table: the tokens a row or a query phrase becomes."""

    def __init__(self, tokenize: str) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5 (scope, text, tokenize = '{tokenize}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        self._phrases: dict[str, list[str]] = {}

    def rows(self, rows: Sequence[tuple[int, str, str]]) -> list[tuple[str, int, str, int]]:
        """(term, rid, column, offset) of every token of ``rows`` (rid, scope, text)."""
        c = self._conn
        c.execute("BEGIN")
        try:
            c.executemany("INSERT INTO t (rowid, scope, text) VALUES (?, ?, ?)", rows)
            got = c.execute("SELECT term, doc, col, offset FROM v").fetchall()
        finally:
            c.execute("ROLLBACK")  # nothing of the texts stays in the private table
        return got

    def phrase(self, text: str) -> list[str]:
        got = self._phrases.get(text)
        if got is None:
            toks = self.rows([(1, "", text)])
            got = [t for t, _, col, _ in sorted(toks, key=lambda r: r[3]) if col == "text"]
            if len(self._phrases) >= _PHRASE_CACHE:
                self._phrases.clear()
            self._phrases[text] = got
        return got

    def close(self) -> None:
        self._conn.close()


@dataclass(slots=True)
class _Postings:
    rid: np.ndarray  # int32, the rows holding the term
    tf: np.ndarray  # float32: its occurrences in each row's text column (FTS5's aFreq)
    tid: int = -1  # its place in the build's forward index (-1: first seen after the build)
    more: list[tuple[int, int]] = field(default_factory=list)  # (rid, tf) added since, not yet arrays

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self.more:
            add = np.asarray(self.more, dtype=np.int64).reshape(-1, 2)
            self.rid = np.concatenate([self.rid, add[:, 0].astype(np.int32)])
            self.tf = np.concatenate([self.tf, add[:, 1].astype(np.float32)])
            self.more = []
        return self.rid, self.tf


_EMPTY = np.zeros(0, dtype=np.int32)
_NONE = np.zeros(0, dtype=np.float32)
_F64 = np.zeros(0, dtype=np.float64)


class _State:
    """Every row's postings; per rid whether it is held, its length and its scope tokens' codes;
    and the terms of each row (the forward index), so a removed row's postings go at once."""

    def __init__(self, seq: int) -> None:
        self.seq = seq  # the last lexical_log entry applied
        # a term's postings: its id in the build's arrays (one CSR for every term: a small term
        # costs a dict entry, not two numpy arrays), or arrays of its own once a write changed it
        self.terms: dict[str, int | _Postings] = {}
        self.base_rid = _EMPTY
        self.base_tf = _NONE
        self.base_ptr = np.zeros(1, dtype=np.int64)
        self.live = np.zeros(1024, dtype=bool)
        self.length = np.zeros(1024, dtype=np.float64)  # tokens in every column (FTS5's D)
        self.tenant = np.zeros(1024, dtype=np.int32)  # code of the row's tenant token
        self.user = np.zeros(1024, dtype=np.int32)  # code of its tenant-and-user token
        self.codes: dict[str, int] = {}
        self.rows = 0
        self.tokens = 0
        self.scope_rows: dict[int, int] = {}  # rows per scope code
        self.changes = 0  # rows added or removed so far (the cached norm's key)
        self._norm: tuple[int, np.ndarray] | None = None
        # the forward index: the build's rows as CSR over term ids, later rows by rid
        self.names: list[str | None] = []
        self.fwd_ptr = np.zeros(1, dtype=np.int64)
        self.fwd_terms = _EMPTY
        self.fwd_built = np.zeros(0, dtype=bool)
        self.fwd_more: dict[int, list[str]] = {}

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        got = self.terms.get(term)
        if got is None:
            return None
        if isinstance(got, int):
            a, b = int(self.base_ptr[got]), int(self.base_ptr[got + 1])
            return self.base_rid[a:b], self.base_tf[a:b]
        return got.arrays()

    def own(self, term: str) -> _Postings:
        """The term's postings as arrays of its own, to change them."""
        got = self.terms.get(term)
        if isinstance(got, _Postings):
            return got
        if got is None:
            post = _Postings(_EMPTY, _NONE)
        else:
            a, b = int(self.base_ptr[got]), int(self.base_ptr[got + 1])
            post = _Postings(self.base_rid[a:b].copy(), self.base_tf[a:b].copy(), got)
        self.terms[term] = post
        return post

    def norm(self) -> np.ndarray:
        """Each row's ``K1 * (1 - B + B * D / avgdl)``, recomputed after the rows changed (the same
        expression, so the same bits, as FTS5's)."""
        got = self._norm
        if got is None or got[0] != self.changes or len(got[1]) != len(self.length):
            avgdl = float(self.tokens) / float(self.rows)
            got = self._norm = (self.changes, K1 * (1 - B + B * self.length / avgdl))
        return got[1]

    def count_scopes(self) -> None:
        self.scope_rows = {}
        for arr in (self.tenant, self.user):
            codes, counts = np.unique(arr[self.live], return_counts=True)
            self.scope_rows.update({int(k): int(n) for k, n in zip(codes, counts, strict=True) if k})

    def grow(self, top: int) -> None:
        if top < len(self.live):
            return
        size = max(top + 1, 2 * len(self.live))
        for name in ("live", "length", "tenant", "user"):
            old = getattr(self, name)
            new = np.zeros(size, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def code(self, token: str) -> int:
        got = self.codes.get(token)
        if got is None:
            got = self.codes[token] = len(self.codes) + 1
        return got

    def _terms_of(self, rid: int) -> list[str]:
        later = self.fwd_more.pop(rid, None)
        if later is not None:
            return later
        if rid < len(self.fwd_built) and self.fwd_built[rid]:
            self.fwd_built[rid] = False
            ids = self.fwd_terms[self.fwd_ptr[rid] : self.fwd_ptr[rid + 1]].tolist()
            return [n for n in (self.names[i] for i in ids) if n is not None]
        return []

    def remove(self, rids: Iterable[int]) -> None:
        """Drop rows and their postings (a term no row holds any more goes too)."""
        by_term: dict[str, list[int]] = {}
        for rid in rids:
            if rid >= len(self.live) or not self.live[rid]:
                continue
            self.live[rid] = False
            self.rows -= 1
            self.tokens -= int(self.length[rid])
            self.changes += 1
            for code in (int(self.tenant[rid]), int(self.user[rid])):
                if code:
                    self.scope_rows[code] -= 1
            self.tenant[rid] = self.user[rid] = 0
            for term in self._terms_of(rid):
                by_term.setdefault(term, []).append(rid)
        for term, gone in by_term.items():
            if term not in self.terms:
                continue
            post = self.own(term)
            rid_arr, tf = post.arrays()
            keep = rid_arr != gone[0] if len(gone) == 1 else ~np.isin(rid_arr, gone)
            post.rid, post.tf = rid_arr[keep], tf[keep]
            if not len(post.rid):
                del self.terms[term]
                if post.tid >= 0:
                    self.names[post.tid] = None

    def add(self, toks: Sequence[tuple[str, int, str, int]]) -> None:
        """Rows from their tokens (term, rid, column, offset), in any order; each rid absent."""
        if not toks:
            return
        self.grow(max(t[1] for t in toks))
        counts: dict[tuple[str, int], int] = {}
        sizes: dict[int, int] = {}
        for term, rid, col, offset in toks:
            sizes[rid] = sizes.get(rid, 0) + 1
            if col == "text":
                counts[(term, rid)] = counts.get((term, rid), 0) + 1
            elif col == "scope":
                (self.tenant if offset == 0 else self.user)[rid] = self.code(term)
        for rid, size in sizes.items():
            self.live[rid] = True
            self.length[rid] = size
            self.rows += 1
            self.tokens += size
            self.changes += 1
            for code in (int(self.tenant[rid]), int(self.user[rid])):
                if code:
                    self.scope_rows[code] = self.scope_rows.get(code, 0) + 1
        for (term, rid), tf in counts.items():
            self.own(term).more.append((rid, tf))
            self.fwd_more.setdefault(rid, []).append(term)


class LexicalIndex:
    """The keyword index of one SQLite file's ``memory_fts`` table (see the module docstring)."""

    def __init__(self, path: Path, tokenize: str, *, timeout: float = 30.0) -> None:
        self._path = path
        self._tokenize = tokenize
        self._timeout = timeout
        self._lock = threading.Lock()  # the state and the private connections
        self._state: _State | None = None
        self._building = False
        self._failed = False  # a build failed: FTS5 answers from then on (logged once)
        self._closed = False
        self._settled = threading.Event()  # no build running (set: built, failed or never started)
        self._settled.set()
        self._conn: sqlite3.Connection | None = None
        self._tok: _Tokenizer | None = None

    # -- building and keeping up ------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return self._state is not None

    def start(self, *, background: bool = True) -> None:
        """Build the index (once), on a thread of its own unless ``background`` is False."""
        with self._lock:
            if self._building or self._failed or self._state is not None or self._closed:
                return
            self._building = True
            self._settled.clear()
        if background:
            threading.Thread(target=self._build, name="remnant-lexical-index", daemon=True).start()
        else:
            self._build()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            str(self._path), timeout=self._timeout, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_tokens USING fts5vocab(main, 'memory_fts', 'instance')"
        )
        return conn

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a build in progress to end; whether the index is ready then."""
        self._settled.wait(timeout)
        return self.ready

    def _build(self) -> None:
        try:
            self._build_once()
        finally:
            self._settled.set()

    def _build_once(self) -> None:
        try:
            conn = self._connect()
            state = self._read_all(conn)
            conn.close()
        except Exception:  # the store answers from FTS5 meanwhile; a failed build is not retried
            log.exception("could not build the keyword index of %s", self._path)
            with self._lock:
                self._building, self._failed = False, True
            return
        with self._lock:
            self._building = False
            if self._closed:
                return
            self._state = state
        self.sync_now()  # what was written while it was read, and a purge it must not keep

    @staticmethod
    def _read_all(conn: sqlite3.Connection) -> _State:
        """Every row's tokens as FTS5 stored them, in one snapshot with the log position."""
        conn.execute("BEGIN")
        try:
            seq = int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM lexical_log").fetchone()[0])
            state = _State(seq)
            top = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM memory_fts_docsize").fetchone()[0])
            state.grow(top)
            for rid, blob in conn.execute("SELECT id, sz FROM memory_fts_docsize"):
                size = _varints(bytes(blob))
                state.live[rid] = True
                state.length[rid] = size
                state.rows += 1
                state.tokens += size
            for term, rid, offset in conn.execute(
                "SELECT term, doc, offset FROM temp.lexical_tokens WHERE col = 'scope'"
            ):
                (state.tenant if offset == 0 else state.user)[rid] = state.code(term)
            # instances come ordered by term, then row: a row's occurrences of a term are adjacent
            cur = conn.execute("SELECT term, doc FROM temp.lexical_tokens WHERE col = 'text'")
            # every posting in two flat buffers (4 bytes each), a term's start where it changes
            all_rid = array("i")
            all_tf = array("f")
            starts: list[int] = []
            term_now: str | None = None
            last = -1
            while True:
                chunk = cur.fetchmany(65536)
                if not chunk:
                    break
                for term, rid in chunk:
                    if term != term_now:
                        state.terms[term] = len(starts)
                        state.names.append(term)
                        starts.append(len(all_rid))
                        term_now, last = term, -1
                    if rid == last:
                        all_tf[-1] += 1.0
                    else:
                        all_rid.append(rid)
                        all_tf.append(1.0)
                        last = rid
        finally:
            conn.execute("COMMIT")
        state.count_scopes()
        if starts:
            rid_all = np.frombuffer(all_rid, dtype=np.int32).copy()
            state.base_rid, state.base_tf = rid_all, np.frombuffer(all_tf, dtype=np.float32).copy()
            del all_rid, all_tf
            state.base_ptr = np.asarray([*starts, len(rid_all)], dtype=np.int64)
            # the forward index: each row's term ids, rows in order (CSR)
            tid_all = np.repeat(np.arange(len(starts), dtype=np.int32), np.diff(state.base_ptr))
            order = np.argsort(rid_all, kind="stable")
            state.fwd_terms = tid_all[order]
            per_row = np.bincount(rid_all, minlength=len(state.live))
            state.fwd_ptr = np.concatenate([[0], np.cumsum(per_row)]).astype(np.int64)
            state.fwd_built = per_row > 0
        return state

    def sync_now(self) -> None:
        """Apply the logged changes now if the index is built (after a commit that purged rows)."""
        with self._lock:
            if self._state is not None:
                self._sync()

    def _sync(self) -> bool:
        """Bring the state up to the last committed change (the lock held). False: the index was
        dropped for a rebuild (it fell behind the log)."""
        state = self._state
        assert state is not None
        if self._conn is None:
            self._conn = self._connect()
        conn = self._conn
        # the usual case, nothing written since: one primary-key lookup, no transaction
        last = conn.execute("SELECT MAX(seq) FROM lexical_log").fetchone()[0]
        if last is None or int(last) <= state.seq:
            return True
        conn.execute("BEGIN")
        try:
            changed = conn.execute(
                "SELECT seq, rid FROM lexical_log WHERE seq > ? ORDER BY seq", (state.seq,)
            ).fetchall()
            if not changed:
                return True
            # entries are trimmed from the oldest: a gap after ours means some were never seen
            if changed[0][0] != state.seq + 1 or len(changed) > REPLAY_MAX:
                self._state = None
                return False
            rids = sorted({int(r[1]) for r in changed})
            rows: list[tuple[int, str, str]] = []
            for s in range(0, len(rids), 500):
                part = rids[s : s + 500]
                rows += conn.execute(
                    f"SELECT rowid, scope, text FROM memory_fts WHERE rowid IN ({', '.join('?' * len(part))})",
                    part,
                ).fetchall()
        finally:
            conn.execute("COMMIT")
        if self._tok is None:
            self._tok = _Tokenizer(self._tokenize)
        toks = self._tok.rows(rows) if rows else []
        state.remove(rids)
        state.add(toks)
        state.seq = int(changed[-1][0])
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._state = None  # the postings go with the store
            for conn in (self._conn, self._tok):
                if conn is not None:
                    conn.close()
            self._conn = self._tok = None

    # -- what it holds (for tests and the privacy checks) ---------------------------------------------
    def rows_holding(self, term: str) -> int:
        """Rows the index holds for a term as FTS5 stores it (stemmed); 0 when not built."""
        with self._lock:
            state = self._state
            got = state.postings(term) if state is not None else None
            return 0 if got is None else len(got[0])

    def terms(self) -> set[str]:
        """Every term the index holds (empty when not built)."""
        with self._lock:
            return set(self._state.terms) if self._state is not None else set()

    # -- searching -----------------------------------------------------------------------------------
    def ranked(self, phrases: Sequence[str], scope: str | None) -> tuple[np.ndarray, np.ndarray] | None:
        """Every row of ``scope`` (a scope token; None: the file) holding a term, and its BM25 score
        (higher is better) as ``bm25(memory_fts, 0.0, 1.0)`` would give it for ``phrases`` OR-ed in
        that order; None when the index is not built or the phrases are not single terms."""
        with self._lock:
            if self._state is None or not self._sync():
                return None  # not built yet, or dropped to be rebuilt: FTS5 answers meanwhile
            state = self._state
            if self._tok is None:
                self._tok = _Tokenizer(self._tokenize)
            terms: list[str] = []
            for phrase in phrases:
                text = _unquote(phrase)
                toks = self._tok.phrase(text) if text is not None else []
                if len(toks) != 1:
                    return None  # a prefix, an empty or a multi-token phrase: FTS5 answers it
                terms.append(toks[0])
            mask_of: np.ndarray | None = None
            code = 0
            if scope is not None:
                toks = self._tok.phrase(scope)
                if len(toks) != 1:
                    return None
                code = state.codes.get(toks[0], -1)
                # a scope holding every row of the file (one user) needs no mask
                if state.scope_rows.get(code, 0) < state.rows:
                    mask_of = state.tenant if scope.startswith("t") else state.user
            n = state.rows
            if n <= 0 or code < 0:
                return _EMPTY, _F64
            norm = state.norm()
            parts_rid: list[np.ndarray] = []
            parts_w: list[np.ndarray] = []
            for term in terms:
                got = state.postings(term)
                if got is None:
                    continue
                rid, tf32 = got
                hits = len(rid)
                # FTS5's bm25(): IDF from the rows holding the phrase, the same expression in the
                # same order (each sum below adds the phrases' terms in the query's order)
                idf = math.log((n - hits + 0.5) / (hits + 0.5))
                if idf <= 0.0:
                    idf = 1e-6
                if mask_of is not None:
                    keep = mask_of[rid] == code
                    rid, tf32 = rid[keep], tf32[keep]
                tf = tf32.astype(np.float64)  # every operation below in double, as FTS5's
                parts_rid.append(rid)
                parts_w.append(idf * ((tf * (K1 + 1.0)) / (tf + norm[rid])))
        if not parts_rid:
            return _EMPTY, _F64
        rid = np.concatenate(parts_rid)
        w = np.concatenate(parts_w)
        if len(parts_rid) == 1 or not len(rid):
            return rid, w
        # np.bincount adds each row's weights in input order: the terms' order, as bm25() does
        top = int(rid.max()) + 1
        total = np.bincount(rid, weights=w, minlength=top)
        seen = np.zeros(top, dtype=bool)
        seen[rid] = True
        rows = np.flatnonzero(seen).astype(np.int32)
        return rows, total[rows]


def best_first(rids: np.ndarray, scores: np.ndarray, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``start`` to ``start + count`` of the ranking, best score first, ties by rid: the
    ranking's head is found by a partition, only the rows needed are sorted."""
    n = len(rids)
    end = min(n, start + count)
    if start >= end:
        return _EMPTY, _F64
    if end < n:
        # every row scoring at least the end-th best (ties at the cut included), then sorted
        kth = np.partition(-scores, end - 1)[end - 1]
        pick = np.flatnonzero(-scores <= kth)
    else:
        pick = np.arange(n)
    order = pick[np.lexsort((rids[pick], -scores[pick]))][start:end]
    return rids[order], scores[order]
