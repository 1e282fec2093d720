"""Embedders: text to unit-length float32 vectors, each tagged with the model that made it."""

from remnant.embed.base import (
    Embedder,
    EmbedderUnavailable,
    EmbeddingError,
    EmbeddingModelMismatch,
    Vectors,
    check_model,
    l2_normalize,
)
from remnant.embed.cache import CachedEmbedder, NpzVectorCache, VectorCacheStore, content_hash
from remnant.embed.registry import DEFAULT_EMBEDDER, available_names, get_embedder

__all__ = [
    "DEFAULT_EMBEDDER",
    "CachedEmbedder",
    "Embedder",
    "EmbedderUnavailable",
    "EmbeddingError",
    "EmbeddingModelMismatch",
    "NpzVectorCache",
    "VectorCacheStore",
    "Vectors",
    "available_names",
    "check_model",
    "content_hash",
    "get_embedder",
    "l2_normalize",
]
