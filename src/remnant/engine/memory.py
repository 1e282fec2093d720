"""The memory engine's facade: remember, recall, review, pin, hide, purge, forget, sweep, erase.

``Memory`` is the one object applications hold. Each verb is a thin step over the engine's write
seam, :class:`~remnant.engine.ledger.Ledger` (which keeps the decay state closed-form, supersedes
keyed facts and audits every act of forgetting), and the forgetting policies written on it
(:mod:`remnant.engine.forgetting`).
"""

from __future__ import annotations

import functools
import logging
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar, Unpack, cast

from remnant.core import decay as dk
from remnant.core.audit import AuditEntry, ChainVerification, check_anchor, make_anchor, verify_chain
from remnant.core.budget import checkpoint
from remnant.core.clock import Clock, SystemClock, from_epoch
from remnant.core.decay import DecayConfig
from remnant.core.errors import ConflictError, DecayModeMismatch, ValidationError
from remnant.core.limits import MAX_LIMIT, MAX_MESSAGES, MAX_QUERY_CHARS, MAX_REQUEST_CHARS
from remnant.core.model import DEFAULT_TENANT, Kind, MemoryRecord, Status, check_identifier, is_memory_id
from remnant.embed.base import Embedder, EmbeddingError, base_model_id
from remnant.engine.current import PairScorer, QueryVector, current_first
from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.engine.forgetting.correction import CORRECTS, apply_correction, read_correction
from remnant.engine.forgetting.erasure import DerivedCheck, erase_user
from remnant.engine.forgetting.knowledge import DEFAULT_OWNER, KnowledgeDoc, SyncReport, sync_knowledge
from remnant.engine.forgetting.requests import forget_request
from remnant.engine.forgetting.sweep import SweepPolicy, run_sweep
from remnant.engine.ledger import STALE_KEYS, Ledger, provenance, retrying
from remnant.engine.options import (
    BatchIngestor,
    Ingestor,
    LastingReader,
    Message,
    PlainIngestor,
    RecallFilters,
    UpdateOptions,
    WriteItem,
    WriteOptions,
)
from remnant.engine.reinforcement import ReinforcementPolicy
from remnant.engine.results import (
    AddResult,
    ErasureReport,
    FadedHint,
    ForgetIntent,
    ForgetMatch,
    ForgetResult,
    Hit,
    RecallResult,
    SweepReport,
)
from remnant.engine.seams import (
    LexicalRetriever,
    Ranking,
    RecordRetriever,
    Redactor,
    Reembedder,
    Retriever,
    StoredVectors,
    vault_of,
)
from remnant.store import open_store
from remnant.store.base import MemoryFilter, Store, UserSummary

log = logging.getLogger(__name__)
_F = TypeVar("_F", bound=Callable[..., Any])
_HINT_STATUSES = (Status.ACTIVE, Status.FADED, Status.EXPIRED)
_HINT_DEPTH = 10  # faded hints are the faded or expired memories among the top ten matches
# A conversation turn is recallable for at least this long after it is learned, whatever its
# salience: a turn judged filler keeps its importance but gets the decay curve of the least
# importance that lasts this long, so it fades within hours and is never stored already faded (a
# turn the salience model misreads, an answer to the turn before it, would otherwise never be found).
TURN_GRACE_DAYS = 0.5


def _admits(flt: MemoryFilter, r: MemoryRecord) -> bool:
    """Whether a record of the widened ranking also passes the recall filter: the three conditions
    the widening dropped (status, fade time, expiry), as :mod:`remnant.store.filter_sql` writes them."""
    if flt.statuses is not None and r.status not in flt.statuses:
        return False
    if flt.remembered_at is not None and not r.fade_at > flt.remembered_at:
        return False
    return flt.now is None or r.expires_at is None or r.expires_at.timestamp() > flt.now


def _retry_conflicts(method: _F) -> _F:
    """Run a verb again on a :class:`TransientConflict` (see :func:`remnant.engine.ledger.retrying`)."""

    @functools.wraps(method)
    def wrapper(self: Memory, *args: Any, **kwargs: Any) -> Any:
        return retrying(self.store, lambda: method(self, *args, **kwargs))

    return cast(_F, wrapper)


def check_limit(limit: object, name: str = "limit") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"{name} must be an integer in [1, {MAX_LIMIT}], got {limit!r}")
    return limit


