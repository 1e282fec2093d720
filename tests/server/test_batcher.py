"""The server's micro-batcher: concurrent embedding calls share model calls and get their own rows."""

from __future__ import annotations

import threading

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
