"""The static 64-d model from ``tokenlearn-static-model``: very fast, weak neighbours.

Good as a test double and for smoke runs; not for quality.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from remnant.embed.base import EmbedderUnavailable, Vectors, check_texts, empty, l2_normalize

MODEL_ID = "tokenlearn-static-64d-int8"


class StaticEmbedder:
    """Symmetric bag-of-token-vectors embedder (64-d)."""

    dim = 64

    def __init__(self) -> None:
        try:
            import static_model
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"the static model needs `pip install tokenlearn-static-model` ({exc})"
            ) from None
        self._encode = static_model.get_embeddings
        batch = getattr(static_model, "encode_batch", None)
        ready = getattr(static_model, "ensure_model_ready", None)
        if batch is not None and ready is not None:
            # get_embeddings resolves the model folder on every call (a third of a query's time)
            from pathlib import Path

            folder = str(ready(Path(static_model.__file__).resolve().parent / "model"))
            self._encode = lambda items: batch(folder, list(items), 512)
        self.model_id = MODEL_ID
        probe = np.asarray(self._encode(["probe"]), dtype=np.float32)
        self.dim = int(probe.shape[1])

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        return l2_normalize(np.asarray(self._encode(items), dtype=np.float32))

    def embed_query(self, text: str) -> Vectors:
        return self.embed_documents([text])[0]
