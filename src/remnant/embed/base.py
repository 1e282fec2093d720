"""The one interface every embedder implements, plus the errors and helpers they share.

An embedder turns text into float32 vectors of unit length, so a dot product is the cosine
similarity. Every vector belongs to the model that made it (``model_id``); vectors from two
models live in different spaces, so comparing them is refused loudly instead of returning
plausible-looking nonsense.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from remnant.core.errors import RemnantError

Vectors = npt.NDArray[np.float32]


class EmbeddingError(RemnantError):
    """Base class for embedding failures (bad input, unavailable model, remote errors)."""


class EmbedderUnavailable(EmbeddingError):
    """The requested model or its runtime is not installed or cannot be loaded."""


class EmbeddingModelMismatch(EmbeddingError):
    """Vectors from one model were compared with, or stored beside, vectors from another."""

    def __init__(self, expected: str, got: str, where: str = "") -> None:
        self.expected = expected
        self.got = got
        place = f" in {where}" if where else ""
        super().__init__(
            f"embedding model mismatch{place}: expected vectors from {expected!r}, got {got!r}; "
            "re-embed with one model (vectors of different models are not comparable)"
        )


@runtime_checkable
class Embedder(Protocol):
    """Text to L2-normalised float32 vectors.

    ``embed_documents`` is for what gets stored, ``embed_query`` for what is searched with;
    asymmetric models (e5) prefix the two roles differently, symmetric ones do the same thing.
    """

    model_id: str

    @property
    def dim(self) -> int:
        """Length of every vector this embedder returns."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Return an array of shape (len(texts), dim), float32, rows of unit length."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Return a vector of shape (dim,), float32, unit length."""
        ...


def l2_normalize(matrix: npt.ArrayLike) -> Vectors:
    """Scale each row to unit length (rows of zeros stay zero rather than becoming NaN)."""
    arr = np.asarray(matrix, dtype=np.float32)
    if arr.ndim == 1:
        norm = float(np.linalg.norm(arr))
        return arr / norm if norm > 0 else arr
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (arr / norms).astype(np.float32, copy=False)


def check_texts(texts: Sequence[str]) -> list[str]:
    """Validate a batch of texts: a sequence of str (a bare str is a common mistake)."""
    if isinstance(texts, str):
        raise EmbeddingError("embed_documents takes a sequence of texts, not a single string")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise EmbeddingError(f"text #{i} is {type(t).__name__}, expected str")
    return out


def empty(dim: int) -> Vectors:
    """An empty (0, dim) batch, so callers never special-case no input."""
    return np.zeros((0, dim), dtype=np.float32)


def check_model(expected: str, got: str, where: str = "") -> None:
    """Raise :class:`EmbeddingModelMismatch` unless both ids name the same model."""
    if expected != got:
        raise EmbeddingModelMismatch(expected, got, where)


#: A stored model id may name a passage recipe after this separator ("<model>+prev0.5": the model's
#: vectors of a turn with the turn before it, remnant.retrieval.passages); the model is the part before.
RECIPE_SEPARATOR = "+"


def base_model_id(model_id: str) -> str:
    """The embedding model of a stored model id, without its passage recipe."""
    return model_id.split(RECIPE_SEPARATOR, 1)[0]
