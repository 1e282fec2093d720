"""A knowledge base of product documents with versions and validity windows.

Documents are memories of kind ``knowledge`` under a shared knowledge user, pinned (product
knowledge does not fade from disuse) and never superseded by key: several versions of one document
coexist, each with its own ``valid_from``/``valid_to``, and the engine's recall filter returns only
the versions valid now. That is the seed's "only currently valid knowledge is retrieved": a spec
that changes on 1 March is answered with the old value until then and the new one after.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from remnant.core.errors import ValidationError
from remnant.core.model import Kind, MemoryRecord
from remnant.engine.memory import Memory

KB_USER = "__knowledge__"
"""The user id under which knowledge is stored: knowledge is shared, not any customer's memory."""

_FIELDS = ("id", "title", "content", "version", "product", "valid_from", "valid_to")


def parse_when(value: Any, name: str) -> datetime | None:
    """Accept ISO dates/datetimes (naive ones are UTC) or None."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    try:
        parsed = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValidationError(f"{name}: {value!r} is not an ISO date or datetime") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class KnowledgeDoc:
    """One version of a product document. `doc_id` names the document across versions."""

    doc_id: str
    content: str
    title: str = ""
    version: str = "1"
    product: str = ""
    valid_from: datetime | None = None
    valid_to: datetime | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "document") -> KnowledgeDoc:
        unknown = set(data) - set(_FIELDS)
        if unknown:
            raise ValidationError(f"{where}: unknown fields {sorted(unknown)}; allowed: {', '.join(_FIELDS)}")
        doc_id = str(data.get("id") or "").strip()
        content = str(data.get("content") or "").strip()
        if not doc_id:
            raise ValidationError(f"{where}: 'id' is required")
        if not content:
            raise ValidationError(f"{where}: 'content' is required")
        valid_from = parse_when(data.get("valid_from"), f"{where}: valid_from")
        valid_to = parse_when(data.get("valid_to"), f"{where}: valid_to")
        if valid_from and valid_to and valid_to <= valid_from:
            raise ValidationError(f"{where}: valid_to must be after valid_from")
        return cls(
            doc_id=doc_id,
            content=content,
            title=str(data.get("title") or "").strip(),
            version=str(data.get("version") or "1").strip(),
            product=str(data.get("product") or "").strip(),
            valid_from=valid_from,
            valid_to=valid_to,
        )

    @property
    def key(self) -> str:
        return f"kb:{self.doc_id}@{self.version}"

    def text(self) -> str:
        """The stored text: title and product make the document findable by name."""
        head = " · ".join(p for p in (self.product, self.title) if p)
        return f"{head}: {self.content}" if head else self.content


_FRONT = re.compile(r"^---\s*\n(.*?)\n---\s*\n", re.DOTALL | re.MULTILINE)


def _parse_markdown(text: str, where: str) -> Iterator[KnowledgeDoc]:
    """Markdown with front matter blocks: each ``---`` block of ``field: value`` lines starts a doc."""
    matches = list(_FRONT.finditer(text))
    if not matches:
        raise ValidationError(f"{where}: no front matter found (start each document with a --- block)")
    for i, m in enumerate(matches):
        meta: dict[str, Any] = {}
        for line in m.group(1).splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, sep, value = line.partition(":")
            if not sep:
                raise ValidationError(f"{where}: front matter line {line!r} is not 'field: value'")
            meta[name.strip()] = value.strip().strip("\"'")
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        meta["content"] = text[m.end() : end].strip()
        yield KnowledgeDoc.from_dict(meta, where=f"{where} document {i + 1}")


def load_documents(path: str | Path) -> list[KnowledgeDoc]:
    """Read documents from a ``.jsonl`` file (one JSON object per line) or a Markdown file."""
    p = Path(path)
    if not p.is_file():
        raise ValidationError(f"{p}: no such file")
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        docs = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValidationError(f"{p}:{n}: not valid JSON ({exc.msg})") from exc
            if not isinstance(data, dict):
                raise ValidationError(f"{p}:{n}: each line must be a JSON object")
            docs.append(KnowledgeDoc.from_dict(data, where=f"{p}:{n}"))
        return docs
    return list(_parse_markdown(text, str(p)))


@dataclass(frozen=True, slots=True)
class KnowledgeHit:
    doc_id: str
    version: str
    content: str
    score: float


class KnowledgeBase:
    """Product documents stored in a `Memory`, retrieved only while valid."""

    def __init__(self, memory: Memory, *, user_id: str = KB_USER) -> None:
        self.memory = memory
        self.user_id = user_id

    def add(self, doc: KnowledgeDoc) -> MemoryRecord | None:
        """Store one document version; returns None when that exact version is already stored."""
        for existing in self.memory.history(doc.key, user_id=self.user_id):
            if (
                existing.content == doc.text()
                and existing.valid_from == doc.valid_from
                and existing.valid_to == doc.valid_to
            ):
                return None
        return self.memory.remember(
            doc.text(),
            user_id=self.user_id,
            kind=Kind.KNOWLEDGE,
            key=doc.key,
            importance=0.8,
            pinned=True,
            source=f"kb:{doc.doc_id}",
            valid_from=doc.valid_from,
            valid_to=doc.valid_to,
            metadata={
                "doc_id": doc.doc_id,
                "version": doc.version,
                "product": doc.product,
                "title": doc.title,
            },
            supersede=True,  # only an identical key (same doc and version) is replaced: a corrected re-import
            redact=False,  # product documents carry no personal data
        )

    def add_many(self, docs: Iterable[KnowledgeDoc]) -> tuple[int, int]:
        """Store documents; returns (added, unchanged)."""
        added = unchanged = 0
        for doc in docs:
            if self.add(doc) is None:
                unchanged += 1
            else:
                added += 1
        return added, unchanged

    def search(self, query: str, *, limit: int = 3, at: datetime | None = None) -> list[KnowledgeHit]:
        """Documents matching `query` that are valid now (or at `at`)."""
        result = self.memory.recall(
            query,
            user_id=self.user_id,
            limit=limit,
            kinds=[Kind.KNOWLEDGE],
            as_of=at,
            touch=False,
            hints=False,
        )
        return [
            KnowledgeHit(
                str(h.memory.metadata.get("doc_id", h.memory.key or "")),
                str(h.memory.metadata.get("version", "")),
                h.memory.content,
                h.score,
            )
            for h in result
        ]

    def documents(self) -> Sequence[MemoryRecord]:
        """Every stored version, valid or not (for listing)."""
        return self.memory.list_memories(self.user_id, kinds=[Kind.KNOWLEDGE], limit=1000, newest_first=False)
