"""Knowledge partitions: create, route, recall, and rebuild/replace/drop one without the others.

The registry (names, descriptions, routing rules, versions) and the audit chain live in one
small SQLite file; items live in a :class:`~remnant.partitions.backend.PartitionBackend`
(the same file by default, or the memory engine). Every operation names exactly one
partition and the backend only ever clears by partition name, so the other partitions'
content, and therefore their recall, is left exactly as it was.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remnant.partitions.audit import AuditSink, SQLiteAudit
from remnant.partitions.backend import PartitionBackend, SQLiteBackend
from remnant.partitions.embed import Embedder, HashingEmbedder
from remnant.partitions.errors import InvalidPartitionError, PartitionExistsError, PartitionNotFoundError
from remnant.partitions.model import AuditRecord, Hit, KnowledgeItem, Partition, check_name
from remnant.partitions.router import RouteDecision, Router
from remnant.store.migrations import PARTITIONS, SQLiteConnection, migrate
from remnant.training.clock import Clock, SystemClock, format_time, parse_time

_DATA = Path(__file__).resolve().parent / "data"
# The seed's three example experts, usable as a starting layout (``PartitionManager.seed_defaults``):
# their names and query kinds here; their descriptions, keywords and patterns each language's data
_DEFAULT_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("basic", ("fact",)),
    ("dynamic-2024", ("time-sensitive",)),
    ("user-a-preferences", ("preference",)),
)


def _default_partitions() -> tuple[Partition, ...]:
    """The example partitions, every language's words merged in language order (data/<lang>/defaults.json)."""
    words: dict[str, dict[str, list[str]]] = {}
    for folder in sorted(p for p in _DATA.iterdir() if p.is_dir()):
        path = folder / "defaults.json"
        if not path.exists():
            continue
        for name, entry in json.loads(path.read_text(encoding="utf-8"))["partitions"].items():
            merged = words.setdefault(name, {})
            for field, value in entry.items():
                merged.setdefault(field, []).extend([value] if isinstance(value, str) else value)
    return tuple(
        Partition(
            name,
            words[name]["description"][0],
            keywords=tuple(words[name].get("keywords", ())),
            patterns=tuple(words[name].get("patterns", ())),
            kinds=kinds,
        )
        for name, kinds in _DEFAULT_KINDS
    )


DEFAULT_PARTITIONS = _default_partitions()


