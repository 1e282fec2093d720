"""Plain data for knowledge partitions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from remnant.partitions.errors import InvalidPartitionError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,99}$")


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidPartitionError(
            f"bad partition name {name!r}: use 1-100 letters, digits, '_', '.', ':' or '-', starting with a letter or digit"
        )
    return name


@dataclass(frozen=True)
class Partition:
    """A named group of knowledge (the seed's "expert") and how queries are routed to it.

    ``description`` is matched by embedding similarity; ``keywords`` (substrings), ``patterns``
    (regular expressions) and ``kinds`` (query kinds such as "preference") are explicit rules.
    ``version`` increases on every rebuild or replace.
    """

    name: str
    description: str
    keywords: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    version: int = 1
    created_at: datetime | None = None
    updated_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "keywords": list(self.keywords),
            "patterns": list(self.patterns),
            "kinds": list(self.kinds),
            "version": self.version,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "updated_at": self.updated_at.isoformat() if self.updated_at else None,
        }


@dataclass(frozen=True)
class KnowledgeItem:
    """One piece of knowledge to put in a partition."""

    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    item_id: str = ""


@dataclass(frozen=True)
class Hit:
    """A recalled item with its partition and similarity score."""

    item_id: str
    partition: str
    text: str
    score: float


@dataclass(frozen=True)
class AuditRecord:
    seq: int
    at: str
    action: str
    partition: str
    detail: dict[str, Any]
    hash: str
