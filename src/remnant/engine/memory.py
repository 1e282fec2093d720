"""The memory engine: remember, recall, review, pin, hide, purge, sweep — every step through the store.

``Memory`` is the one object applications hold. It reads time from an injectable clock, keeps the
decay state of every memory closed-form (so nothing loops over rows as time passes), supersedes
keyed facts deterministically, and audits every act of forgetting in a hash-chained log.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import random
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar, cast

from remnant.core import decay as dk
from remnant.core.audit import AuditDraft, AuditEntry, ChainVerification, describe, verify_chain
from remnant.core.clock import Clock, SystemClock, ensure_aware
from remnant.core.decay import DecayConfig, DecayState
from remnant.core.durations import parse_duration
from remnant.core.errors import (
    ConflictError,
    DecayModeMismatch,
    NotFoundError,
    TransientConflict,
    ValidationError,
)
from remnant.core.model import (
    DEFAULT_TENANT,
    Kind,
    MemoryRecord,
    Status,
    check_content,
    check_identifier,
    check_unit_interval,
    new_id,
)
from remnant.engine.results import ErasureReport, FadedHint, Hit, RecallResult, SweepReport
from remnant.engine.seams import LexicalRetriever, Redactor, Retriever
from remnant.forgetting.contradictions import ContradictionPolicy, resolve_on_write
from remnant.store import open_store
from remnant.store.base import MemoryFilter, Store

_MAX_AUDIT_IDS = 5000
_BEFORE_HIDE = "status_before_hide"  # metadata key: the status a hidden memory returns to


_F = TypeVar("_F", bound=Callable[..., Any])
_CONFLICT_RETRIES = 5


def _retry_conflicts(method: _F) -> _F:
    """Run an engine operation again when the store reports a :class:`TransientConflict` (on
    PostgreSQL a deadlock or serialization failure between server processes). The store rolled the
    whole transaction back, so nothing is applied twice. Inside a caller's own transaction the
    conflict propagates instead: only the outermost transaction can be run again."""

    @functools.wraps(method)
    def wrapper(self: Memory, *args: Any, **kwargs: Any) -> Any:
        attempt = 0
        while True:
            try:
                return method(self, *args, **kwargs)
            except TransientConflict:
                attempt += 1
                if attempt > _CONFLICT_RETRIES or self.store.in_transaction():
                    raise
                time.sleep(random.uniform(0.0, 0.01 * 2**attempt))  # jitter: the racers part ways

    return cast(_F, wrapper)


class Memory:
    """A user-scoped memory with biological forgetting.

    >>> mem = Memory(":memory:")
    >>> m = mem.remember("I prefer green tea", user_id="ana", kind="preference", key="drink")
    >>> [h.memory.content for h in mem.recall("tea", user_id="ana")]
    ['I prefer green tea']
    """

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        *,
        store: Store | None = None,
        clock: Clock | None = None,
        decay: DecayConfig | None = None,
        tenant: str = DEFAULT_TENANT,
        retriever: Retriever | None = None,
        redactor: Redactor | None = None,
        actor: str = "system",
        contradictions: ContradictionPolicy | None = None,
    ) -> None:
        self.store = store if store is not None else open_store(db)
        self.clock: Clock = clock or SystemClock()
        self.decay = decay or DecayConfig()
        self.tenant = check_identifier(tenant, "tenant")
        self.retriever: Retriever = retriever or LexicalRetriever()
        self.redactor = redactor
        self.actor = actor
        # unkeyed facts and preferences that likely contradict an active one: flagged by default
        self.contradictions = contradictions if contradictions is not None else ContradictionPolicy()
        self._check_decay_mode()

    # -- plumbing ----------------------------------------------------------------------------------
    def _check_decay_mode(self) -> None:
        stored = self.store.get_meta("decay_clock_mode")
        if stored is None:
            self.store.set_meta("decay_clock_mode", self.decay.clock_mode)
        elif stored != self.decay.clock_mode:
            raise DecayModeMismatch(
                f"this database uses the {stored!r} decay clock; open it with "
                f"DecayConfig(clock_mode={stored!r}) (asked for {self.decay.clock_mode!r})"
            )

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> datetime:
        return ensure_aware(self.clock.now(), name="clock.now()")

    def axis(self, user_id: str, at: datetime | None = None) -> float:
        """The decay-axis position (days) of ``at`` for this user."""
        at = at or self.now()
        if self.decay.clock_mode == "wall":
            return dk.wall_axis(at.timestamp())
        return float(self.store.active_day_count(self.tenant, user_id, at.date()))

    def _mark_active(self, user_id: str, at: datetime) -> None:
        if self.decay.clock_mode == "active_days":
            self.store.mark_active(self.tenant, user_id, at.date())

    def _filter(self, user_id: str | None = None, **kw: Any) -> MemoryFilter:
        return MemoryFilter(tenant=self.tenant, user_id=user_id, **kw)

    def _audit(
        self,
        action: str,
        reason: str,
        records: Sequence[MemoryRecord] | None = None,
        *,
        user_id: str | None = None,
        ids: Sequence[str] | None = None,
        policy: str | None = None,
        batch_id: str | None = None,
        actor: str | None = None,
        summary: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> AuditEntry:
        id_list = list(ids if ids is not None else [r.id for r in records or ()])
        extra = dict(details or {})
        if len(id_list) > _MAX_AUDIT_IDS:
            extra["ids_count"] = len(id_list)
            extra["ids_sha256"] = hashlib.sha256("\n".join(sorted(id_list)).encode()).hexdigest()
            id_list = id_list[:_MAX_AUDIT_IDS]
        return self.store.append_audit(
            AuditDraft(
                tenant=self.tenant,
                at=self.now(),
                actor=actor or self.actor,
                action=action,
                reason=reason,
                user_id=user_id,
                policy=policy,
                batch_id=batch_id,
                memory_ids=tuple(id_list),
                summary=summary if summary is not None else describe(records or []),
                details=extra,
            )
        )

    def _state(self, r: MemoryRecord) -> DecayState:
        return DecayState(r.strength0, r.stability, r.anchor, r.pinned)

    def _apply_state(self, r: MemoryRecord, state: DecayState) -> None:
        r.strength0, r.stability, r.anchor, r.pinned = (
            state.strength0,
            state.stability,
            state.anchor,
            state.pinned,
        )
        r.fade_at = dk.fade_at(state, self.decay)

    def _require(self, memory_id: str, *, lock: bool = False) -> MemoryRecord:
        """The memory, or NotFoundError. ``lock``: inside a transaction, lock its row first, for a
        read-modify-write that must not overwrite what another writer commits meanwhile."""
        if not isinstance(memory_id, str) or not memory_id:
            raise ValidationError("memory id must be a non-empty string")
        if lock:
            self.store.lock_rows([memory_id], tenant=self.tenant)
        record = self.store.get(memory_id, tenant=self.tenant)
        if record is None:
            raise NotFoundError(f"no memory {memory_id!r} in tenant {self.tenant!r}")
        return record

    def redact(self, text: str, user_id: str) -> str:
        """Run the configured redactor on text bound for the store (identity when none is set)."""
        if self.redactor is None:
            return text
        return self.redactor.redact(text, tenant=self.tenant, user_id=user_id).text

    def rehydrate(self, memory_id: str, *, actor: str | None = None) -> str:
        """Privileged: the memory's text with its placeholders replaced by the vault's originals.

        Ordinary recall never returns plaintext; this needs the vault key and is audited.
        """
        record = self._require(memory_id)
        vault = getattr(self.redactor, "vault", None)
        if vault is None:
            raise ConflictError("no vault is configured (the privacy layer is off)")
        text: str = vault.rehydrate(record.content, self.tenant, record.user_id)
        self._audit(
            "rehydrate",
            "privileged read of vaulted values",
            [record],
            user_id=record.user_id,
            actor=actor,
            policy="vault",
        )
        return text

    # -- writing -----------------------------------------------------------------------------------
    @_retry_conflicts
    def remember(
        self,
        content: str,
        *,
        user_id: str,
        kind: Kind | str = Kind.FACT,
        key: str | None = None,
        importance: float = 0.5,
        confidence: float = 1.0,
        source: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        pinned: bool = False,
        ttl: str | timedelta | float | None = None,
        expires_at: datetime | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
        supersede: bool = True,
        redact: bool = True,
    ) -> MemoryRecord:
        """Store a memory. A memory with a ``key`` supersedes the user's active memory with that key."""
        with self.store.transaction():  # vault entries written by the redactor commit with the memory
            return self._remember_one(
                content,
                user_id=user_id,
                kind=kind,
                key=key,
                importance=importance,
                confidence=confidence,
                source=source,
                agent_id=agent_id,
                session_id=session_id,
                pinned=pinned,
                ttl=ttl,
                expires_at=expires_at,
                valid_from=valid_from,
                valid_to=valid_to,
                metadata=metadata,
                supersede=supersede,
                redact=redact,
            )

    def _remember_one(self, content: str, *, supersede: bool, **kwargs: Any) -> MemoryRecord:
        return self._store_new([self._build(content, **kwargs)], supersede=supersede)[0]

    def remember_many(
        self, items: Iterable[Mapping[str, Any]], *, supersede: bool = True
    ) -> list[MemoryRecord]:
        """Store many memories in one transaction (each item takes :meth:`remember`'s arguments)."""
        batch = [dict(item) for item in items]  # materialised: a conflict runs the batch again
        return self._remember_batch(batch, supersede=supersede)

    @_retry_conflicts
    def _remember_batch(self, batch: list[dict[str, Any]], *, supersede: bool) -> list[MemoryRecord]:
        with self.store.transaction():
            records = [self._build(**item) for item in batch]
            return self._store_new(records, supersede=supersede)

    def _build(
        self,
        content: str,
        *,
        user_id: str,
        kind: Kind | str = Kind.FACT,
        key: str | None = None,
        importance: float = 0.5,
        confidence: float = 1.0,
        source: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        pinned: bool = False,
        ttl: str | timedelta | float | None = None,
        expires_at: datetime | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
        redact: bool = True,
    ) -> MemoryRecord:
        check_identifier(user_id, "user_id")
        check_content(content)
        kind = Kind.parse(kind)
        importance = check_unit_interval(importance, "importance")
        confidence = check_unit_interval(confidence, "confidence")
        if key is not None:
            key = check_identifier(key, "key").strip()
        if agent_id is not None:
            check_identifier(agent_id, "agent_id")
        if session_id is not None:
            check_identifier(session_id, "session_id")
        if source is not None and (not isinstance(source, str) or len(source) > 256):
            raise ValidationError("source must be a string of at most 256 characters")
        if metadata is not None and not isinstance(metadata, Mapping):
            raise ValidationError("metadata must be a mapping")
        meta = dict(metadata or {})
        try:
            json.dumps(meta)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"metadata must be JSON-serialisable: {exc}") from exc
        now = self.now()
        if ttl is not None and expires_at is not None:
            raise ValidationError("give either ttl or expires_at, not both")
        if ttl is not None:
            expires_at = now + parse_duration(ttl)
        elif expires_at is not None:
            expires_at = ensure_aware(expires_at, name="expires_at")
        valid_from = ensure_aware(valid_from, name="valid_from") if valid_from is not None else None
        valid_to = ensure_aware(valid_to, name="valid_to") if valid_to is not None else None
        if valid_from and valid_to and valid_to <= valid_from:
            raise ValidationError("valid_to must be after valid_from")
        self._mark_active(user_id, now)
        text = self.redact(content, user_id) if redact else content
        state = dk.new_state(kind, importance, self.axis(user_id, now), self.decay, pinned=bool(pinned))
        record = MemoryRecord(
            id=new_id(),
            user_id=user_id,
            content=text,
            kind=kind,
            tenant=self.tenant,
            agent_id=agent_id,
            session_id=session_id,
            key=key,
            source=source,
            confidence=confidence,
            importance=importance,
            pinned=bool(pinned),
            created_at=now,
            expires_at=expires_at,
            valid_from=valid_from,
            valid_to=valid_to,
            metadata=meta,
        )
        self._apply_state(record, state)
        return record

    def _store_new(self, records: Sequence[MemoryRecord], *, supersede: bool) -> list[MemoryRecord]:
        now = self.now()
        index_text = getattr(self.retriever, "index_text", None)
        with self.store.transaction():
            for record in records:
                if supersede and record.key is not None:
                    old = self._filter(
                        record.user_id,
                        keys=(record.key,),
                        statuses=(Status.ACTIVE, Status.FADED),
                        agent_id=record.agent_id,
                    )
                    changed = self.store.set_status(
                        old,
                        Status.SUPERSEDED,
                        reason=f"superseded by {record.id}",
                        at=now.timestamp(),
                        superseded_by=record.id,
                        close_validity=True,
                    )
                    if changed:
                        ids = [c[0] for c in changed]
                        self._audit(
                            "supersede",
                            f"newer memory {record.id} has the same key",
                            ids=ids,
                            user_id=record.user_id,
                            policy="key",
                            summary=f"{len(ids)} memories with key {record.key!r} superseded",
                        )
                elif supersede and self.contradictions.mode != "off":
                    resolve_on_write(self, record, self.contradictions)
                # a retriever may index more than the content (speaker, date, neighbouring turns)
                self.store.insert(
                    record, index_text=index_text(self, record, records) if index_text else None
                )
        self.retriever.on_write(self, [r.id for r in records])
        return [r.copy() for r in records]

    # -- reading -----------------------------------------------------------------------------------
    def get(self, memory_id: str) -> MemoryRecord:
        """The memory with this id, whatever its status (purged memories are gone: NotFoundError)."""
        return self._require(memory_id)

    def strength(self, memory_id: str, at: datetime | None = None) -> float:
        record = self._require(memory_id)
        return dk.strength_at(self._state(record), self.axis(record.user_id, at))

    def strength_of(
        self, record: MemoryRecord, at: datetime | None = None, *, axis: float | None = None
    ) -> float:
        return dk.strength_at(
            self._state(record), axis if axis is not None else self.axis(record.user_id, at)
        )

    def fade_time(self, memory_id: str) -> datetime | None:
        """When the memory will cross the recall threshold (wall mode), ``None`` if never."""
        record = self._require(memory_id)
        if math.isinf(record.fade_at) or self.decay.clock_mode != "wall":
            return None
        from remnant.core.clock import from_epoch

        return from_epoch(record.fade_at * dk.SECONDS_PER_DAY)

    def recall_filter(
        self,
        user_id: str,
        *,
        kinds: Sequence[Kind | str] | None = None,
        keys: Sequence[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        sources: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        as_of: datetime | None = None,
        include_faded: bool = False,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
    ) -> MemoryFilter:
        """The strict filter every recall path applies: scope, status, fade, expiry and validity."""
        check_identifier(user_id, "user_id")
        now = self.now()
        at = ensure_aware(as_of, name="as_of") if as_of is not None else now
        statuses: tuple[Status, ...] = (Status.ACTIVE,)
        if as_of is not None:
            # a point-in-time query sees facts that were valid then, even if superseded or expired
            # since (expiry and validity are checked at as_of by the filter's now/valid_at)
            statuses = (Status.ACTIVE, Status.SUPERSEDED, Status.EXPIRED)
        if include_faded:
            statuses = (*statuses, Status.FADED)
        return self._filter(
            user_id,
            agent_id=agent_id,
            session_id=session_id,
            kinds=tuple(Kind.parse(k) for k in kinds) if kinds else None,
            keys=tuple(keys) if keys else None,
            sources=tuple(sources) if sources else None,
            tags=tuple(tags) if tags else None,
            metadata=dict(metadata or {}),
            statuses=statuses,
            remembered_at=None if include_faded else self.axis(user_id, now),
            now=at.timestamp(),
            valid_at=at.timestamp(),
            created_after=ensure_aware(created_after).timestamp() if created_after else None,
            created_before=ensure_aware(created_before).timestamp() if created_before else None,
        )

    @_retry_conflicts
    def recall(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 5,
        kinds: Sequence[Kind | str] | None = None,
        keys: Sequence[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        sources: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        as_of: datetime | None = None,
        include_faded: bool = False,
        touch: bool = True,
        hints: bool = True,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
    ) -> RecallResult:
        """The memories that best match ``query``, strongest first among equals.

        Only what is still remembered comes back: active, not faded, not expired, valid now (or at
        ``as_of``). Each hit is reinforced (``touch``), as remembering something strengthens it.
        When memories that match have faded, ``result.faded`` says so.
        """
        if not isinstance(query, str):
            raise ValidationError("query must be a string")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
            raise ValidationError(f"k must be an integer in [1, 1000], got {k!r}")
        flt = self.recall_filter(
            user_id,
            kinds=kinds,
            keys=keys,
            agent_id=agent_id,
            session_id=session_id,
            sources=sources,
            tags=tags,
            metadata=metadata,
            as_of=as_of,
            include_faded=include_faded,
            created_after=created_after,
            created_before=created_before,
        )
        now = self.now()
        axis = self.axis(user_id, now)
        if query.strip():
            ranked = self.retriever.search(self, query, flt, k)
            records = {r.id: r for r in self.store.get_many([i for i, _ in ranked], tenant=self.tenant)}
            hits = [
                Hit(records[i], s, self.strength_of(records[i], axis=axis)) for i, s in ranked if i in records
            ]
        else:
            hits = [Hit(r, 0.0, s) for r, s in self._strongest(flt, axis, k)]
        hits = hits[:k]
        if touch and hits and as_of is None:
            self._mark_active(user_id, now)
            hits = self._reinforce([h.memory for h in hits], now, "recall", scores=[h.score for h in hits])
        faded: list[FadedHint] = []
        if hints and query.strip() and not include_faded:
            faded = self._faded_hints(query, flt, axis, now)
        return RecallResult(query, hits, faded)

    def _faded_hints(self, query: str, flt: MemoryFilter, axis: float, now: datetime) -> list[FadedHint]:
        from dataclasses import replace

        hint_flt = replace(
            flt, statuses=(Status.ACTIVE, Status.FADED, Status.EXPIRED), remembered_at=None, now=None
        )
        out = []
        for mid, _score in self.retriever.search(self, query, hint_flt, 10):
            r = self.store.get(mid, tenant=self.tenant)
            if r is None:
                continue
            expired = r.status == Status.EXPIRED or (r.expires_at is not None and r.expires_at <= now)
            faded = r.status == Status.FADED or (r.fade_at <= axis)
            if not (expired or faded):
                continue
            since = r.status_changed_at if r.status != Status.ACTIVE else None
            out.append(
                FadedHint(
                    r.id,
                    r.kind.value,
                    r.key,
                    "expired" if expired else "faded",
                    since,
                    self.strength_of(r, axis=axis),
                )
            )
            if len(out) >= 3:
                break
        return out

    def _strongest(
        self, flt: MemoryFilter, axis: float, limit: int | None
    ) -> list[tuple[MemoryRecord, float]]:
        records = self.store.query(flt)
        scored = sorted(
            ((r, self.strength_of(r, axis=axis)) for r in records), key=lambda p: (-p[1], p[0].id)
        )
        return scored[:limit] if limit is not None else scored

    def active(
        self,
        user_id: str,
        *,
        limit: int | None = None,
        kinds: Sequence[Kind | str] | None = None,
        agent_id: str | None = None,
    ) -> list[tuple[MemoryRecord, float]]:
        """What this user still remembers, strongest first: a range query on the stored fade time."""
        flt = self.recall_filter(user_id, kinds=kinds, agent_id=agent_id)
        return self._strongest(flt, self.axis(user_id), limit)

    def list_memories(
        self,
        user_id: str | None = None,
        *,
        statuses: Sequence[Status | str] | None = None,
        kinds: Sequence[Kind | str] | None = None,
        key: str | None = None,
        limit: int = 100,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[MemoryRecord]:
        """Memories in any status, for inspection (not recall)."""
        flt = self._filter(
            user_id,
            statuses=tuple(Status.parse(s) for s in statuses) if statuses else None,
            kinds=tuple(Kind.parse(k) for k in kinds) if kinds else None,
            keys=(key,) if key else None,
        )
        return self.store.query(
            flt, order="-created_at" if newest_first else "created_at", limit=limit, offset=offset
        )

    def history(self, user_id: str, key: str) -> list[MemoryRecord]:
        """Every memory the user had under ``key``, oldest first, superseded ones included."""
        return self.store.query(self._filter(user_id, keys=(key,), statuses=None), order="created_at")

    def current(self, user_id: str, key: str) -> MemoryRecord | None:
        """The user's active memory under ``key``, if any."""
        found = self.store.query(self._filter(user_id, keys=(key,)), order="-created_at", limit=1)
        return found[0] if found else None

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        base = self._filter(user_id, statuses=None)
        counts = self.store.status_counts(base)
        out: dict[str, Any] = {
            "tenant": self.tenant,
            "user_id": user_id,
            "by_status": counts,
            "total": sum(counts.values()),
        }
        if user_id is not None:
            out["remembered_now"] = self.store.count(self.recall_filter(user_id))
        return out

    # -- reinforcing -------------------------------------------------------------------------------
    def _reinforce(
        self,
        records: Sequence[MemoryRecord],
        now: datetime,
        how: dk.Reinforcement,
        scores: Sequence[float] | None = None,
    ) -> list[Hit]:
        hits = []
        with self.store.transaction():
            # lock, then re-read, so concurrent touches never lose an access or a boost (PostgreSQL
            # locks the rows in id order; SQLite's transaction already excludes other writers)
            self.store.lock_rows([r.id for r in records], tenant=self.tenant)
            for i, seen in enumerate(records):
                r = self.store.get(seen.id, tenant=self.tenant)
                if r is None:  # purged meanwhile
                    continue
                axis = self.axis(r.user_id, now)
                self._apply_state(r, dk.reinforce(self._state(r), axis, self.decay, how))
                r.last_accessed_at = now
                r.access_count += 1
                if how == "review":
                    r.review_count += 1
                if r.status == Status.FADED:
                    r.status, r.status_reason, r.status_changed_at = Status.ACTIVE, f"revived by {how}", now
                self.store.update(r)
                hits.append(Hit(r.copy(), scores[i] if scores else 0.0, self.strength_of(r, axis=axis)))
        return hits

    @_retry_conflicts
    def review(self, memory_id: str) -> MemoryRecord:
        """Review a memory (spaced repetition): strength rises, stability grows."""
        record = self._require(memory_id)
        if record.status not in (Status.ACTIVE, Status.FADED):
            raise ConflictError(
                f"memory {memory_id} is {record.status.value}; only active or faded ones can be reviewed"
            )
        now = self.now()
        self._mark_active(record.user_id, now)
        return self._reinforce([record], now, "review")[0].memory

    @_retry_conflicts
    def touch(self, memory_id: str) -> MemoryRecord:
        """Record a use of the memory (a weak reinforcement, like being recalled)."""
        record = self._require(memory_id)
        now = self.now()
        self._mark_active(record.user_id, now)
        return self._reinforce([record], now, "recall")[0].memory

    @_retry_conflicts
    def pin(self, memory_id: str) -> MemoryRecord:
        """Pinned memories never decay and are exempt from eviction."""
        with self.store.transaction():
            record = self._require(memory_id, lock=True)  # read-modify-write: no lost touch
            if record.status != Status.ACTIVE and record.status != Status.FADED:
                raise ConflictError(
                    f"memory {memory_id} is {record.status.value}; only active or faded ones can be pinned"
                )
            self._apply_state(record, DecayState(1.0, record.stability, self.axis(record.user_id), True))
            record.status = Status.ACTIVE
            self.store.update(record)
        return record.copy()

    @_retry_conflicts
    def unpin(self, memory_id: str) -> MemoryRecord:
        """Unpinning starts the curve again from full strength, now."""
        with self.store.transaction():
            record = self._require(memory_id, lock=True)
            self._apply_state(record, DecayState(1.0, record.stability, self.axis(record.user_id), False))
            self.store.update(record)
        return record.copy()

    # -- forgetting --------------------------------------------------------------------------------
    @_retry_conflicts
    def hide(
        self,
        memory_ids: str | Sequence[str],
        *,
        reason: str = "hidden on request",
        actor: str | None = None,
        policy: str | None = None,
        batch_id: str | None = None,
    ) -> list[str]:
        """Mask memories (reversible with :meth:`unhide`); audited.

        A memory hidden while superseded, expired or faded remembers that status, so unhiding an
        old address brings it back as history, not as a second current address.
        """
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        with self.store.transaction():
            self.store.lock_rows(ids, tenant=self.tenant)
            records = [self._require(i) for i in ids]
            for r in records:
                if r.status not in (Status.ACTIVE, Status.HIDDEN):
                    r.metadata[_BEFORE_HIDE] = r.status.value
                    self.store.update(r)
            changed = self.store.set_status(
                self._filter(ids=tuple(ids), statuses=None),
                Status.HIDDEN,
                reason=reason,
                at=self.now().timestamp(),
            )
            done = {c[0] for c in changed}
            for user, recs in _by_user([r for r in records if r.id in done]).items():
                self._audit("hide", reason, recs, user_id=user, actor=actor, policy=policy, batch_id=batch_id)
        return [i for i in ids if i in done]

    @_retry_conflicts
    def unhide(self, memory_id: str, *, actor: str | None = None) -> MemoryRecord:
        """Restore a hidden memory to the status it had (active, or superseded/expired/faded); audited."""
        record = self._require(memory_id)
        if record.status != Status.HIDDEN:
            raise ConflictError(f"memory {memory_id} is {record.status.value}, not hidden")
        prior = record.metadata.get(_BEFORE_HIDE)
        target = (
            Status(prior) if prior in (Status.SUPERSEDED, Status.EXPIRED, Status.FADED) else Status.ACTIVE
        )
        with self.store.transaction():
            changed = self.store.set_status(
                self._filter(ids=(memory_id,), statuses=(Status.HIDDEN,)),
                target,
                reason="restored",
                at=self.now().timestamp(),
            )
            if changed and prior is not None:
                fresh = self._require(memory_id, lock=True)
                fresh.metadata.pop(_BEFORE_HIDE, None)
                self.store.update(fresh)
            self._audit(
                "unhide", f"restored to {target.value}", [record], user_id=record.user_id, actor=actor
            )
        return self._require(memory_id)

    @_retry_conflicts
    def purge(
        self,
        memory_ids: str | Sequence[str],
        *,
        force: bool = False,
        reason: str = "purged on request",
        actor: str | None = None,
        policy: str | None = None,
        batch_id: str | None = None,
    ) -> int:
        """Delete memories for good (rows, index, embeddings); pinned ones only with ``force``. Audited."""
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        records = [self._require(i) for i in ids]
        pinned = [r.id for r in records if r.pinned]
        if pinned and not force:
            raise ConflictError(
                f"{len(pinned)} pinned memories ({', '.join(pinned[:3])}); purge them with force=True"
            )
        return self._purge_records(records, reason=reason, actor=actor, policy=policy, batch_id=batch_id)

    def _purge_records(
        self,
        records: Sequence[MemoryRecord],
        *,
        reason: str,
        actor: str | None = None,
        policy: str | None = None,
        batch_id: str | None = None,
        action: str = "purge",
    ) -> int:
        return len(
            self._purge_present(
                records, reason=reason, actor=actor, policy=policy, batch_id=batch_id, action=action
            )
        )

    def _purge_present(
        self,
        records: Sequence[MemoryRecord] | Sequence[str],
        *,
        reason: str,
        actor: str | None = None,
        policy: str | None = None,
        batch_id: str | None = None,
        action: str = "purge",
        skip_pinned: bool = False,
        scrub: bool = True,
    ) -> list[MemoryRecord]:
        """Purge the memories that still exist when the write lock is held, audit exactly those.

        Re-reading inside the transaction is what keeps two concurrent sweeps from purging (and
        auditing) the same memory twice.
        """
        if not records:
            return []
        ids = [r if isinstance(r, str) else r.id for r in records]
        with self.store.transaction():
            present = self.store.get_many(ids, tenant=self.tenant)
            if skip_pinned:
                present = [r for r in present if not r.pinned]
            if not present:
                return []
            self.store.delete([r.id for r in present], tenant=self.tenant)
            for user, recs in _by_user(present).items():
                self._audit(action, reason, recs, user_id=user, actor=actor, policy=policy, batch_id=batch_id)
                self._release_placeholders(user, recs)
        self.retriever.on_delete(self, [r.id for r in present])
        if scrub:
            self.store.scrub()
        return present

    def _release_placeholders(self, user_id: str, purged: Sequence[MemoryRecord]) -> None:
        """Drop vault entries that only the purged memories referred to: a purge takes the value too."""
        forget = getattr(getattr(self.redactor, "vault", None), "forget_placeholder", None)
        if forget is None:
            return
        wanted = {m for r in purged for m in _PLACEHOLDER.findall(r.content)}
        if not wanted:
            return
        still_used: set[str] = set()
        flt = self._filter(user_id, statuses=None)
        offset = 0
        while wanted - still_used:
            page = self.store.query(flt, limit=2000, offset=offset)
            if not page:
                break
            for r in page:
                still_used.update(m for m in _PLACEHOLDER.findall(r.content) if m in wanted)
            offset += len(page)
        for placeholder in sorted(wanted - still_used):
            forget(self.tenant, user_id, placeholder)

    @_retry_conflicts
    def forget(
        self,
        target: str,
        *,
        user_id: str | None = None,
        hard: bool = False,
        dry_run: bool = False,
        confirm: bool = False,
        actor: str | None = None,
    ) -> Any:
        """Forget a memory by id (hide, or purge with ``hard``), or by a natural-language request.

        ``forget("mem_…")`` hides one memory. ``forget("forget my phone number", user_id="ana")``
        parses the request (see :mod:`remnant.forgetting.requests`), finds what matches, and
        with ``dry_run=True`` only reports what would go.
        """
        if target.startswith("mem_") and " " not in target:
            if dry_run:
                return [self._require(target)]
            if hard:
                return self.purge(target, force=confirm, actor=actor)
            return self.hide(target, actor=actor)
        if user_id is None:
            raise ValidationError("a natural-language forget request needs user_id")
        from remnant.forgetting.requests import forget_request

        return forget_request(
            self, target, user_id=user_id, hard=hard, dry_run=dry_run, confirm=confirm, actor=actor
        )

    @_retry_conflicts
    def sweep(self, *, dry_run: bool = False, policy: Any = None) -> SweepReport:
        """Run every forgetting policy once (expiry, fading, purges after grace periods, eviction)."""
        from remnant.engine.sweep import SweepPolicy, run_sweep

        return run_sweep(self, policy or SweepPolicy(), dry_run=dry_run)

    @_retry_conflicts
    def erase_user(self, user_id: str, *, actor: str | None = None, scan_bytes: bool = True) -> ErasureReport:
        """Right to be forgotten: purge everything of a user and prove nothing remains.

        See :mod:`remnant.forgetting.erasure` (derived summaries, vault, compaction, byte scan).
        """
        from remnant.forgetting.erasure import erase_user

        return erase_user(self, user_id, actor=actor, scan_bytes=scan_bytes)

    # -- audit -------------------------------------------------------------------------------------
    def audit_log(
        self,
        *,
        user_id: str | None = None,
        since_seq: int = 0,
        limit: int | None = None,
        action: str | None = None,
    ) -> list[AuditEntry]:
        return self.store.audit_entries(
            tenant=self.tenant, user_id=user_id, since_seq=since_seq, limit=limit, action=action
        )

    def verify_audit(self) -> ChainVerification:
        """Re-hash the tenant's audit chain; tampering shows as the first bad entry."""
        return verify_chain(self.store.audit_entries(tenant=self.tenant))

    def files(self) -> list[Path]:
        return self.store.files()


_PLACEHOLDER = re.compile(r"\[[A-Z][A-Z_]*_\d+\]")


def _by_user(records: Iterable[MemoryRecord]) -> dict[str, list[MemoryRecord]]:
    out: dict[str, list[MemoryRecord]] = defaultdict(list)
    for r in records:
        out[r.user_id].append(r)
    return out
