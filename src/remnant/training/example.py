"""A training example: text or chat messages plus when, where from, and how much to trust it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from remnant.training.clock import format_time, parse_time
from remnant.training.errors import InvalidExampleError
from remnant.training.jsonl import LineProblem

ROLES = frozenset({"system", "user", "assistant", "tool"})


@dataclass(frozen=True)
class Message:
    """One chat turn."""

    role: str
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class TrainingExample:
    """One unit of training data.

    Exactly one of ``text`` (plain continued-pretraining text) and ``messages`` (a chat) is set.
    ``authority`` in [0, 1] says how much the source is trusted; ``importance`` (> 0, default 1)
    lets curators keep some examples alive longer; ``superseded`` marks a statement a newer
    authoritative value replaced (weighted by the policy's ``superseded_factor``). ``created_at`` is when the knowledge was
    written (the manual's date), which is what the age decay is measured from.
    """

    created_at: datetime
    source: str
    text: str | None = None
    messages: tuple[Message, ...] = ()
    authority: float = 1.0
    importance: float = 1.0
    tags: tuple[str, ...] = ()
    example_id: str = ""
    superseded: bool = False
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if (self.text is None) == (not self.messages):
            raise InvalidExampleError("an example needs exactly one of 'text' or 'messages'")
        if self.text is not None and not self.text.strip():
            raise InvalidExampleError("'text' is empty")
        for message in self.messages:
            if message.role not in ROLES:
                raise InvalidExampleError(f"unknown chat role {message.role!r}")
        if not self.source.strip():
            raise InvalidExampleError("'source' is empty")
        if not 0.0 <= self.authority <= 1.0:
            raise InvalidExampleError(f"'authority' must be in [0, 1], got {self.authority}")
        if not self.importance > 0.0:
            raise InvalidExampleError(f"'importance' must be > 0, got {self.importance}")
        if not self.example_id:
            object.__setattr__(self, "example_id", self.content_hash()[:16])

    def content_hash(self) -> str:
        """Stable hash of the content and source: the same statement from the same source is one example."""
        body = self.text if self.text is not None else [m.to_dict() for m in self.messages]
        payload = json.dumps({"body": body, "source": self.source}, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def chat(self) -> list[dict[str, str]]:
        """The example as chat messages; plain text becomes a single assistant turn."""
        if self.messages:
            return [m.to_dict() for m in self.messages]
        assert self.text is not None
        return [{"role": "assistant", "content": self.text}]

    def to_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {"id": self.example_id}
        if self.text is not None:
            row["text"] = self.text
        else:
            row["messages"] = [m.to_dict() for m in self.messages]
        row.update(
            time=format_time(self.created_at),
            source=self.source,
            authority=self.authority,
            importance=self.importance,
        )
        if self.tags:
            row["tags"] = list(self.tags)
        if self.superseded:
            row["superseded"] = True
        if self.meta:
            row["meta"] = self.meta
        return row


def _number(obj: dict[str, Any], key: str, default: float) -> float:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidExampleError(f"{key!r} must be a number, got {value!r}")
    return float(value)


def example_from_dict(
    obj: dict[str, Any],
    line: int = 0,
    notes: list[LineProblem] | None = None,
    *,
    default_time: datetime | None = None,
    default_source: str | None = None,
) -> TrainingExample:
    """Build an example from a JSON object (keys: text|messages, time, source, authority, importance).

    A missing time or source is rejected unless an explicit default is supplied; using a
    default is recorded as a non-fatal note so the load report (and log) shows it.
    """
    notes = notes if notes is not None else []
    raw_time = obj.get("time", obj.get("date", obj.get("created_at")))
    if raw_time is None:
        if default_time is None:
            raise InvalidExampleError("no 'time' given (pass a default time to accept undated examples)")
        created = default_time
        notes.append(LineProblem(line, f"no 'time' given, used default {format_time(default_time)}", False))
    else:
        try:
            created = parse_time(raw_time)
        except ValueError as exc:
            raise InvalidExampleError(str(exc)) from None
    source = obj.get("source")
    if source is None or (isinstance(source, str) and not source.strip()):
        if default_source is None:
            raise InvalidExampleError(
                "no 'source' given (pass a default source to accept unsourced examples)"
            )
        source = default_source
        notes.append(LineProblem(line, f"no 'source' given, used default {default_source!r}", False))
    if not isinstance(source, str):
        raise InvalidExampleError(f"'source' must be a string, got {source!r}")
    messages: tuple[Message, ...] = ()
    raw_messages = obj.get("messages")
    if raw_messages is not None:
        if not isinstance(raw_messages, list) or not raw_messages:
            raise InvalidExampleError("'messages' must be a non-empty list")
        parsed = []
        for item in raw_messages:
            if not isinstance(item, dict) or not isinstance(item.get("content"), str):
                raise InvalidExampleError("each message needs a 'role' and a string 'content'")
            parsed.append(Message(str(item.get("role")), item["content"]))
        messages = tuple(parsed)
    text = obj.get("text")
    if text is not None and not isinstance(text, str):
        raise InvalidExampleError("'text' must be a string")
    tags = obj.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InvalidExampleError("'tags' must be a list of strings")
    meta = obj.get("meta", {})
    if not isinstance(meta, dict):
        raise InvalidExampleError("'meta' must be an object")
    superseded = obj.get("superseded", False)
    if not isinstance(superseded, bool):
        raise InvalidExampleError("'superseded' must be true or false")
    return TrainingExample(
        created_at=created,
        source=source,
        text=text,
        messages=messages,
        authority=_number(obj, "authority", 1.0),
        importance=_number(obj, "importance", 1.0),
        tags=tuple(tags),
        example_id=str(obj.get("id", "")),
        meta=meta,
        superseded=superseded,
    )
