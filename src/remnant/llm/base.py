"""The one small interface every LLM provider implements, and its errors.

Remnant never needs more from a model than "here are chat messages, give me text (optionally JSON
that fits this schema)". Keeping the seam this narrow lets an OpenAI-compatible endpoint, an
in-process llama.cpp model and anything a user writes be swapped freely.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypedDict, runtime_checkable

Role = Literal["system", "user", "assistant"]


class Message(TypedDict):
    """One chat message in the OpenAI shape."""

    role: Role
    content: str


JsonSchema = dict[str, Any]


class LLMError(Exception):
    """Base class for every failure talking to a language model."""


class LLMUnavailable(LLMError):
    """The model could not be reached or loaded (connection refused, timeout, retries spent, no backend).

    Callers treat this as "carry on without the model": extraction falls back to rules and the
    memory write still happens.
    """


class LLMRequestError(LLMError):
    """The endpoint rejected the request itself (a 4xx other than 429): retrying will not help."""


class LLMOutputError(LLMError):
    """The model answered, but the answer is unusable (not JSON, wrong shape, truncated).

    Malformed output is never turned into a memory.
    """


@dataclass(frozen=True, slots=True)
class Completion:
    """A model's answer plus the token accounting reported by the backend."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    model: str
    finish_reason: str = "stop"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def is_demo(llm: object) -> bool:
    """True for a model that is only a demo (the bundled SmolLM2-135M): see ``LocalLLM.demo``."""
    return bool(getattr(llm, "demo", False))


@runtime_checkable
class LLM(Protocol):
    """A chat model. `json_schema`, when given, asks the backend to constrain output to it."""

    name: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
    ) -> Completion: ...


def check_messages(messages: Sequence[Message]) -> list[dict[str, str]]:
    """Validate chat messages and return them as plain dicts (what every backend wants)."""
    if not messages:
        raise ValueError("messages must not be empty")
    out: list[dict[str, str]] = []
    for i, m in enumerate(messages):
        role = m.get("role")
        content = m.get("content")
        if role not in ("system", "user", "assistant"):
            raise ValueError(f"message {i}: role must be system, user or assistant, got {role!r}")
        if not isinstance(content, str):
            raise ValueError(f"message {i}: content must be a string")
        out.append({"role": role, "content": content})
    return out
