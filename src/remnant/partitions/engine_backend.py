"""Partitions backed by the memory engine: each item is a ``knowledge`` memory whose metadata
carries ``{"partition": name}``, and partition operations are written to the core audit chain.

Items are stored pinned under one owner user id (default ``"partitions"``), so partition
knowledge does not fade on the Ebbinghaus clock; it changes only by rebuild, replace or drop.
Clearing a partition purges exactly the memories with that partition in their metadata
(audited by the engine as purges); recall filters on the same metadata and never touches
(reinforces) what it returns, so reading one partition cannot change another.

:class:`PartitionRetriever` is an engine retriever over stored embeddings whose scores depend
only on the query and the memory itself. The engine's default full-text retriever ranks with
BM25, whose statistics span the whole index, so with it other partitions' hit *order* stays the
same but scores shift slightly when a partition's content changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from remnant.core.audit import AuditDraft
from remnant.core.model import Kind, Status
from remnant.engine.memory import Memory
from remnant.engine.seams import EngineView
from remnant.partitions.embed import Embedder, HashingEmbedder, cosine, embed_queries
from remnant.partitions.model import Hit, KnowledgeItem
from remnant.store.base import MemoryFilter

DEFAULT_OWNER = "partitions"


class EngineBackend:
    """The :class:`~remnant.partitions.backend.PartitionBackend` seam over a :class:`Memory`."""

    def __init__(self, memory: Memory, *, owner: str = DEFAULT_OWNER, importance: float = 0.9) -> None:
        self.memory = memory
        self.owner = owner
        self.importance = importance

    def _filter(self, partition: str, statuses: tuple[Status, ...] | None = (Status.ACTIVE,)) -> MemoryFilter:
        return MemoryFilter(
            tenant=self.memory.tenant,
            user_id=self.owner,
            metadata={"partition": partition},
            statuses=statuses,
        )

    def put(self, partition: str, items: Sequence[KnowledgeItem]) -> list[str]:
        if not items:
            return []
        rows: list[dict[str, Any]] = []
        for item in items:
            meta = dict(item.meta)
            meta["partition"] = partition
            if item.item_id:
                meta["item_id"] = item.item_id
            rows.append(
                {
                    "content": item.text,
                    "user_id": self.owner,
                    "kind": Kind.KNOWLEDGE,
                    "importance": self.importance,
                    "pinned": True,
                    "source": f"partition:{partition}",
                    "metadata": meta,
                }
            )
        # no key and supersede=False: partition items never supersede each other
        return [r.id for r in self.memory.remember_many(rows, supersede=False)]

    def items(self, partition: str) -> list[KnowledgeItem]:
        records = self.memory.store.query(self._filter(partition), order="created_at")
        out = []
        for r in records:
            meta = {k: v for k, v in r.metadata.items() if k not in ("partition", "item_id")}
            out.append(KnowledgeItem(r.content, meta, r.id))
        return out

    def clear(self, partition: str) -> int:
        ids = self.memory.store.ids(self._filter(partition, statuses=None))
        if not ids:
            return 0
        return self.memory.purge(
            ids, force=True, reason=f"partition {partition!r} cleared", policy="partitions"
        )

    def recall(self, query: str, partitions: Sequence[str], limit: int) -> list[Hit]:
        hits: list[Hit] = []
        for partition in partitions:
            result = self.memory.recall(
                query,
                user_id=self.owner,
                limit=limit,
                metadata={"partition": partition},
                touch=False,
                hints=False,
            )
            hits.extend(Hit(h.memory.id, partition, h.memory.content, round(h.score, 6)) for h in result)
        hits.sort(key=lambda h: (-h.score, h.item_id))
        return hits[:limit]


class EngineAudit:
    """An :class:`~remnant.partitions.audit.AuditSink` writing to the engine's hash-chained audit log."""

    def __init__(self, memory: Memory, *, owner: str = DEFAULT_OWNER) -> None:
        self.memory = memory
        self.owner = owner

    def record(self, action: str, partition: str, detail: dict[str, Any]) -> None:
        self.memory.store.append_audit(
            AuditDraft(
                tenant=self.memory.tenant,
                at=self.memory.now(),
                actor=self.memory.actor,
                action=f"partition_{action}",
                reason=f"partition {partition!r} {action}",
                user_id=self.owner,
                policy="partitions",
                summary=f"{action} partition {partition}",
                details={"partition": partition, **detail},
            )
        )


class PartitionRetriever:
    """Engine retriever: cosine similarity over embeddings stored with the memories.

    Each memory's score depends only on the query and its own vector, so the scores of one
    partition are independent of every other partition's content.
    """

    # its vectors are its own (per partition model id): the engine's uses of recall's embedder
    # (a forget request's meaning match, reembed) and neighbour-aware index text do not apply
    embedder = None
    text_embedder = None
    index_text = None
    neighbour_window = 0
    vectors_hold_context = False

    def __init__(self, embed: Embedder | None = None, *, model_id: str | None = None) -> None:
        self.embed: Embedder = embed or HashingEmbedder()
        # vectors are stored per model id, so changing the embedder never mixes vector spaces
        self.model_id = model_id or (
            f"hashing-bow-{self.embed.dim}" if isinstance(self.embed, HashingEmbedder) else "custom"
        )

    def search(
        self, engine: EngineView, query: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]:
        ids, matrix = engine.store.embeddings(flt, model=self.model_id)
        if not ids:
            return []
        q = embed_queries(self.embed, [query])[0]
        sims = cosine(q, np.asarray(matrix, dtype=np.float64))
        order = sorted((i for i in range(len(ids)) if sims[i] > 0), key=lambda i: (-sims[i], ids[i]))[:limit]
        return [(ids[i], float(sims[i])) for i in order]

    def on_write(self, engine: EngineView, ids: Sequence[str]) -> None:
        records = engine.store.get_many(list(ids), tenant=engine.tenant)
        if not records:
            return
        vectors = np.asarray(self.embed([r.content for r in records]), dtype=np.float32)
        engine.put_embeddings([(r.id, self.model_id, v) for r, v in zip(records, vectors, strict=True)])

    def on_delete(self, engine: EngineView, ids: Sequence[str]) -> None:
        return None  # the store drops embeddings with their memories
