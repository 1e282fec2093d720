"""The SQL store: every query that is the same on SQLite and PostgreSQL, written once over a dialect.

A backend supplies its :class:`~remnant.store.filter_sql.Dialect` (how its SQL is spelled) and the
few things that differ in substance: connections, transactions and error mapping (:meth:`_write`,
:meth:`_read`), the lexical index, vectors and maintenance. Everything else (columns, row mapping,
sort orders, batching, status changes, the audit chain, activity, meta, the importance scans) is
here, so the two backends cannot drift apart.

The extension seam for other layers' tables in the store's database (the privacy vault) is public:
:meth:`SQLStore.transaction`, :meth:`SQLStore.execute`, :meth:`SQLStore.execute_returning` and
:meth:`SQLStore.fetch`. Writes join the caller's transaction, so a vault entry commits or rolls
back with the memory it belongs to; :attr:`SQLStore.dialect` spells the placeholders. Their schemas
are components of :mod:`remnant.store.migrations`.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any, TypeVar

from remnant.core.audit import GENESIS, AuditDraft, AuditEntry, AuditHead, entry_hash, entry_mac
from remnant.core.clock import from_epoch
from remnant.core.errors import NotFoundError, ValidationError
from remnant.core.model import DEFAULT_TENANT, MemoryRecord, Status
from remnant.core.text import index_text as default_index_text
from remnant.store.base import (
    MemoryFilter,
    Order,
    Store,
    UserSummary,
    audit_entry_row,
    check_same_tenant,
    iter_batches,
    row_to_record,
    ts,
)
from remnant.store.filter_sql import Dialect, build_where, importance_params, importance_sql
from remnant.store.migrations import MEMORIES

T = TypeVar("T")
#: A connection of the backend's driver (sqlite3 or psycopg); ``execute`` returns a cursor.
Conn = Any

#: The memory columns in the order of :func:`remnant.store.base.row_to_record` (public: bulk loaders
#: and exports name them).
COLUMNS: tuple[str, ...] = (
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
    "occurred_at",
)
SELECT = ", ".join(f"m.{c}" for c in COLUMNS)
# Every order ends on the row id, so equal keys come back in insertion order on every backend;
# NULLs are placed explicitly (the backends' defaults differ).
ORDERS: dict[str, str] = {
    "created_at": "m.created_at ASC, m.rid ASC",
    "-created_at": "m.created_at DESC, m.rid DESC",
    "fade_at": "m.fade_at ASC, m.rid ASC",
    "-fade_at": "m.fade_at DESC, m.rid ASC",
    "last_accessed_at": "m.last_accessed_at ASC NULLS FIRST, m.rid ASC",
    "-last_accessed_at": "m.last_accessed_at DESC NULLS LAST, m.rid ASC",
    "importance": "m.importance ASC, m.rid ASC",
    "-importance": "m.importance DESC, m.rid ASC",
}
AUDIT_COLUMNS = (
    "seq, tenant, at, actor, action, reason, user_id, policy, batch_id, memory_ids, summary, details, "
    "prev_hash, hash, mac"
)

#: how a new signed head replaces the tenant's old one
AUDIT_HEAD_UPSERT = (
    "ON CONFLICT (tenant) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
    "signed_from = excluded.signed_from, mac = excluded.mac"
)


def audit_row(draft: AuditDraft, at: float, prev: str, digest: str) -> tuple[Any, ...]:
    """An audit entry's columns from ``tenant`` to ``hash`` (AUDIT_COLUMNS without seq and mac)."""
    return (
        draft.tenant,
        at,
        draft.actor,
        draft.action,
        draft.reason,
        draft.user_id,
        draft.policy,
        draft.batch_id,
        json.dumps(list(draft.memory_ids)),
        draft.summary,
        json.dumps(draft.details, sort_keys=True, default=str),
        prev,
        digest,
    )


def rarest_terms(terms: Sequence[T], counts: Sequence[int], budget: int) -> list[T]:
    """The rarest ``terms`` (``counts``: the rows each holds) whose rows together fit ``budget``:
    the ones a bounded lexical ranking reads in full (both backends)."""
    rare: list[T] = []
    used = 0
    for i in sorted(range(len(terms)), key=lambda i: counts[i]):
        if used + counts[i] > budget:
            break
        rare.append(terms[i])
        used += counts[i]
    return rare


def _run(c: Conn, query: str, params: Sequence[Any]) -> Any:
    # no parameters: run without any, so a driver never parses % or ? in the text as placeholders
    return c.execute(query, params) if params else c.execute(query)