class PartitionManager:
    """Named knowledge partitions with routing and isolated maintenance."""

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        backend: PartitionBackend | None = None,
        embed: Embedder | None = None,
        audit: AuditSink | None = None,
        clock: Clock | None = None,
        min_similarity: float = 0.15,
        max_partitions: int = 2,
        fallback: Sequence[str] = ("basic",),
        route_by_content: bool = True,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        self.embed: Embedder = embed or HashingEmbedder()
        self.conn = sqlite3.connect(str(path))
        migrate(SQLiteConnection(self.conn), PARTITIONS)
        self.backend: PartitionBackend = backend or SQLiteBackend(self.conn, self.embed, self.clock)
        self.chain = SQLiteAudit(self.conn, self.clock)
        self.extra_audit = audit
        self.route_by_content = route_by_content
        self._router: Router | None = None
        self._router_key: tuple[Any, ...] = ()
        self.router_options: dict[str, Any] = {
            "min_similarity": min_similarity,
            "max_partitions": max_partitions,
            "fallback": tuple(fallback),
        }

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> PartitionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- registry -----------------------------------------------------------------------------
    def list(self) -> list[Partition]:
        rows = self.conn.execute(
            "SELECT name, description, keywords, patterns, kinds, version, created_at, updated_at"
            " FROM part_partition ORDER BY name"
        )
        return [self._row(r) for r in rows]

    def get(self, name: str) -> Partition:
        row = self.conn.execute(
            "SELECT name, description, keywords, patterns, kinds, version, created_at, updated_at"
            " FROM part_partition WHERE name = ?",
            (name,),
        ).fetchone()
        if row is None:
            raise PartitionNotFoundError(f"no partition named {name!r}")
        return self._row(row)

    @staticmethod
    def _row(r: Sequence[Any]) -> Partition:
        return Partition(
            name=r[0],
            description=r[1],
            keywords=tuple(json.loads(r[2])),
            patterns=tuple(json.loads(r[3])),
            kinds=tuple(json.loads(r[4])),
            version=int(r[5]),
            created_at=parse_time(r[6]),
            updated_at=parse_time(r[7]),
        )

    def create(
        self,
        name: str,
        description: str,
        *,
        keywords: Sequence[str] = (),
        patterns: Sequence[str] = (),
        kinds: Sequence[str] = (),
        items: Sequence[KnowledgeItem] = (),
    ) -> Partition:
        check_name(name)
        if not description.strip():
            raise InvalidPartitionError(
                "a partition needs a description (the router matches queries against it)"
            )
        # validate the patterns before anything is written
        Router(
            [Partition(name, description, tuple(keywords), tuple(patterns), tuple(kinds))], embed=self.embed
        )
        now = format_time(self.clock.now())
        with self.conn:
            if self.conn.execute("SELECT 1 FROM part_partition WHERE name = ?", (name,)).fetchone():
                raise PartitionExistsError(f"partition {name!r} already exists")
            self.conn.execute(
                "INSERT INTO part_partition (name, description, keywords, patterns, kinds, version, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
                (
                    name,
                    description,
                    json.dumps(list(keywords), ensure_ascii=False),
                    json.dumps(list(patterns), ensure_ascii=False),
                    json.dumps(list(kinds), ensure_ascii=False),
                    now,
                    now,
                ),
            )
            ids = self.backend.put(name, items)
            self._audit("create", name, {"items_added": len(ids), "version": 1, "description": description})
        return self.get(name)

    def seed_defaults(self) -> builtins.list[Partition]:
        """Create the seed's three example partitions if missing."""
        existing = {p.name for p in self.list()}
        for p in DEFAULT_PARTITIONS:
            if p.name not in existing:
                self.create(p.name, p.description, keywords=p.keywords, patterns=p.patterns, kinds=p.kinds)
        return self.list()

    # -- content ------------------------------------------------------------------------------
    def add(self, name: str, items: Sequence[KnowledgeItem]) -> builtins.list[str]:
        self.get(name)
        with self.conn:
            return self.backend.put(name, items)

    def items(self, name: str) -> builtins.list[KnowledgeItem]:
        self.get(name)
        return self.backend.items(name)

    def replace(
        self, name: str, items: Sequence[KnowledgeItem], *, description: str | None = None
    ) -> Partition:
        """Swap a partition's whole content (e.g. the 2024 knowledge becomes the 2025 one)."""
        return self._swap("replace", name, items, description)

    def rebuild(self, name: str, items: Sequence[KnowledgeItem] | None = None) -> Partition:
        """Re-create a partition's index: from ``items`` if given (re-ingest from its source), else
        from its own current items (e.g. after changing the embedder)."""
        current = self.items(name) if items is None else list(items)
        if items is None:
            # keep ids stable when rebuilding from the partition's own content
            current = [KnowledgeItem(it.text, it.meta, it.item_id) for it in current]
        return self._swap("rebuild", name, current, None)

    def _swap(
        self, action: str, name: str, items: Sequence[KnowledgeItem], description: str | None
    ) -> Partition:
        before = self.get(name)
        with self.conn:
            removed = self.backend.clear(name)
            ids = self.backend.put(name, items)
            self.conn.execute(
                "UPDATE part_partition SET version = version + 1, updated_at = ?, description = ? WHERE name = ?",
                (format_time(self.clock.now()), description or before.description, name),
            )
            self._audit(
                action,
                name,
                {
                    "items_removed": removed,
                    "items_added": len(ids),
                    "version_before": before.version,
                    "version_after": before.version + 1,
                    "description_changed": description is not None and description != before.description,
                },
            )
        return self.get(name)

    def drop(self, name: str) -> int:
        """Delete a partition and its items; return how many items went."""
        before = self.get(name)
        with self.conn:
            removed = self.backend.clear(name)
            self.conn.execute("DELETE FROM part_partition WHERE name = ?", (name,))
            self._audit("drop", name, {"items_removed": removed, "version": before.version})
        return removed

    # -- routing and recall -------------------------------------------------------------------
    def router(self) -> Router:
        """The router for the current registry (cached: descriptions are embedded once per change)."""
        partitions = self.list()
        key = tuple((p.name, p.description, p.keywords, p.patterns, p.kinds) for p in partitions)
        if self._router is None or self._router_key != key:
            self._router = Router(partitions, embed=self.embed, **self.router_options)
            self._router_key = key
        return self._router

    def route(self, query: str, *, kind: str | None = None) -> RouteDecision:
        """Rules first, then similarity to each partition's description or (if ``route_by_content``)
        to its best-matching item, so a partition is found even when its description lacks the words."""
        router = self.router()
        content: dict[str, float] = {}
        if self.route_by_content and router.partitions:
            # one recall over all partitions (one query embedding); each partition's best hit counts
            names = [p.name for p in router.partitions]
            for hit in self.backend.recall(query, names, max(50, 10 * len(names))):
                content[hit.partition] = max(content.get(hit.partition, 0.0), hit.score)
        return router.route(query, kind=kind, content_scores=content)

    def recall(
        self, query: str, *, partitions: Sequence[str] | None = None, kind: str | None = None, limit: int = 5
    ) -> builtins.list[Hit]:
        """Top ``limit`` items for ``query`` from the given partitions (or the routed ones)."""
        chosen = list(partitions) if partitions is not None else list(self.route(query, kind=kind).partitions)
        for name in chosen:
            self.get(name)
        return self.backend.recall(query, chosen, limit)

    # -- audit --------------------------------------------------------------------------------
    def _audit(self, action: str, name: str, detail: dict[str, Any]) -> None:
        self.chain.record(action, name, detail)
        if self.extra_audit is not None:
            self.extra_audit.record(action, name, detail)

    def audit_log(self, name: str | None = None) -> builtins.list[AuditRecord]:
        return self.chain.records(name)

    def verify_audit(self) -> bool:
        return self.chain.verify()
