"""Where a partition's items live: a narrow storage seam and the built-in SQLite storage.

The manager only needs to put items into a partition, list them, clear one partition and
recall within chosen partitions; keeping it this narrow is what guarantees that work on one
partition cannot touch another. ``remnant.partitions.engine_backend`` adapts the memory
engine to the same seam.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from remnant.partitions.embed import Embedder, HashingEmbedder, cosine, embed_queries
from remnant.partitions.model import Hit, KnowledgeItem
from remnant.training.clock import Clock, SystemClock, format_time


class PartitionBackend(Protocol):
    """Item storage keyed by partition name."""

    def put(self, partition: str, items: Sequence[KnowledgeItem]) -> list[str]:
        """Store items in ``partition``; return their ids."""
        ...

    def items(self, partition: str) -> list[KnowledgeItem]: ...

    def clear(self, partition: str) -> int:
        """Remove every item of ``partition`` (only that one); return how many."""
        ...

    def recall(self, query: str, partitions: Sequence[str], limit: int) -> list[Hit]: ...


def item_id(partition: str, item: KnowledgeItem, index: int) -> str:
    if item.item_id:
        return item.item_id
    raw = f"{partition}|{index}|{item.text}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:20]


class SQLiteBackend:
    """Items in the ``part_item`` table of the partition file, embedded on write.

    Shares the connection of the :class:`~remnant.partitions.manager.PartitionManager` so a
    replace (clear + put) commits or rolls back with its registry and audit rows.
    """

    def __init__(
        self, conn: sqlite3.Connection, embed: Embedder | None = None, clock: Clock | None = None
    ) -> None:
        self.conn = conn
        self.embed: Embedder = embed or HashingEmbedder()
        self.clock: Clock = clock or SystemClock()

    def put(self, partition: str, items: Sequence[KnowledgeItem]) -> list[str]:
        if not items:
            return []
        vectors = np.asarray(self.embed([it.text for it in items]), dtype=np.float32)
        now = format_time(self.clock.now())
        ids = []
        for index, (item, vector) in enumerate(zip(items, vectors, strict=True)):
            iid = item_id(partition, item, index)
            self.conn.execute(
                "INSERT INTO part_item (item_id, partition, text, meta, added_at, embedding) VALUES (?, ?, ?, ?, ?, ?)",
                (iid, partition, item.text, json.dumps(item.meta, ensure_ascii=False), now, vector.tobytes()),
            )
            ids.append(iid)
        return ids

    def items(self, partition: str) -> list[KnowledgeItem]:
        rows = self.conn.execute(
            "SELECT item_id, text, meta FROM part_item WHERE partition = ? ORDER BY added_at, item_id",
            (partition,),
        )
        return [KnowledgeItem(text, json.loads(meta), iid) for iid, text, meta in rows]

    def clear(self, partition: str) -> int:
        return self.conn.execute("DELETE FROM part_item WHERE partition = ?", (partition,)).rowcount

    def recall(self, query: str, partitions: Sequence[str], limit: int) -> list[Hit]:
        if not partitions or limit <= 0:
            return []
        marks = ",".join("?" for _ in partitions)
        rows = self.conn.execute(
            f"SELECT item_id, partition, text, embedding FROM part_item WHERE partition IN ({marks})",
            tuple(partitions),
        ).fetchall()
        if not rows:
            return []
        matrix = np.stack([np.frombuffer(r[3], dtype=np.float32) for r in rows]).astype(np.float64)
        q = embed_queries(self.embed, [query])[0]
        sims = cosine(q, matrix)
        # items sharing no feature with the query (score 0 or below) are not recalled
        order = sorted((i for i in range(len(rows)) if sims[i] > 0), key=lambda i: (-sims[i], rows[i][0]))[
            :limit
        ]
        return [Hit(rows[i][0], rows[i][1], rows[i][2], round(float(sims[i]), 6)) for i in order]
