"""The store contract. SQLite is the embedded default; PostgreSQL implements the same contract.

The engine never writes SQL: it asks the store for set-based operations (a filter and a change),
so each backend can do them in one statement inside the database. Contract tests in
``tests/store/test_contract.py`` run against every backend.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np

from remnant.core.audit import AuditDraft, AuditEntry, AuditHead
from remnant.core.clock import from_epoch
from remnant.core.importance import ImportanceWeights, importance_score_raw
from remnant.core.model import DEFAULT_TENANT, Kind, MemoryRecord, Status, readable_metadata

SCHEMA_VERSION = 2  # 2: occurred_at
#: remnant_meta key of the duplicate digests' key when no audit key is set (engine/ledger.py): never
#: exported (another store's digests are its own; imported rows carry none)
DIGEST_KEY_META = "dedup_digest_key"

Order = Literal[
    "created_at",
    "-created_at",
    "fade_at",
    "-fade_at",
    "last_accessed_at",
    "-last_accessed_at",
    "importance",
    "-importance",
]


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories an operation applies to. Every filter is bounded by a tenant.

    ``statuses=None`` means every status. ``remembered_at`` keeps memories whose fade time lies after
    that decay-axis day (still remembered); ``faded_by`` keeps those whose fade time is at or before it.
    ``now`` drops expired memories; ``valid_at`` keeps memories whose validity window contains it
    (a memory without ``valid_from`` is valid from its ``created_at``).
    Times are epoch seconds (the store's representation).
    """

    tenant: str = DEFAULT_TENANT
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    ids: tuple[str, ...] | None = None
    kinds: tuple[Kind, ...] | None = None
    keys: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    statuses: tuple[Status, ...] | None = (Status.ACTIVE,)
    pinned: bool | None = None
    remembered_at: float | None = None
    faded_by: float | None = None
    now: float | None = None
    expired_by: float | None = None
    valid_at: float | None = None
    created_after: float | None = None
    created_before: float | None = None
    accessed_before: float | None = None
    changed_before: float | None = None  # status changed at or before (purges after a grace period)
    metadata: dict[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] | None = None


def check_same_tenant(scope: MemoryFilter, filters: Sequence[MemoryFilter]) -> None:
    from remnant.core.errors import ValidationError

    if any(f.tenant != scope.tenant for f in filters):
        raise ValidationError("count_many: every filter must be in the scope's tenant")


@dataclass(frozen=True)
class UserSummary:
    user_id: str
    total: int
    active: int


