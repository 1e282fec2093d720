"""Remnant as a CrewAI memory storage backend (``crewai.memory.storage.backend.StorageBackend``).

CrewAI's unified ``Memory`` does the encoding (its embedder, its LLM analysis) and hands records to
a storage backend; ``RemnantStorage`` keeps them as memories of one Remnant user, so they decay,
expire, supersede by key, and are forgotten and audited the Remnant way.

    >>> from crewai import Memory as CrewMemory
    >>> storage = RemnantStorage(remnant.config.build_memory("memories.db"), user_id="crew-research")
    >>> crew_memory = CrewMemory(storage=storage, embedder=my_embedder)

The mapping:

* **User.** A storage is bound to one Remnant user (and the memory's tenant): a crew's memory, or
  one end user's. CrewAI has no user; for many users, make one storage per user.
* **Scope.** CrewAI's path (``/project/x``) is kept verbatim on the memory, and each of its
  ancestors (``/project``, ``/project/x``) as a tag ``crewai:/project`` …, so a scope prefix is a
  tag filter in the store. The root ``/`` is the whole storage.
* **Fields.** ``content`` and ``importance`` are Remnant's; categories, metadata, source, private
  and CrewAI's record id ride in ``metadata["crewai"]`` (the id also as ``crewai_id``); the vector
  goes to the store's embeddings under the model id ``crewai``. ``created_at`` and
  ``last_accessed`` come from Remnant (naive UTC, as CrewAI writes them).
* **Keys.** A record whose metadata has ``key`` supersedes the user's current memory with that key
  (keys are per user, across scopes); ``kind`` and ``ttl`` in metadata become Remnant's.
* **Forgetting.** Search, get, list and count see only what is still remembered (active, not
  faded, not expired). ``delete`` (by ids, scope, categories, metadata or age: ``older_than`` is
  Remnant's ``created_before``) purges, audited. ``update`` writes the new version and hides the
  old one (or supersedes it, for a keyed record). ``reset(scope)`` purges the scope;
  ``reset()`` erases the whole user (:meth:`Memory.erase_user`, with its proof). ``touch_records``
  (called by CrewAI after a recall) reinforces the memories, as recall does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from remnant.core.errors import NotFoundError
from remnant.core.extras import needs
from remnant.core.model import Kind, MemoryRecord, Status, check_identifier
from remnant.engine.memory import Memory
from remnant.engine.options import WriteOptions
from remnant.store.base import MemoryFilter

with needs("the CrewAI adapter", "crewai"):
    from crewai.memory.types import MemoryRecord as CrewRecord
    from crewai.memory.types import ScopeInfo

__all__ = ["EMBEDDING_MODEL", "RemnantStorage", "normalise_scope"]

EMBEDDING_MODEL = "crewai"  # the store's model id for the vectors CrewAI's embedder made
TAG = "crewai"  # every record of this backend carries it
META = "crewai"  # metadata: CrewAI's own fields
ID_KEY = "crewai_id"  # metadata: CrewAI's record id (equality-filtered in the store)
_PAGE = 1000


def normalise_scope(scope: str | None) -> str:
    """``"project/x/"`` → ``"/project/x"``; ``None`` and ``""`` → ``"/"``."""
    parts = [p for p in (scope or "/").strip().split("/") if p]
    return "/" + "/".join(parts)


def _ancestors(scope: str) -> list[str]:
    parts = [p for p in scope.split("/") if p]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _scope_tag(scope: str) -> str:
    return f"{TAG}:{scope}"


def _naive_utc(when: datetime | None) -> datetime:
    when = when or datetime.now(UTC)
    return when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when


def _aware(when: datetime) -> datetime:
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


class RemnantStorage:
    """A CrewAI ``StorageBackend`` on a Remnant :class:`~remnant.engine.memory.Memory`."""

    def __init__(self, memory: Memory, *, user_id: str = "crewai", agent_id: str | None = None) -> None:
        self.memory = memory
        self.user_id = check_identifier(user_id, "user_id")
        self.agent_id = check_identifier(agent_id, "agent_id") if agent_id is not None else None

    # -- conversions -------------------------------------------------------------------------------
    def _to_crew(self, record: MemoryRecord) -> CrewRecord:
        crew = dict(record.metadata.get(META) or {})
        return CrewRecord(
            id=record.metadata.get(ID_KEY) or record.id,
            content=record.content,
            scope=crew.get("scope", "/"),
            categories=list(crew.get("categories") or []),
            metadata=dict(crew.get("metadata") or {}),
            importance=record.importance,
            created_at=_naive_utc(record.created_at),
            last_accessed=_naive_utc(record.last_accessed_at or record.created_at),
            source=crew.get("source"),
            private=bool(crew.get("private", False)),
        )

    def _options(self, record: CrewRecord) -> WriteOptions:
        scope = normalise_scope(record.scope)
        extra = dict(record.metadata or {})
        options: WriteOptions = {
            "importance": float(record.importance),
            "source": "crewai",
            "agent_id": self.agent_id,
            "metadata": {
                ID_KEY: record.id,
                META: {
                    "scope": scope,
                    "categories": list(record.categories or []),
                    "metadata": extra,
                    "source": record.source,
                    "private": bool(record.private),
                },
                "tags": [TAG, *(_scope_tag(s) for s in _ancestors(scope))],
            },
        }
        if isinstance(extra.get("key"), str) and extra["key"].strip():
            options["key"] = extra["key"]
        if isinstance(extra.get("kind"), str) and extra["kind"] in {k.value for k in Kind}:
            options["kind"] = extra["kind"]
        if isinstance(extra.get("ttl"), str | int | float) and not isinstance(extra.get("ttl"), bool):
            options["ttl"] = extra["ttl"]
        return options

    def _filter(self, scope_prefix: str | None, *, remembered: bool = True, **kw: Any) -> MemoryFilter:
        tags = [TAG]
        scope = normalise_scope(scope_prefix)
        if scope != "/":
            tags.append(_scope_tag(scope))
        if remembered:
            return self.memory.recall_filter(self.user_id, tags=tags, agent_id=self.agent_id, **kw)
        return MemoryFilter(
            tenant=self.memory.tenant,
            user_id=self.user_id,
            agent_id=self.agent_id,
            statuses=None,
            tags=tuple(tags),
            **kw,
        )

    def _query(self, flt: MemoryFilter) -> list[MemoryRecord]:
        return self.memory.store.query(flt, order="-created_at")

    @staticmethod
    def _matches(
        record: MemoryRecord, categories: Sequence[str] | None, metadata_filter: Mapping[str, Any] | None
    ) -> bool:
        crew = record.metadata.get(META) or {}
        if categories and not set(categories) & set(crew.get("categories") or []):
            return False
        extra = crew.get("metadata") or {}
        return not metadata_filter or all(extra.get(k) == v for k, v in metadata_filter.items())

    def _by_crew_id(self, record_id: str, *, remembered: bool = True) -> list[MemoryRecord]:
        return self._query(self._filter(None, remembered=remembered, metadata={ID_KEY: record_id}))

    # -- the StorageBackend protocol ----------------------------------------------------------------
    def save(self, records: list[CrewRecord]) -> None:
        """Store CrewAI records (with their vectors) in one transaction."""
        if not records:
            return
        with self.memory.store.transaction():
            stored = self.memory.remember_many(
                [{"content": r.content, "user_id": self.user_id, **self._options(r)} for r in records]
            )
            vectors = [
                (m.id, EMBEDDING_MODEL, np.asarray(r.embedding, dtype=np.float32))
                for m, r in zip(stored, records, strict=True)
                if r.embedding
            ]
            if vectors:
                self.memory.ledger.put_embeddings(vectors)

    def search(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
    ) -> list[tuple[CrewRecord, float]]:
        """The records nearest to the vector (cosine) among what is still remembered."""
        if not query_embedding or limit <= 0:
            return []
        flt = self._filter(scope_prefix)
        wide = limit if not (categories or metadata_filter) else max(4 * limit, 50)
        ranked = self.memory.store.vector_search(
            np.asarray(query_embedding, dtype=np.float32), flt, model=EMBEDDING_MODEL, limit=wide
        )
        found = {
            r.id: r for r in self.memory.store.get_many([i for i, _ in ranked], tenant=self.memory.tenant)
        }
        out = []
        for mid, score in ranked:
            record = found.get(mid)
            if record is None or score < min_score or not self._matches(record, categories, metadata_filter):
                continue
            out.append((self._to_crew(record), float(score)))
            if len(out) >= limit:
                break
        return out

    def delete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        """Purge the matching records (every status: superseded and hidden versions too)."""
        kw: dict[str, Any] = {}
        if older_than is not None:
            kw["created_before"] = _aware(older_than).timestamp()
        candidates: Iterable[MemoryRecord]
        if record_ids is not None:
            wanted = set(record_ids)
            candidates = [
                r
                for r in self._query(self._filter(scope_prefix, remembered=False, **kw))
                if r.metadata.get(ID_KEY) in wanted
            ]
        else:
            candidates = self._query(self._filter(scope_prefix, remembered=False, **kw))
        ids = [r.id for r in candidates if self._matches(r, categories, metadata_filter)]
        if not ids:
            return 0
        return self.memory.purge(ids, force=True, reason="deleted by CrewAI", policy="crewai")

    def update(self, record: CrewRecord) -> None:
        """Replace the record with the same id: the new version is stored, the old one hidden
        (superseded instead, when both carry the same ``key``)."""
        old = self._by_crew_id(record.id, remembered=False)
        self.save([record])
        fresh = self._by_crew_id(record.id, remembered=False)
        newest = (
            max(fresh, key=lambda r: r.created_at or datetime.min.replace(tzinfo=UTC)).id if fresh else None
        )
        stale = [r.id for r in old if r.id != newest and r.status == Status.ACTIVE]
        if stale:
            self.memory.hide(stale, reason="replaced by a CrewAI update", policy="crewai")

    def get_record(self, record_id: str) -> CrewRecord | None:
        found = self._by_crew_id(record_id)
        return self._to_crew(found[0]) if found else None

    def list_records(
        self, scope_prefix: str | None = None, limit: int = 200, offset: int = 0
    ) -> list[CrewRecord]:
        """Still-remembered records in the scope, newest first."""
        records = self.memory.store.query(
            self._filter(scope_prefix), order="-created_at", limit=limit, offset=offset
        )
        return [self._to_crew(r) for r in records]

    def _remembered(self, scope_prefix: str | None) -> list[MemoryRecord]:
        return self._query(self._filter(scope_prefix))

    def get_scope_info(self, scope: str) -> ScopeInfo:
        path = normalise_scope(scope)
        records = self._remembered(path)
        created = [_naive_utc(r.created_at) for r in records]
        categories = sorted(
            {c for r in records for c in (r.metadata.get(META) or {}).get("categories") or []}
        )
        return ScopeInfo(
            path=path,
            record_count=len(records),
            categories=categories,
            oldest_record=min(created) if created else None,
            newest_record=max(created) if created else None,
            child_scopes=self._children(path, records),
        )

    @staticmethod
    def _children(parent: str, records: Iterable[MemoryRecord]) -> list[str]:
        depth = 0 if parent == "/" else parent.count("/")
        out = set()
        for r in records:
            chain = _ancestors((r.metadata.get(META) or {}).get("scope", "/"))
            if len(chain) > depth and (parent == "/" or chain[depth - 1] == parent):
                out.add(chain[depth])
        return sorted(out)

    def list_scopes(self, parent: str = "/") -> list[str]:
        path = normalise_scope(parent)
        return self._children(path, self._remembered(path))

    def list_categories(self, scope_prefix: str | None = None) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self._remembered(scope_prefix):
            for c in (r.metadata.get(META) or {}).get("categories") or []:
                counts[c] = counts.get(c, 0) + 1
        return dict(sorted(counts.items()))

    def count(self, scope_prefix: str | None = None) -> int:
        return self.memory.store.count(self._filter(scope_prefix))

    def reset(self, scope_prefix: str | None = None) -> None:
        """``reset(scope)`` purges the scope; ``reset()`` erases the user (everything Remnant holds
        of them, CrewAI's or not, with the erasure proof)."""
        if normalise_scope(scope_prefix) == "/":
            self.memory.erase_user(self.user_id, actor="crewai")
        else:
            self.delete(scope_prefix=scope_prefix)

    def touch_records(self, record_ids: list[str]) -> None:
        """Reinforce recalled records (CrewAI calls this after a recall)."""
        for crew_id in record_ids:
            for r in self._by_crew_id(crew_id):
                try:
                    self.memory.touch(r.id)
                except NotFoundError:
                    continue

    async def asave(self, records: list[CrewRecord]) -> None:
        await asyncio.to_thread(self.save, records)

    async def asearch(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
    ) -> list[tuple[CrewRecord, float]]:
        return await asyncio.to_thread(
            self.search, query_embedding, scope_prefix, categories, metadata_filter, limit, min_score
        )

    async def adelete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        return await asyncio.to_thread(
            self.delete, scope_prefix, categories, record_ids, older_than, metadata_filter
        )