def _audit_entry(r: Sequence[Any]) -> AuditEntry:
    return AuditEntry(
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
        r[14],
    )


#: ``remnant_meta`` keys of the completeness marks of :meth:`SQLStore.vectors_complete` (not exported)
VECTOR_MARK_PREFIX = "vectors-complete:"
#: rows written past a mark before a check that passes moves it up
VECTOR_MARK_STEP = 10_000
COUNT_MANY_CHUNK = 64  # filters per statement in count_many (bounded statement and parameter count)


class SQLStore(Store):
    """A :class:`Store` in a SQL database; subclasses supply the dialect and the backend seam."""

    #: Lexical ranking bounds: when a query's terms match more rows of the scope than
    #: ``lexical_budget``, the rarest terms' rows that fit are scored plus the newest
    #: ``lexical_window`` rows of the common terms (see the backends' ``lexical_search``).
    lexical_budget: int = 2000
    lexical_window: int = 1000
    #: :meth:`lexical_candidates` beyond the budget: the rows its rarest terms may hold
    candidate_budget: int = 500

    dialect: Dialect

    # -- the backend seam ------------------------------------------------------------------------
    @abstractmethod
    def _write(self, fn: Callable[[Conn], T]) -> T:
        """Run ``fn`` in the caller's transaction or a new one; driver errors come out mapped."""

    @abstractmethod
    def _read(self, query: Any, params: Sequence[Any] = (), *, binary: bool = False) -> list[Any]:
        """Rows of one query (in the caller's transaction if any); driver errors come out mapped."""

    @abstractmethod
    def _insert(self, c: Conn, rows: Sequence[tuple[MemoryRecord, str, str | None]]) -> None:
        """Insert memories with their lexical index text and duplicate digest (or None)."""

    @abstractmethod
    def _delete(self, c: Conn, tenant: str, ids: Sequence[str]) -> int:
        """Remove these memories with their index rows and vectors; how many went."""

    @abstractmethod
    def index_texts(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> dict[str, str]:
        """The lexical index text of each memory (for export)."""

    @abstractmethod
    def _set_index_text(self, c: Conn, tenant: str, memory_id: str, text: str) -> None:
        """Replace one memory's lexical index text."""

    def set_index_texts(self, items: Sequence[tuple[str, str]], *, tenant: str = DEFAULT_TENANT) -> None:
        if items:
            self._write(lambda c: [self._set_index_text(c, tenant, mid, text) for mid, text in items])

    def _lock_keys(self, c: Conn, flt: MemoryFilter, status: Status) -> None:
        """Before a status change: serialise writers of the same keys (where transactions do not)."""

    def _lock_audit_chain(self, c: Conn, tenant: str) -> None:
        """Before extending a tenant's audit chain: exclude other writers (where transactions do not)."""
        lock = self.dialect.lock_sql()
        if lock is not None:
            c.execute(lock, (tenant,))

    def _after_audit_import(self, c: Conn) -> None:
        """After verbatim audit rows went in: let later appends continue after them."""

    def _scan_source(self, flt: MemoryFilter) -> str:
        """The table expression a whole-filter scoring pass reads."""
        return "memories m"

    # -- the public extension seam ---------------------------------------------------------------
    def fetch(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one read query (placeholders in :attr:`dialect` spelling)."""
        return [tuple(r) for r in self._read(query, params)]

    def execute(self, query: str, params: Sequence[Any] = ()) -> int:
        """Run one write statement in the caller's transaction (or its own); the affected row count."""
        return int(self._write(lambda c: _run(c, query, params).rowcount))

    def execute_returning(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one write statement with ``RETURNING`` like :meth:`execute`; the rows it returned."""
        return [tuple(r) for r in self._write(lambda c: _run(c, query, params).fetchall())]

    def where(self, flt: MemoryFilter, alias: str = "m") -> tuple[str, list[Any]]:
        """A :class:`MemoryFilter` as this backend's SQL condition and its parameters."""
        return build_where(flt, self.dialect, alias)

    def record_row(self, r: MemoryRecord) -> tuple[Any, ...]:
        """A memory as the values of :data:`COLUMNS`, in order."""
        d = self.dialect
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
            d.flag(r.pinned),
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
            d.fade_param(r.fade_at),
            d.json_param(r.metadata),
            ts(r.occurred_at),
        )

    # -- meta --------------------------------------------------------------------------------------
    def schema_version(self) -> int:
        return int(self._read(f"SELECT MAX(version) FROM {MEMORIES.table}")[0][0])

    def get_meta(self, key: str) -> str | None:
        rows = self._read(f"SELECT value FROM remnant_meta WHERE key = {self.dialect.ph}", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self.execute(
            f"INSERT INTO remnant_meta (key, value) VALUES ({self.dialect.marks(2)}) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def claim_meta(self, key: str, value: str) -> str:
        # a concurrent claimer's uncommitted insert makes this one wait for it, then do nothing
        self.execute(
            f"INSERT INTO remnant_meta (key, value) VALUES ({self.dialect.marks(2)}) ON CONFLICT (key) DO NOTHING",
            (key, value),
        )
        stored = self.get_meta(key)
        assert stored is not None  # inserted above, or already there; meta keys are never deleted here
        return stored

    def meta(self) -> dict[str, str]:
        """Every meta key and value (for export)."""
        return {r[0]: r[1] for r in self._read("SELECT key, value FROM remnant_meta ORDER BY key")}

    # -- memories --------------------------------------------------------------------------------
    def insert(self, record: MemoryRecord, *, index_text: str | None = None) -> None:
        self.insert_many([(record, index_text)])

    def insert_many(
        self,
        items: Sequence[tuple[MemoryRecord, str | None]],
        *,
        digests: Mapping[str, str] | None = None,
    ) -> None:
        """Insert many memories in one transaction (one batched statement); used by the ledger's
        writes, import and bulk loads. ``digests``: id -> duplicate digest, written with the row."""
        got = digests or {}
        rows = [
            (r, text if text is not None else default_index_text(r.content), got.get(r.id))
            for r, text in items
        ]
        if rows:
            self._write(lambda c: self._insert(c, rows))

    def update(self, record: MemoryRecord) -> None:
        self.update_many([record])

    def update_many(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        p = self.dialect.ph
        sets = ", ".join(f"{c} = {p}" for c in COLUMNS[1:])
        # user_id in the key keeps this a single-shard statement when distributed by user
        sql = f"UPDATE memories SET {sets} WHERE id = {p} AND tenant = {p} AND user_id = {p}"
        rows = [(*self.record_row(r)[1:], r.id, r.tenant, r.user_id) for r in records]

        def run(c: Conn) -> None:
            if len(rows) == 1:
                cur = c.execute(sql, rows[0])
                if cur.rowcount == 0:
                    raise NotFoundError(f"no memory {records[0].id}")
                return
            # one batch (psycopg pipelines it: one round trip); the count tells whether any was gone
            cur = c.cursor()
            cur.executemany(sql, rows)
            if cur.rowcount < len(rows):
                raise NotFoundError(f"no memory among {', '.join(r.id for r in records)}")

        self._write(run)

    def get(self, memory_id: str, *, tenant: str = DEFAULT_TENANT) -> MemoryRecord | None:
        p = self.dialect.ph
        rows = self._read(
            f"SELECT {SELECT} FROM memories m WHERE m.id = {p} AND m.tenant = {p}", (memory_id, tenant)
        )
        return row_to_record(rows[0]) if rows else None

    def by_digest(self, digest: str, *, tenant: str, user_id: str) -> list[MemoryRecord]:
        p = self.dialect.ph
        # No ORDER BY in SQL: with one, SQLite walks the user's whole scope on ix_memories_created
        # (24 ms at 10k memories) instead of taking the few rows of the digest index (0.01 ms).
        # A digest's rows are the copies of one text, a handful: sorted here, oldest first.
        rows = self._read(
            f"SELECT {SELECT}, m.rid FROM memories m "
            f"WHERE m.tenant = {p} AND m.user_id = {p} AND m.digest = {p}",
            (tenant, user_id, digest),
        )
        rows.sort(key=lambda r: (r[COLUMNS.index("created_at")], r[-1]))
        return [row_to_record(r[:-1]) for r in rows]

    def by_digests(
        self, digests: Sequence[str], *, tenant: str, user_id: str
    ) -> dict[str, list[MemoryRecord]]:
        p = self.dialect.ph
        out: dict[str, list[MemoryRecord]] = {}
        wanted = list(dict.fromkeys(digests))
        # a bounded number of parameters a statement; each chunk one probe of the digest index a digest
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = self._read(
                f"SELECT {SELECT}, m.rid, m.digest FROM memories m WHERE m.tenant = {p} AND m.user_id = {p} "
                f"AND m.digest IN ({self.dialect.marks(len(chunk))})",
                (tenant, user_id, *chunk),
            )
            rows.sort(key=lambda r: (r[COLUMNS.index("created_at")], r[-2]))  # oldest first, as by_digest
            for r in rows:
                out.setdefault(str(r[-1]), []).append(row_to_record(r[:-2]))
        return out

    def digests_of(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> dict[str, str]:
        p, out = self.dialect.ph, {}
        for mid in dict.fromkeys(ids):  # a handful at a time (updates); one indexed lookup each
            rows = self._read(f"SELECT digest FROM memories WHERE id = {p} AND tenant = {p}", (mid, tenant))
            if rows and rows[0][0] is not None:
                out[mid] = str(rows[0][0])
        return out

    def set_digests(self, items: Sequence[tuple[str, str]], *, tenant: str = DEFAULT_TENANT) -> None:
        p = self.dialect.ph
        if items:
            self._write(
                lambda c: [
                    c.execute(
                        f"UPDATE memories SET digest = {p} WHERE id = {p} AND tenant = {p}", (d, mid, tenant)
                    )
                    for mid, d in items
                ]
            )

    def set_entities(
        self, items: Sequence[tuple[str, str, Sequence[tuple[str, str]]]], *, tenant: str = DEFAULT_TENANT
    ) -> None:
        p = self.dialect.ph
        if not items:
            return

        d = self.dialect
        ids = list(dict.fromkeys(mid for mid, _, _ in items))
        # one row per key (the first kind read wins); a row is written only for a memory of this
        # tenant and user (the SELECT), so an entity row never points at another scope's memory
        rows = [
            (kind, key, mid, tenant, user_id)
            for mid, user_id, pairs in items
            for key, kind in {key: kind for kind, key in reversed(list(pairs))}.items()
        ]

        def run(c: Any) -> None:
            for batch in iter_batches(ids):
                c.execute(
                    f"DELETE FROM memory_entities WHERE tenant = {p} AND memory_id IN ({d.marks(len(batch))})",
                    (tenant, *batch),
                )
            if rows:
                c.cursor().executemany(
                    f"INSERT INTO memory_entities (memory_id, tenant, user_id, kind, key) "
                    f"SELECT id, tenant, user_id, {p}, {p} FROM memories "
                    f"WHERE id = {p} AND tenant = {p} AND user_id = {p}",
                    rows,
                )

        self._write(run)

    def entities_of(
        self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT
    ) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        d = self.dialect
        for batch in iter_batches(list(dict.fromkeys(ids))):
            rows = self._read(
                f"SELECT memory_id, kind, key FROM memory_entities "
                f"WHERE tenant = {d.ph} AND memory_id IN ({d.marks(len(batch))}) ORDER BY memory_id, key",
                (tenant, *batch),
            )
            for mid, kind, key in rows:
                out.setdefault(mid, []).append((kind, key))
        return out

    def entity_memories(
        self, keys: Sequence[str], *, tenant: str, user_id: str | None, limit: int
    ) -> dict[str, list[str]]:
        p = self.dialect.ph
        wanted = list(dict.fromkeys(keys))
        out: dict[str, list[str]] = {k: [] for k in wanted}
        if not wanted:
            return out
        # one statement: a bounded index lookup per key (each its own LIMIT), UNION ALL-ed
        scope = f"tenant = {p} AND key = {p}" + (f" AND user_id = {p}" if user_id is not None else "")
        parts, params = [], []
        for n, key in enumerate(wanted):
            parts.append(
                f"SELECT * FROM (SELECT key, memory_id FROM memory_entities WHERE {scope} LIMIT {p}) AS e{n}"
            )
            params.extend([tenant, key, *([user_id] if user_id is not None else []), limit])
        for key, mid in self._read(" UNION ALL ".join(parts), params):
            out[key].append(mid)
        return out

    def get_many(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> list[MemoryRecord]:
        d = self.dialect
        out: dict[str, MemoryRecord] = {}
        for batch in iter_batches(list(ids)):
            params: list[Any] = [tenant]
            cond = d.within("m.id", batch, params)
            for row in self._read(
                f"SELECT {SELECT} FROM memories m WHERE {d.unindexed('m.tenant')} = {d.ph} AND {cond}", params
            ):
                rec = row_to_record(row)
                out[rec.id] = rec
        return [out[i] for i in ids if i in out]

    def query(
        self, flt: MemoryFilter, *, order: Order = "created_at", limit: int | None = None, offset: int = 0
    ) -> list[MemoryRecord]:
        p = self.dialect.ph
        where, params = self.where(flt)
        q = f"SELECT {SELECT} FROM memories m WHERE {where} ORDER BY {ORDERS[order]}"
        if limit is not None or offset:
            q += f" LIMIT {p} OFFSET {p}"
            params += [limit if limit is not None else self.dialect.no_limit, offset]
        return [row_to_record(r) for r in self._read(q, params)]

    def count(self, flt: MemoryFilter) -> int:
        where, params = self.where(flt)
        return int(self._read(f"SELECT COUNT(*) FROM memories m WHERE {where}", params)[0][0])

    def count_many(self, scope: MemoryFilter, filters: Sequence[MemoryFilter]) -> list[int]:
        """One scan of ``scope`` per chunk of filters: ``SUM(CASE WHEN <filter> ...)`` for each."""
        check_same_tenant(scope, filters)
        out: list[int] = []
        scope_where, scope_params = self.where(scope)
        for start in range(0, len(filters), COUNT_MANY_CHUNK):
            sums, params = [], []
            for f in filters[start : start + COUNT_MANY_CHUNK]:
                w, p = self.where(f)
                sums.append(f"COALESCE(SUM(CASE WHEN {w} THEN 1 ELSE 0 END), 0)")
                params.extend(p)
            row = self._read(
                f"SELECT {', '.join(sums)} FROM memories m WHERE {scope_where}", [*params, *scope_params]
            )[0]
            out.extend(int(v) for v in row)
        return out

    def ids(self, flt: MemoryFilter, *, limit: int | None = None) -> list[str]:
        where, params = self.where(flt)
        q = f"SELECT m.id FROM memories m WHERE {where} ORDER BY m.rid"
        if limit is not None:
            q += f" LIMIT {self.dialect.ph}"
            params.append(limit)
        return [r[0] for r in self._read(q, params)]

    def written_since(self, flt: MemoryFilter, mark: int, *, limit: int) -> list[MemoryRecord]:
        # ">=": SQLite may hand the newest rowid out again after that row was deleted. The new rows
        # are taken first by rowid (a few, just written), so no index of the scope is walked.
        p = self.dialect.ph
        where, params = self.where(flt)
        q = (
            f"WITH m AS MATERIALIZED (SELECT * FROM memories WHERE rid >= {p}) "
            f"SELECT {SELECT} FROM m WHERE {where} ORDER BY m.rid LIMIT {p}"
        )
        return [row_to_record(r) for r in self._read(q, [mark, *params, limit])]

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
        p = self.dialect.ph
        where, params = self.where(flt)
        validity = (
            f", valid_to = CASE WHEN m.valid_to IS NULL OR m.valid_to > {p} THEN {p} ELSE m.valid_to END"
            if close_validity
            else ""
        )
        # One statement: only rows not already in the target status change, and RETURNING reports
        # exactly those, so two concurrent sweeps never both claim (and audit) a change. PostgreSQL
        # re-checks ``status <> target`` on the newest row version after a lock wait.
        q = (
            f"UPDATE memories AS m SET status = {p}, status_reason = {p}, status_changed_at = {p}, "
            f"superseded_by = COALESCE({p}, m.superseded_by){validity} "
            f"WHERE {where} AND m.status <> {p} RETURNING rid, id, user_id"
        )
        args: list[Any] = [status.value, reason, at, superseded_by, *([at, at] if close_validity else [])]
        args += [*params, status.value]

        def run(c: Conn) -> list[Any]:
            self._lock_keys(c, flt, status)
            return list(c.execute(q, args).fetchall())

        return [(r[1], r[2]) for r in sorted(self._write(run), key=lambda r: r[0])]

    def touch(self, ids: Sequence[str], *, at: float, tenant: str = DEFAULT_TENANT) -> None:
        d = self.dialect

        def run(c: Conn) -> None:
            for batch in iter_batches(list(ids)):
                params: list[Any] = [at, tenant]
                cond = d.within("id", batch, params)
                c.execute(
                    f"UPDATE memories SET last_accessed_at = {d.ph}, access_count = access_count + 1 "
                    f"WHERE {d.unindexed('tenant')} = {d.ph} AND {cond}",
                    params,
                )

        if ids:
            self._write(run)

    def delete(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> int:
        if not ids:
            return 0
        return self._write(lambda c: sum(self._delete(c, tenant, b) for b in iter_batches(list(ids))))

    # -- embeddings (the shared parts; vectors themselves are the backend's) ----------------------
    _EMBEDDING_OF = "e.rid = m.rid"  # how an embeddings row points at its memory

    def unembedded_ids(self, flt: MemoryFilter, *, model: str, limit: int | None = None) -> list[str]:
        p = self.dialect.ph
        where, params = self.where(flt)
        q = (
            f"SELECT m.id FROM memories m WHERE {where} AND NOT EXISTS "
            f"(SELECT 1 FROM embeddings e WHERE {self._EMBEDDING_OF} AND e.model = {p}) ORDER BY m.rid"
        )
        params.append(model)
        if limit is not None:
            q += f" LIMIT {p}"
            params.append(limit)
        return [r[0] for r in self._read(q, params)]

    def vectors_complete(self, tenant: str, model: str) -> bool:
        """Whether every memory of ``tenant`` has a ``model`` vector.

        The full check is two index counts (instead of the anti-join of :meth:`unembedded_ids`,
        378 ms at 100k on SQLite), but at 1M they read ~180 MB of index pages: 0.27 s, once per
        scope in every new process. When it passes, a mark is kept in ``remnant_meta``: the tenant's
        newest memory then (rid and id). A later check looks only at memories written after it
        (a walk up the rid index), as long as the marked memory is still there with the same id:
        rids grow, so every memory at or below a rid that still holds its memory was there when
        the mark was made (a deleted newest row can hand its rid to the next insert; then the
        marked memory is gone and the full check runs again). Vectors are only removed with their
        memories. The mark describes this database's rids, so it is never exported.
        """
        p = self.dialect.ph
        key = VECTOR_MARK_PREFIX + json.dumps([tenant, model])
        mark = self._vector_mark(self.get_meta(key))
        if mark is not None:
            rid, mid = mark
            # ``|| ''`` keeps the planner on the rid range rather than a (tenant, ...) index
            row = self._read(
                f"SELECT (SELECT id FROM memories WHERE rid = {p}), EXISTS (SELECT 1 FROM memories m "
                f"WHERE m.rid > {p} AND m.tenant || '' = {p} AND NOT EXISTS (SELECT 1 FROM embeddings e "
                f"WHERE {self._EMBEDDING_OF} AND e.model = {p})), (SELECT MAX(rid) FROM memories)",
                (rid, rid, tenant, model),
            )[0]
            if row[0] == mid:
                complete = not row[1]
                if complete and row[2] is not None and int(row[2]) - rid > VECTOR_MARK_STEP:
                    self._set_vector_mark(key, tenant)  # keep the walk short
                return complete
        newest = self._newest(tenant)
        memories = int(self._read(f"SELECT COUNT(*) FROM memories WHERE tenant = {p}", (tenant,))[0][0])
        complete = memories <= self.embedding_count(tenant, model)
        if complete and newest is not None:
            self.set_meta(key, json.dumps(list(newest)))
        return complete

    def _newest(self, tenant: str) -> tuple[int, str] | None:
        p = self.dialect.ph
        # down the rid index from the top until the tenant's first row (not a sort of its rows)
        rows = self._read(
            f"SELECT rid, id FROM memories WHERE tenant || '' = {p} ORDER BY rid DESC LIMIT 1", (tenant,)
        )
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def _set_vector_mark(self, key: str, tenant: str) -> None:
        newest = self._newest(tenant)
        if newest is not None:
            self.set_meta(key, json.dumps(list(newest)))

    @staticmethod
    def _vector_mark(value: str | None) -> tuple[int, str] | None:
        try:
            rid, mid = json.loads(value) if value else (None, None)
        except (ValueError, TypeError):
            return None  # an unreadable mark is no mark: the full check runs
        return (int(rid), str(mid)) if isinstance(rid, int) and isinstance(mid, str) else None

    def embedding_models(self, *, tenant: str = DEFAULT_TENANT) -> list[str]:
        q = f"SELECT DISTINCT model FROM embeddings WHERE tenant = {self.dialect.ph} ORDER BY model"
        return [r[0] for r in self._read(q, (tenant,))]

    def embedding_count(self, tenant: str, model: str) -> int:
        """How many vectors ``model`` has in ``tenant`` (for export)."""
        p = self.dialect.ph
        q = f"SELECT COUNT(*) FROM embeddings WHERE tenant = {p} AND model = {p}"
        return int(self._read(q, (tenant, model))[0][0])

    # -- audit -----------------------------------------------------------------------------------
    def _extend_chain(
        self, c: Conn, draft: AuditDraft, at: float, key: bytes | None
    ) -> tuple[int, str, str, str | None]:
        """Append ``draft`` to its tenant's chain (and move the signed head) on ``c``, in the caller's
        transaction: ``(seq, prev hash, hash, mac)``."""
        d = self.dialect
        # the chain of a tenant grows one link at a time, whichever process writes
        self._lock_audit_chain(c, draft.tenant)
        row = c.execute(
            f"SELECT hash FROM audit_log WHERE tenant = {d.ph} ORDER BY seq DESC LIMIT 1", (draft.tenant,)
        ).fetchone()
        prev = row[0] if row else GENESIS
        digest = entry_hash(prev, draft, at)
        mac = entry_mac(key, draft.tenant, digest) if key is not None else None
        seq = int(
            c.execute(
                f"INSERT INTO audit_log ({AUDIT_COLUMNS.removeprefix('seq, ')}) VALUES ({d.marks(14)}) "
                "RETURNING seq",
                (*audit_row(draft, at, prev, digest), mac),
            ).fetchone()[0]
        )
        if key is None:
            return seq, prev, digest, None
        # the head moves in the same transaction as the entry it names
        row = c.execute(
            f"SELECT signed_from FROM audit_heads WHERE tenant = {d.ph}", (draft.tenant,)
        ).fetchone()
        head = AuditHead.sign(key, draft.tenant, seq, digest, int(row[0]) if row else seq)
        c.execute(
            f"INSERT INTO audit_heads (tenant, seq, hash, signed_from, mac) VALUES ({d.marks(5)}) "
            f"{AUDIT_HEAD_UPSERT}",
            (head.tenant, head.seq, head.hash, head.signed_from, head.mac),
        )
        return seq, prev, digest, mac

    def append_audit(self, draft: AuditDraft, *, key: bytes | None = None) -> AuditEntry:
        at = draft.at.timestamp()
        seq, prev, digest, mac = self._write(lambda c: self._extend_chain(c, draft, at, key))
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
            mac,
        )

    def audit_head(self, tenant: str = DEFAULT_TENANT) -> AuditHead | None:
        p = self.dialect.ph
        rows = self._read(
            f"SELECT tenant, seq, hash, signed_from, mac FROM audit_heads WHERE tenant = {p}", (tenant,)
        )
        return (
            AuditHead(rows[0][0], int(rows[0][1]), rows[0][2], int(rows[0][3]), rows[0][4]) if rows else None
        )

    def audit_heads(self) -> list[AuditHead]:
        """Every tenant's signed head (for export)."""
        rows = self._read("SELECT tenant, seq, hash, signed_from, mac FROM audit_heads ORDER BY tenant")
        return [AuditHead(r[0], int(r[1]), r[2], int(r[3]), r[4]) for r in rows]

    def import_audit_heads(self, heads: Sequence[AuditHead]) -> None:
        """Insert signed heads verbatim (import into an empty store)."""
        for h in heads:
            self.execute(
                f"INSERT INTO audit_heads (tenant, seq, hash, signed_from, mac) VALUES ({self.dialect.marks(5)})",
                (h.tenant, h.seq, h.hash, h.signed_from, h.mac),
            )

    def import_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Insert audit entries verbatim (seq, hashes and all), for import into an empty store."""
        rows = [audit_entry_row(e) for e in entries]

        def run(c: Conn) -> None:
            c.cursor().executemany(
                f"INSERT INTO audit_log ({AUDIT_COLUMNS}) VALUES ({self.dialect.marks(15)})", rows
            )
            self._after_audit_import(c)

        if rows:
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
        p = self.dialect.ph
        q = f"SELECT {AUDIT_COLUMNS} FROM audit_log WHERE tenant = {p} AND seq > {p}"
        params: list[Any] = [tenant, since_seq]
        for column, value in (("user_id", user_id), ("action", action)):
            if value is not None:
                q += f" AND {column} = {p}"
                params.append(value)
        q += " ORDER BY seq"
        if limit is not None:
            q += f" LIMIT {p}"
            params.append(limit)
        return [_audit_entry(r) for r in self._read(q, params)]

    # -- activity --------------------------------------------------------------------------------
    def mark_active(self, tenant: str, user_id: str, day: date) -> None:
        self.execute(
            f"INSERT INTO activity (tenant, user_id, day) VALUES ({self.dialect.marks(3)}) ON CONFLICT DO NOTHING",
            (tenant, user_id, self.dialect.day(day)),
        )

    def active_day_count(self, tenant: str, user_id: str, until: date) -> int:
        p = self.dialect.ph
        q = f"SELECT COUNT(*) FROM activity WHERE tenant = {p} AND user_id = {p} AND day <= {p}"
        return int(self._read(q, (tenant, user_id, self.dialect.day(until)))[0][0])

    def forget_activity(self, tenant: str, user_id: str) -> int:
        p = self.dialect.ph
        return self.execute(f"DELETE FROM activity WHERE tenant = {p} AND user_id = {p}", (tenant, user_id))

    def activity(self, tenant: str) -> list[tuple[str, date]]:
        """Every (user_id, day) a user of ``tenant`` was active (for export)."""
        q = f"SELECT user_id, day FROM activity WHERE tenant = {self.dialect.ph} ORDER BY user_id, day"
        return [(r[0], self.dialect.day_value(r[1])) for r in self._read(q, (tenant,))]

    # -- overview --------------------------------------------------------------------------------
    def users(self, *, tenant: str = DEFAULT_TENANT, limit: int = 1000) -> list[UserSummary]:
        p = self.dialect.ph
        rows = self._read(
            "SELECT user_id, COUNT(*), SUM(CASE WHEN status = 'active' THEN 1 ELSE 0 END) FROM memories "
            f"WHERE tenant = {p} GROUP BY user_id ORDER BY user_id LIMIT {p}",
            (tenant, limit),
        )
        return [UserSummary(r[0], int(r[1]), int(r[2] or 0)) for r in rows]

    def tenants(self) -> list[str]:
        rows = self._read(
            "SELECT tenant FROM memories UNION SELECT tenant FROM audit_log "
            "UNION SELECT tenant FROM activity ORDER BY 1"
        )
        return [r[0] for r in rows]

    def status_counts(self, flt: MemoryFilter) -> dict[str, int]:
        where, params = self.where(flt)
        rows = self._read(
            f"SELECT m.status, COUNT(*) FROM memories m WHERE {where} GROUP BY m.status", params
        )
        return {r[0]: int(r[1]) for r in rows}

    def metadata_values(self, flt: MemoryFilter, key: str, *, limit: int = 1000) -> list[str]:
        if not key.replace("_", "").isalnum():
            raise ValidationError(f"metadata key {key!r} must be alphanumeric")
        params: list[Any] = []
        value = self.dialect.metadata_text("m", key, params)
        where, wparams = self.where(flt)
        rows = self._read(
            f"SELECT DISTINCT v FROM (SELECT {value} AS v FROM memories m WHERE {where}) s "
            f"WHERE v IS NOT NULL LIMIT {self.dialect.ph}",
            [*params, *wparams, limit],
        )
        return [r[0] for r in rows]

    def id_users(self, flt: MemoryFilter) -> list[tuple[str, str]]:
        where, params = self.where(flt)
        rows = self._read(
            f"SELECT m.id, m.user_id FROM memories m WHERE {where} ORDER BY m.user_id, m.rid", params
        )
        return [(r[0], r[1]) for r in rows]

    # -- importance (eviction): the score in SQL, rendered from remnant.core.importance.SCORE -----
    def low_importance(
        self, flt: MemoryFilter, *, now: float, decay_per_day: float, mark_weight: float, below: float
    ) -> list[tuple[str, str, float]]:
        d = self.dialect
        where, params = self.where(flt)
        q = (
            f"SELECT id, user_id, score FROM (SELECT m.id, m.user_id, {importance_sql(d)} AS score "
            f"FROM {self._scan_source(flt)} WHERE {where} AND m.pinned = {d.ph}) s WHERE score < {d.ph}"
        )
        args = [*importance_params(now, decay_per_day, mark_weight), *params, d.flag(False), below]
        return [(r[0], r[1], float(r[2])) for r in self._read(q, args)]

    def over_capacity(
        self, flt: MemoryFilter, *, now: float, decay_per_day: float, mark_weight: float, keep: int
    ) -> list[tuple[str, str, float]]:
        d = self.dialect
        where, params = self.where(flt)
        # only users over the limit are ranked: a grouped count first, so a sweep where nobody is
        # over capacity costs one pass
        over = [
            r[0]
            for r in self._read(
                f"SELECT m.user_id FROM {self._scan_source(flt)} WHERE {where} "
                f"GROUP BY m.user_id HAVING COUNT(*) > {d.ph}",
                [*params, keep],
            )
        ]
        out: list[tuple[str, str, float]] = []
        for batch in iter_batches(over, 200):
            args: list[Any] = [*importance_params(now, decay_per_day, mark_weight), *params]
            users = d.within("m.user_id", batch, args)
            # pinned rows rank first (as if their score were +inf) and are never returned
            q = (
                f"SELECT id, user_id, score FROM (SELECT id, user_id, pinned, score, ROW_NUMBER() OVER "
                f"(PARTITION BY user_id ORDER BY pinned DESC, score DESC, created_at DESC) AS rank FROM "
                f"(SELECT m.id, m.user_id, m.pinned, m.created_at, {importance_sql(d)} AS score "
                f"FROM memories m WHERE {where} AND {users}) s) r WHERE rank > {d.ph} AND pinned = {d.ph}"
            )
            rows = self._read(q, [*args, keep, d.flag(False)])
            out.extend((r[0], r[1], float(r[2])) for r in rows)
        return out
