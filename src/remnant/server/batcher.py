"""A micro-batcher for the embedder: concurrent requests' texts go to the model together.

The server answers each request on a worker thread. :class:`MicroBatchEmbedder` puts the texts of
concurrent ``embed_documents`` / ``embed_query`` calls (queries and documents alike) on one queue;
``lanes`` dedicated embedding threads take everything queued (up to ``max_batch`` texts) and run
the model once per role, then hand each caller its rows. Nothing polls: a caller sleeps on its own
event until its rows are there. Batches form by themselves under load (requests queue while the
lanes run the model) and a lone request on an idle server starts at once; ``window`` (seconds) can
add a wait for company before a batch that is not full, off by default.

Lanes: one per CPU core by default (``REMNANT_EMBED_LANES`` sets it), each running the model with
its own threads (e5: ``REMNANT_EMBED_THREADS``, 2), so the model can fill every core while the
request threads do SQL and HTTP. Measured on two shared cores (docs/benchmarks/serve.md): two lanes
of two model threads each did 40 req/s at 15 ms of server CPU per request, one lane 29 req/s,
two single-threaded lanes 20 req/s at the same CPU per request. The server puts it right in front
of the model (under the pair embedder of context vectors), so writes' documents and recalls'
queries share the lanes: 26 → 21 ms of server CPU per request (issue 30, same file).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from remnant.embed.base import Embedder, Vectors, check_texts, empty

#: a failed batch that failed faster than this is retried caller by caller (see ``_run``)
ALONE_RETRY_S = 1.0


@dataclass
class _Request:
    role: str  # "d" (documents) or "q" (queries)
    texts: list[str]
    done: threading.Event = field(default_factory=threading.Event)
    result: Vectors | None = None
    error: BaseException | None = None


def usable_cores() -> int:
    """CPU cores this process may run on: the affinity mask, capped by a cgroup v2 CPU quota (a
    container limited to two CPUs on a 64-core host sees 64 in its mask)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, round(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)


#: the OS name of the lanes' threads (``/proc/<pid>/task/*/comm``); the model's own threads (OpenMP)
#: inherit it, so ``remnant bench serve`` can tell the model's CPU from the rest of the server's
LANE_THREAD_PREFIX = "remnant-embed"


def name_os_thread(name: str) -> None:
    """Give the calling thread ``name`` (15 bytes at most) as its OS name, where Linux allows it;
    threads it starts afterwards inherit the name. Nothing happens elsewhere."""
    try:
        Path(f"/proc/self/task/{threading.get_native_id()}/comm").write_text(name[:15])
    except OSError:
        pass


