"""Vector indexes: exact numpy search for small scopes, HNSW (hnswlib) for large ones.

Both implement :class:`VectorIndex`. An index holds vectors of one embedding model (its
``model_id``); adding or searching with another model raises EmbeddingModelMismatch.
Deletes are immediate: the exact index drops the row, the HNSW index marks the label
deleted (hnswlib then never returns it) and forgets the id, so a purged memory never comes
back. Both can be rebuilt from the embeddings table with :func:`build_index`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from remnant.embed.base import Vectors, check_model, l2_normalize
from remnant.retrieval.errors import RetrievalError

# Above this many vectors in one scope, HNSW beats exact search on latency at ANN recall >= 0.95
# (measured on 2 cores, 384-d; see docs/benchmarks/retrieval.md).
HNSW_THRESHOLD = 20_000


class VectorIndex(Protocol):
    """Nearest neighbours by cosine similarity over unit vectors, keyed by memory id."""

    model_id: str
    dim: int

    def __len__(self) -> int: ...

    def __contains__(self, item_id: object) -> bool: ...

    def add(self, ids: Sequence[str], vectors: Vectors, *, model_id: str) -> None:
        """Insert or replace vectors for ids."""
        ...

    def remove(self, ids: Iterable[str]) -> int:
        """Delete ids (unknown ids are ignored); returns how many were removed."""
        ...

    def search(
        self, query: Vectors, k: int, *, model_id: str, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top-k (id, cosine) best first, restricted to ``allowed`` ids when given."""
        ...


def _check_batch(index: VectorIndex, ids: Sequence[str], vectors: Vectors, model_id: str) -> Vectors:
    check_model(index.model_id, model_id, "vector index")
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[0] != len(ids) or arr.shape[1] != index.dim:
        raise RetrievalError(f"expected {len(ids)} vectors of dim {index.dim}, got shape {arr.shape}")
    if len(set(ids)) != len(ids):
        raise RetrievalError("duplicate ids in one add() call")
    return l2_normalize(arr)


class ExactIndex:
    """Brute-force cosine search in numpy: exact, O(n) per query, fine up to ~20k vectors."""

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id = model_id
        self.dim = dim
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._mat = np.zeros((0, dim), dtype=np.float32)
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._row

    def add(self, ids: Sequence[str], vectors: Vectors, *, model_id: str) -> None:
        arr = _check_batch(self, ids, vectors, model_id)
        new_ids = [i for i in ids if i not in self._row]
        for i, item in enumerate(ids):
            if item in self._row:
                self._mat[self._row[item]] = arr[i]
        if not new_ids:
            return
        need = self._n + len(new_ids)
        if need > self._mat.shape[0]:
            grown = np.zeros((max(need, 2 * self._mat.shape[0], 64), self.dim), dtype=np.float32)
            grown[: self._n] = self._mat[: self._n]
            self._mat = grown
        pos = {item: i for i, item in enumerate(ids)}
        for item in new_ids:
            self._mat[self._n] = arr[pos[item]]
            self._row[item] = self._n
            self._ids.append(item)
            self._n += 1

    def remove(self, ids: Iterable[str]) -> int:
        removed = 0
        for item in ids:
            row = self._row.pop(item, None)
            if row is None:
                continue
            last = self._n - 1
            if row != last:  # move the last row into the hole
                moved = self._ids[last]
                self._mat[row] = self._mat[last]
                self._ids[row] = moved
                self._row[moved] = row
            self._ids.pop()
            self._n -= 1
            removed += 1
        return removed

    def search(
        self, query: Vectors, k: int, *, model_id: str, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        check_model(self.model_id, model_id, "vector index search")
        if k <= 0 or self._n == 0:
            return []
        q = l2_normalize(np.asarray(query, dtype=np.float32).reshape(-1))
        if allowed is not None:
            rows = np.fromiter((self._row[i] for i in allowed if i in self._row), dtype=np.int64)
            if rows.size == 0:
                return []
            scores = self._mat[rows] @ q
        else:
            rows = np.arange(self._n)
            scores = self._mat[: self._n] @ q
        k = min(k, scores.shape[0])
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self._ids[int(rows[t])], float(scores[t])) for t in top]


