"""Remnant as a LangGraph store: :class:`RemnantStore` implements ``langgraph.store.base.BaseStore``.

A graph compiled with ``store=RemnantStore(...)`` gets long-term memory that forgets the way people
do: a ``put`` under an existing key supersedes the old value (kept as history), unused items decay,
items can carry a TTL, and every delete is audited.

How LangGraph's model maps onto Remnant's (see ``docs/integrations/langgraph.md``):

- **namespace → scope.** The label at ``user_label`` (default 1, as in ``("memories", user_id)``)
  is the Remnant ``user_id``; the label at ``agent_label`` (default 2) the ``agent_id``. Shorter
  namespaces belong to ``default_user``. The full namespace is kept in the metadata, one field per
  label (``lg_ns0``, ``lg_ns1``, …), so prefix searches match labels exactly.
- **key → Remnant key.** Namespace and key together become the memory's ``key``
  (``lg2:memories.ana.profile``; a digest when long), so a ``put`` with the same key supersedes.
- **value → metadata + content.** The value dict is stored verbatim in the metadata (under
  ``langgraph.value``) and comes back unchanged; a text rendering of it (the ``index`` fields, or
  the whole value) is the memory's content, which recall searches and the privacy layer redacts.
- **TTL (minutes) → expiry.** A ``ttl`` becomes the memory's ``expires_at``; a read with
  ``refresh_ttl`` moves it to now + ttl, and reinforces the memory, as remembering does.
- **delete → forget.** ``delete`` hides the item's memory (audited, reversible with
  ``Memory.unhide``); ``RemnantStore(..., delete="purge")`` purges every version for good.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from remnant.core.errors import ValidationError
from remnant.core.extras import needs
from remnant.core.model import MAX_CONTENT_CHARS, MAX_LIMIT, Kind, MemoryRecord, Status, check_identifier
from remnant.engine.memory import Memory

with needs("the LangGraph adapter", "langgraph"):
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
    )
    from langgraph.store.base.embed import get_text_at_path, tokenize_path

__all__ = ["RemnantStore"]

META = "langgraph"  # the metadata field holding the item: namespace, key, value, ttl, created_at
MARK = "lg_store"  # 1 on every memory this store wrote (the filter for an empty prefix)
LABEL = "lg_ns"  # lg_ns0, lg_ns1, …: one metadata field per namespace label (exact prefix matching)
DEPTH = "lg_depth"
SOURCE = "langgraph"
_ALL_USERS = 1_000_000


def _check_labels(path: Sequence[Any], *, wildcards: bool = False) -> tuple[str, ...]:
    for label in path:
        if not isinstance(label, str):
            raise InvalidNamespaceError(f"namespace labels must be strings, got {label!r} in {path}")
        if wildcards and label == "*":
            continue
        if not label or "." in label or "\x00" in label:
            raise InvalidNamespaceError(
                f"invalid namespace label {label!r} in {path}: labels are non-empty, without '.' or NUL"
            )
    return tuple(path)


def _matches_condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


def _compare(actual: Any, operator: str, expected: Any) -> bool:
    if operator == "$eq":
        return bool(actual == expected)
    if operator == "$ne":
        return bool(actual != expected)
    if operator not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"unsupported filter operator {operator!r} (use $eq, $ne, $gt, $gte, $lt, $lte)")
    numbers = (int, float)
    if (
        isinstance(actual, numbers)
        and isinstance(expected, numbers)
        and not isinstance(actual, bool)
        and not isinstance(expected, bool)
    ):
        a, b = float(actual), float(expected)
    elif isinstance(actual, str) and isinstance(expected, str):
        a, b = actual, expected  # type: ignore[assignment]
    else:
        return False  # a missing field or values of different types never compare
    if operator == "$gt":
        return a > b
    if operator == "$gte":
        return a >= b
    if operator == "$lt":
        return a < b
    return a <= b


def value_matches(actual: Any, expected: Any) -> bool:
    """Whether a stored value (or one of its fields) satisfies a LangGraph filter (or a part of it).

    A plain value is an exact match (nested dicts match field by field, lists element by element);
    a dict whose keys start with ``$`` applies the operators ``$eq $ne $gt $gte $lt $lte``.
    """
    if isinstance(expected, Mapping):
        if any(str(k).startswith("$") for k in expected):
            return all(_compare(actual, str(op), v) for op, v in expected.items())
        if not isinstance(actual, Mapping):
            return False
        return all(value_matches(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(value_matches(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected)


def render_value(value: Mapping[str, Any]) -> str:
    """A text rendering of a whole value for search: one ``field: value`` line per top-level field."""
    lines = []
    for field, v in value.items():
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
        lines.append(f"{field}: {text}")
    return "\n".join(lines)


class RemnantStore(BaseStore):
    """A LangGraph ``BaseStore`` on a Remnant :class:`~remnant.Memory`.

    ``memory`` is an open Memory (``remnant.config.build_memory(db)`` for the full product, with the
    privacy layer and hybrid retrieval when installed; ``remnant.Memory(db)`` for the bare engine).
    ``kind``, ``importance`` and ``pinned`` are the written memories' (pinned: never decay, a plain
    key-value store with history and audit). ``index`` is LangGraph's ``IndexConfig``: only its
    ``fields`` are used (which parts of a value are searchable text); the embedding model is
    Remnant's retriever, not ``index["embed"]``. ``ttl`` is LangGraph's ``TTLConfig``
    (``default_ttl`` minutes, ``refresh_on_read``). ``reinforce_on_read``: a read that refreshes
    TTLs also strengthens the memory (as being recalled does).
    """

    supports_ttl: bool = True

    def __init__(
        self,
        memory: Memory,
        *,
        user_label: int | None = 1,
        agent_label: int | None = 2,
        default_user: str = "langgraph",
        kind: Kind | str = Kind.FACT,
        importance: float = 0.5,
        pinned: bool = False,
        delete: Literal["hide", "purge"] = "hide",
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        reinforce_on_read: bool = True,
        owns_memory: bool = False,
    ) -> None:
        if delete not in ("hide", "purge"):
            raise ValueError(f"delete must be 'hide' or 'purge', got {delete!r}")
        for name, position in (("user_label", user_label), ("agent_label", agent_label)):
            if position is not None and (isinstance(position, bool) or position < 0):
                raise ValueError(f"{name} must be a non-negative position or None")
        self.memory = memory
        self.user_label = user_label
        self.agent_label = agent_label
        self.default_user = check_identifier(default_user, "default_user")
        self.kind = Kind.parse(kind)
        self.importance = importance
        self.pinned = pinned
        self.delete_mode = delete
        self.index_config = index
        self.index_fields: list[str] = list((index or {}).get("fields") or ["$"])
        self.ttl_config = ttl
        self.reinforce_on_read = reinforce_on_read
        self.owns_memory = owns_memory

    @classmethod
    def open(cls, db: str | None = None, **kwargs: Any) -> RemnantStore:
        """A store on a Memory built the way the CLI and server build theirs
        (:func:`remnant.config.build_memory`: environment, privacy layer, hybrid retrieval); the
        store closes it on :meth:`close`. Keyword arguments for ``build_memory`` go in ``memory_options``."""
        from remnant.config import build_memory

        memory = build_memory(db, **kwargs.pop("memory_options", {}))
        return cls(memory, owns_memory=True, **kwargs)

    def close(self) -> None:
        if self.owns_memory:
            self.memory.close()

    def __enter__(self) -> RemnantStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the mapping -------------------------------------------------------------------------------
    def scope(self, namespace: tuple[str, ...]) -> tuple[str, str | None]:
        """The Remnant ``(user_id, agent_id)`` a namespace belongs to."""
        user, agent = self.default_user, None
        if self.user_label is not None and len(namespace) > self.user_label:
            user = namespace[self.user_label]
        if self.agent_label is not None and len(namespace) > self.agent_label:
            agent = namespace[self.agent_label]
        try:
            check_identifier(user, "user_id")
            if agent is not None:
                check_identifier(agent, "agent_id")
        except ValidationError as exc:
            raise InvalidNamespaceError(
                f"namespace {namespace} does not map to a Remnant scope: {exc}"
            ) from exc
        return user, agent

    @staticmethod
    def memory_key(namespace: tuple[str, ...], key: str) -> str:
        """The Remnant ``key`` of an item: unique per namespace and key (labels have no dots, and the
        label count comes first), or a digest when that would be too long or not a clean identifier."""
        plain = f"lg{len(namespace)}:{'.'.join((*namespace, key))}"
        if len(plain) <= 256 and plain == plain.strip() and not any(ord(c) < 32 for c in plain):
            return plain
        digest = hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()
        return f"lg#{digest}"

    @staticmethod
    def prefix_filter(prefix: tuple[str, ...]) -> dict[str, Any]:
        """The metadata filter selecting this store's memories under a namespace prefix."""
        return {MARK: 1, **{f"{LABEL}{i}": label for i, label in enumerate(prefix)}}

    def content_for(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any], index: Any) -> str:
        """The searchable text of an item: its ``index`` fields (or the store's), the whole value for
        ``"$"``; with ``index=False`` only the key, so a query does not find it by its value."""
        parts: list[str] = []
        if index is not False:
            for path in index if isinstance(index, list) else self.index_fields:
                if path == "$":
                    parts.append(render_value(value))
                else:
                    parts.extend(get_text_at_path(dict(value), tokenize_path(path)))
        text = "\n".join(p for p in parts if p and p.strip()) or key.strip() or "/".join(namespace)
        return text[:MAX_CONTENT_CHARS]

    def users(self, prefix: Sequence[str]) -> list[str]:
        """The users whose memories a prefix can reach (one when the prefix names the user label)."""
        if self.user_label is not None and len(prefix) > self.user_label:
            return [self.scope(tuple(prefix))[0]]
        return [u.user_id for u in self.memory.users(limit=_ALL_USERS)]

    def to_item(self, record: MemoryRecord, score: float | None = None, *, search: bool = False) -> Item:
        item = record.metadata[META]
        created = datetime.fromisoformat(item["created_at"]) if item.get("created_at") else record.created_at
        updated = record.created_at
        assert created is not None and updated is not None
        namespace, value = tuple(item["namespace"]), dict(item["value"])
        if search:
            return SearchItem(namespace, item["key"], value, created, updated, score)
        return Item(value=value, key=item["key"], namespace=namespace, created_at=created, updated_at=updated)

    # -- reading -----------------------------------------------------------------------------------
    def current(self, namespace: tuple[str, ...], key: str) -> MemoryRecord | None:
        """The memory holding an item now: active, not expired, not faded (what recall would see)."""
        user, _agent = self.scope(namespace)
        found = self.memory.recall(
            "", user_id=user, keys=[self.memory_key(namespace, key)], limit=1, touch=False, hints=False
        )
        return found.hits[0].memory if found.hits else None

    def refresh(self, records: Sequence[MemoryRecord]) -> None:
        """A read that refreshes: the TTL restarts from now, and the memory is reinforced."""
        now = self.memory.now()
        for record in records:
            if self.reinforce_on_read:
                self.memory.touch(record.id)
            ttl = record.metadata[META].get("ttl")
            if ttl is None:
                continue
            self.memory.ledger.set_expiry(record.id, now + timedelta(minutes=float(ttl)))

    def history(self, namespace: tuple[str, ...], key: str) -> list[Item]:
        """Every value the item had, oldest first (superseded and deleted versions included; purged
        ones are gone). Not part of ``BaseStore``: Remnant keeps what a put replaced."""
        _check_labels(namespace)
        user, _agent = self.scope(namespace)
        records = self.memory.history(self.memory_key(namespace, str(key)), user_id=user)
        return [self.to_item(r) for r in records if META in r.metadata]

    def sweep_ttl(self) -> int:
        """Run Remnant's sweep (expiry and every other forgetting policy); the number of memories
        it expired. Reads never return expired items, swept or not."""
        report = self.memory.sweep()
        return sum(step.count for step in report.steps if step.action == "expire")

    def _get(self, op: GetOp) -> Item | None:
        namespace = _check_labels(op.namespace)
        record = self.current(namespace, str(op.key))
        if record is None:
            return None
        if op.refresh_ttl:
            self.refresh([record])
        return self.to_item(record)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = _check_labels(op.namespace_prefix)
        if op.limit <= 0 or op.offset < 0:
            return []
        meta = self.prefix_filter(prefix)
        want = min(MAX_LIMIT, op.offset + op.limit)
        candidates: list[tuple[float | None, MemoryRecord]] = []
        if op.query and op.query.strip():
            for user in self.users(prefix):
                found = self.memory.recall(
                    op.query,
                    user_id=user,
                    limit=MAX_LIMIT if op.filter else want,
                    metadata=meta,
                    touch=False,
                    hints=False,
                )
                candidates.extend((h.score, h.memory) for h in found.hits)
            candidates.sort(key=lambda c: -(c[0] or 0.0))
        else:
            for user in self.users(prefix):
                flt = self.memory.recall_filter(user, metadata=meta)
                records = self.memory.store.query(
                    flt, order="-created_at", limit=None if op.filter else op.offset + op.limit
                )
                candidates.extend((None, r) for r in records)
            candidates.sort(key=lambda c: -(c[1].created_at.timestamp() if c[1].created_at else 0.0))
        if op.filter:
            candidates = [c for c in candidates if value_matches(c[1].metadata[META]["value"], op.filter)]
        page = candidates[op.offset : op.offset + op.limit]
        if op.refresh_ttl and page:
            self.refresh([r for _, r in page])
        out = []
        for score, record in page:
            item = self.to_item(record, score, search=True)
            assert isinstance(item, SearchItem)
            out.append(item)
        return out

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = tuple(op.match_conditions or ())
        for condition in conditions:
            _check_labels(condition.path, wildcards=True)
        # push the leading exact labels of a prefix condition down into the query
        pushed: list[str] = []
        for condition in conditions:
            if condition.match_type == "prefix":
                for label in condition.path:
                    if label == "*":
                        break
                    pushed.append(label)
                break
        users = (
            [pushed[self.user_label]]
            if self.user_label is not None and len(pushed) > self.user_label
            else [u.user_id for u in self.memory.users(limit=_ALL_USERS)]
        )
        seen: set[tuple[str, ...]] = set()
        for user in users:
            flt = self.memory.recall_filter(user, metadata=self.prefix_filter(tuple(pushed)))
            for record in self.memory.store.query(flt):
                namespace = tuple(record.metadata[META]["namespace"])
                if all(_matches_condition(c, namespace) for c in conditions):
                    seen.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(seen)[op.offset : op.offset + op.limit]

    # -- writing -----------------------------------------------------------------------------------
    def _put(self, op: PutOp) -> None:
        namespace, key = _check_labels(op.namespace), str(op.key)
        if op.value is None:
            self._delete(namespace, key)
            return
        if not namespace:
            raise InvalidNamespaceError("namespace cannot be empty")
        if namespace[0] == "langgraph":
            raise InvalidNamespaceError(f'the root label of a namespace cannot be "langgraph": {namespace}')
        if not isinstance(op.value, Mapping):
            raise ValueError(f"a store value must be a mapping, got {type(op.value).__name__}")
        ttl = op.ttl
        if ttl is not None and (not isinstance(ttl, int | float) or isinstance(ttl, bool) or not ttl > 0):
            raise ValueError(f"ttl must be a positive number of minutes or None, got {ttl!r}")
        if ttl is not None and math.isinf(ttl):
            ttl = None
        user, agent = self.scope(namespace)
        value = dict(op.value)
        now = self.memory.now()
        prior = self.current(namespace, key)
        created = prior.metadata[META].get("created_at") if prior is not None else None
        meta: dict[str, Any] = {
            MARK: 1,
            DEPTH: len(namespace),
            **{f"{LABEL}{i}": label for i, label in enumerate(namespace)},
            META: {
                "namespace": list(namespace),
                "key": key,
                "value": value,
                "ttl": ttl,
                "created_at": created or now.isoformat(),
            },
        }
        try:
            self.memory.remember(
                self.content_for(namespace, key, value, op.index),
                user_id=user,
                agent_id=agent,
                key=self.memory_key(namespace, key),
                kind=self.kind,
                importance=self.importance,
                pinned=self.pinned,
                source=SOURCE,
                ttl=timedelta(minutes=float(ttl)) if ttl is not None else None,
                metadata=meta,
            )
        except ValidationError as exc:
            raise ValueError(str(exc)) from exc

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        user, _agent = self.scope(namespace)
        rkey = self.memory_key(namespace, key)
        if self.delete_mode == "purge":
            ids = [r.id for r in self.memory.history(rkey, user_id=user)]
            if ids:
                self.memory.purge(ids, force=True, reason="deleted through the LangGraph store")
            return
        live = self.memory.list_memories(user, statuses=[Status.ACTIVE, Status.FADED], key=rkey)
        if live:
            self.memory.hide([r.id for r in live], reason="deleted through the LangGraph store")

    # -- BaseStore ---------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order (a get after a put in the same batch sees the put)."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            else:
                raise ValueError(f"unknown operation type: {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread, so the event loop is not blocked by the database."""
        return await asyncio.to_thread(self.batch, list(ops))
