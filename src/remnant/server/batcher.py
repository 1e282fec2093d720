"""A micro-batcher for the embedder: concurrent requests' texts go to the model in one call.

The server answers each request on a worker thread. An embedding model called once per request pays
its fixed cost (session run, thread fan-out) every time; called with the texts of every request that
arrived within a few milliseconds, it pays it once. :class:`MicroBatchEmbedder` collects the texts
of concurrent ``embed_documents`` / ``embed_query`` calls for at most ``window`` seconds (or until
``max_batch`` texts), runs the model once per role, and hands each caller its rows. The first caller
of a batch runs it (no extra thread); a caller arriving while a batch runs waits for the next one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from remnant.embed.base import Embedder, Vectors, check_texts, empty


@dataclass
class _Request:
    role: str  # "d" (documents) or "q" (query)
    texts: list[str]
    done: threading.Event = field(default_factory=threading.Event)
    result: Vectors | None = None
    error: BaseException | None = None


class MicroBatchEmbedder:
    """An :class:`~remnant.embed.base.Embedder` that batches concurrent calls to ``inner``."""

    def __init__(self, inner: Embedder, *, window: float = 0.004, max_batch: int = 64) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.window = window
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._queue: list[_Request] = []
        self._running = False
        self.batches = 0
        self.calls = 0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        if len(items) >= self.max_batch:
            return self.inner.embed_documents(items)  # already a batch
        return self._submit(_Request("d", items))

    def embed_query(self, text: str) -> Vectors:
        return self._submit(_Request("q", [text]))[0]

    def _submit(self, req: _Request) -> Vectors:
        with self._lock:
            self.calls += 1
            self._queue.append(req)
        while not req.done.is_set():
            with self._lock:
                lead = not self._running
                if lead:
                    self._running = True
            if lead:
                try:
                    time.sleep(self.window)  # let concurrent requests join
                    self._run_one_batch()
                finally:
                    with self._lock:
                        self._running = False
            else:
                req.done.wait(self.window)
        if req.error is not None:
            raise req.error
        assert req.result is not None
        return req.result

    def _run_one_batch(self) -> None:
        with self._lock:
            batch: list[_Request] = []
            size = 0
            while self._queue and (not batch or size + len(self._queue[0].texts) <= self.max_batch):
                req = self._queue.pop(0)
                batch.append(req)
                size += len(req.texts)
        if not batch:
            return
        self.batches += 1
        for role in ("d", "q"):
            group = [r for r in batch if r.role == role]
            if not group:
                continue
            texts = [t for r in group for t in r.texts]
            try:
                vecs = self._embed(role, texts)
            except BaseException as exc:  # each caller gets the model's error
                for r in group:
                    r.error = exc
                    r.done.set()
                continue
            start = 0
            for r in group:
                r.result = vecs[start : start + len(r.texts)]
                start += len(r.texts)
                r.done.set()

    def _embed(self, role: str, texts: list[str]) -> Vectors:
        if role == "d":
            return self.inner.embed_documents(texts)
        many = getattr(self.inner, "embed_queries", None)
        if callable(many):
            return np.asarray(many(texts), dtype=np.float32)
        return np.stack([self.inner.embed_query(t) for t in texts]).astype(np.float32, copy=False)