class Engine:
    """The bare memory engine: user-scoped memories with biological forgetting, no privacy layer,
    lexical recall, the plain ingestor (:class:`remnant.Memory` is the product built on it).

    >>> mem = Engine(":memory:")
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
        ingestor: Ingestor | None = None,
        reinforcement: ReinforcementPolicy | None = None,
        audit_key: bytes | None = None,
        dedup: bool = True,
    ) -> None:
        #: a repeated write reinforces the memory it repeats instead of storing a second copy
        #: (:meth:`remember`, :meth:`remember_many`, :meth:`add`; see docs/decay.md)
        self.dedup = dedup
        self.reinforcement = reinforcement or ReinforcementPolicy()
        self.ingestor: Ingestor = ingestor or PlainIngestor()
        # unkeyed facts and preferences that likely contradict an active one: flagged by default
        self.contradictions = contradictions if contradictions is not None else ContradictionPolicy()
        self.ledger = Ledger(
            store if store is not None else open_store(db),
            clock=clock or SystemClock(),
            decay=decay or DecayConfig(),
            tenant=check_identifier(tenant, "tenant"),
            retriever=retriever or LexicalRetriever(),
            redactor=redactor,
            actor=actor,
            hooks=[self.contradictions],
            audit_key=audit_key,
        )
        self._check_decay_mode()
        #: files a layer above writes that could hold a user's values (a server log file); the
        #: erasure report scans them
        self.log_files: list[Path] = []
        #: derived stores a layer above keeps (name -> check of the erased values; see erasure)
        self.derived_checks: dict[str, DerivedCheck] = {}

    # -- what the engine is made of (read through the ledger: one source of truth) -----------------
    @property
    def store(self) -> Store:
        return self.ledger.store

    @property
    def tenant(self) -> str:
        return self.ledger.tenant

    @property
    def clock(self) -> Clock:
        return self.ledger.clock

    @property
    def decay(self) -> DecayConfig:
        return self.ledger.decay

    @property
    def retriever(self) -> Retriever:
        return self.ledger.retriever

    @property
    def redactor(self) -> Redactor | None:
        return self.ledger.redactor

    @redactor.setter
    def redactor(self, value: Redactor | None) -> None:
        self.ledger.redactor = value

    @property
    def actor(self) -> str:
        return self.ledger.actor

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
        return self.ledger.now()

    def axis(self, user_id: str, at: datetime | None = None) -> float:
        """The decay-axis position (days) of ``at`` for this user."""
        return self.ledger.axis(user_id, at)

    def redact(self, text: str, user_id: str) -> str:
        """Run the configured redactor on text bound for the store (identity when none is set)."""
        return self.ledger.redact(text, user_id)

    def rehydrate(self, memory_id: str, *, actor: str | None = None) -> str:
        """Privileged: the memory's text with its placeholders replaced by the vault's originals.

        Ordinary recall never returns plaintext; this needs the vault key and is audited.
        """
        record = self.ledger.require(memory_id)
        vault = vault_of(self.redactor)
        if vault is None:
            raise ConflictError("no vault is configured (the privacy layer is off)")
        text = vault.rehydrate(record.content, self.tenant, record.user_id)
        self.ledger.audit(
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
        self, content: str, *, user_id: str, supersede: bool = True, **options: Unpack[WriteOptions]
    ) -> MemoryRecord:
        """Store a memory. A memory with a ``key`` supersedes the user's active memory with that key.

        Options (:class:`~remnant.engine.ledger.WriteOptions`): ``kind`` (fact), ``key``,
        ``importance`` (0.5), ``confidence`` (1.0), ``source``, ``agent_id``, ``session_id``,
        ``pinned``, ``ttl`` or ``expires_at``, ``valid_from``/``valid_to``, ``occurred_at`` (when it
        happened or was said; decay still runs from now, when it is learned), ``metadata``, ``redact``.

        The same text again (normalised) in the same scope is not stored twice: the memory it
        repeats is reinforced and returned with ``deduplicated`` set (docs/forgetting.md,
        "Duplicates"; off with ``dedup=False``).
        """
        # detection and embedding first, outside the write lock: other requests never wait on them
        outside = not self.store.in_transaction()
        prepared = self.ledger.prepare([(content, options)])[0] if outside else None
        early = [(self.ledger.stored_text(content, options, prepared), user_id, options)]
        # the contradiction check's search and judging too; under the lock only what changed since
        # (vault entries written by the redactor commit with the memory)
        with (
            self.contradictions.prejudged(self.ledger, early if outside and supersede else []),
            self.store.transaction(),
        ):
            record = self.ledger.build(content, user_id=user_id, options=options, prepared=prepared)
            return self.ledger.insert(
                [record], supersede=supersede, digests=self._digests([(content, record)])
            )[0]

    def remember_many(
        self, items: Iterable[WriteItem | dict[str, Any]], *, supersede: bool = True
    ) -> list[MemoryRecord]:
        """Store many memories in one transaction; each item has ``content``, ``user_id`` and any
        :meth:`remember` option."""
        batch = [dict(item) for item in items]  # materialised: a conflict runs the batch again
        return retrying(self.store, lambda: self._remember_batch(batch, supersede))

    @_retry_conflicts
    def update(
        self, memory_id: str, *, actor: str | None = None, **changes: Unpack[UpdateOptions]
    ) -> MemoryRecord:
        """Change a memory in place (same id): its ``content`` (redacted again, re-indexed and
        re-embedded), ``importance`` (rescales its stability; its strength now does not jump),
        ``confidence``, ``tags`` (replaced), ``metadata`` (merged: a key set to ``None`` is removed),
        validity (``valid_from``, ``valid_to``) and expiry (``expires_at`` or ``ttl``; ``None``
        clears). An option left out is kept. Audited (which fields changed, never the text).

        An update corrects what a memory says; a new value of a keyed fact is a new memory under the
        same key (:meth:`remember`), which keeps the old one as history.
        """
        return self.ledger.update(memory_id, changes, actor=actor)

    def _remember_batch(self, batch: list[dict[str, Any]], supersede: bool) -> list[MemoryRecord]:
        items = []
        for item in batch:
            opts = dict(item)
            content, user_id = opts.pop("content", None), opts.pop("user_id", None)
            if not isinstance(content, str) or not isinstance(user_id, str):
                raise ValidationError("each item needs a content and a user_id string")
            items.append((content, user_id, cast(WriteOptions, opts)))
        outside = not self.store.in_transaction()
        prepared: list[Any] = (
            self.ledger.prepare([(c, o) for c, _, o in items]) if outside else [None] * len(items)
        )
        early = [
            (self.ledger.stored_text(c, o, p), u, o) for (c, u, o), p in zip(items, prepared, strict=True)
        ]
        with (
            self.contradictions.prejudged(self.ledger, early if outside and supersede else []),
            self.store.transaction(),
        ):
            records = [
                self.ledger.build(content, user_id=user_id, options=opts, prepared=ready)
                for (content, user_id, opts), ready in zip(items, prepared, strict=True)
            ]
            digests = self._digests([(c, r) for (c, _, _), r in zip(items, records, strict=True)])
            return self.ledger.insert(records, supersede=supersede, digests=digests)

    def _digests(self, written: Sequence[tuple[str, MemoryRecord]]) -> list[str | None] | None:
        """The duplicate digests of new records (with the text the caller gave), or None when
        deduplication is off."""
        if not self.dedup:
            return None
        return [self.ledger.digest(content, record) for content, record in written]

    def add(
        self,
        messages: str | Message | Mapping[str, Any] | Sequence[Message | Mapping[str, Any] | str],
        *,
        user_id: str,
        session_id: str | None = None,
        agent_id: str | None = None,
        infer: bool = True,
        metadata: Mapping[str, Any] | None = None,
        occurred_at: datetime | None = None,
    ) -> AddResult:
        """Remember a conversation: the one call for chat turns.

        Each message becomes an episode whose importance is the ingestor's judgement of how much
        it matters (a stated plan, a change of job, a habit: high; a greeting, thanks, weather:
        low), with any expiry it states in words; the facts the ingestor finds become keyed
        memories that supersede older values (each carrying ``metadata`` and ``from_episode``, the
        episode's id; the episode lists them under ``metadata["facts"]``). ``infer=False`` stores
        the messages as they are, at the ingestor's default importance, without extraction. One
        transaction for all. ``occurred_at`` is when the messages were said (an imported chat
        history's date); the memories are still learned now, so they do not arrive faded.
        """
        if isinstance(messages, (str, Message, Mapping)):
            messages = [messages]
        if len(messages) > MAX_MESSAGES:
            raise ValidationError(f"add takes at most {MAX_MESSAGES} messages, got {len(messages)}")
        parsed = [Message.parse(m) for m in messages]
        if not parsed:
            raise ValidationError("add needs at least one message")
        return retrying(
            self.store,
            lambda: self._add(
                parsed, user_id, session_id, agent_id, infer, dict(metadata or {}), occurred_at
            ),
        )

    def _add(
        self,
        messages: list[Message],
        user_id: str,
        session_id: str | None,
        agent_id: str | None,
        infer: bool,
        metadata: dict[str, Any],
        occurred_at: datetime | None = None,
    ) -> AddResult:
        out = AddResult()
        recent: list[str] = []
        scope: WriteOptions = {"session_id": session_id, "agent_id": agent_id}
        if occurred_at is not None:
            scope["occurred_at"] = occurred_at
        kept = [m for m in messages if m.content.strip() and m.role not in ("system", "tool")]
        floor = dk.importance_lasting(TURN_GRACE_DAYS, Kind.EPISODE, self.decay)
        # the turns as they will be stored, embedded before the write lock (issue 29) in one batch,
        # in order (each is embedded with the one before it); their vectors are what a batch
        # ingestor's salience model reads, so a turn reaches the model once
        turns: list[tuple[str, WriteOptions]] = [
            (m.content, {"kind": Kind.EPISODE, "metadata": {"speaker": m.name} if m.name else {}})
            for m in kept
        ]
        outside = not self.store.in_transaction()
        turn_ready, turn_vectors = self.ledger.prepare_read(turns) if outside else ([None] * len(kept), None)
        # reading the turns (salience, expiry, facts) is CPU work: done before the write lock, so a
        # long turn holds no other request; each turn sees the four before it, and a batch
        # ingestor's model reads them all in one call
        if isinstance(self.ingestor, BatchIngestor):
            checkpoint("reading the turns")
            seen_all = (
                self.ingestor.observe_many(kept, vectors=turn_vectors)
                if turn_vectors is not None
                else self.ingestor.observe_many(kept)
            )
        else:
            seen_all = []
            for message in kept:
                checkpoint("reading the turns")
                seen_all.append(self.ingestor.observe(message, recent=recent[-4:]))
                recent.append(message.content)
        observed = {id(m): o for m, o in zip(kept, seen_all, strict=True)}
        drafted_by = [(m, d) for m, o in zip(kept, seen_all, strict=True) for d in (o.facts if infer else ())]
        drafted = [d for _, d in drafted_by]
        # a fact as build() will get it: its speaker (the turn's) is in its vector's text
        fact_texts: list[tuple[str, WriteOptions]] = [
            (
                d.content,
                cast(
                    WriteOptions,
                    {
                        **d.options,
                        "metadata": {
                            **({"speaker": m.name} if m.name else {}),
                            **(d.options.get("metadata") or {}),
                        },
                    },
                ),
            )
            for m, d in drafted_by
        ]
        facts_ready = self.ledger.prepare(fact_texts) if outside and fact_texts else [None] * len(drafted)
        prepared_for = {id(m): r for m, r in zip(kept, turn_ready, strict=True)}
        fact_ready = {id(d): r for d, r in zip(drafted, facts_ready, strict=True)}
        with self.store.transaction():
            for message in messages:
                if not message.content.strip() or message.role in ("system", "tool"):
                    continue
                seen = observed[id(message)]
                importance = seen.importance if infer else PlainIngestor().observe(message).importance
                meta = {**metadata, "role": message.role}
                # who said it, on the turn and on what is drawn from it (a named speaker's facts
                # replace only that speaker's)
                said = {"speaker": message.name} if message.name else {}
                meta.update(said)
                episode = self.ledger.build(
                    message.content,
                    user_id=user_id,
                    prepared=prepared_for.get(id(message)),
                    options={
                        **scope,
                        "kind": Kind.EPISODE,
                        "importance": importance,
                        "source": "chat",
                        "ttl": seen.ttl if infer else None,
                        "metadata": meta,
                    },
                )
                if importance < floor and not episode.pinned:
                    # judged filler: its importance stays as judged, its curve lasts the grace period
                    self.ledger.apply_state(
                        episode, dk.new_state(Kind.EPISODE, floor, episode.anchor, self.decay)
                    )
                digest = self._digests([(message.content, episode)])
                # a repeated turn: its facts hang from the episode it repeats, which is kept
                repeated = self.ledger.duplicate_of(episode, digest[0]) if digest and digest[0] else None
                parent = repeated.id if repeated is not None else episode.id
                drafts = seen.facts if infer else ()
                facts = [
                    self.ledger.build(
                        d.content,
                        user_id=user_id,
                        prepared=fact_ready.get(id(d)),
                        options={
                            **scope,
                            **d.options,
                            # the caller's metadata (channel, app) describes the turn: its facts too
                            "metadata": {
                                **metadata,
                                **said,
                                **(d.options.get("metadata") or {}),
                                "from_episode": parent,
                            },
                        },
                    )
                    for d in drafts
                ]
                # a correction ("I meant Tuesday not Thursday"): the corrected value, a fact of its own
                fix = (
                    read_correction(
                        self.ledger, self.ingestor, message.content, user_id=user_id, agent_id=agent_id
                    )
                    if infer and message.role == "user"
                    else None
                )
                corrected: list[MemoryRecord] = []
                if fix is not None:
                    wrong, content, options, _only = fix
                    corrected.append(
                        self.ledger.build(
                            content,
                            user_id=user_id,
                            options={
                                **scope,
                                **options,
                                "metadata": {**metadata, **said, "from_episode": parent, CORRECTS: wrong.id},
                            },
                        )
                    )
                    # the turn's own reading of the same slot would compete with the correction
                    keep = [i for i, f in enumerate(facts) if wrong.key is None or f.key != wrong.key]
                    drafts, facts = [drafts[i] for i in keep], [facts[i] for i in keep]
                if facts or corrected:  # what the turn carried is already kept: consolidation skips it
                    episode.metadata["facts"] = [f.id for f in (*facts, *corrected)]
                fact_digests = self._digests([(d.content, f) for d, f in zip(drafts, facts, strict=True)])
                stored = self.ledger.insert(
                    [episode, *facts, *corrected],
                    digests=[*digest, *fact_digests, *([None] * len(corrected))]
                    if digest is not None and fact_digests is not None
                    else None,
                )
                if fix is not None:
                    apply_correction(
                        self.ledger,
                        fix[0].id,
                        stored[-1],
                        at=self.ledger.now(),
                        turn=stored[0].id if fix[3] else None,
                    )
                    out.reasons.setdefault(stored[0].id, []).append("correction")
                out.episodes.append(stored[0])
                out.facts.extend(stored[1:])
                out.duplicates.extend(r.id for r in stored if r.deduplicated)
                if seen.reasons:
                    out.reasons[stored[0].id] = [*seen.reasons, *out.reasons.get(stored[0].id, [])]
        return out

    # -- reading -----------------------------------------------------------------------------------
    def get(self, memory_id: str) -> MemoryRecord:
        """The memory with this id, whatever its status (purged memories are gone: NotFoundError)."""
        return self.ledger.require(memory_id)

    def strength(self, memory_id: str, *, at: datetime | None = None) -> float:
        record = self.ledger.require(memory_id)
        return self.strength_of(record, at=at)

    def strength_of(self, record: MemoryRecord, *, at: datetime | None = None) -> float:
        return self.ledger.strength_of(record, axis=self.axis(record.user_id, at))

    def fade_time(self, memory_id: str) -> datetime | None:
        """When the memory will cross the recall threshold (wall mode), ``None`` if never."""
        record = self.ledger.require(memory_id)
        if math.isinf(record.fade_at) or self.decay.clock_mode != "wall":
            return None
        return from_epoch(record.fade_at * dk.SECONDS_PER_DAY)

    def recall_filter(self, user_id: str, **filters: Unpack[RecallFilters]) -> MemoryFilter:
        """The strict filter every recall path applies: scope, status, fade, expiry and validity
        (the filters are :meth:`recall`'s)."""
        return self.ledger.recall_filter(user_id, filters)

    @_retry_conflicts
    def recall(
        self,
        query: str,
        *,
        user_id: str,
        limit: int = 5,
        touch: bool = True,
        hints: bool = True,
        **filters: Unpack[RecallFilters],
    ) -> RecallResult:
        """The ``limit`` memories that best match ``query``, strongest first among equals.

        Only what is still remembered comes back: active, not faded, not expired, valid now (or at
        ``as_of``). With ``touch``, hits that clear the relevance bar get the weak ``recall``
        reinforcement (see :mod:`remnant.engine.reinforcement`); what the application then uses
        should be reported with :meth:`used`. When memories that match have faded,
        ``result.faded`` says so.
        """
        if not isinstance(query, str):
            raise ValidationError("query must be a string")
        if len(query) > MAX_QUERY_CHARS:
            raise ValidationError(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
        check_limit(limit)
        flt = self.ledger.recall_filter(user_id, filters)
        as_of, include_faded = filters.get("as_of"), bool(filters.get("include_faded", False))
        now = self.now()
        axis = self.axis(user_id, now)
        faded: list[FadedHint] = []
        below: list[Hit] = []
        # a few more than asked: a copy collapsed into its turn leaves its place to the next hit
        wide = min(MAX_LIMIT, limit + max(2, limit))
        if query.strip():
            want_hints = hints and not include_faded
            hits, faded, below = self._one_pass(query, flt, wide, axis, now, want_hints)
        else:
            hits = [Hit(r, 0.0, s) for r, s in self._strongest(flt, axis, wide)]
        # the current-state step: the pair model over the hits' stored vectors, when both are here
        judge = self.contradictions.pairs
        retriever = self.retriever
        stored = retriever if isinstance(retriever, StoredVectors) else None
        hits = current_first(
            hits,
            lambda ids: self.store.get_many(ids, tenant=self.tenant),
            limit=limit,
            now=now if as_of is None else as_of,
            stale_shown=bool(filters.get("include_stale")) and as_of is None,
            judge=judge if isinstance(judge, PairScorer) and stored is not None else None,
            vectors=(lambda ids: stored.stored_vectors(self.ledger, ids)) if stored is not None else None,
            show_earlier=bool(filters.get("include_stale")) or as_of is not None,
            below=below,
            query_vector=self._query_vector(query) if stored is not None else None,
        )
        if touch and hits and as_of is None:
            self.ledger.mark_active(user_id, now)
            bar = self.reinforcement.recall_reinforces
            asked_by_key = bool(filters.get("keys"))  # the application named exactly what it wants
            seen = [h for h in hits if asked_by_key or bar(query, h.memory.content, ignore=[user_id])]
            if seen:
                fresh = {
                    h.memory.id: h
                    for h in self.ledger.reinforce(
                        [h.memory for h in seen], "recall", scores=[h.score for h in seen], at=now
                    )
                }
                hits = [
                    replace(fresh[h.memory.id], earlier=h.earlier) if h.memory.id in fresh else h
                    for h in hits
                ]
        return RecallResult(query, hits, faded)

    def _query_vector(self, query: str) -> QueryVector | None:
        """The current-state step's query vector: the retriever's text model on ``query`` (the
        retrieval embedded it already: usually a cache hit), with that model's id; read only when
        the step asks (a pair the pair model is unsure of)."""
        if not query.strip():
            return None

        def read() -> tuple[str | None, Any] | None:
            embedder: Embedder | None = getattr(self.retriever, "text_embedder", None)
            if embedder is None:
                return None
            try:
                return base_model_id(embedder.model_id), embedder.embed_query(query)
            except EmbeddingError as exc:  # the pair model alone decides; the query is not logged
                log.warning("current-state step without the query's vector (%s)", type(exc).__name__)
                return None

        return read

    def _ranked(
        self, query: str, flt: MemoryFilter, limit: int, axis: float
    ) -> list[tuple[MemoryRecord, float, float]]:
        """(record, score, strength) best first: the retriever's own records when it offers them."""
        if isinstance(self.retriever, RecordRetriever):
            return self.retriever.search_records(self.ledger, query, flt, limit)
        ranked = self.retriever.search(self.ledger, query, flt, limit)
        records = {r.id: r for r in self.store.get_many([i for i, _ in ranked], tenant=self.tenant)}
        return [
            (records[i], s, self.ledger.strength_of(records[i], axis=axis)) for i, s in ranked if i in records
        ]

    def _one_pass(
        self, query: str, flt: MemoryFilter, limit: int, axis: float, now: datetime, want_hints: bool
    ) -> tuple[list[Hit], list[FadedHint], list[Hit]]:
        """Hits, faded hints and the live candidates under the relevance floor (:class:`Ranking`)
        from one retrieval: the search runs on the recall filter widened to
        faded and expired memories, and the ranking is split here. Only when the widened candidates
        crowd live ones out of the ranked head (fewer than ``limit`` live among them) does a second,
        strict search run."""
        if not want_hints:
            ranked = self._ranked(query, flt, limit, axis)
            return [Hit(r, s, st) for r, s, st in ranked], [], _below_floor(ranked, flt)
        wide = replace(
            flt,
            statuses=tuple(dict.fromkeys((*(flt.statuses or ()), *_HINT_STATUSES))),
            remembered_at=None,
            now=None,
        )
        # hints come from the top of the widened ranking, as a separate hint search would find them
        asked = max(limit, _HINT_DEPTH)
        ranked = self._ranked(query, wide, asked, axis)
        live = [Hit(r, s, st) for r, s, st in ranked if _admits(flt, r)]
        faded: list[FadedHint] = []
        for r, _, strength in ranked[:_HINT_DEPTH]:
            if len(faded) >= 3 or r.status not in _HINT_STATUSES:
                continue
            expired = r.status == Status.EXPIRED or (r.expires_at is not None and r.expires_at <= now)
            gone = r.status == Status.FADED or (r.fade_at <= axis)
            if expired or gone:
                since = r.status_changed_at if r.status != Status.ACTIVE else None
                faded.append(
                    FadedHint(r.id, r.kind.value, r.key, "expired" if expired else "faded", since, strength)
                )
        below = _below_floor(ranked, flt)
        if len(live) < limit and len(live) < len(ranked) >= asked:
            ranked = self._ranked(query, flt, limit, axis)
            live, below = [Hit(r, s, st) for r, s, st in ranked], _below_floor(ranked, flt)
        return live, faded, below

    def _strongest(
        self, flt: MemoryFilter, axis: float, limit: int | None
    ) -> list[tuple[MemoryRecord, float]]:
        records = self.store.query(flt)
        scored = sorted(
            ((r, self.ledger.strength_of(r, axis=axis)) for r in records), key=lambda p: (-p[1], p[0].id)
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
        flt = self.ledger.recall_filter(user_id, {"kinds": kinds, "agent_id": agent_id})
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
        flt = self._listing(user_id, statuses, kinds, key)
        return self.store.query(
            flt, order="-created_at" if newest_first else "created_at", limit=limit, offset=offset
        )

    def count_memories(
        self,
        user_id: str | None = None,
        *,
        statuses: Sequence[Status | str] | None = None,
        kinds: Sequence[Kind | str] | None = None,
        key: str | None = None,
    ) -> int:
        """How many memories :meth:`list_memories` would page through with these filters."""
        return self.store.count(self._listing(user_id, statuses, kinds, key))

    def _listing(
        self,
        user_id: str | None,
        statuses: Sequence[Status | str] | None,
        kinds: Sequence[Kind | str] | None,
        key: str | None,
    ) -> MemoryFilter:
        return self.ledger.filter(
            user_id,
            statuses=tuple(Status.parse(s) for s in statuses) if statuses else None,
            kinds=tuple(Kind.parse(k) for k in kinds) if kinds else None,
            keys=(key,) if key else None,
        )

    def users(self, *, limit: int = 1000) -> list[UserSummary]:
        """The tenant's users with their memory counts."""
        return self.store.users(tenant=self.tenant, limit=limit)

    def history(self, key: str, *, user_id: str, turns: bool = False) -> list[MemoryRecord]:
        """Every memory the user had under ``key``, oldest first, superseded ones included. With
        ``turns``, also the turns the values came from that now state an earlier value (superseded,
        or still active for another claim with the key under ``metadata["stale_keys"]``)."""
        facts = self.store.query(self.ledger.filter(user_id, keys=(key,), statuses=None), order="created_at")
        if not turns:
            return facts
        ids = {f.id for f in facts}
        sources = [s for f in facts for s in provenance(f) if s not in ids]
        stale = [
            t
            for t in self.store.get_many(list(dict.fromkeys(sources)), tenant=self.tenant)
            if t.user_id == user_id
            and (
                (t.status == Status.SUPERSEDED and t.superseded_by in ids)
                or key in (t.metadata.get(STALE_KEYS) or {})
            )
        ]
        return sorted([*facts, *stale], key=lambda r: (r.created_at or from_epoch(0), r.id))

    def current(self, key: str, *, user_id: str) -> MemoryRecord | None:
        """The user's active memory under ``key``, if any."""
        found = self.store.query(self.ledger.filter(user_id, keys=(key,)), order="-created_at", limit=1)
        return found[0] if found else None

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        base = self.ledger.filter(user_id, statuses=None)
        counts = self.store.status_counts(base)
        out: dict[str, Any] = {
            "tenant": self.tenant,
            "user_id": user_id,
            "by_status": counts,
            "total": sum(counts.values()),
        }
        if user_id is not None:
            out["remembered_now"] = self.store.count(self.ledger.recall_filter(user_id))
        return out

    def reembed(
        self, user_id: str | None = None, *, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed every memory of ``user_id`` (or of the whole tenant) again with recall's embedder and
        passage recipe, ahead of time: after an upgrade that changed the recipe (or the model), the
        first recall of each scope would otherwise do it inline. ``progress(done, total)`` is called
        per batch. Returns how many memories were embedded; 0 when recall has no embedder."""
        if user_id is not None:
            check_identifier(user_id, "user_id")
        if not isinstance(self.retriever, Reembedder) or self.retriever.embedder is None:
            return 0
        return int(self.retriever.reembed(self.ledger, user_id, progress=progress))

    # -- reinforcing -------------------------------------------------------------------------------
    @_retry_conflicts
    def review(self, memory_id: str) -> MemoryRecord:
        """Review a memory (spaced repetition): strength rises, stability grows."""
        record = self.ledger.require(memory_id)
        if record.status not in (Status.ACTIVE, Status.FADED):
            raise ConflictError(
                f"memory {memory_id} is {record.status.value}; only active or faded ones can be reviewed"
            )
        now = self.now()
        self.ledger.mark_active(record.user_id, now)
        return self.ledger.reinforce([record], "review", at=now)[0].memory

    @_retry_conflicts
    def touch(self, memory_id: str) -> MemoryRecord:
        """Record a use of the memory (a weak reinforcement, like being recalled)."""
        record = self.ledger.require(memory_id)
        now = self.now()
        self.ledger.mark_active(record.user_id, now)
        return self.ledger.reinforce([record], "recall", at=now)[0].memory

    @_retry_conflicts
    def used(self, memory_ids: str | Sequence[str]) -> list[MemoryRecord]:
        """Report that the application used these memories (put them in a prompt, acted on them):
        the ``use`` reinforcement, stronger than being recalled. Purged ids are skipped."""
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        present = self.store.get_many(ids, tenant=self.tenant)
        now = self.now()
        for user in {r.user_id for r in present}:
            self.ledger.mark_active(user, now)
        return [h.memory for h in self.ledger.reinforce(present, "use", at=now)]

    @_retry_conflicts
    def pin(self, memory_id: str) -> MemoryRecord:
        """Pinned memories never decay and are exempt from eviction."""
        return self.ledger.set_pinned(memory_id, True)

    @_retry_conflicts
    def unpin(self, memory_id: str) -> MemoryRecord:
        """Unpinning starts the curve again from full strength, now."""
        return self.ledger.set_pinned(memory_id, False)

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
        """Mask memories (reversible with :meth:`unhide`); audited. Returns the ids hidden."""
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        return self.ledger.hide(ids, reason=reason, actor=actor, policy=policy, batch_id=batch_id)

    @_retry_conflicts
    def unhide(self, memory_id: str, *, actor: str | None = None) -> MemoryRecord:
        """Restore a hidden memory to the status it had (active, or superseded/expired/faded); audited."""
        return self.ledger.unhide(memory_id, actor=actor)

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
        """Delete memories for good (rows, index, embeddings); pinned ones only with ``force``. Audited.
        Returns how many were purged."""
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        records = [self.ledger.require(i) for i in ids]
        pinned = [r.id for r in records if r.pinned]
        if pinned and not force:
            raise ConflictError(
                f"{len(pinned)} pinned memories ({', '.join(pinned[:3])}); purge them with force=True"
            )
        done = self.ledger.purge(records, reason=reason, actor=actor, policy=policy, batch_id=batch_id)
        return len(done)

    @_retry_conflicts
    def forget(
        self,
        request: str,
        *,
        user_id: str | None = None,
        hard: bool = False,
        dry_run: bool = False,
        confirm: bool | int = False,
        actor: str | None = None,
    ) -> ForgetResult:
        """Forget what a request in words asks (``"forget my phone number"``): hide it, or purge it
        with ``hard``; with ``dry_run`` only report what would go.

        The request is parsed (see :mod:`remnant.engine.forgetting.requests`) and matched against
        ``user_id``'s memories. To forget memories by id, use :meth:`forget_ids`; an id given here
        still works, with a :class:`DeprecationWarning`.

        ``confirm``: ``True`` for a request taking more than half the user's memories; the number of
        memories (``confirm=8``, from a dry run or the confirmation error) to purge a sweeping or
        word-only match for good, or to carry out "forget everything about that".
        """
        if not isinstance(request, str) or not request.strip():
            raise ValidationError("forget needs a request in words (forget_ids takes memory ids)")
        if is_memory_id(request):
            warnings.warn(
                "Memory.forget(memory_id) is deprecated: use forget_ids([memory_id])",
                DeprecationWarning,
                stacklevel=3,  # the caller, past the retry wrapper
            )
            return self.forget_ids([request], hard=hard, dry_run=dry_run, confirm=bool(confirm), actor=actor)
        if user_id is None:
            raise ValidationError("a natural-language forget request needs user_id")
        if len(request) > MAX_REQUEST_CHARS:
            raise ValidationError(
                f"a forget request is at most {MAX_REQUEST_CHARS} characters, got {len(request)}"
            )
        return forget_request(
            self.ledger, request, user_id=user_id, hard=hard, dry_run=dry_run, confirm=confirm, actor=actor
        )

    @_retry_conflicts
    def forget_ids(
        self,
        memory_ids: str | Sequence[str],
        *,
        hard: bool = False,
        dry_run: bool = False,
        confirm: bool = False,
        actor: str | None = None,
    ) -> ForgetResult:
        """Forget memories by id: hide them (reversible), or purge them with ``hard`` (pinned ones only
        with ``confirm``); with ``dry_run`` only report what would go. Audited.

        The answer is the :class:`~remnant.engine.results.ForgetResult` a request in words gets (its
        intent empty but for ``hard``), so every forget reads alike; its ``user_id`` is the owner of
        the memories ("" when they belong to several users)."""
        ids = [memory_ids] if isinstance(memory_ids, str) else list(dict.fromkeys(memory_ids))
        if not ids:
            raise ValidationError("forget_ids needs at least one memory id")
        records = [self.ledger.require(i) for i in ids]
        owners = {r.user_id for r in records}
        result = ForgetResult(
            owners.pop() if len(owners) == 1 else "",
            ForgetIntent(hard=hard),
            "purge" if hard else "hide",
            dry_run,
            matches=[
                ForgetMatch(
                    r.id, r.kind.value, r.key, r.status.value, r.pinned, "id", r.content if dry_run else None
                )
                for r in records
            ],
            total_memories=len(records),
        )
        noun = "memory" if len(records) == 1 else "memories"
        if dry_run:
            result.message = f"would {result.action} {len(records)} {noun}"
        elif hard:
            purged = self.purge(ids, force=confirm, actor=actor)
            result.forgotten = ids if purged else []
            result.message = f"purged {purged} {noun}"
        else:
            result.forgotten = self.hide(ids, actor=actor)
            result.message = f"hid {len(result.forgotten)} {noun}"
        return result

    @_retry_conflicts
    def sweep(self, *, dry_run: bool = False, policy: SweepPolicy | None = None) -> SweepReport:
        """Run every forgetting policy once (expiry, fading, purges after grace periods, eviction)."""
        # what of a fading turn lasts is the ingestor's reading (its models, batched before any lock)
        reader = self.ingestor if isinstance(self.ingestor, LastingReader) else None
        return run_sweep(self.ledger, policy or SweepPolicy(), dry_run=dry_run, reader=reader)

    def sync_knowledge(
        self,
        docs: Iterable[KnowledgeDoc],
        *,
        owner: str = DEFAULT_OWNER,
        actor: str | None = None,
        pin: bool = True,
    ) -> SyncReport:
        """Import versioned knowledge (manuals, policies): new editions in, old ones closed and
        retired, ended ones soft-expired; idempotent and audited (see
        :func:`remnant.engine.forgetting.knowledge.sync_knowledge`)."""
        return sync_knowledge(self.ledger, docs, owner=owner, actor=actor, pin=pin)

    @_retry_conflicts
    def erase_user(self, user_id: str, *, actor: str | None = None, scan_bytes: bool = True) -> ErasureReport:
        """Right to be forgotten: purge everything of a user and prove nothing remains.

        See :mod:`remnant.engine.forgetting.erasure` (derived summaries, vault, audit log, index
        text, compaction, byte scan); :attr:`log_files` and :attr:`derived_checks` add what a layer
        above keeps (a server's log file, a training pool)."""
        return erase_user(
            self.ledger,
            user_id,
            actor=actor,
            scan_bytes=scan_bytes,
            log_files=list(self.log_files),
            derived_checks=dict(self.derived_checks),
        )

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

    def verify_audit(
        self,
        *,
        anchor: dict[str, Any] | None = None,
        tenant: str | None = None,
        hash_chain_only: bool = False,
    ) -> ChainVerification:
        """Re-hash the tenant's audit chain; tampering shows as the first bad entry.

        With an audit key (``Memory(audit_key=…)``) the signatures and the signed head are checked
        too; with ``anchor`` (from :meth:`audit_anchor`, kept elsewhere) the chain must still hold
        the anchored entry unchanged. A tenant the anchor names whose log is gone fails. A log with
        signed entries fails without the key (``code="audit_key_missing"``) unless
        ``hash_chain_only`` asks for its hashes alone, on purpose (the key is lost for good)."""
        tenant = tenant or self.tenant
        point = None
        if anchor is not None:
            try:
                heads = check_anchor(anchor, self.ledger.audit_key)
            except ValueError as exc:
                raise ValidationError(f"bad audit anchor: {exc}") from exc
            point = heads.get(tenant)
        return verify_chain(
            self.store.audit_entries(tenant=tenant),
            key=self.ledger.audit_key,
            head=self.store.audit_head(tenant),
            anchor=point,
            require_key=not hash_chain_only,
        )

    def audit_anchor(self, tenants: Sequence[str] | None = None) -> dict[str, Any]:
        """The exportable head of the audit log: each tenant's newest seq and hash as a small JSON
        document (signed with the audit key when there is one). Keep it outside the database and
        check it with ``verify_audit(anchor=…)`` / ``remnant audit verify --anchor FILE``."""
        chosen = list(tenants) if tenants is not None else [self.tenant]
        heads: dict[str, AuditEntry | None] = {}
        for t in chosen:
            entries = self.store.audit_entries(tenant=t)
            heads[t] = entries[-1] if entries else None
        return make_anchor(heads, created_at=self.now(), key=self.ledger.audit_key)

    def files(self) -> list[Path]:
        return self.store.files()


# the engine's former name, kept so ``from remnant.engine import Memory`` goes on working; the product
# a user holds is remnant.Memory (remnant.config.Memory), which builds on this class
Memory = Engine


def _below_floor(ranked: Sequence[tuple[MemoryRecord, float, float]], flt: MemoryFilter) -> list[Hit]:
    """The live candidates a retriever's ranking holds under its relevance floor (none unless it
    is a :class:`Ranking`)."""
    if not isinstance(ranked, Ranking):
        return []
    return [Hit(r, s, st) for r, s, st in ranked.below_floor if _admits(flt, r)]
