"""A provider for any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

It speaks `POST {base_url}/chat/completions` over httpx with a timeout, retries transient failures
(429, 5xx, connection errors, timeouts) with exponential backoff and jitter (honouring a short
`Retry-After`), asks for `response_format: json_schema` when a schema is given, and reads token
accounting from the response's `usage`.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from remnant.core.extras import needs
from remnant.llm.base import (
    Completion,
    JsonSchema,
    LLMOutputError,
    LLMRequestError,
    LLMUnavailable,
    Message,
    check_messages,
)

with needs("an OpenAI-compatible LLM", "llm"):
    import httpx

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER_S = 30.0


class OpenAICompatibleLLM:
    """Chat completions over HTTP against an OpenAI-compatible server.

    `base_url` is the API root including the version segment, e.g. ``https://api.openai.com/v1``,
    ``http://localhost:11434/v1`` (Ollama) or ``http://127.0.0.1:8080/v1`` (llama.cpp / vLLM).
    `max_retries` counts retries after the first attempt; the wait before retry n is
    ``backoff_base_s * 2**n`` (times a jitter in [0.5, 1]) capped at `backoff_max_s`.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        connect_timeout_s: float = 5.0,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
        json_mode: str = "json_schema",
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model:
            raise ValueError("model must be a non-empty model name")
        if json_mode not in ("json_schema", "json_object", "none"):
            raise ValueError("json_mode must be 'json_schema', 'json_object' or 'none'")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.name = f"openai:{model}@{self.base_url}"
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.json_mode = json_mode
        self._sleep = sleep
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s),
            transport=transport,
        )
        self.attempts = 0  # total HTTP attempts made, for observability and tests

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAICompatibleLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _payload(
        self, messages: Sequence[Message], json_schema: JsonSchema | None, max_tokens: int, temperature: float
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": check_messages(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if json_schema is not None and self.json_mode == "json_schema":
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "remnant_output", "schema": json_schema},
            }
        elif json_schema is not None and self.json_mode == "json_object":
            payload["response_format"] = {"type": "json_object"}
        return payload

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(float(retry_after), _MAX_RETRY_AFTER_S)
            except ValueError:
                pass  # an HTTP date: fall back to our own schedule
        delay = min(self.backoff_base_s * (2**attempt), self.backoff_max_s)
        return delay * random.uniform(0.5, 1.0)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
    ) -> Completion:
        payload = self._payload(messages, json_schema, max_tokens, temperature)
        url = f"{self.base_url}/chat/completions"
        last_problem = "no attempt made"
        for attempt in range(self.max_retries + 1):
            self.attempts += 1
            retry_after: str | None = None
            try:
                response = self._client.post(url, json=payload)
            except httpx.TimeoutException as exc:
                last_problem = f"timed out ({type(exc).__name__})"
            except httpx.TransportError as exc:
                last_problem = f"connection failed ({type(exc).__name__}: {exc})"
            else:
                if response.status_code < 400:
                    return self._parse(response)
                detail = response.text[:200]
                if response.status_code not in _RETRY_STATUS:
                    raise LLMRequestError(
                        f"{url} rejected the request: HTTP {response.status_code}: {detail}"
                    )
                last_problem = f"HTTP {response.status_code}: {detail}"
                retry_after = response.headers.get("Retry-After")
            if attempt < self.max_retries:
                self._sleep(self._backoff(attempt, retry_after))
        raise LLMUnavailable(f"{url} unavailable after {self.max_retries + 1} attempts: {last_problem}")

    def _parse(self, response: httpx.Response) -> Completion:
        try:
            body = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LLMOutputError(f"endpoint returned a non-JSON body: {response.text[:120]!r}") from exc
        try:
            choice = body["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMOutputError(
                f"endpoint response has no choices[0].message.content: {str(body)[:160]}"
            ) from exc
        if not isinstance(text, str):
            raise LLMOutputError("endpoint returned a non-string message content")
        usage = body.get("usage") or {}
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            model=str(body.get("model") or self.model),
            finish_reason=str(choice.get("finish_reason") or "stop"),
        )
