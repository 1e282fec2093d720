"""Content-hash embedding cache: never embed the same text with the same model twice.

Vectors are keyed by ``(model_id, sha256(text))``. An in-memory LRU sits in front of an
optional persistent :class:`VectorCacheStore` (the SQLite store implements it with its
embeddings table; :class:`NpzVectorCache` is a file-backed one for benchmarks). Document
vectors are persisted; query vectors stay in the LRU unless ``persist_queries`` is set (queries
are rarely repeated across processes, but a benchmark asks the same ones on every run). They are
kept under ``<model_id>#query``, since asymmetric models embed the two roles differently.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from remnant.core import memo
from remnant.embed.base import Embedder, EmbeddingError, Vectors, check_texts, empty


def content_hash(text: str) -> str:
    """sha256 hex of the UTF-8 text: the cache key (with the model id)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


QUERY_SUFFIX = "#query"  # persisted query vectors live under this model id suffix


class VectorCacheStore(Protocol):
    """Persistence seam: stored document vectors by (model_id, content hash)."""

    def get_many(self, model_id: str, hashes: Sequence[str]) -> Mapping[str, Vectors]:
        """Return the vectors found (missing hashes are simply absent)."""
        ...

    def put_many(self, model_id: str, items: Mapping[str, Vectors]) -> None:
        """Store vectors (overwriting is fine: same model and text give the same vector)."""
        ...


class NpzVectorCache:
    """A VectorCacheStore in one ``.npz`` file per model: for benchmarks and tools, not the engine."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._loaded: dict[str, dict[str, Vectors]] = {}
        self._dirty: set[str] = set()

    def _file(self, model_id: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_id)
        return self.directory / f"{safe}.npz"

    def _table(self, model_id: str) -> dict[str, Vectors]:
        if model_id not in self._loaded:
            table: dict[str, Vectors] = {}
            path = self._file(model_id)
            if path.is_file():
                with np.load(path) as data:
                    keys = [str(k) for k in data["keys"]]
                    vecs = data["vecs"].astype(np.float32)
                table = dict(zip(keys, vecs, strict=True))
            self._loaded[model_id] = table
        return self._loaded[model_id]

    def get_many(self, model_id: str, hashes: Sequence[str]) -> Mapping[str, Vectors]:
        table = self._table(model_id)
        return {h: table[h] for h in hashes if h in table}

    def put_many(self, model_id: str, items: Mapping[str, Vectors]) -> None:
        if items:
            self._table(model_id).update(items)
            self._dirty.add(model_id)

    def flush(self) -> None:
        """Write changed tables to disk."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for model_id in sorted(self._dirty):
            table = self._loaded[model_id]
            keys = np.array(list(table.keys()))
            vecs = np.stack(list(table.values())) if table else np.zeros((0, 0), np.float32)
            np.savez(self._file(model_id), keys=keys, vecs=vecs)
        self._dirty.clear()


class CachedEmbedder:
    """An Embedder that answers repeated texts from cache; itself an Embedder (same model_id)."""

    def __init__(
        self,
        inner: Embedder,
        *,
        capacity: int = 50_000,
        store: VectorCacheStore | None = None,
        persist_queries: bool = False,
    ) -> None:
        if capacity < 0:
            raise EmbeddingError("cache capacity must be >= 0")
        self.inner = inner
        self.model_id = inner.model_id
        self.capacity = capacity
        self.store = store
        self.persist_queries = persist_queries and store is not None
        self._lru: OrderedDict[tuple[str, str], Vectors] = OrderedDict()
        # one retriever serves every request thread of a server: the LRU's reorder/evict steps
        # must not interleave (the model call itself runs outside the lock)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        memo.on_forget(self)  # a purged memory's vector leaves the LRU with it

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def _remember(self, key: tuple[str, str], vec: Vectors) -> None:
        if self.capacity == 0:
            return
        with self._lock:
            self._lru[key] = vec
            self._lru.move_to_end(key)
            while len(self._lru) > self.capacity:
                self._lru.popitem(last=False)

    def forget_texts(self, texts: Sequence[str]) -> None:
        """Drop the cached vectors of these texts (documents and queries alike)."""
        with self._lock:
            for h in {content_hash(t) for t in texts}:
                self._lru.pop(("d", h), None)
                self._lru.pop(("q", h), None)

    def holds_texts(self, texts: Sequence[str]) -> bool:
        with self._lock:
            return any(("d", h) in self._lru or ("q", h) in self._lru for h in map(content_hash, texts))

    def _recall(self, key: tuple[str, str]) -> Vectors | None:
        with self._lock:
            vec = self._lru.get(key)
            if vec is not None:
                self._lru.move_to_end(key)
            return vec

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        hashes = [content_hash(t) for t in items]
        found: dict[str, Vectors] = {}
        for h in set(hashes):
            vec = self._recall(("d", h))
            if vec is not None:
                found[h] = vec
        missing = [h for h in dict.fromkeys(hashes) if h not in found]
        if missing and self.store is not None:
            stored = self.store.get_many(self.model_id, missing)
            for h, vec in stored.items():
                found[h] = np.asarray(vec, dtype=np.float32)
                self._remember(("d", h), found[h])
            missing = [h for h in missing if h not in found]
        self.hits += len(items) - len(missing)
        self.misses += len(missing)
        if missing:
            first_text: dict[str, str] = {}
            for h, t in zip(hashes, items, strict=True):
                first_text.setdefault(h, t)
            new = self.inner.embed_documents([first_text[h] for h in missing])
            fresh = dict(zip(missing, new, strict=True))
            for h, vec in fresh.items():
                self._remember(("d", h), vec)
            found.update(fresh)
            if self.store is not None:
                self.store.put_many(self.model_id, fresh)
        return np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)

    def seed(self, texts: Sequence[str], vectors: Vectors) -> None:
        """Hold document vectors this model is known to give for ``texts`` (read back from a store),
        so embedding those texts again costs no model call."""
        for text, vec in zip(texts, vectors, strict=True):
            self._remember(("d", content_hash(text)), np.asarray(vec, dtype=np.float32))

    def embed_query(self, text: str) -> Vectors:
        h = content_hash(text)
        key = ("q", h)
        vec = self._recall(key)
        if vec is None and self.persist_queries and self.store is not None:
            stored = self.store.get_many(self.model_id + QUERY_SUFFIX, [h]).get(h)
            if stored is not None:
                vec = np.asarray(stored, dtype=np.float32)
                self._remember(key, vec)
        if vec is None:
            self.misses += 1
            vec = self.inner.embed_query(text)
            self._remember(key, vec)
            if self.persist_queries and self.store is not None:
                self.store.put_many(self.model_id + QUERY_SUFFIX, {h: vec})
        else:
            self.hits += 1
        return vec


def batched(items: Iterable[str], size: int) -> Iterable[list[str]]:
    """Yield lists of at most ``size`` items (for callers that stream large inputs)."""
    batch: list[str] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