class HnswIndex:
    """Approximate search with hnswlib (cosine space); deletes via mark_deleted."""

    def __init__(
        self,
        model_id: str,
        dim: int,
        *,
        capacity: int = 1024,
        m: int = 16,
        ef_construction: int = 200,
        ef_search: int = 128,
    ) -> None:
        try:
            import hnswlib
        except ImportError:
            raise RetrievalError("the HNSW index needs `pip install hnswlib`") from None
        self.model_id = model_id
        self.dim = dim
        self.ef_search = ef_search
        self._index: Any = hnswlib.Index(space="ip", dim=dim)
        self._index.init_index(
            max_elements=max(capacity, 16), M=m, ef_construction=ef_construction, allow_replace_deleted=False
        )
        self._index.set_ef(ef_search)
        self._label: dict[str, int] = {}
        self._ids: dict[int, str] = {}
        self._next = 0

    def __len__(self) -> int:
        return len(self._label)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._label

    def add(self, ids: Sequence[str], vectors: Vectors, *, model_id: str) -> None:
        arr = _check_batch(self, ids, vectors, model_id)
        if not ids:
            return
        # A replaced vector gets a new label; the old label is marked deleted.
        self.remove([i for i in ids if i in self._label])
        labels = np.arange(self._next, self._next + len(ids), dtype=np.int64)
        self._next += len(ids)
        need = self._next
        if need > self._index.get_max_elements():
            self._index.resize_index(max(need, 2 * self._index.get_max_elements()))
        self._index.add_items(arr, labels)
        for item, label in zip(ids, labels, strict=True):
            self._label[item] = int(label)
            self._ids[int(label)] = item

    def remove(self, ids: Iterable[str]) -> int:
        removed = 0
        for item in ids:
            label = self._label.pop(item, None)
            if label is None:
                continue
            self._index.mark_deleted(label)
            del self._ids[label]
            removed += 1
        return removed

    def search(
        self, query: Vectors, k: int, *, model_id: str, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        check_model(self.model_id, model_id, "vector index search")
        if k <= 0 or not self._label:
            return []
        q = l2_normalize(np.asarray(query, dtype=np.float32).reshape(1, -1))
        flt = None
        n_cand = len(self._label)
        if allowed is not None:
            allowed_labels = {self._label[i] for i in allowed if i in self._label}
            if not allowed_labels:
                return []
            n_cand = len(allowed_labels)
            flt = allowed_labels.__contains__
        k = min(k, n_cand)
        self._index.set_ef(max(self.ef_search, k))
        labels, dists = self._index.knn_query(q, k=k, filter=flt)
        out = []
        for label, dist in zip(labels[0], dists[0], strict=True):
            item = self._ids.get(int(label))
            if item is not None:  # defensive: deleted labels never surface
                out.append((item, float(1.0 - dist)))
        return out

    def save(self, path: str | Path) -> None:
        """Write the HNSW graph (ids are rebuilt from the table, so this is only a speed-up)."""
        self._index.save_index(str(path))


def build_index(
    model_id: str,
    dim: int,
    rows: Iterable[tuple[str, Vectors]],
    *,
    threshold: int = HNSW_THRESHOLD,
    batch: int = 4096,
) -> VectorIndex:
    """Build an index from (id, vector) rows: exact below ``threshold`` rows, HNSW from there."""
    ids: list[str] = []
    vecs: list[Vectors] = []
    for item, vec in rows:
        ids.append(item)
        vecs.append(np.asarray(vec, dtype=np.float32).reshape(-1))
    index: VectorIndex
    if len(ids) >= threshold:
        index = HnswIndex(model_id, dim, capacity=len(ids) + 1024)
    else:
        index = ExactIndex(model_id, dim)
    for s in range(0, len(ids), batch):
        chunk = ids[s : s + batch]
        index.add(chunk, np.stack(vecs[s : s + batch]), model_id=model_id)
    return index
