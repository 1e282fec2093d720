"""The pluggable seams of the engine: how text is searched, embedded and redacted.

Each is a small Protocol so the retrieval, privacy and LLM layers can plug in without the engine
importing them (and so tests can plug in the real thing, small).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np

    from remnant.core.model import MemoryRecord
    from remnant.embed.base import Embedder
    from remnant.store.base import MemoryFilter, Store


class EngineView(Protocol):
    """What a seam may see of the engine: the store and the tenant it works in, to read, and the one
    write a retriever makes, its vectors. The engine's :class:`~remnant.engine.ledger.Ledger` is
    one (the :class:`~remnant.engine.memory.Memory` facade hands its ledger to the retriever): every
    change to a memory goes through the ledger, never through ``store``."""

    @property
    def store(self) -> Store: ...

    @property
    def tenant(self) -> str: ...

    def now(self) -> datetime: ...

    def strength_of(self, record: MemoryRecord) -> float:
        """The memory's strength now, on its user's decay axis."""
        ...

    def put_embeddings(self, items: Sequence[tuple[str, str, np.ndarray]]) -> None:
        """Store (memory id, model id, vector) triples of the tenant's memories."""
        ...


class IndexText(Protocol):
    """A retriever's lexical index text of a memory about to be stored: ``batch`` is the records
    written with it (its neighbouring turns), in order."""

    def __call__(self, engine: EngineView, record: MemoryRecord, batch: Sequence[MemoryRecord]) -> str: ...


@runtime_checkable
class Retriever(Protocol):
    """Finds candidate memories for a query inside a filter; returns (id, score), best first."""

    def search(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]: ...

    def on_write(self, engine: EngineView, ids: Sequence[str]) -> None:
        """Called after memories are written (to embed or index them)."""

    def on_delete(self, engine: EngineView, ids: Sequence[str]) -> None:
        """Called after memories are purged (to drop them from any index outside the store)."""

    @property
    def embedder(self) -> Embedder | None:
        """The model of the vectors it stores and searches (None: lexical recall only). The engine
        uses it beyond recall: a forget request's meaning match, ``reembed``, the server's batcher."""
        ...

    @property
    def text_embedder(self) -> Embedder | None:
        """The same model on plain texts, for the models keyed by model id (salience, supersession):
        ``embedder`` itself unless its vectors pair each turn with the one before it."""
        ...

    @property
    def index_text(self) -> IndexText | None:
        """The lexical index text of a new memory (the ledger passes it to ``Store.insert`` and
        rebuilds it around a purged or rewritten turn); None: the store indexes the content."""
        ...

    @property
    def neighbour_window(self) -> int:
        """How many turns on either side of a conversation turn its index text may hold."""
        ...

    @property
    def vectors_hold_context(self) -> bool:
        """A turn's vector is computed with the turn before it (the ledger re-embeds the turn after a
        purged or rewritten one)."""
        ...


@runtime_checkable
class RecordRetriever(Protocol):
    """Optional on a retriever: one ranking pass that hands back the records it read, with the
    strength it computed, so recall reads each record once and computes its strength once.

    Returns (record, score, strength) best first; every record satisfies ``flt`` (the engine may
    pass a filter wider than the recall filter, and splits hits from faded hints itself).
    """

    def search_records(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[MemoryRecord, float, float]]: ...


class Ranking(list["tuple[MemoryRecord, float, float]"]):
    """What :meth:`RecordRetriever.search_records` may return: the ranking, and in
    ``below_floor`` the best few candidates the relevance floor dropped, (record, relevance,
    strength) best first. Recall's current-state step reads them only to find a newer statement
    that replaces a hit (``remnant.engine.current``); they never fill the answer otherwise."""

    def __init__(
        self,
        items: Sequence[tuple[MemoryRecord, float, float]] = (),
        below_floor: Sequence[tuple[MemoryRecord, float, float]] = (),
    ) -> None:
        super().__init__(items)
        self.below_floor = list(below_floor)


@runtime_checkable
class EntitySource(Protocol):
    """Optional on a retriever: the entities (kind, key) a memory about to be stored names, read from
    its stored (already redacted) content, for the store's entity index (``Store.set_entities``);
    [] indexes none. The ledger writes them with the memory and again when its content changes."""

    def entities(self, record: MemoryRecord) -> list[tuple[str, str]]: ...


@runtime_checkable
class NeighbourSource(Protocol):
    """Optional on a retriever: the memories whose embedding is nearest to ``text`` inside the
    filter, (id, cosine) best first, at most ``limit``; [] without vectors. The contradiction
    policy uses it to find an earlier statement that shares no word with the new one."""

    def neighbours(
        self, engine: EngineView, text: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]: ...