class MicroBatchEmbedder:
    """An :class:`~remnant.embed.base.Embedder` that batches concurrent calls to ``inner``.

    ``lanes``: embedding threads (default: one per usable core).
    """

    def __init__(
        self,
        inner: Embedder,
        *,
        window: float = 0.0,
        max_batch: int = 64,
        lanes: int | None = None,
    ) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.window = max(0.0, window)
        self.max_batch = max(1, max_batch)
        self.lanes = max(1, lanes if lanes is not None else usable_cores())
        self._cond = threading.Condition()
        self._queue: deque[_Request] = deque()
        self._workers: list[threading.Thread] = []
        self._pid = 0
        self._closed = False
        self.batches = 0
        self.calls = 0
        self.texts = 0
        self.model_cpu_s = (
            0.0  # CPU of the lanes' own threads in model calls (not the model's helper threads)
        )

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
        return self._submit(_Request("q", check_texts([text])))[0]

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        return self._submit(_Request("q", items))

    def stats(self) -> dict[str, float]:
        """Counters for logs and benchmarks: calls, batches, texts, mean batch, lanes, model CPU."""
        return {
            "calls": self.calls,
            "batches": self.batches,
            "texts": self.texts,
            "mean_batch": round(self.texts / self.batches, 2) if self.batches else 0.0,
            "lanes": self.lanes,
            "model_cpu_s": round(self.model_cpu_s, 3),
        }

    def close(self) -> None:
        """Stop the lanes once the queue is empty (calls after this run the model inline)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for worker in self._workers:
            worker.join(timeout=10)

    # -- callers -------------------------------------------------------------------------------
    def _submit(self, req: _Request) -> Vectors:
        with self._cond:
            inline = self._closed
            if not inline:
                self._start_lanes()
                self.calls += 1
                self._queue.append(req)
                self._cond.notify()
        if inline:
            self._run([req])
        req.done.wait()
        if req.error is not None:
            raise req.error
        assert req.result is not None
        return req.result

    def _start_lanes(self) -> None:
        """Start the lanes on first use, and again in a forked child (threads do not survive fork)."""
        if self._pid == os.getpid() and all(w.is_alive() for w in self._workers):
            return
        self._pid = os.getpid()
        self._workers = [w for w in self._workers if w.is_alive()]
        while len(self._workers) < self.lanes:
            worker = threading.Thread(
                target=self._lane, name=f"{LANE_THREAD_PREFIX}-{len(self._workers)}", daemon=True
            )
            worker.start()
            self._workers.append(worker)

    # -- lanes ---------------------------------------------------------------------------------
    def _lane(self) -> None:
        name_os_thread(threading.current_thread().name)
        while True:
            batch = self._take()
            if batch is None:
                return
            self._run(batch)

    def _take(self) -> list[_Request] | None:
        """Wait for queued requests and take up to ``max_batch`` texts of them (FIFO; one larger
        request alone); ``None`` once closed and drained."""
        with self._cond:
            while not self._queue:
                if self._closed:
                    return None
                self._cond.wait()
            if self.window > 0:
                deadline = time.monotonic() + self.window
                while sum(len(r.texts) for r in self._queue) < self.max_batch:
                    left = deadline - time.monotonic()
                    if left <= 0 or self._closed:
                        break
                    self._cond.wait(left)
                if not self._queue:  # another lane took them meanwhile
                    return []
            batch = [self._queue.popleft()]
            size = len(batch[0].texts)
            while self._queue and size + len(self._queue[0].texts) <= self.max_batch:
                req = self._queue.popleft()
                batch.append(req)
                size += len(req.texts)
            self.batches += 1
            self.texts += size
            return batch

    def _run(self, batch: list[_Request]) -> None:
        """One model call per role; each caller gets its rows or the model's error, whatever happens
        (after a failed call, each caller's texts are tried alone: one bad text fails only its caller)."""
        try:
            for role in ("d", "q"):
                group = [r for r in batch if r.role == role]
                if not group:
                    continue
                began = time.monotonic()
                try:
                    vecs = self._checked(role, [t for r in group for t in r.texts])
                except Exception as exc:
                    if len(group) == 1 or time.monotonic() - began > ALONE_RETRY_S:
                        for r in group:
                            r.error = exc
                        continue
                    # one caller's text may be what the model refuses: each caller's texts again on
                    # their own, so that error reaches only its caller (a slow failure is the
                    # model's or the service's, a timeout: retrying would multiply the wait)
                    for r in group:
                        try:
                            r.result = self._checked(role, r.texts)
                        except Exception as alone:
                            r.error = alone
                    continue
                start = 0
                for r in group:
                    r.result = vecs[start : start + len(r.texts)]
                    start += len(r.texts)
        finally:
            for r in batch:
                if r.result is None and r.error is None:
                    r.error = RuntimeError("the embedding lane stopped before this text was embedded")
                r.done.set()

    def _checked(self, role: str, texts: list[str]) -> Vectors:
        """One model call, its CPU counted; a wrong number of rows is an error."""
        cpu = time.thread_time()
        try:
            vecs = self._embed(role, texts)
        finally:
            with self._cond:
                self.model_cpu_s += time.thread_time() - cpu
        if len(vecs) != len(texts):
            raise RuntimeError(f"the model returned {len(vecs)} vectors for {len(texts)} texts")
        return vecs

    def _embed(self, role: str, texts: list[str]) -> Vectors:
        if role == "d":
            return self.inner.embed_documents(texts)
        many = getattr(self.inner, "embed_queries", None)
        if callable(many):
            return np.asarray(many(texts), dtype=np.float32)
        return np.stack([self.inner.embed_query(t) for t in texts]).astype(np.float32, copy=False)
