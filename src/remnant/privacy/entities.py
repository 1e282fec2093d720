"""Entity types the privacy layer knows, and the findings it reports.

A ``Detection`` is what a recognizer sees (with the original value, internal only); a ``Finding``
is what leaves the redactor (type, span, placeholder: no plaintext).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from remnant.core.errors import ValidationError


class EntityType(StrEnum):
    """Kinds of personal data; the value is the placeholder label (``[PHONE_1]``)."""

    EMAIL = "EMAIL"
    PHONE = "PHONE"
    CREDIT_CARD = "CARD"
    IBAN = "IBAN"
    CN_ID = "CN_ID"
    PASSPORT = "PASSPORT"
    IP_ADDRESS = "IP"
    ADDRESS = "ADDRESS"
    PERSON = "NAME"

    @classmethod
    def parse(cls, name: str) -> EntityType:
        """Accept either the member name (``CREDIT_CARD``) or the label (``CARD``), any case."""
        key = name.strip().upper()
        if key in cls.__members__:
            return cls[key]
        for member in cls:
            if member.value == key:
                return member
        valid = ", ".join(m.name for m in cls)
        raise ValidationError(f"unknown entity type {name!r}; expected one of: {valid}")


ALL_ENTITIES: frozenset[EntityType] = frozenset(EntityType)

# When two detections overlap, the one with the lower rank wins (precise formats and checksums
# first, then phone shapes, then free-text guesses). Length breaks ties.
PRIORITY: dict[EntityType, int] = {
    EntityType.EMAIL: 0,  # 13812345678@qq.com is an e-mail, not a phone
    EntityType.IBAN: 1,  # an IBAN's digits can pass Luhn by chance
    EntityType.CN_ID: 2,
    EntityType.CREDIT_CARD: 3,
    EntityType.IP_ADDRESS: 4,
    EntityType.PHONE: 5,
    EntityType.PASSPORT: 6,
    EntityType.ADDRESS: 7,
    EntityType.PERSON: 8,
}


@dataclass(frozen=True, slots=True)
class Detection:
    """A span of personal data found in the text (holds the original value; never persisted)."""

    entity_type: EntityType
    start: int
    end: int
    value: str
    score: float
    source: str

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Finding:
    """A redacted span: offsets into the original text and the placeholder that replaced it."""

    entity_type: EntityType
    start: int
    end: int
    placeholder: str
    score: float = 1.0
    source: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "entity_type": self.entity_type.name,
            "start": self.start,
            "end": self.end,
            "placeholder": self.placeholder,
            "score": round(self.score, 3),
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class RedactionResult:
    """Redacted text (safe to store) plus what was replaced."""

    text: str
    findings: list[Finding]

    @property
    def changed(self) -> bool:
        return bool(self.findings)