@runtime_checkable
class NeighbourBatch(Protocol):
    """Optional beside :class:`NeighbourSource`: a block in which :meth:`neighbours` of any of
    ``texts`` (with this ``limit``) is answered from one search of them all, with the same answer;
    a batch of writes then reads the stored vectors once, not once a write."""

    def neighbour_batch(
        self, engine: EngineView, texts: Sequence[str], limit: int
    ) -> AbstractContextManager[None]: ...


@runtime_checkable
class StoredVectors(Protocol):
    """Optional on a retriever: the stored vectors of these memories, each as the embedding of the
    memory's own text (a context-paired vector's own half), unit length, with the embedding model
    they are of; ids without a vector are left out. Recall's current-state step reads them instead
    of embedding its hits again."""

    def stored_vectors(
        self, engine: EngineView, ids: Sequence[str]
    ) -> tuple[str | None, dict[str, np.ndarray]]: ...


class RedactionOutcome(Protocol):
    @property
    def text(self) -> str: ...


@runtime_checkable
class Vault(Protocol):
    """The originals behind a redactor's placeholders (the privacy layer's encrypted vault)."""

    def rehydrate(self, text: str, tenant: str, user_id: str) -> str: ...

    def forget_placeholder(self, tenant: str, user_id: str, placeholder: str) -> object: ...


@runtime_checkable
class EntityForgetter(Protocol):
    """A redactor that can drop every vault value of some entity types ("forget my phone number")."""

    def forget_entities(self, *, tenant: str, user_id: str, entity_types: list[str]) -> int: ...


def vault_of(redactor: object) -> Vault | None:
    """The redactor's vault, when it keeps one."""
    vault = getattr(redactor, "vault", None)
    return vault if isinstance(vault, Vault) else None


class PreparedText(Protocol):
    """A redactor's detection result for one text, computed before the write lock is taken."""

    @property
    def text(self) -> str:
        """The text it was computed for (``redact`` ignores it for any other text)."""
        ...

    @property
    def preview(self) -> str:
        """The text as it will be stored, with unnumbered placeholders (``[PHONE]`` for ``[PHONE_1]``)."""
        ...


@runtime_checkable
class PreparingRedactor(Protocol):
    """Optional on a redactor: the detection step alone (CPU only: no vault, no store), so the engine
    runs it before it takes the store's write lock and hands the result back to ``redact``."""

    def prepare(self, text: str) -> PreparedText: ...

    def redact(
        self, text: str, *, tenant: str, user_id: str, prepared: PreparedText | None = None
    ) -> RedactionOutcome: ...


@runtime_checkable
class QueryPreparer(Protocol):
    """Optional on a retriever: embed texts that will be searched with soon (the write hooks'
    nearest-neighbour check), before the write lock is taken."""

    def prepare_queries(self, texts: Sequence[str]) -> None: ...


@runtime_checkable
class Reembedder(Protocol):
    """Optional on a retriever: embed every memory of a user (or the tenant) again; the count."""

    def reembed(
        self,
        engine: EngineView,
        user_id: str | None = None,
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> int: ...


@runtime_checkable
class DocumentPreparer(Protocol):
    """Optional on a retriever: the CPU work of indexing new memories (embedding), done before the
    write lock is taken, for ``(content, metadata)`` as they will be stored (``on_write`` then finds
    the vectors ready). It may return the model's id and each item's own-text vector (a row an
    item), which the engine hands to a :class:`~remnant.engine.options.BatchIngestor` so that its
    model need not read the turns again."""

    def prepare_documents(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[str, Any] | None: ...


@runtime_checkable
class Redactor(Protocol):
    """Replaces personal data with placeholders before anything is stored; raises rather than leak."""

    def redact(self, text: str, *, tenant: str, user_id: str) -> RedactionOutcome: ...

    def purge_user(self, tenant: str, user_id: str) -> int: ...


class LexicalRetriever:
    """The store's full-text search (BM25 in SQLite FTS5); the baseline every store provides."""

    embedder: Embedder | None = None
    text_embedder: Embedder | None = None
    index_text: IndexText | None = None  # each memory's own content
    neighbour_window = 0
    vectors_hold_context = False

    def search(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]:
        from remnant.core.text import fts_match

        match = fts_match(query)
        if match is None:
            return []
        return engine.store.lexical_search(match, flt, limit=limit)

    def search_records(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[MemoryRecord, float, float]]:
        ranked = self.search(engine, query, flt, limit)
        records = {r.id: r for r in engine.store.get_many([i for i, _ in ranked], tenant=engine.tenant)}
        return [(records[i], s, engine.strength_of(records[i])) for i, s in ranked if i in records]

    def on_write(self, engine: EngineView, ids: Sequence[str]) -> None:
        return None

    def on_delete(self, engine: EngineView, ids: Sequence[str]) -> None:
        return None
