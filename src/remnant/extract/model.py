"""The typed candidate memory produced by extractors."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Literal

FactKind = Literal["preference", "fact", "open_issue"]
FACT_KINDS: tuple[FactKind, ...] = ("preference", "fact", "open_issue")


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """A candidate memory taken from one conversation turn.

    `key` is normalised snake_case (``city``, ``preferred_color``, ``order_a1234``) so that a later
    fact with the same key supersedes the earlier one. `value` is the bare value ("Berlin"),
    `content` a self-contained sentence suitable as the memory text ("User lives in Berlin").
    `expires_in` is a suggested time-to-live (reminders, open issues) or None for no expiry.
    """

    kind: FactKind
    key: str
    value: str
    content: str
    confidence: float
    importance: float
    expires_in: timedelta | None = None
    source: str = "rules"
    evidence: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in FACT_KINDS:
            raise ValueError(f"kind must be one of {FACT_KINDS}, got {self.kind!r}")
        if not self.key:
            raise ValueError("key must not be empty")
        if not self.value.strip():
            raise ValueError("value must not be empty")
        for name in ("confidence", "importance"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {v}")
