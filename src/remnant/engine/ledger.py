"""The engine's write seam: every change to a memory goes through a :class:`Ledger`.

The ledger owns what must stay consistent whoever writes: building a validated record, inserting
it (with key supersession, the write hooks and deduplication: a repeat reinforces the memory it
repeats instead of being stored), status transitions together with their audit
entries, purges (with the retriever's index and the vault's values), reinforcement and the
closed-form decay state. The forgetting policies (:mod:`remnant.engine.forgetting`) and the
:class:`~remnant.engine.memory.Memory` facade are written on it; none of them reaches past it
into another module's internals.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from remnant.core import decay as dk
from remnant.core import memo
from remnant.core.audit import AuditDraft, AuditEntry, describe, key_ref
from remnant.core.budget import checkpoint
from remnant.core.clock import Clock, ensure_aware
from remnant.core.decay import DecayConfig, DecayState
from remnant.core.durations import parse_duration
from remnant.core.errors import ConflictError, NotFoundError, TransientConflict, ValidationError
from remnant.core.limits import MAX_TAGS
from remnant.core.model import (
    RESERVED_METADATA_KEYS,
    Kind,
    MemoryRecord,
    Status,
    check_content,
    check_identifier,
    check_metadata,
    check_unit_interval,
    new_id,
)
from remnant.core.text import PLACEHOLDER
from remnant.engine.options import (
    RECALL_FILTERS,
    UPDATE_OPTIONS,
    WRITE_OPTIONS,
    RecallFilters,
    UpdateOptions,
    WriteOptions,
)
from remnant.engine.results import Hit
from remnant.engine.seams import (
    DocumentPreparer,
    EntitySource,
    IndexText,
    PreparedText,
    PreparingRedactor,
    QueryPreparer,
    Redactor,
    Retriever,
    vault_of,
)
from remnant.store.base import DIGEST_KEY_META, MemoryFilter, Store

_MAX_AUDIT_IDS = 5000
BEFORE_HIDE = "status_before_hide"  # metadata key: the status a hidden memory returns to
STALE_KEYS = "stale_keys"  # metadata key: slots a still-active turn stated an earlier value of
CONSOLIDATED_INTO = "consolidated_into"  # metadata key: the fact an episode was consolidated into
_LIVE = (Status.ACTIVE, Status.FADED)  # what a stale turn can still be (hidden ones stay hidden)
#: metadata keys whose values the engine writes (memory ids, a status): never redacted
# the engine's own keys (state it reads back, which no caller may write: RESERVED_METADATA_KEYS)
# and the provenance links (ids) that callers may set too; none of them is free text to redact
ENGINE_METADATA = RESERVED_METADATA_KEYS | {"derived_from", "from_episode"}
#: entity types an identifier (user, agent, session id) may not carry: it is stored, indexed and
#: audited as given, so an e-mail or phone number there would outlive every redaction and erasure
_IDENTIFIER_PII = frozenset({"EMAIL", "PHONE", "CARD", "IBAN", "CN_ID", "PASSPORT", "IP"})
_LOG_CACHE = 2048
_ENGINE_ID = re.compile(r"[a-z]+_[0-9a-z]{26}")  # an engine id (mem_…)
_MIN_PII_DIGITS = 6  # fewer digits than any phone, card, account or id number the detectors know


def _ids_only(value: object) -> bool:
    """Whether an engine-owned metadata value holds only engine ids (what the engine writes there)."""
    if isinstance(value, str):
        return _ENGINE_ID.fullmatch(value) is not None
    return isinstance(value, list) and all(isinstance(v, str) and _ENGINE_ID.fullmatch(v) for v in value)


def _may_hold_pii(key: str) -> bool:
    # a plain ASCII field name ("city", "order_id") is no personal value; one with digits, "@",
    # spaces or punctuation may be ("+1 415 555 0134", "ana@example.com")
    return any(not (c.isalpha() or c == "_") for c in key)


# attempts after a deadlock or serialization failure between server processes; with the jittered
# backoff below the last waits up to 2.6 s, so a burst of racing writes settles rather than
# answering 503 (one CI run of two server processes on one PostgreSQL database answered 3 writes
# 503 with 5 retries; that conflicts were the cause is likely, not confirmed)
_CONFLICT_RETRIES = 8
_T = TypeVar("_T")


def retrying(store: Store, call: Callable[[], _T]) -> _T:
    """Run ``call`` again when the store reports a :class:`TransientConflict` (on PostgreSQL a
    deadlock or serialization failure between server processes). The store rolled the whole
    transaction back, so nothing is applied twice. Inside a caller's own transaction the conflict
    propagates instead: only the outermost transaction can be run again."""
    attempt = 0
    while True:
        try:
            return call()
        except TransientConflict:
            attempt += 1
            if attempt > _CONFLICT_RETRIES or store.in_transaction():
                raise
            time.sleep(random.uniform(0.0, 0.01 * 2**attempt))  # jitter: the racers part ways


def normalised_text(text: str) -> str:
    """A turn's text as a repeat is recognised: NFKC, casefolded, whitespace collapsed to one space
    and the punctuation around it stripped ("  I'm vegetarian now!! " is "i'm vegetarian now").
    Punctuation inside is kept, so "I don't like it" and "I do like it" stay apart."""
    text = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start])[0] in "PZ":
        start += 1
    while end > start and unicodedata.category(text[end - 1])[0] in "PZ":
        end -= 1
    return text[start:end]


_DIGEST_CONTEXT = b"remnant/dedup/v1"


class WriteHook(Protocol):
    """Runs inside the write transaction for each new unkeyed memory before it is inserted (the
    contradiction policy is one); may flag or supersede older memories through the ledger."""

    def before_insert(self, ledger: Ledger, record: MemoryRecord) -> None: ...


@runtime_checkable
class BatchWriteHook(Protocol):
    """Optional on a write hook: a block around the :meth:`WriteHook.before_insert` calls of a batch
    (inside its transaction), in which the hook may do once what each insert would otherwise repeat."""

    def batch(self, ledger: Ledger, records: Sequence[MemoryRecord]) -> AbstractContextManager[None]: ...


@runtime_checkable
class ScopedWriteHook(Protocol):
    """Optional on a write hook: whether its :meth:`WriteHook.before_insert` reads or writes the store
    for ``record`` at all (a contradiction check looks only at facts). The records of a batch that
    no hook reads for are inserted together, in one statement, rather than one by one; a hook
    without this is taken to read for every record (the rows before it are written first)."""

    def reads_for(self, record: MemoryRecord) -> bool: ...


@dataclass(frozen=True)
class Transition:
    """One audited status change: what the memories move to and what the audit entry says."""

    status: Status
    action: str
    reason: str
    policy: str | None = None
    batch_id: str | None = None
    actor: str | None = None
    superseded_by: str | None = None
    close_validity: bool = False
    summary: str | None = None  # default: "<n> memories <status>"


class Ledger:
    """Writes memories of one tenant and audits every act of forgetting (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        decay: DecayConfig,
        tenant: str,
        retriever: Retriever,
        redactor: Redactor | None = None,
        actor: str = "system",
        hooks: Sequence[WriteHook] = (),
        audit_key: bytes | None = None,
    ) -> None:
        self.store = store
        self.audit_key = audit_key  # signs audit entries and the chain's head (kept outside the DB)
        self._log_texts: dict[str, str] = {}
        self._ids_ok: set[str] = set()  # identifiers already scanned and accepted
        self.clock = clock
        self.decay = decay
        self.tenant = tenant
        if not isinstance(retriever, Retriever):  # the ledger reads its declared members directly
            declared = [n for n in vars(Retriever) if not n.startswith("_")]
            missing = [n for n in declared if not hasattr(retriever, n)]
            raise TypeError(
                f"{type(retriever).__name__} is not a Retriever: it lacks {', '.join(missing)} "
                "(see remnant.engine.seams.Retriever; LexicalRetriever shows the defaults)"
            )
        self.retriever = retriever
        self.redactor = redactor
        self.actor = actor
        self.hooks = list(hooks)
        # the duplicate digest's key, derived from the audit key (kept outside the database)
        self._digest_key = (
            hmac.new(audit_key, _DIGEST_CONTEXT, hashlib.sha256).digest() if audit_key else None
        )
        self._meta_key: bytes | None = None  # without an audit key: the store's own (remnant_meta)

    # -- time and scope ----------------------------------------------------------------------------
    def now(self) -> datetime:
        return ensure_aware(self.clock.now(), name="clock.now()")

    def axis(self, user_id: str, at: datetime | None = None) -> float:
        """The decay-axis position (days) of ``at`` for this user."""
        at = at or self.now()
        if self.decay.clock_mode == "wall":
            return dk.wall_axis(at.timestamp())
        return float(self.store.active_day_count(self.tenant, user_id, at.date()))

    def mark_active(self, user_id: str, at: datetime) -> None:
        if self.decay.clock_mode == "active_days":
            self.store.mark_active(self.tenant, user_id, at.date())

    def filter(self, user_id: str | None = None, **kw: Any) -> MemoryFilter:
        return MemoryFilter(tenant=self.tenant, user_id=user_id, **kw)

    def recall_filter(self, user_id: str, filters: RecallFilters | None = None) -> MemoryFilter:
        """The strict filter every recall path applies: scope, status, fade, expiry and validity."""
        check_identifier(user_id, "user_id")
        f: RecallFilters = filters or {}
        unknown = set(f) - RECALL_FILTERS
        if unknown:
            raise ValidationError(f"unknown recall filter(s): {', '.join(sorted(unknown))}")
        kinds, keys, sources, tags = f.get("kinds"), f.get("keys"), f.get("sources"), f.get("tags")
        as_of, include_faded = f.get("as_of"), bool(f.get("include_faded", False))
        created_after, created_before = f.get("created_after"), f.get("created_before")
        now = self.now()
        at = ensure_aware(as_of, name="as_of") if as_of is not None else now
        statuses: tuple[Status, ...] = (Status.ACTIVE,)
        if as_of is not None:
            # a point-in-time query sees facts that were valid then, even if superseded or expired
            # since (expiry and validity are checked at as_of by the filter's now/valid_at)
            statuses = (Status.ACTIVE, Status.SUPERSEDED, Status.EXPIRED)
        if f.get("include_stale") and Status.SUPERSEDED not in statuses:
            # earlier values on request: superseded facts and the turns that stated them
            statuses = (*statuses, Status.SUPERSEDED)
        if include_faded:
            statuses = (*statuses, Status.FADED)
        return self.filter(
            user_id,
            agent_id=f.get("agent_id"),
            session_id=f.get("session_id"),
            kinds=tuple(Kind.parse(k) for k in kinds) if kinds else None,
            keys=tuple(keys) if keys else None,
            sources=tuple(sources) if sources else None,
            tags=tuple(tags) if tags else None,
            metadata=dict(f.get("metadata") or {}),
            statuses=statuses,
            remembered_at=None if include_faded else self.axis(user_id, now),
            now=at.timestamp(),
            # a superseded memory's validity closed when it was replaced: include_stale looks past
            # the window (recall drops what is outside it and not superseded: engine/current.py)
            valid_at=None if f.get("include_stale") and as_of is None else at.timestamp(),
            created_after=ensure_aware(created_after).timestamp() if created_after else None,
            created_before=ensure_aware(created_before).timestamp() if created_before else None,
        )

    def fading_filters(self, base: MemoryFilter, *, within_days: float = 0.0) -> list[MemoryFilter]:
        """Filters of the active, unpinned memories of ``base`` whose fade time falls before now plus
        ``within_days``: one for wall time, one per user on the active-days clock (each user's axis)."""
        active = replace(base, statuses=(Status.ACTIVE,), pinned=False)
        if self.decay.clock_mode == "wall":
            return [replace(active, faded_by=dk.wall_axis(self.now().timestamp()) + within_days)]
        return [
            replace(active, user_id=u.user_id, faded_by=self.axis(u.user_id) + within_days)
            for u in self.store.users(tenant=self.tenant, limit=1_000_000)
        ]

    # -- reading -----------------------------------------------------------------------------------
    def require(self, memory_id: str, *, lock: bool = False) -> MemoryRecord:
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

    def strength_of(self, record: MemoryRecord, *, axis: float | None = None) -> float:
        return dk.strength_at(state_of(record), axis if axis is not None else self.axis(record.user_id))

    def apply_state(self, record: MemoryRecord, state: DecayState) -> None:
        """Set the record's decay state and the fade time derived from it (the indexed column)."""
        record.strength0, record.stability, record.anchor, record.pinned = (
            state.strength0,
            state.stability,
            state.anchor,
            state.pinned,
        )
        record.fade_at = dk.fade_at(state, self.decay)

    # -- audit -------------------------------------------------------------------------------------
    def audit(
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
        """Append one entry to the tenant's hash chain (ids, kinds, counts: never the content).

        The reason and summary pass through the redactor's one-way log redaction (``[PHONE]``), so a
        value a client put in a hide reason never reaches the append-only log."""
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
                reason=self.log_text(reason),
                user_id=user_id,
                policy=policy,
                batch_id=batch_id,
                memory_ids=tuple(id_list),
                summary=self.log_text(summary if summary is not None else describe(records or [])),
                details=extra,
            ),
            key=self.audit_key,
        )

    def log_text(self, text: str) -> str:
        """Text bound for the audit log or a status reason, with personal data replaced one way
        (``[EMAIL]``) by the redactor's ``redact_for_log``; as given when no redactor is set."""
        redact = getattr(self.redactor, "redact_for_log", None)
        if redact is None or not text:
            return text
        done = self._log_texts.get(text)
        if done is None:
            done = str(redact(text))
            if len(self._log_texts) >= _LOG_CACHE:
                self._log_texts.clear()
            self._log_texts[text] = done
        return done

    def check_identifier(self, value: object, name: str) -> str:
        """An id must be an opaque identifier: with a redactor set, one that holds structured
        personal data (an e-mail, a phone number …) is refused rather than stored as given."""
        value = check_identifier(value, name)
        scan = getattr(self.redactor, "scan", None)
        if scan is not None and value not in self._ids_ok:
            found = sorted(
                {str(getattr(f.entity_type, "value", f.entity_type)) for f in scan(value)} & _IDENTIFIER_PII
            )
            if found:
                raise ValidationError(
                    f"{name} looks like personal data ({', '.join(found)}); use an opaque id "
                    "(identifiers are stored and audited as given, never redacted)"
                )
            if len(self._ids_ok) >= _LOG_CACHE:
                self._ids_ok.clear()
            self._ids_ok.add(value)
        return value

    def redact_fields(self, record: MemoryRecord) -> None:
        """Run the redactor over the client's free text besides the content: key, source, every
        string, number and object key in metadata, so none is stored in plaintext. The engine's own
        keys are left as they are only while they hold what the engine writes there (memory ids): a
        caller's ``derived_from`` / ``from_episode`` of any other shape is redacted too."""
        if self.redactor is None:
            return
        if record.key is not None:
            record.key = self.redact(record.key, record.user_id)
        if record.source is not None:
            record.source = self.redact(record.source, record.user_id)
        meta: dict[str, Any] = {}
        for k, v in record.metadata.items():
            if k in RESERVED_METADATA_KEYS or (k in ENGINE_METADATA and _ids_only(v)):
                meta[k] = v
            elif k in ENGINE_METADATA:
                meta[k] = self._redact_value(v, record.user_id)
            else:
                meta[self._redact_key(k, record.user_id)] = self._redact_value(v, record.user_id)
        record.metadata = meta

    def _redact_key(self, key: str, user_id: str) -> str:
        return self.redact(key, user_id) if not key.isascii() or _may_hold_pii(key) else key

    def _redact_value(self, value: Any, user_id: str) -> Any:
        if isinstance(value, str):
            return self.redact(value, user_id) if value.strip() else value
        if isinstance(value, Mapping):
            return {
                self._redact_key(str(k), user_id): self._redact_value(v, user_id) for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self._redact_value(v, user_id) for v in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            # a phone or card number sent as a JSON number: redacted like its digits would be (the
            # placeholder then stands in its place, a string); short numbers hold no such value
            text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
            if sum(c.isdigit() for c in text) >= _MIN_PII_DIGITS:
                redacted = self.redact(text, user_id)
                if redacted != text:
                    return redacted
        return value

    # -- writing -----------------------------------------------------------------------------------
    def redact(self, text: str, user_id: str, prepared: PreparedText | None = None) -> str:
        """Run the configured redactor on text bound for the store (identity when none is set);
        ``prepared``: its detections, from :meth:`prepare` (then only the vault work is left)."""
        if self.redactor is None:
            return text
        if prepared is not None and isinstance(self.redactor, PreparingRedactor):
            return self.redactor.redact(text, tenant=self.tenant, user_id=user_id, prepared=prepared).text
        return self.redactor.redact(text, tenant=self.tenant, user_id=user_id).text

    def prepare(self, items: Sequence[tuple[str, WriteOptions]]) -> list[PreparedText | None]:
        """The CPU work of writing ``(content, options)`` items, done before the write lock is taken:
        the redactor's detection and the retriever's embedding of the text as it will be stored.
        Call it outside any transaction; pass each result to :meth:`build`. What it cannot prepare
        (no preparing redactor, ``redact=False``) is simply done later, under the lock."""
        return self.prepare_read(items)[0]

    def prepare_read(
        self, items: Sequence[tuple[str, WriteOptions]]
    ) -> tuple[list[PreparedText | None], tuple[str, list[Any]] | None]:
        """:meth:`prepare`, and what the retriever's model read: its id and each item's own-text
        vector (``None`` for an item it did not embed), or ``None`` when it embedded nothing."""
        out: list[PreparedText | None] = []
        docs: list[tuple[str, Mapping[str, Any]]] = []
        doc_of: list[int] = []  # the item each doc is
        for content, opts in items:
            checkpoint("reading the text to store")
            prepared = None
            if (
                isinstance(content, str)
                and opts.get("redact", True)
                and isinstance(self.redactor, PreparingRedactor)
            ):
                prepared = self.redactor.prepare(content)
            out.append(prepared)
            if isinstance(content, str):
                meta = opts.get("metadata")
                text = prepared.preview if prepared is not None else content
                speaker = meta.get("speaker") if isinstance(meta, Mapping) else None
                if prepared is not None and isinstance(speaker, str) and speaker.strip():
                    # metadata strings are redacted too (redact_fields): the speaker as it will be stored
                    assert isinstance(self.redactor, PreparingRedactor)
                    meta = {**meta, "speaker": self.redactor.prepare(speaker).preview}
                if self.redactor is None or prepared is not None or not opts.get("redact", True):
                    docs.append((text, meta if isinstance(meta, Mapping) else {}))
                    doc_of.append(len(out) - 1)
        read: tuple[str, list[Any]] | None = None
        if docs and isinstance(self.retriever, DocumentPreparer):
            vectors = self.retriever.prepare_documents(docs)
            if vectors is not None:
                per_item: list[Any] = [None] * len(items)
                for i, v in zip(doc_of, vectors[1], strict=True):
                    per_item[i] = v
                read = (vectors[0], per_item)
        # the write hooks' nearest-neighbour search embeds the new text as a query: do it now too
        checked = [
            p.preview if p is not None else c
            for (c, o), p in zip(items, out, strict=True)
            if isinstance(c, str)
            and o.get("key") is None
            and self.hooks
            and str(o.get("kind", Kind.FACT)) in ("fact", "preference")
            and (p is not None or self.redactor is None or not o.get("redact", True))
        ]
        if checked and isinstance(self.retriever, QueryPreparer):
            self.retriever.prepare_queries(checked)
        return out, read

    def stored_text(self, content: object, opts: WriteOptions, prepared: PreparedText | None) -> str | None:
        """The text :meth:`build` will store for ``content`` given its :meth:`prepare` result, or
        ``None`` when only the redactor under the lock can tell."""
        if not isinstance(content, str):
            return None
        if prepared is not None:
            return prepared.preview
        return content if self.redactor is None or not opts.get("redact", True) else None

    def build(
        self,
        content: str,
        *,
        user_id: str,
        options: WriteOptions | None = None,
        prepared: PreparedText | None = None,
    ) -> MemoryRecord:
        """A validated, redacted new record with its initial decay state (not stored yet);
        ``prepared``: the content's :meth:`prepare` result."""
        opts: WriteOptions = options or {}
        unknown = set(opts) - WRITE_OPTIONS
        if unknown:
            raise ValidationError(f"unknown memory option(s): {', '.join(sorted(unknown))}")
        self.check_identifier(user_id, "user_id")
        check_content(content)
        kind = Kind.parse(opts.get("kind", Kind.FACT))
        importance = check_unit_interval(opts.get("importance", 0.5), "importance")
        confidence = check_unit_interval(opts.get("confidence", 1.0), "confidence")
        key = opts.get("key")
        if key is not None:
            key = check_identifier(key, "key").strip()
        for name in ("agent_id", "session_id"):
            value = opts.get(name)
            if value is not None:
                self.check_identifier(value, name)
        source = opts.get("source")
        if source is not None and (not isinstance(source, str) or len(source) > 256):
            raise ValidationError("source must be a string of at most 256 characters")
        # before the redactor runs: a refused write leaves nothing behind (no vault entry either)
        meta = check_metadata(opts.get("metadata"))
        now = self.now()
        ttl, expires_at = opts.get("ttl"), opts.get("expires_at")
        if ttl is not None and expires_at is not None:
            raise ValidationError("give either ttl or expires_at, not both")
        if ttl is not None:
            expires_at = now + parse_duration(ttl)
        elif expires_at is not None:
            expires_at = ensure_aware(expires_at, name="expires_at")
        valid_from, valid_to = opts.get("valid_from"), opts.get("valid_to")
        valid_from = ensure_aware(valid_from, name="valid_from") if valid_from is not None else None
        valid_to = ensure_aware(valid_to, name="valid_to") if valid_to is not None else None
        if valid_from and valid_to and valid_to <= valid_from:
            raise ValidationError("valid_to must be after valid_from")
        occurred_at = opts.get("occurred_at")
        occurred_at = ensure_aware(occurred_at, name="occurred_at") if occurred_at is not None else None
        pinned = bool(opts.get("pinned", False))
        self.mark_active(user_id, now)
        redact = bool(opts.get("redact", True))
        text = self.redact(content, user_id, prepared) if redact else content
        state = dk.new_state(kind, importance, self.axis(user_id, now), self.decay, pinned=pinned)
        record = MemoryRecord(
            id=new_id(),
            user_id=user_id,
            content=text,
            kind=kind,
            tenant=self.tenant,
            agent_id=opts.get("agent_id"),
            session_id=opts.get("session_id"),
            key=key,
            source=source,
            confidence=confidence,
            importance=importance,
            pinned=pinned,
            created_at=now,
            expires_at=expires_at,
            valid_from=valid_from,
            valid_to=valid_to,
            occurred_at=occurred_at,
            metadata=meta,
        )
        if redact:
            self.redact_fields(record)
        self.apply_state(record, state)
        return record

    # -- duplicates --------------------------------------------------------------------------------
    def digest(self, original: str, record: MemoryRecord) -> str | None:
        """The duplicate digest of a new record: an HMAC-SHA256 of its normalised text, never the text;
        None (not deduplicated) when the record holds a vaulted value.

        A write that repeats a memory answers with that memory (``deduplicated``), so a digest over
        a personal value would let any key that can write confirm a guessed value of the user's
        ("my number is <guess>" answering the victim's own memory): a record with a placeholder in
        its text or key is stored as written, never matched (the same as without an audit key,
        where per-write placeholders never repeat).

        With an audit key (kept outside the database) the key is derived from it and the text is the
        one the caller wrote, so the same turn matches whatever placeholders the redactor gave it;
        a database reader without the key cannot test guesses of a redacted value against it. Without
        one the key is a random one kept in the store's meta table, and the text is the stored
        (redacted) text: then the digest tells nothing the row itself does not."""
        if PLACEHOLDER.search(record.content) or PLACEHOLDER.search(record.key or ""):
            return None
        if self._digest_key is not None:
            key, text = self._digest_key, original
        else:
            if self._meta_key is None:  # read once: once set, it never changes
                salt = self.store.get_meta(DIGEST_KEY_META)
                if salt is None:  # claimed, not set: two first writers at once must share one key
                    salt = self.store.claim_meta(DIGEST_KEY_META, secrets.token_hex(32))
                self._meta_key = bytes.fromhex(salt)
            key, text = self._meta_key, record.content
        # who said it is part of what was said: the assistant's "Thanks!" is not the user's
        said_by = [str(record.metadata.get(k) or "") for k in ("role", "speaker")]
        scope = "\x1f".join((record.kind.value, record.key or "", *said_by, normalised_text(text)))
        return hmac.new(key, scope.encode("utf-8"), hashlib.sha256).hexdigest()

    def duplicate_of(
        self,
        record: MemoryRecord,
        digest: str,
        *,
        at: datetime | None = None,
        found: Sequence[MemoryRecord] | None = None,
    ) -> MemoryRecord | None:
        """The memory a new ``record`` repeats: the oldest of the user's with the same digest, agent,
        kind and key that is still active or only faded (weak, not forgotten); never a hidden,
        superseded, expired or out-of-validity one, which a repeat does not revive. ``found``: the
        user's memories with that digest, when already read (a batch reads them in one statement)."""
        now = at or self.now()
        if found is None:
            found = self.store.by_digest(digest, tenant=self.tenant, user_id=record.user_id)
        for r in found:
            if (
                r.status in (Status.ACTIVE, Status.FADED)
                and r.agent_id == record.agent_id
                and r.kind == record.kind
                and r.key == record.key
                and (r.expires_at is None or r.expires_at > now)
                and (r.valid_to is None or r.valid_to > now)
            ):
                return r
        return None

    def insert(
        self,
        records: Sequence[MemoryRecord],
        *,
        supersede: bool = True,
        digests: Sequence[str | None] | None = None,
    ) -> list[MemoryRecord]:
        """Store built records in one transaction. With ``supersede`` a keyed memory supersedes the
        user's current memory with that key, and an unkeyed one goes through the write hooks.

        With ``digests`` (from :meth:`digest`, one per record, None to skip one) a record that repeats
        a memory the user already has (:meth:`duplicate_of`, or an earlier record of the same batch)
        is not stored: that memory gets the ``repeat`` reinforcement instead, audited ("reinforced by
        a repeat"), and comes back in the record's place with ``deduplicated`` set. The lookup and the
        reinforcement run in this same transaction."""
        now = self.now()
        index_text = self.retriever.index_text
        entities = self.entities_of(records)  # read before the lock (linear in the text)
        with self.store.transaction():
            kept, repeats, kept_digests = self._split_repeats(records, digests, now)
            # the digests go in with the rows (no second write of each new row)
            stored = self._insert_kept(kept, supersede, now, index_text, dict(kept_digests))
            self._reindex_followed(kept)
            self.index_entities(kept, entities)
            reinforced = self._reinforce_repeats(repeats, records, now)
        self.retriever.on_write(self, [r.id for r in kept])
        out: list[MemoryRecord] = []
        for i, record in enumerate(records):
            if i in repeats:
                out.append(reinforced[repeats[i]].copy(deduplicated=True))
            else:
                out.append(stored[record.id])
        return out

    def entities_of(self, records: Sequence[MemoryRecord]) -> dict[str, list[tuple[str, str]]]:
        """The retriever's entities of each record (from its stored, redacted content); none when the
        retriever reads none (``EntitySource``)."""
        if not isinstance(self.retriever, EntitySource):
            return {}
        return {r.id: ents for r in records if (ents := self.retriever.entities(r))}

    def index_entities(
        self, records: Sequence[MemoryRecord], entities: Mapping[str, Sequence[tuple[str, str]]] | None = None
    ) -> None:
        """Write the entity rows of stored records (inside the caller's transaction); ``entities``
        from :meth:`entities_of`, read now when not given. A record without entities writes nothing
        (a new or re-inserted row has none)."""
        got = self.entities_of(records) if entities is None else entities
        rows = [(r.id, r.user_id, got[r.id]) for r in records if got.get(r.id)]
        if rows:
            self.store.set_entities(rows, tenant=self.tenant)

    def _split_repeats(
        self, records: Sequence[MemoryRecord], digests: Sequence[str | None] | None, now: datetime
    ) -> tuple[list[MemoryRecord], dict[int, str], list[tuple[str, str]]]:
        """The records to store, for each repeat (by position) the id of the memory it repeats, and
        the kept records' (id, digest) pairs."""
        if digests is None:
            return list(records), {}, []
        kept: list[MemoryRecord] = []
        repeats: dict[int, str] = {}
        kept_digests: list[tuple[str, str]] = []
        in_batch: dict[tuple[str, str | None, str], str] = {}
        by_user: dict[str, set[str]] = {}
        for record, digest in zip(records, digests, strict=True):
            if digest is not None:
                by_user.setdefault(record.user_id, set()).add(digest)
        for user_id in sorted(by_user):  # before the lookups, so a concurrent writer's copy is seen
            self.store.lock_digests(sorted(by_user[user_id]), tenant=self.tenant, user_id=user_id)
        # every lookup of the batch at once, a statement a user (they were one an item)
        stored = {
            user_id: self.store.by_digests(sorted(ds), tenant=self.tenant, user_id=user_id)
            for user_id, ds in by_user.items()
        }
        for i, (record, digest) in enumerate(zip(records, digests, strict=True)):
            if digest is None:
                kept.append(record)
                continue
            scope = (record.user_id, record.agent_id, digest)
            target = in_batch.get(scope)
            if target is None:
                existing = self.duplicate_of(
                    record, digest, at=now, found=stored[record.user_id].get(digest, [])
                )
                target = existing.id if existing is not None else None
            if target is not None:
                repeats[i] = target
                continue
            kept.append(record)
            in_batch[scope] = record.id
            kept_digests.append((record.id, digest))
        return kept, repeats, kept_digests

    def _insert_kept(
        self,
        records: list[MemoryRecord],
        supersede: bool,
        now: datetime,
        index_text: IndexText | None,
        digests: Mapping[str, str] | None = None,
    ) -> dict[str, MemoryRecord]:
        with ExitStack() as hooked:
            if supersede and len(records) > 1:
                for hook in self.hooks:
                    if isinstance(hook, BatchWriteHook):
                        hooked.enter_context(hook.batch(self, records))
            self._insert_each(records, supersede, now, index_text, digests or {})
        return {r.id: r.copy() for r in records}

    def _reads_for(self, record: MemoryRecord) -> bool:
        return any(not isinstance(h, ScopedWriteHook) or h.reads_for(record) for h in self.hooks)

    def _insert_each(
        self,
        records: list[MemoryRecord],
        supersede: bool,
        now: datetime,
        index_text: IndexText | None,
        digests: Mapping[str, str],
    ) -> None:
        """Insert in order, each keyed record superseding and each unkeyed one through the hooks.
        Rows wait to be sent in one batch until something reads the store (a supersession, a hook
        that reads for the next record) or the end: every read sees the rows before it, as if each
        were inserted on its own, in a round trip per batch rather than per row."""
        pending: list[tuple[MemoryRecord, str | None]] = []

        def flush() -> None:
            if pending:
                self.store.insert_many(
                    pending, digests={r.id: digests[r.id] for r, _ in pending if r.id in digests}
                )
                pending.clear()

        for record in records:
            if supersede and (record.key is not None or self._reads_for(record)):
                flush()
            if supersede and record.key is not None:
                speaker = record.metadata.get("speaker")
                replaced = self.transition(
                    self.filter(
                        record.user_id,
                        keys=(record.key,),
                        statuses=(Status.ACTIVE, Status.FADED),
                        agent_id=record.agent_id,
                        # a value said by a named speaker replaces that speaker's (a group chat, an
                        # imported conversation: one person's job is not another's)
                        metadata={"speaker": speaker} if isinstance(speaker, str) and speaker else {},
                    ),
                    Transition(
                        Status.SUPERSEDED,
                        "supersede",
                        f"newer memory {record.id} has the same key",
                        policy="key",
                        superseded_by=record.id,
                        close_validity=True,
                        summary=f"memories with key {key_ref(record.key)} superseded",
                    ),
                    at=now,
                    status_reason=f"superseded by {record.id}",
                )
                self.retire_stale([i for i, _ in replaced], record, at=now)
            elif supersede:
                for hook in self.hooks:
                    hook.before_insert(self, record)
            # a retriever may index more than the content (speaker, date, neighbouring turns);
            # only the stored records are neighbours (a repeat left out holds no words of its own)
            pending.append((record, index_text(self, record, records) if index_text else None))
        flush()

    def _reindex_followed(self, records: Sequence[MemoryRecord]) -> None:
        """Give the turns just before new ones their following context.

        A turn's index text holds the turns after it as well as those before, but a turn written on
        its own (``add`` of one message, as a chat app writes each turn) has no turn after it yet:
        when new turns join a session, the last :meth:`neighbour_window` turns it already held are
        indexed again with them (bounded: one read of the session's tail, at most that many rebuilt
        per session written to). Runs inside the insert's transaction."""
        if self.retriever.index_text is None:
            return
        groups: dict[tuple[str, str], list[MemoryRecord]] = {}
        for r in records:
            if r.kind == Kind.EPISODE and r.session_id:
                groups.setdefault((r.user_id, r.session_id), []).append(r)
        w = self.neighbour_window()
        rebuilt: list[tuple[str, str]] = []
        for (user_id, session_id), group in groups.items():
            new = {r.id for r in group}
            tail = self.store.query(
                self.filter(user_id, session_id=session_id, kinds=(Kind.EPISODE,), statuses=None),
                order="-created_at",
                limit=len(group) + 2 * w,
            )
            tail.reverse()
            first = next((i for i, r in enumerate(tail) if r.id in new), len(tail))
            for i in range(max(0, first - w), first):
                text = self.index_text_for(tail[i], tail[max(0, i - w) : i], after=tail[i + 1 : i + 1 + w])
                if text is not None:
                    rebuilt.append((tail[i].id, text))
        if rebuilt:
            self.store.set_index_texts(rebuilt, tenant=self.tenant)

    def supersede_live(
        self,
        ids: Sequence[str],
        by: MemoryRecord,
        reason: str,
        *,
        policy: str,
        summary: str,
        at: datetime | None,
        status_reason: str,
    ) -> list[str]:
        """Supersede those of ``ids`` still live by ``by`` (validity closed), audited as one entry;
        the ids it changed. Stale turns and corrections retire what stated an old value with it."""
        return [
            i
            for i, _ in self.transition(
                self.filter(by.user_id, ids=tuple(dict.fromkeys(ids)), statuses=_LIVE),
                Transition(
                    Status.SUPERSEDED,
                    "supersede",
                    reason,
                    policy=policy,
                    superseded_by=by.id,
                    close_validity=True,
                    summary=summary,
                ),
                at=at,
                status_reason=status_reason,
            )
        ]

    def retire_stale(self, superseded: Sequence[str], by: MemoryRecord, *, at: datetime) -> list[str]:
        """Stop offering as current the memories that stated a value ``by`` has just replaced.

        ``superseded`` are the ids of the memories ``by`` superseded by key. What stated their value
        are their source turns (``from_episode``/``derived_from``) and the turns' consolidated copies
        (``consolidated_into``); ``by``'s own turn is never among them ("I moved from Berlin to
        Paris" states both). A source whose every claim is now superseded is superseded itself
        (``superseded_by`` the new memory, its validity closed: ``as_of``, ``history(turns=True)``
        and ``include_stale`` still reach it); one that still carries another current claim stays
        active, for that claim, and records the stale slot under ``metadata["stale_keys"]``
        (key -> the replacing memory's id), so recall ranks it behind the current value and labels
        it earlier (:mod:`remnant.engine.current`). Audited (``supersede``, policy ``stale_turn``).
        Returns the ids of the memories marked."""
        if not superseded or by.key is None:
            return []
        gone = set(superseded)
        old = self.store.get_many(list(gone), tenant=self.tenant)
        own = {by.id, *provenance(by)}
        said = normalised_text(by.content)
        # a replaced memory that says what the new one says (the same value again, kept apart by an
        # agent or a fade) leaves its turn as current as it was
        changed = [r for r in old if normalised_text(r.content) != said]
        sources = [s for s in dict.fromkeys(link for r in changed for link in provenance(r)) if s not in own]
        if not sources:
            return []
        turns = [t for t in self.store.get_many(sources, tenant=self.tenant) if t.status in _LIVE]
        copies = [
            c
            for t in turns
            for c in [t.metadata.get(CONSOLIDATED_INTO)]
            if isinstance(c, str) and c not in gone and c not in own
        ]
        claims = {
            f
            for t in turns
            for f in (t.metadata.get("facts") or [])
            if isinstance(f, str) and f not in gone and f != by.id
        }
        live_claims = {
            r.id for r in self.store.get_many(sorted(claims), tenant=self.tenant) if r.status == Status.ACTIVE
        }
        retire: list[str] = []
        marked: list[str] = []
        for turn in turns:
            others = [f for f in (turn.metadata.get("facts") or []) if f in live_claims]
            if not others:
                retire.append(turn.id)
                continue
            stale = dict(turn.metadata.get(STALE_KEYS) or {})
            stale[by.key] = by.id
            turn.metadata[STALE_KEYS] = stale
            self.store.update(turn)
            marked.append(turn.id)
        for copy in self.store.get_many(copies, tenant=self.tenant):
            if copy.status in _LIVE and copy.key is None:
                retire.append(copy.id)
        reason = f"it stated the value of {key_ref(by.key)} that {by.id} replaced"
        done: list[str] = []
        if retire:
            done = self.supersede_live(
                retire,
                by,
                reason,
                policy="stale_turn",
                summary="memories that stated a replaced value superseded",
                at=at,
                status_reason=f"stale: superseded by {by.id}",
            )
        if marked:
            self.audit(
                "stale",
                reason + "; kept active for its other claims",
                ids=marked,
                user_id=by.user_id,
                policy="stale_turn",
                summary=_counted(len(marked), "memories marked as stating an earlier value"),
                details={"key": key_ref(by.key), "superseded_by": by.id},
            )
        return done + marked

    def _reinforce_repeats(
        self, repeats: Mapping[int, str], records: Sequence[MemoryRecord], now: datetime
    ) -> dict[str, MemoryRecord]:
        """Reinforce each repeated memory once per repeat (:func:`remnant.core.decay.reinforce`,
        ``repeat``), never leaving it weaker than the repeat would be if stored anew (a nearly
        forgotten turn said again is at least a new mention), and audit it; the results by id."""
        if not repeats:
            return {}
        targets = self.store.get_many(list(dict.fromkeys(repeats.values())), tenant=self.tenant)
        by_id = {r.id: r for r in targets}
        order = [by_id[t] for t in repeats.values() if t in by_id]
        for user in {r.user_id for r in order}:
            self.mark_active(user, now)
        out = {h.memory.id: h.memory for h in self.reinforce(order, "repeat", at=now)}
        for i, target in repeats.items():
            got, new = out.get(target), records[i]
            if got is not None and self._merge_repeat_metadata(got, new):
                self.store.update(got)
            if (
                got is None
                or got.pinned
                or (got.strength0 >= new.strength0 and got.stability >= new.stability)
            ):
                continue
            # both curves start now (reinforce re-anchors at now): the stronger of each part
            self.apply_state(
                got,
                DecayState(max(got.strength0, new.strength0), max(got.stability, new.stability), got.anchor),
            )
            self.store.update(got)
        for user, recs in by_user(order).items():
            ids = list(dict.fromkeys(r.id for r in recs))
            self.audit(
                "reinforce",
                "reinforced by a repeat",
                ids=ids,
                user_id=user,
                policy="dedup",
                summary=_counted(len(ids), "memories reinforced by a repeat (not stored twice)"),
                details={"repeats": len(recs)},
            )
        return out

    @staticmethod
    def _merge_repeat_metadata(got: MemoryRecord, new: MemoryRecord) -> bool:
        """A repeat's own metadata is merged into the memory it repeats (its values win: the latest
        write), and its tags are added to the memory's, rather than dropped; whether anything changed."""
        own = {k: v for k, v in new.metadata.items() if k not in ENGINE_METADATA}
        merged = {**got.metadata, **own}
        old_tags, new_tags = got.metadata.get("tags"), own.get("tags")
        if isinstance(old_tags, list) and isinstance(new_tags, list):
            merged["tags"] = list(dict.fromkeys([*old_tags, *new_tags]))
        if merged == got.metadata:
            return False
        got.metadata = check_metadata(merged, allow_reserved=True)  # the merged whole within limits
        return True

    def transition(
        self,
        flt: MemoryFilter,
        change: Transition,
        *,
        at: datetime | None = None,
        status_reason: str | None = None,
    ) -> list[tuple[str, str]]:
        """Move the memories the filter selects to ``change.status`` (set-based: rows already there are
        not touched, so two racing sweeps cannot apply one change twice) and audit each user's share in
        the same transaction: an unaudited change cannot survive a crash. Returns (id, user) pairs."""
        when = at or self.now()
        with self.store.transaction():
            pairs = self.store.set_status(
                flt,
                change.status,
                reason=status_reason or change.reason,
                at=when.timestamp(),
                superseded_by=change.superseded_by,
                close_validity=change.close_validity,
            )
            for user, ids in _group(pairs).items():
                self.audit(
                    change.action,
                    change.reason,
                    ids=ids,
                    user_id=user,
                    policy=change.policy,
                    batch_id=change.batch_id,
                    actor=change.actor,
                    summary=_counted(len(ids), change.summary or "memories " + change.status.value),
                )
        return pairs

    # -- writes a policy audits itself -------------------------------------------------------------
    # The forgetting policies change memories in ways that have no verb of their own (a flag in the
    # metadata, a closed validity window, a status change audited with the policy's own entry). They
    # write through these, never through the store: the ledger is the one writer of memories
    # (tests/test_architecture.py checks it), so index text, neighbours and vectors stay its concern.
    def save(self, record: MemoryRecord) -> None:
        """Write back a memory read (and locked) inside the caller's transaction, whose metadata,
        validity, expiry, links or status fields changed. Not for its content or who said it (they
        are part of its index text and of its neighbours'): :meth:`update` and :meth:`rewrite` are."""
        self.store.update(record)

    def save_many(self, records: Sequence[MemoryRecord]) -> None:
        """:meth:`save` of each record, sent to the store as one batch (one round trip on PostgreSQL)."""
        self.store.update_many(records)

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
        """A set-based status change (:meth:`Store.set_status`) that the caller audits with its own
        entry in the same transaction; returns the (id, user) pairs that changed.
        :meth:`transition` is the one that audits itself."""
        return self.store.set_status(
            flt, status, reason=reason, at=at, superseded_by=superseded_by, close_validity=close_validity
        )

    def remove(self, records: Sequence[MemoryRecord]) -> dict[str, str]:
        """Delete these memories for good (rows, index rows, vectors) and rebuild the index text of
        the turns that held their words, in one transaction; the caller audits (an erasure writes
        one entry for all) and tells the retriever. Returns the rebuilt index text by id."""
        if not records:
            return {}
        with self.store.transaction():
            turns = self.session_turns(records)
            self.store.delete([r.id for r in records], tenant=self.tenant)
            rebuilt = self.reindex_neighbours(turns, [r.id for r in records])
        self.forget_cached(r.content for r in records)
        return rebuilt

    def forget_cached(self, texts: Iterable[str]) -> None:
        """Deleted stays deleted in process memory: the readers' caches (remnant.core.memo) and
        the log-text cache drop what they hold of these texts."""
        items = list(texts)
        for t in items:
            self._log_texts.pop(t, None)
        memo.forget(items)

    def set_expiry(self, memory_id: str, expires_at: datetime | None) -> MemoryRecord | None:
        """Move an active memory's expiry (a read that restarts its TTL), unaudited like an access;
        the memory as written, or None when it is gone or no longer active."""
        with self.store.transaction():
            self.store.lock_rows([memory_id], tenant=self.tenant)
            record = self.store.get(memory_id, tenant=self.tenant)
            if record is None or record.status != Status.ACTIVE:
                return None
            record.expires_at = expires_at
            self.store.update(record)
        return record.copy()

    def put_embeddings(self, items: Sequence[tuple[str, str, np.ndarray]]) -> None:
        """Store (memory id, model id, vector) triples of this tenant's memories: the retriever's
        ``on_write`` and callers that bring their own vectors."""
        self.store.put_embeddings(items, tenant=self.tenant)

    def hide(
        self,
        ids: Sequence[str],
        *,
        reason: str,
        actor: str | None = None,
        policy: str | None = None,
        batch_id: str | None = None,
        action: str = "hide",
    ) -> list[str]:
        """Mask memories (reversible); a memory hidden while superseded, expired or faded remembers
        that status, so unhiding an old address brings it back as history, not as a second current one."""
        reason = self.log_text(reason)  # it is stored as the status reason too
        with self.store.transaction():
            self.store.lock_rows(list(ids), tenant=self.tenant)
            records = [self.require(i) for i in ids]
            for r in records:
                if r.status not in (Status.ACTIVE, Status.HIDDEN):
                    r.metadata[BEFORE_HIDE] = r.status.value
                    self.store.update(r)
                elif r.status == Status.ACTIVE and BEFORE_HIDE in r.metadata:
                    # never trust a stale or foreign value: an active memory unhides as active
                    del r.metadata[BEFORE_HIDE]
                    self.store.update(r)
            changed = self.store.set_status(
                self.filter(ids=tuple(ids), statuses=None),
                Status.HIDDEN,
                reason=reason,
                at=self.now().timestamp(),
            )
            done = {c[0] for c in changed}
            for user, recs in by_user([r for r in records if r.id in done]).items():
                self.audit(action, reason, recs, user_id=user, actor=actor, policy=policy, batch_id=batch_id)
        return [i for i in ids if i in done]

    def unhide(self, memory_id: str, *, actor: str | None = None) -> MemoryRecord:
        """Restore a hidden memory to the status it had before :meth:`hide` (active, or superseded,
        expired or faded); audited."""
        record = self.require(memory_id)
        if record.status != Status.HIDDEN:
            raise ConflictError(f"memory {memory_id} is {record.status.value}, not hidden")
        prior = record.metadata.get(BEFORE_HIDE)
        target = (
            Status(prior) if prior in (Status.SUPERSEDED, Status.EXPIRED, Status.FADED) else Status.ACTIVE
        )
        with self.store.transaction():
            changed = self.store.set_status(
                self.filter(ids=(memory_id,), statuses=(Status.HIDDEN,)),
                target,
                reason="restored",
                at=self.now().timestamp(),
            )
            if changed and prior is not None:
                fresh = self.require(memory_id, lock=True)
                fresh.metadata.pop(BEFORE_HIDE, None)
                self.store.update(fresh)
            self.audit("unhide", f"restored to {target.value}", [record], user_id=record.user_id, actor=actor)
        return self.require(memory_id)

    def purge(
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
        """Purge the memories that still exist when the write lock is held and audit exactly those.

        Re-reading inside the transaction is what keeps two concurrent sweeps from purging (and
        auditing) the same memory twice. Vault values only the purged memories used go with them.
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
            rebuilt = self.remove(present)
            for user, recs in by_user(present).items():
                self.audit(action, reason, recs, user_id=user, actor=actor, policy=policy, batch_id=batch_id)
                self._release_placeholders(user, recs)
        self.retriever.on_delete(self, [r.id for r in present])
        self.reembed_neighbours(rebuilt)
        if scrub:
            self.store.scrub()
        return present

    def rewrite(
        self,
        record: MemoryRecord | str,
        content: str,
        *,
        reason: str,
        actor: str | None = None,
        policy: str | None = None,
        batch_id: str | None = None,
        action: str = "rewrite",
        details: Mapping[str, Any] | None = None,
        scrub: bool = True,
    ) -> MemoryRecord | None:
        """Replace a memory's content in place (same id, status and decay state), audited.

        For removing part of a turn ("forget my phone number" in a turn that also gives an e-mail):
        the row is deleted and inserted again in one transaction, so every store rebuilds the lexical
        index text and the old words are no longer searchable; the retriever re-embeds it, vault
        values only the old text used are released, and the store scrubs the freed bytes. The new
        content is stored as given (not redacted again). Returns the rewritten memory, or None when it
        no longer exists. The audit entry carries ids and lengths, never the text.
        """
        check_content(content)
        mid = record if isinstance(record, str) else record.id
        with self.store.transaction():
            self.store.lock_rows([mid], tenant=self.tenant)
            current = self.store.get(mid, tenant=self.tenant)
            if current is None:
                return None
            old = current.copy()
            current.content = content
            turns = {
                k: [current if r.id == mid else r for r in v]
                for k, v in self.session_turns([current]).items()
            }
            session = next(iter(turns.values()), [current])
            pos = next((i for i, r in enumerate(session) if r.id == mid), 0)
            self.store.delete([mid], tenant=self.tenant)
            before = session[max(0, pos - self.neighbour_window()) : pos]
            self.store.insert(current, index_text=self.index_text_for(current, before))
            self.index_entities([current])  # its rows went with the delete
            # the turns around it held the old words as context
            rebuilt = self.reindex_neighbours(turns, changed=[mid])
            self.audit(
                action,
                reason,
                [current],
                user_id=current.user_id,
                actor=actor,
                policy=policy,
                batch_id=batch_id,
                summary=f"1 {current.kind.value} rewritten in place",
                details={"chars_before": len(old.content), "chars_after": len(content), **(details or {})},
            )
            self._release_placeholders(current.user_id, [old])
        self.forget_cached([old.content])
        self.retriever.on_delete(self, [mid])
        self.retriever.on_write(self, [mid])
        self.reembed_neighbours(rebuilt)
        if scrub:
            self.store.scrub()
        return current.copy()

    def session_turns(self, records: Sequence[MemoryRecord]) -> dict[tuple[str, str], list[MemoryRecord]]:
        """Every stored turn (any status) of the sessions the given conversation turns belong to,
        in the order they were written; read before a purge, so the purged turns' places are known.
        Empty when the retriever indexes each memory's own content only (nothing to rebuild)."""
        out: dict[tuple[str, str], list[MemoryRecord]] = {}
        if self.retriever.index_text is None:
            return out
        for r in records:
            if r.kind == Kind.EPISODE and r.session_id and (r.user_id, r.session_id) not in out:
                out[(r.user_id, r.session_id)] = self.store.query(
                    self.filter(r.user_id, session_id=r.session_id, kinds=(Kind.EPISODE,), statuses=None),
                    order="created_at",
                )
        return out

    def index_text_for(
        self,
        record: MemoryRecord,
        before: MemoryRecord | Sequence[MemoryRecord] | None,
        *,
        after: Sequence[MemoryRecord] = (),
    ) -> str | None:
        """A stored memory's lexical index text with ``before`` (the nearest remaining earlier turns
        of its session, oldest first, or the one nearest) and ``after`` (the turns after it, oldest
        first) as its context; None when the retriever adds nothing to the content."""
        index_text = self.retriever.index_text
        if index_text is None:
            return None
        if record.kind != Kind.EPISODE or not record.session_id:
            return str(index_text(self, record, [record]))
        earlier = [before] if isinstance(before, MemoryRecord) else list(before or ())
        if not earlier and not after:
            # no earlier turn remains: a batch of one without a session, so the retriever does not
            # look up "the session's newest turn" (for a stored turn that is not the one before it)
            return str(index_text(self, record.copy(session_id=None), [record.copy(session_id=None)]))
        return str(index_text(self, record, [*earlier, record, *after]))

    def neighbour_window(self) -> int:
        """How many turns on each side of a conversation turn its lexical index text holds (the
        retriever's ``neighbour_window``; 1 when it does not say)."""
        return max(1, int(self.retriever.neighbour_window))

    def reembed_neighbours(self, ids: Iterable[str]) -> None:
        """Re-embed the turns whose vector was computed with a purged or rewritten neighbour's text
        (a retriever with ``vectors_hold_context``: the turn before is part of each turn's vector);
        call after the change's transaction, with what :meth:`reindex_neighbours` rebuilt."""
        ids = list(ids)
        if ids and self.retriever.vectors_hold_context:
            self.retriever.on_write(self, ids)

    def reindex_neighbours(
        self,
        turns: Mapping[tuple[str, str], Sequence[MemoryRecord]],
        removed: Iterable[str] = (),
        *,
        changed: Iterable[str] = (),
    ) -> dict[str, str]:
        """Rebuild the index text of every remaining turn that embedded a removed (or rewritten)
        turn's text.

        Conversation turns are indexed with their neighbours' text (the retriever's ``index_text``):
        the turn after a removed one holds its words as context, and so does the turn before it when
        both came in one batch. ``turns`` is :meth:`session_turns` read before the change (with a
        rewritten turn's new content); this runs inside the purge's (or rewrite's) transaction, so
        the old text leaves every row of the full-text index in the same commit. Returns the
        rebuilt index text by memory id."""
        if self.retriever.index_text is None:
            return {}  # the store indexes each memory's own content only
        gone, touched = set(removed), set(removed) | set(changed)
        w = self.neighbour_window()
        rebuilt: dict[str, str] = {}
        for session in turns.values():
            remaining = [r for r in session if r.id not in gone]
            at = {r.id: j for j, r in enumerate(session)}
            targets: set[int] = set()
            for i, r in enumerate(remaining):  # the kept turns next to a touched one
                j = at[r.id]
                near = [session[k].id for k in range(j - w, j + w + 1) if k != j and 0 <= k < len(session)]
                if r.id not in touched and touched.intersection(near):
                    targets.add(i)
            for i in sorted(targets):
                text = self.index_text_for(
                    remaining[i], remaining[max(0, i - w) : i], after=remaining[i + 1 : i + 1 + w]
                )
                if text is not None:
                    rebuilt[remaining[i].id] = text
        if rebuilt:
            self.store.set_index_texts(sorted(rebuilt.items()), tenant=self.tenant)
        return rebuilt

    def update(self, memory_id: str, changes: UpdateOptions, *, actor: str | None = None) -> MemoryRecord:
        """Change a memory in place (see :meth:`Memory.update`): validate every change first, then
        write them, re-index and re-embed (when the text or metadata changed) and audit, in one
        transaction; the vault values only the old text used are released."""
        unknown = set(changes) - UPDATE_OPTIONS
        if unknown:
            raise ValidationError(f"unknown update option(s): {', '.join(sorted(unknown))}")
        fields = sorted(k for k in changes if k != "redact")
        if not fields:
            raise ValidationError("update needs at least one change")
        index_text = self.retriever.index_text
        with self.store.transaction():
            current = self.require(memory_id, lock=True)
            if current.status in (Status.SUPERSEDED, Status.EXPIRED):
                raise ConflictError(
                    f"memory {memory_id} is {current.status.value}; only active, faded or hidden ones "
                    "can be updated (write a new value with remember)"
                )
            old = current.copy()
            record = current.copy()
            now = self.now()
            if "content" in changes:
                content = check_content(changes["content"])
                record.content = (
                    self.redact(content, record.user_id) if changes.get("redact", True) else content
                )
            if "importance" in changes:
                importance = check_unit_interval(changes["importance"], "importance")
                # the same curve shape at the new importance: stability scales, strength now stays
                ratio = dk.initial_stability(record.kind, importance, self.decay) / dk.initial_stability(
                    record.kind, record.importance, self.decay
                )
                record.importance = importance
                state = state_of(record)
                self.apply_state(record, replace(state, stability=state.stability * ratio))
            if "confidence" in changes:
                record.confidence = check_unit_interval(changes["confidence"], "confidence")
            if "metadata" in changes:
                patch = changes["metadata"]
                if patch is not None and not isinstance(patch, Mapping):
                    raise ValidationError("metadata must be a mapping")
                # the patch by the same rules as a new write (no engine keys, not even to remove)
                check_metadata({k: v for k, v in (patch or {}).items()})
                merged = dict(record.metadata)
                for k, v in (patch or {}).items():
                    if v is None:
                        merged.pop(k, None)
                    else:
                        merged[k] = v
                record.metadata = merged
            if "tags" in changes:
                tags = changes["tags"]
                if tags is None or not list(tags):
                    record.metadata.pop("tags", None)
                else:
                    if isinstance(tags, str) or not all(isinstance(t, str) and t.strip() for t in tags):
                        raise ValidationError("tags must be a list of non-empty strings")
                    if len(tags) > MAX_TAGS:
                        raise ValidationError(f"at most {MAX_TAGS} tags")
                    record.metadata["tags"] = list(dict.fromkeys(tags))
            # the merged whole within the limits too (the engine's own keys it already had stay)
            record.metadata = check_metadata(record.metadata, allow_reserved=True)
            for name in ("valid_from", "valid_to"):
                if name in changes:
                    value = changes[name]  # type: ignore[literal-required]
                    setattr(record, name, ensure_aware(value, name=name) if value is not None else None)
            if record.valid_from and record.valid_to and record.valid_to <= record.valid_from:
                raise ValidationError("valid_to must be after valid_from")
            if "ttl" in changes and "expires_at" in changes:
                raise ValidationError("give either ttl or expires_at, not both")
            if "ttl" in changes:
                record.expires_at = now + parse_duration(changes["ttl"])
            elif "expires_at" in changes:
                exp = changes["expires_at"]
                record.expires_at = ensure_aware(exp, name="expires_at") if exp is not None else None
            if ("metadata" in changes or "tags" in changes) and changes.get("redact", True):
                self.redact_fields(record)  # the same treatment as a new write's free text (tags too)
            reindex = record.content != old.content or record.metadata != old.metadata
            rebuilt: dict[str, str] = {}
            if reindex:
                turns = {
                    k: [record if r.id == memory_id else r for r in v]
                    for k, v in self.session_turns([record]).items()
                }
                session = next(iter(turns.values()), [record])
                pos = next((i for i, r in enumerate(session) if r.id == memory_id), 0)
                # the same text said by the same speaker is still the same repeat target; a new text
                # loses its digest (it is matched again only once written anew)
                said_by = ("role", "speaker")
                kept_digest = (
                    self.store.digests_of([memory_id], tenant=self.tenant).get(memory_id)
                    if record.content == old.content
                    and all(record.metadata.get(k) == old.metadata.get(k) for k in said_by)
                    else None
                )
                # delete and insert again: every store rebuilds the lexical index from the new row
                self.store.delete([memory_id], tenant=self.tenant)
                self.store.insert(
                    record,
                    index_text=self.index_text_for(
                        record, session[max(0, pos - self.neighbour_window()) : pos]
                    )
                    if index_text
                    else None,
                )
                self.index_entities([record])  # its rows went with the delete
                if kept_digest is not None:
                    self.store.set_digests([(memory_id, kept_digest)], tenant=self.tenant)
                if record.content != old.content or record.metadata != old.metadata:
                    # they held the old words (and the speaker) as context
                    rebuilt = self.reindex_neighbours(turns, changed=[memory_id])
            else:
                self.store.update(record)
            self.audit(
                "update",
                f"updated {', '.join(fields)}",
                [record],
                user_id=record.user_id,
                actor=actor,
                summary=f"1 {record.kind.value} updated in place",
                details={
                    "fields": fields,
                    **(
                        {"chars_before": len(old.content), "chars_after": len(record.content)}
                        if record.content != old.content
                        else {}
                    ),
                },
            )
            if record.content != old.content:
                self._release_placeholders(record.user_id, [old])
        if reindex:
            self.retriever.on_delete(self, [memory_id])
            self.retriever.on_write(self, [memory_id])
            self.reembed_neighbours(rebuilt)
        if record.content != old.content:
            self.store.scrub()  # the old text's freed pages
        return self.require(memory_id)

    def _release_placeholders(self, user_id: str, purged: Sequence[MemoryRecord]) -> None:
        """Drop vault entries that only the purged memories referred to: a purge takes the value too."""
        vault = vault_of(self.redactor)
        if vault is None:
            return
        wanted = {m for r in purged for m in PLACEHOLDER.findall(r.content)}
        if not wanted:
            return
        still_used: set[str] = set()
        flt = self.filter(user_id, statuses=None)
        offset = 0
        while wanted - still_used:
            page = self.store.query(flt, limit=2000, offset=offset)
            if not page:
                break
            for r in page:
                still_used.update(m for m in PLACEHOLDER.findall(r.content) if m in wanted)
            offset += len(page)
        for placeholder in sorted(wanted - still_used):
            vault.forget_placeholder(self.tenant, user_id, placeholder)

    def reinforce(
        self,
        records: Sequence[MemoryRecord],
        how: dk.Reinforcement,
        *,
        scores: Sequence[float] | None = None,
        at: datetime | None = None,
    ) -> list[Hit]:
        """Apply a reinforcement (review or recall) to each memory that still exists; a faded one revives."""
        now = at or self.now()
        hits = []
        with self.store.transaction():
            # lock, then re-read, so concurrent touches never lose an access or a boost (PostgreSQL
            # locks the rows in id order; SQLite's transaction already excludes other writers)
            self.store.lock_rows([r.id for r in records], tenant=self.tenant)
            # one read of them all under the lock (the caller's copies may be stale)
            current = {r.id: r for r in self.store.get_many([r.id for r in records], tenant=self.tenant)}
            axes: dict[str, float] = {}
            for i, seen in enumerate(records):
                r = current.get(seen.id)
                if r is None:  # purged meanwhile
                    continue
                axis = axes.get(r.user_id)
                if axis is None:
                    axis = axes[r.user_id] = self.axis(r.user_id, now)
                self.apply_state(r, dk.reinforce(state_of(r), axis, self.decay, how))
                r.last_accessed_at = now
                r.access_count += 1
                if how == "review":
                    r.review_count += 1
                if r.status == Status.FADED:
                    r.status, r.status_reason, r.status_changed_at = Status.ACTIVE, f"revived by {how}", now
                self.store.update(r)
                hits.append(Hit(r.copy(), scores[i] if scores else 0.0, self.strength_of(r, axis=axis)))
        return hits

    def set_pinned(self, memory_id: str, pinned: bool) -> MemoryRecord:
        """Pin (never decays, exempt from eviction) or unpin (the curve starts again from full strength)."""
        with self.store.transaction():
            record = self.require(memory_id, lock=True)  # read-modify-write: no lost touch
            if pinned and record.status not in (Status.ACTIVE, Status.FADED):
                raise ConflictError(
                    f"memory {memory_id} is {record.status.value}; only active or faded ones can be pinned"
                )
            self.apply_state(record, DecayState(1.0, record.stability, self.axis(record.user_id), pinned))
            if pinned:
                record.status = Status.ACTIVE
            self.store.update(record)
        return record.copy()


def provenance(record: MemoryRecord) -> list[str]:
    """The ids a memory says it came from: ``from_episode`` (a fact drawn from a turn) and
    ``derived_from`` (a consolidated fact or a summary; one id or a list)."""
    out: list[str] = []
    for name in ("from_episode", "derived_from"):
        value = record.metadata.get(name)
        values = value if isinstance(value, list) else [value]
        out.extend(v for v in values if isinstance(v, str) and v)
    return out


def state_of(record: MemoryRecord) -> DecayState:
    return DecayState(record.strength0, record.stability, record.anchor, record.pinned)


def by_user(records: Iterable[MemoryRecord]) -> dict[str, list[MemoryRecord]]:
    out: dict[str, list[MemoryRecord]] = defaultdict(list)
    for r in records:
        out[r.user_id].append(r)
    return out


def _counted(n: int, phrase: str) -> str:
    """``3 memories expired`` / ``1 memory expired``: the phrase's leading "memories" agrees with n."""
    if n == 1 and phrase.startswith("memories"):
        phrase = "memory" + phrase[len("memories") :]
    return f"{n} {phrase}"


def _group(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for mid, user in pairs:
        out[user].append(mid)
    return out