class Store(ABC):
    """Persistence for memories, embeddings, the audit log and user activity."""

    url: str

    # -- lifecycle -------------------------------------------------------------------------------
    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """A write transaction; nested calls join the outer one. Everything inside commits or nothing.

        Public on purpose: other layers that keep tables in the store's database (the privacy vault)
        write inside it through :class:`~remnant.store.sql.SQLStore`'s ``execute`` and ``fetch``."""

    def exclusive(self) -> AbstractContextManager[Any]:
        """Hold off every other user of this store object (no transaction opened) around an
        operation that runs several transactions and touches side tables between them (erasure,
        forget requests). A backend whose connections are per-call (PostgreSQL's pool) needs
        nothing here; one that shares a connection between threads (SQLite) holds its lock."""
        return nullcontext()

    @abstractmethod
    def schema_version(self) -> int: ...

    @abstractmethod
    def get_meta(self, key: str) -> str | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    def claim_meta(self, key: str, value: str) -> str:
        """Set ``key`` to ``value`` unless it is already set, and return what is stored: of two
        processes claiming a key at once, both get the first one's value (a get-or-create that a
        separate get and set would race). Stores with concurrent writers override this atomically."""
        current = self.get_meta(key)
        if current is None:
            self.set_meta(key, value)
            return value
        return current

    # -- memories --------------------------------------------------------------------------------
    @abstractmethod
    def insert(self, record: MemoryRecord, *, index_text: str | None = None) -> None:
        """Insert a new memory and its lexical index row (``index_text`` defaults to the content)."""

    def insert_many(
        self,
        items: Sequence[tuple[MemoryRecord, str | None]],
        *,
        digests: Mapping[str, str] | None = None,
    ) -> None:
        """Insert many new memories (record, index text) in one transaction, with the duplicate
        digest of those in ``digests`` (id -> digest) written with the row; a SQL store sends them
        as one batch (one round trip on PostgreSQL)."""
        with self.transaction():
            for record, text in items:
                self.insert(record, index_text=text)
            if digests:
                self.set_digests(
                    list(digests.items()), tenant=items[0][0].tenant if items else DEFAULT_TENANT
                )

    @abstractmethod
    def set_index_texts(self, items: Sequence[tuple[str, str]], *, tenant: str = DEFAULT_TENANT) -> None:
        """Replace the lexical index text of existing memories (a neighbour's text left them)."""

    @abstractmethod
    def update(self, record: MemoryRecord) -> None:
        """Overwrite every column of an existing memory (content is immutable: re-index only if changed)."""

    def update_many(self, records: Sequence[MemoryRecord]) -> None:
        """:meth:`update` of each record, in one transaction; a SQL store sends them as one batch
        (one round trip on PostgreSQL). Raises ``NotFoundError`` if any of them is gone."""
        for record in records:
            self.update(record)

    @abstractmethod
    def get(self, memory_id: str, *, tenant: str = DEFAULT_TENANT) -> MemoryRecord | None: ...

    @abstractmethod
    def get_many(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> list[MemoryRecord]: ...

    @abstractmethod
    def query(
        self, flt: MemoryFilter, *, order: Order = "created_at", limit: int | None = None, offset: int = 0
    ) -> list[MemoryRecord]: ...

    @abstractmethod
    def count(self, flt: MemoryFilter) -> int: ...

    def count_many(self, scope: MemoryFilter, filters: Sequence[MemoryFilter]) -> list[int]:
        """``[count(f) for f in filters]``, for filters inside ``scope`` (same tenant, as narrow or
        narrower; a SQL store counts only what is in the scope). A SQL store counts them all in one
        pass over the scope's rows (the inspector's overview asks for hundreds of counts)."""
        check_same_tenant(scope, filters)
        return [self.count(f) for f in filters]

    @abstractmethod
    def ids(self, flt: MemoryFilter, *, limit: int | None = None) -> list[str]: ...

    @abstractmethod
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
        """Set-based status change; returns (id, user_id) of the memories that changed.

        ``close_validity`` ends open validity windows at ``at`` (used when a fact is superseded).
        """

    @abstractmethod
    def touch(self, ids: Sequence[str], *, at: float, tenant: str = DEFAULT_TENANT) -> None:
        """Record an access (last_accessed_at, access_count) without changing the decay state."""

    @abstractmethod
    def delete(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> int:
        """Purge: remove the rows, their index rows and embeddings for good. Returns how many went."""

    @abstractmethod
    def lexical_search(self, match: str, flt: MemoryFilter, *, limit: int = 50) -> list[tuple[str, float]]:
        """Full-text search; ``match`` is a backend query expression. Returns (id, score), best first."""

    def lexical_candidates(
        self, match: str, flt: MemoryFilter, *, limit: int = 20
    ) -> list[tuple[str, float]]:
        """Memories sharing words with ``match`` for a check that judges each one (contradictions),
        best first; a backend may bound the work at scale more tightly than :meth:`lexical_search`
        (the rarest terms' rows and the newest rows, not a ranking of every match)."""
        return self.lexical_search(match, flt, limit=limit)

    # -- embeddings ------------------------------------------------------------------------------
    @abstractmethod
    def put_embeddings(
        self, items: Sequence[tuple[str, str, np.ndarray]], *, tenant: str = DEFAULT_TENANT
    ) -> None:
        """Store (memory id, model id, vector) triples."""

    @abstractmethod
    def embeddings(self, flt: MemoryFilter, *, model: str) -> tuple[list[str], np.ndarray]:
        """Vectors of the memories matching ``flt`` made by ``model``: ids and a (n, dim) float32 matrix."""

    @abstractmethod
    def embedding_models(self, *, tenant: str = DEFAULT_TENANT) -> list[str]: ...

    @abstractmethod
    def unembedded_ids(self, flt: MemoryFilter, *, model: str, limit: int | None = None) -> list[str]:
        """Ids of memories matching ``flt`` that have no vector from ``model`` (oldest first)."""

    def vectors_complete(self, tenant: str, model: str) -> bool:
        """Whether every memory of ``tenant`` has a ``model`` vector (``False`` when unsure: the
        caller then looks for the missing ones)."""
        return False

    def write_mark(self) -> int | None:
        """A mark of what has been written so far, for :meth:`written_since`; ``None`` when the store
        cannot say exactly (then callers re-check everything inside their write transaction). A store
        returns a mark only when every row inserted after it has a greater insertion number once
        committed (SQLite: its transactions are serialised; not PostgreSQL, whose commits may land
        out of sequence order)."""
        return None

    def written_since(self, flt: MemoryFilter, mark: int, *, limit: int) -> list[MemoryRecord]:
        """Memories matching ``flt`` inserted at or after ``mark`` (from :meth:`write_mark`), oldest
        first, at most ``limit``."""
        raise NotImplementedError("this store gives no write mark")

    def by_digest(self, digest: str, *, tenant: str, user_id: str) -> list[MemoryRecord]:
        """The user's memories (any status) whose text digest is ``digest``, oldest first: an index
        lookup (``ix_memories_digest``), never a scan. The default keeps no digests and finds none."""
        return []

    def by_digests(
        self, digests: Sequence[str], *, tenant: str, user_id: str
    ) -> dict[str, list[MemoryRecord]]:
        """:meth:`by_digest` of each digest (those with no memory left out), in one statement on a
        SQL store: a batch's duplicate lookups, one round trip rather than one an item."""
        out = {d: self.by_digest(d, tenant=tenant, user_id=user_id) for d in dict.fromkeys(digests)}
        return {d: rs for d, rs in out.items() if rs}

    def digests_of(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> dict[str, str]:
        """The text digest of each of these memories that has one. The default keeps none."""
        return {}

    def set_digests(self, items: Sequence[tuple[str, str]], *, tenant: str = DEFAULT_TENANT) -> None:
        """Record the text digest of these (memory id, digest) pairs; it goes with the row. The
        default keeps none (then no write is ever found to repeat another)."""
        return None

    def set_entities(
        self, items: Sequence[tuple[str, str, Sequence[tuple[str, str]]]], *, tenant: str = DEFAULT_TENANT
    ) -> None:
        """Replace the entity rows of these memories: (memory id, user id, its (kind, key) pairs).
        The rows go with the memory (purge, erasure). The default keeps none (then recall has no
        entity round)."""
        return None

    def entities_of(
        self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT
    ) -> dict[str, list[tuple[str, str]]]:
        """The (kind, key) pairs of each of these memories that has entity rows. The default keeps none."""
        return {}

    def entity_memories(
        self, keys: Sequence[str], *, tenant: str, user_id: str | None, limit: int
    ) -> dict[str, list[str]]:
        """For each key, the ids of the scope's memories (any status: the caller filters) that name
        it, at most ``limit`` per key (ask one more than you will use to learn that a key is common):
        one index lookup per key (``ix_memory_entities_key``), never a scan. The default finds none."""
        return {}

    def lock_digests(self, digests: Sequence[str], *, tenant: str, user_id: str) -> None:
        """Inside a transaction: hold these text digests of the user until it ends, so that two
        writers of the same text at once cannot both find no copy and both store one; the second
        waits, then finds the first's. The default does nothing, right for a store whose write
        transactions are serialised whole (SQLite's ``BEGIN IMMEDIATE``)."""
        return None

    def lock_rows(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> None:
        """Inside a transaction: lock these memories until it ends, in one fixed (id) order, before a
        read-modify-write. Then nothing another writer commits meanwhile is overwritten, and two
        writers locking overlapping rows queue instead of deadlocking. The default does nothing,
        for stores whose transactions already exclude every other writer (SQLite)."""
        return None

    def locked_rows(self, ids: Sequence[str], *, tenant: str = DEFAULT_TENANT) -> list[MemoryRecord]:
        """:meth:`lock_rows`, then :meth:`get_many` of the same ids (in their order): the read of a
        read-modify-write; one statement on PostgreSQL (``SELECT … FOR UPDATE``), two before."""
        self.lock_rows(ids, tenant=tenant)
        return self.get_many(ids, tenant=tenant)

    def in_transaction(self) -> bool:
        """Whether this thread is inside :meth:`transaction` (then a conflict cannot be retried
        below the outermost transaction, which must be run again whole)."""
        return False

    def holds_lock(self) -> bool:
        """Whether this thread holds this store object's lock (inside :meth:`transaction` or
        :meth:`exclusive`). Work handed to another thread must then not need the lock, or the two
        wait on each other: callers run such work on their own thread instead."""
        return self.in_transaction()

    #: True when :meth:`vector_search` walks an index that lives in the database and so is shared
    #: by every process (pgvector HNSW). Retrievers then delegate to it instead of building an
    #: index of their own in memory, and see other processes' writes at once.
    shared_vector_index: bool = False

    def probing(
        self, query_vecs: np.ndarray, *, tenant: str, model: str, limit: int
    ) -> AbstractContextManager[None]:
        """A hint before a batch of :meth:`vector_search` probes (``exhaustive=False``) with these
        vectors and ``limit``: a store may score them all at once and answer each probe in the block
        from that (the same answer). Nothing is kept after it; this default does nothing."""
        return nullcontext()

    def vector_search(
        self,
        query_vec: np.ndarray,
        flt: MemoryFilter,
        *,
        model: str,
        limit: int = 50,
        exhaustive: bool = True,
    ) -> list[tuple[str, float]]:
        """The ``limit`` memories nearest to ``query_vec`` by cosine similarity: (id, score), best first.

        This default is exact (every vector of ``model`` in ``flt``, scored with numpy); stores with a
        vector index (PostgreSQL + pgvector HNSW) override it with an approximate index scan.
        ``exhaustive=False``: a probe for a check that needs some near neighbours, not all (the
        contradiction check): a store may return fewer than ``limit`` rather than score every vector
        the filter allows when its nearest ones mostly fail the filter.
        """
        ids, matrix = self.embeddings(flt, model=model)
        if not ids:
            return []
        q = np.asarray(query_vec, dtype=np.float32).ravel()
        if matrix.shape[1] != q.size:
            return []  # vectors of another dimension cannot be compared
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(q) or 1.0)
        scores = (matrix @ q) / np.where(norms == 0, 1.0, norms)
        top = np.argsort(-scores, kind="stable")[:limit]
        return [(ids[i], float(scores[i])) for i in top]

    # -- audit -----------------------------------------------------------------------------------
    @abstractmethod
    def append_audit(self, draft: AuditDraft, *, key: bytes | None = None) -> AuditEntry:
        """Extend the tenant's chain; with ``key`` the entry is signed and so is the tenant's head."""

    @abstractmethod
    def audit_head(self, tenant: str = DEFAULT_TENANT) -> AuditHead | None:
        """The tenant's signed head (None: never signed, or deleted)."""

    @abstractmethod
    def audit_entries(
        self,
        *,
        tenant: str = DEFAULT_TENANT,
        user_id: str | None = None,
        since_seq: int = 0,
        limit: int | None = None,
        action: str | None = None,
    ) -> list[AuditEntry]: ...

    # -- activity (for the active-days decay clock) ----------------------------------------------
    @abstractmethod
    def mark_active(self, tenant: str, user_id: str, day: date) -> None: ...

    @abstractmethod
    def active_day_count(self, tenant: str, user_id: str, until: date) -> int: ...

    @abstractmethod
    def forget_activity(self, tenant: str, user_id: str) -> int:
        """Delete the days a user was active (erasure); returns how many rows went."""

    # -- overview and maintenance ----------------------------------------------------------------
    @abstractmethod
    def users(self, *, tenant: str = DEFAULT_TENANT, limit: int = 1000) -> list[UserSummary]: ...

    @abstractmethod
    def tenants(self) -> list[str]:
        """Every tenant with memories, audit entries or activity (for sweeps and exports across tenants)."""

    @abstractmethod
    def status_counts(self, flt: MemoryFilter) -> dict[str, int]: ...

    @abstractmethod
    def compact(self) -> None:
        """Rewrite indexes and logs so that purged bytes leave the files (after erasure)."""

    def metadata_values(self, flt: MemoryFilter, key: str, *, limit: int = 1000) -> list[str]:
        """The distinct string values of ``metadata[key]`` among the memories matching ``flt`` (at
        most ``limit``, in no particular order): e.g. the speakers of a user's conversation turns.
        The default reads the records."""
        out: dict[str, None] = {}
        for r in self.query(flt):
            v = r.metadata.get(key) if isinstance(r.metadata, dict) else None
            if isinstance(v, str):
                out[v] = None
                if len(out) >= limit:
                    break
        return list(out)

    def id_users(self, flt: MemoryFilter) -> list[tuple[str, str]]:
        """(id, user_id) of the memories in ``flt``, grouped by user (purges audit per user, so a
        batch that follows user order writes one audit entry per user instead of one per user per chunk)."""
        return sorted(((r.id, r.user_id) for r in self.query(flt)), key=lambda p: p[1])

    # -- importance (eviction) ---------------------------------------------------------------------
    # The score is defined by remnant.core.importance.SCORE. These defaults
    # compute it in Python over the rows the filter bounds; SQL stores override them to compute it
    # in one statement (a sweep over a million rows must not page them all through Python).
    def low_importance(
        self, flt: MemoryFilter, *, now: float, decay_per_day: float, mark_weight: float, below: float
    ) -> list[tuple[str, str, float]]:
        """(id, user_id, score) of unpinned memories in ``flt`` whose importance score is under ``below``."""
        return [t for t in self._scored(flt, now, decay_per_day, mark_weight) if t[2] < below]

    def over_capacity(
        self, flt: MemoryFilter, *, now: float, decay_per_day: float, mark_weight: float, keep: int
    ) -> list[tuple[str, str, float]]:
        """(id, user_id, score) of unpinned memories ranked after the best ``keep`` of their user.

        Pinned memories rank first (they count toward the limit but are never returned).
        """
        by_user: dict[str, list[tuple[str, str, float, float]]] = {}
        for r in self.query(flt):
            score = self._score_one(r, now, decay_per_day, mark_weight)
            by_user.setdefault(r.user_id, []).append((r.id, r.user_id, score, ts(r.created_at) or 0.0))
        out: list[tuple[str, str, float]] = []
        for rows in by_user.values():
            rows.sort(key=lambda t: (-t[2], -t[3]))
            out.extend((i, u, s) for i, u, s, _ in rows[keep:] if s != float("inf"))
        return out

    def _scored(
        self, flt: MemoryFilter, now: float, decay_per_day: float, mark_weight: float
    ) -> list[tuple[str, str, float]]:
        return [
            (r.id, r.user_id, self._score_one(r, now, decay_per_day, mark_weight))
            for r in self.query(replace(flt, pinned=False))
        ]

    @staticmethod
    def _score_one(r: MemoryRecord, now: float, decay_per_day: float, mark_weight: float) -> float:
        return importance_score_raw(
            now=now,
            created_at=ts(r.created_at) or now,
            last_accessed_at=ts(r.last_accessed_at),
            access_count=r.access_count,
            confidence=r.confidence,
            importance=r.importance,
            pinned=r.pinned,
            weights=ImportanceWeights(decay_per_day, mark_weight),
        )

    def scrub(self) -> None:
        """Make purged text leave the store's files soon after a purge (cheaper than :meth:`compact`).

        The default does nothing: a server database is responsible for its own storage.
        """
        return None

    def files(self) -> list[Path]:
        """Files holding this store's bytes, for erasure scans (empty for server databases)."""
        return []

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_batches(seq: Sequence[str], size: int = 500) -> Iterator[Sequence[str]]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


def ts(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def audit_entry_row(e: AuditEntry) -> tuple[Any, ...]:
    """An audit entry as the ``audit_log`` columns, in order: seq, tenant, at, actor, action,
    reason, user_id, policy, batch_id, memory_ids, summary, details, prev_hash, hash, mac (for imports
    that keep seq and hashes verbatim)."""
    return (
        e.seq,
        e.tenant,
        e.at.timestamp(),
        e.actor,
        e.action,
        e.reason,
        e.user_id,
        e.policy,
        e.batch_id,
        json.dumps(list(e.memory_ids)),
        e.summary,
        json.dumps(e.details, sort_keys=True, default=str),
        e.prev_hash,
        e.hash,
        e.mac,
    )


def row_to_record(row: Sequence[Any]) -> MemoryRecord:
    """A memory from its first 29 columns in the stores' column order (metadata as JSON text or a dict)."""
    (
        mid,
        tenant,
        user_id,
        agent_id,
        session_id,
        kind,
        key,
        content,
        source,
        confidence,
        importance,
        pinned,
        created_at,
        last_accessed_at,
        access_count,
        review_count,
        expires_at,
        valid_from,
        valid_to,
        status,
        status_reason,
        status_changed_at,
        superseded_by,
        strength0,
        stability,
        anchor,
        fade_at,
        metadata,
        occurred_at,
    ) = row[:29]
    return MemoryRecord(
        id=mid,
        tenant=tenant,
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        kind=Kind(kind),
        key=key,
        content=content,
        source=source,
        confidence=confidence,
        importance=importance,
        pinned=bool(pinned),
        created_at=from_epoch(created_at),
        last_accessed_at=from_epoch(last_accessed_at),
        access_count=int(access_count),
        review_count=int(review_count),
        expires_at=from_epoch(expires_at),
        valid_from=from_epoch(valid_from),
        valid_to=from_epoch(valid_to),
        status=Status(status),
        status_reason=status_reason,
        status_changed_at=from_epoch(status_changed_at),
        superseded_by=superseded_by,
        strength0=strength0,
        stability=stability,
        anchor=anchor,
        fade_at=math.inf if fade_at >= 1e300 else fade_at,
        # tolerant: a row an older version let through (900 levels deep, NaN) reads with a marker
        # instead of failing every list, get and recall of its user
        metadata=readable_metadata(metadata),
        occurred_at=from_epoch(occurred_at),
    )
