"""Adapters: the few verbs every suite speaks, so the same suites run against any memory system.

A memory system under test implements :class:`MemoryAdapter` (``remember``, ``recall``, ``forget``,
``erase_user``, ``advance_time``, ``close``) and, where it can, the optional verbs the suites use when
present: ``context(user_id, query, budget_tokens)``, ``history(user_id, key)``, ``export(user_id)``,
``raw_bytes()``, ``is_remembered(memory_id)``, ``wait(days)`` (let time pass with no maintenance, to
date what is remembered next), ``memory_texts(user_id)`` (every memory the user still has, by id,
as plain text) and ``expires_in(user_id)`` (for each of those memories, the seconds left before it
expires: ``None`` when it has no expiry, ``<= 0`` once expired; the expiry suite uses it to tell an
expiry from decay). Suites check optional verbs with ``getattr``.

Shipped adapters:

* ``remnant`` — a :class:`~remnant.Memory` on a temporary SQLite file with a manual clock, built by
  :func:`remnant.config.build_memory` (so whatever retriever the environment configures is used)
  with the privacy layer off; ``advance_time`` moves the clock and runs a forgetting sweep.
* ``remnant-private`` — the same with the privacy layer on (build_memory's default): texts are
  redacted into the encrypted vault; the adapter rehydrates what it returns (privileged) so the
  suites judge the information, and the vault is one more place a forgotten fact must leave.
* ``baseline`` — remembers everything, ranks with BM25 over the same terms Remnant's lexical index
  uses; it deletes what it is explicitly told to (by id or key) but never decays or supersedes.
* ``vector-baseline`` — the same, ranking by cosine similarity of static 64-d embeddings
  (``tokenlearn-static-model``), the cheapest "vector store that never forgets".
* the two extremes a forgetting score must tell apart: ``never-forgets`` (acknowledges every
  forget and erasure, deletes nothing) and ``forgets-everything`` (recalls nothing).

More adapters (another memory system, or the deliberately broken ones the tests use to show that a
crash, a hang or a malformed answer fails its case) come in through :func:`register_adapter`, or
per run through ``run_eval(..., factories={name: factory})``.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from remnant.bench.eval.tokencount import count_tokens
from remnant.core.errors import RemnantError
from remnant.core.text import query_terms

SIM_START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)  # a Monday; every simulation starts here


class EvalError(RemnantError):
    """A problem with the evaluation itself (bad suite or adapter name, bad size)."""


class MalformedResult(EvalError):
    """An adapter returned something that is not what the interface promises."""


@dataclass(frozen=True, slots=True)
class Recalled:
    """One recalled memory: the id ``remember`` returned, its text, the system's score."""

    id: str
    text: str
    score: float = 0.0


@runtime_checkable
class MemoryAdapter(Protocol):
    """The verbs the suites need from a memory system."""

    name: str

    def remember(
        self,
        user_id: str,
        text: str,
        *,
        key: str | None = None,
        kind: str = "fact",
        importance: float = 0.5,
        pinned: bool = False,
        ttl_days: float | None = None,
    ) -> str:
        """Store ``text``; returns the memory's id."""
        ...

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        """The best ``k`` memories for ``query``, best first; recalling counts as using them."""
        ...

    def forget(
        self,
        user_id: str,
        *,
        memory_id: str | None = None,
        key: str | None = None,
        request: str | None = None,
    ) -> int:
        """Delete for good one memory (by id), every memory under a key, or what a request names."""
        ...

    def erase_user(self, user_id: str) -> None: ...

    def advance_time(self, days: float) -> None:
        """Let simulated time pass (and let the system run whatever maintenance it runs)."""
        ...

    def close(self) -> None: ...


AdapterFactory = Callable[[], MemoryAdapter]


def check_recalled(result: object, k: int) -> list[Recalled]:
    """Validate what ``recall`` returned: a list of at most ``k`` :class:`Recalled`-like items."""
    if not isinstance(result, list | tuple):
        raise MalformedResult(f"recall returned {type(result).__name__}, expected a list")
    out = []
    for item in result:
        if isinstance(item, Recalled):
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get("text"), str):
            out.append(Recalled(item["id"], item["text"], float(item.get("score", 0.0))))
        else:
            raise MalformedResult(
                f"recall returned an item of type {type(item).__name__} without id and text"
            )
    if len(out) > k:
        raise MalformedResult(f"recall returned {len(out)} items for k={k}")
    return out


def render(lines: list[str], budget_tokens: int) -> str:
    """Join context lines, skipping those that would go over the token budget."""
    kept, used = [], 0
    for line in lines:
        t = count_tokens(line) + 1
        if used + t > budget_tokens:
            continue
        kept.append(line)
        used += t
    return "\n".join(kept)


def context_of(adapter: MemoryAdapter, user_id: str, query: str, budget_tokens: int) -> str:
    """The context an app would send: the adapter's own ``context`` or its top-10 recall in budget."""
    fn = getattr(adapter, "context", None)
    if callable(fn):
        text = fn(user_id, query, budget_tokens)
        if not isinstance(text, str):
            raise MalformedResult(f"context returned {type(text).__name__}, expected str")
        return text
    hits = check_recalled(adapter.recall(user_id, query, 10), 10)
    return render([f"- {h.text}" for h in hits], budget_tokens)


# -- Remnant ---------------------------------------------------------------------------------------------
class RemnantAdapter:
    """Remnant's engine on a temporary SQLite file, driven by a manual clock.

    ``context`` is what an assistant built on Remnant would send: the user's core facts (pinned or
    important keyed memories still remembered) first, then what recall finds for the query. The
    ``remnant.summarize`` layer is used when it is installed; otherwise keyed important facts and
    pinning stand in for summaries (the report says which).
    """

    name = "remnant"
    core_importance = 0.8

    def __init__(self, *, decay: Any = None, label: str = "remnant", privacy: bool = False) -> None:
        from remnant.config import build_memory
        from remnant.core.clock import ManualClock

        self.name = label
        self._dir = Path(tempfile.mkdtemp(prefix="remnant-eval-"))
        self.clock = ManualClock(SIM_START)
        kwargs: dict[str, Any] = {"clock": self.clock}
        if decay is not None:
            kwargs["decay"] = decay
        if not privacy:
            # the scenarios are personal data by design; redaction is measured by `remnant bench privacy`
            kwargs["redactor"] = None
        import logging

        # "generated a new vault/audit key" once per case is noise in an eval run
        logging.getLogger("remnant.config").setLevel(logging.ERROR)
        self.mem = build_memory(str(self._dir / "memory.db"), **kwargs)
        self.sweep_policy: Any = None  # the engine's defaults

    def _plain(self, text: str, user_id: str) -> str:
        """What the text says: placeholders replaced by the vault's originals (privileged; identity
        without the privacy layer). Suites judge the information, not its redacted spelling."""
        vault = getattr(self.mem.redactor, "vault", None)
        if vault is None:
            return text
        return str(vault.rehydrate(text, self.mem.tenant, user_id))

    def remember(
        self,
        user_id: str,
        text: str,
        *,
        key: str | None = None,
        kind: str = "fact",
        importance: float = 0.5,
        pinned: bool = False,
        ttl_days: float | None = None,
    ) -> str:
        return self.mem.remember(
            text,
            user_id=user_id,
            key=key,
            kind=kind,
            importance=importance,
            pinned=pinned,
            ttl=timedelta(days=ttl_days) if ttl_days is not None else None,
        ).id

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        result = self.mem.recall(query, user_id=user_id, limit=k, hints=False)
        return [Recalled(h.memory.id, self._plain(h.memory.content, user_id), h.score) for h in result.hits]

    def context(self, user_id: str, query: str, budget_tokens: int) -> str:
        active = [
            (r, s)
            for r, s in self.mem.active(user_id)
            if r.key is not None and (r.pinned or r.importance >= self.core_importance)
        ]
        # strongest first; ties (every pinned memory is at 1.0) by age, not by the random id
        core = [r for r, _ in sorted(active, key=lambda p: (-round(p[1], 9), p[0].created_at, p[0].content))]
        core_lines = render([f"- {r.content}" for r in core], budget_tokens // 2)
        seen = {r.content for r in core}
        hits = self.mem.recall(query, user_id=user_id, limit=10, hints=False).hits
        lines = [ln for ln in core_lines.split("\n") if ln]
        lines += [f"- {h.memory.content}" for h in hits if h.memory.content not in seen]
        return self._plain(render(lines, budget_tokens), user_id)

    def history(self, user_id: str, key: str) -> list[str]:
        return [self._plain(r.content, user_id) for r in self.mem.history(key, user_id=user_id)]

    def forget(
        self,
        user_id: str,
        *,
        memory_id: str | None = None,
        key: str | None = None,
        request: str | None = None,
    ) -> int:
        if memory_id is not None:
            return len(self.mem.forget_ids([memory_id], hard=True, confirm=True).forgotten)
        if key is not None:
            ids = [r.id for r in self.mem.history(key, user_id=user_id)]
            return self.mem.purge(ids, force=True) if ids else 0
        if request is not None:
            if not supports_requests():
                raise NotImplementedError("remnant.engine.forgetting.requests is not installed")
            out = self.mem.forget(request, user_id=user_id, hard=True, confirm=True)
            return out.count
        return 0

    def erase_user(self, user_id: str) -> None:
        self.mem.erase_user(user_id)

    def advance_time(self, days: float) -> None:
        self.clock.advance(days=days)
        self.mem.sweep(policy=self.sweep_policy)

    def wait(self, days: float) -> None:
        """Move the clock only (no sweep): what is remembered next is dated ``days`` later."""
        self.clock.advance(days=days)

    def observe(self, user_id: str, text: str) -> list[str]:
        """A user's chat turn through the product's conversation path (``Memory.add``)."""
        out = self.mem.add({"role": "user", "content": text}, user_id=user_id)
        return [r.id for r in out.memories]

    def remembered_texts(self, user_id: str) -> list[str]:
        """What the user still remembers now (active, above the recall threshold, not expired)."""
        return [self._plain(r.content, user_id) for r, _ in self.mem.active(user_id)]

    def used(self, memory_ids: list[str]) -> None:
        self.mem.used(memory_ids)

    def expires_in(self, user_id: str) -> dict[str, float | None]:
        """Seconds left before each of the user's memories expires (``None``: no expiry; expired
        ones included, at ``<= 0``), read from the records' ``expires_at``."""
        from remnant.core.model import Status

        statuses = [s for s in Status if s != Status.HIDDEN]
        now = self.mem.now()
        records = self.mem.list_memories(user_id, statuses=statuses, limit=1_000_000)
        return {r.id: None if r.expires_at is None else (r.expires_at - now).total_seconds() for r in records}

    def memory_texts(self, user_id: str) -> dict[str, str]:
        """Every memory the user still has (hidden ones are gone from the user's view), as plain text."""
        from remnant.core.model import Status

        statuses = [s for s in Status if s != Status.HIDDEN]
        records = self.mem.list_memories(user_id, statuses=statuses, limit=1_000_000)
        return {r.id: self._plain(r.content, user_id) for r in records}

    def decay_only(self) -> None:
        """Sweep without importance eviction, so a suite can watch the decay curve alone (an evicted
        memory has no strength left to measure)."""
        from remnant.engine.forgetting.sweep import SweepPolicy

        self.sweep_policy = SweepPolicy(evict=None)

    def review(self, memory_id: str) -> None:
        self.mem.review(memory_id)

    def decay_config(self) -> Any:
        """The engine's decay configuration (the retention curve compares against its closed form)."""
        return self.mem.decay

    def strength(self, memory_id: str) -> float:
        return self.mem.strength(memory_id)

    def is_remembered(self, memory_id: str) -> bool:
        from remnant.core.model import Status

        r = self.mem.get(memory_id)
        return (
            r.status in (Status.ACTIVE, Status.FADED)
            and self.mem.strength(memory_id) >= self.mem.decay.recall_threshold
        )

    def export(self, user_id: str) -> str:
        records = self.mem.list_memories(user_id, limit=1_000_000)
        audit = self.mem.audit_log(user_id=user_id)
        text = json.dumps(
            {"memories": [r.to_dict() for r in records], "audit": [a.to_dict() for a in audit]}, default=str
        )
        return self._plain(text, user_id)

    def vault_plaintext(self, user_id: str) -> str | None:
        """Every value the privacy vault still holds for the user, decrypted (privileged); ``None``
        without the privacy layer."""
        vault = getattr(self.mem.redactor, "vault", None)
        if vault is None:
            return None
        tenant = self.mem.tenant
        return "\n".join(
            str(vault.reveal(tenant, user_id, e.placeholder)) for e in vault.entries(tenant, user_id)
        )

    def raw_bytes(self) -> bytes:
        """Every file the engine keeps: the database, its WAL and shared memory, the vault key."""
        return b"".join(p.read_bytes() for p in sorted(self._dir.iterdir()) if p.is_file())

    def close(self) -> None:
        try:
            self.mem.close()
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)


def supports_requests() -> bool:
    """Whether natural-language forget requests (``remnant.engine.forgetting.requests``) are installed."""
    import importlib.util

    try:
        return importlib.util.find_spec("remnant.engine.forgetting.requests") is not None
    except ModuleNotFoundError:
        return False


def summaries_available() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("remnant.summarize") is not None
    except ModuleNotFoundError:
        return False


# -- baselines: remember everything --------------------------------------------------------------------
@dataclass
class _Doc:
    id: str
    user_id: str
    text: str
    key: str | None
    terms: dict[str, int] = field(default_factory=dict)
    length: int = 0


class RememberEverything:
    """A store that keeps every memory forever: no decay, no supersession, no expiry.

    It deletes what it is explicitly told to (a vector store's delete by id or by metadata key),
    as any real store can. Ranking is BM25 over Remnant's own query terms (so differences with
    Remnant come from forgetting, not from the tokenizer).
    """

    name = "baseline"
    k1, b = 1.2, 0.75

    def __init__(self) -> None:
        self.docs: dict[str, _Doc] = {}
        self.by_user: dict[str, dict[str, _Doc]] = defaultdict(dict)
        self._seq = 0
        self.days = 0.0

    def _new_id(self) -> str:
        self._seq += 1
        return f"doc{self._seq:07d}"

    def remember(
        self,
        user_id: str,
        text: str,
        *,
        key: str | None = None,
        kind: str = "fact",
        importance: float = 0.5,
        pinned: bool = False,
        ttl_days: float | None = None,
    ) -> str:
        terms = query_terms(text, drop_stopwords=True)
        counts: dict[str, int] = defaultdict(int)
        for t in terms:
            counts[t] += 1
        doc = _Doc(self._new_id(), user_id, text, key, dict(counts), len(terms))
        self.docs[doc.id] = doc
        self.by_user[user_id][doc.id] = doc
        self._indexed(doc)
        return doc.id

    def _indexed(self, doc: _Doc) -> None:
        return None

    def _score(self, user_id: str, query: str) -> list[tuple[float, str]]:
        docs = list(self.by_user.get(user_id, {}).values())
        if not docs:
            return []
        n = len(docs)
        avg = sum(d.length for d in docs) / n or 1.0
        terms = set(query_terms(query))
        df = {t: sum(1 for d in docs if t in d.terms) for t in terms}
        scored = []
        for d in docs:
            s = 0.0
            for t in terms:
                tf = d.terms.get(t)
                if not tf:
                    continue
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * d.length / avg))
            if s > 0:
                scored.append((s, d.id))
        return scored

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        # ties go to the newest memory: a charitable baseline (a plain store has no notion of "current")
        scored = sorted(self._score(user_id, query), key=lambda p: (-p[0], -int(p[1][3:])))[:k]
        return [Recalled(i, self.docs[i].text, s) for s, i in scored]

    def history(self, user_id: str, key: str) -> list[str]:
        return [d.text for d in self.by_user.get(user_id, {}).values() if d.key == key]

    def _delete(self, ids: list[str]) -> int:
        for i in ids:
            d = self.docs.pop(i, None)
            if d is not None:
                self.by_user[d.user_id].pop(i, None)
        return len(ids)

    def forget(
        self,
        user_id: str,
        *,
        memory_id: str | None = None,
        key: str | None = None,
        request: str | None = None,
    ) -> int:
        if memory_id is not None:
            return self._delete([memory_id] if memory_id in self.docs else [])
        if key is not None:
            return self._delete([d.id for d in self.by_user.get(user_id, {}).values() if d.key == key])
        if request is not None:
            raise NotImplementedError("a plain store cannot act on natural-language requests")
        return 0

    def erase_user(self, user_id: str) -> None:
        self._delete(list(self.by_user.get(user_id, {})))

    def advance_time(self, days: float) -> None:
        self.days += days  # nothing fades

    def wait(self, days: float) -> None:
        self.days += days

    def memory_texts(self, user_id: str) -> dict[str, str]:
        return {d.id: d.text for d in self.by_user.get(user_id, {}).values()}

    def observe(self, user_id: str, text: str) -> list[str]:
        return [self.remember(user_id, text, kind="episode")]

    def remembered_texts(self, user_id: str) -> list[str]:
        return list(self.memory_texts(user_id).values())

    def used(self, memory_ids: list[str]) -> None:
        return None

    def expires_in(self, user_id: str) -> dict[str, float | None]:
        return {i: None for i in self.by_user.get(user_id, {})}  # nothing ever expires

    def is_remembered(self, memory_id: str) -> bool:
        return memory_id in self.docs

    def export(self, user_id: str) -> str:
        return json.dumps(
            [{"id": d.id, "text": d.text, "key": d.key} for d in self.by_user.get(user_id, {}).values()]
        )

    def raw_bytes(self) -> bytes:
        return json.dumps([[d.id, d.user_id, d.text, d.key] for d in self.docs.values()]).encode()

    def close(self) -> None:
        self.docs.clear()
        self.by_user.clear()


class VectorRememberEverything(RememberEverything):
    """The remember-everything store ranked by cosine similarity of static 64-d embeddings."""

    name = "vector-baseline"

    def __init__(self) -> None:
        super().__init__()
        import static_model  # tokenlearn-static-model; weights ship in the wheel

        self._embed = static_model.get_embeddings
        self.vectors: dict[str, np.ndarray] = {}

    def _vec(self, texts: list[str]) -> np.ndarray:
        m = np.asarray(self._embed(texts), dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(m, axis=1, keepdims=True)
        return m / np.where(norms == 0, 1.0, norms)

    def _indexed(self, doc: _Doc) -> None:
        self.vectors[doc.id] = self._vec([doc.text])[0]

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        ids = [i for i in self.by_user.get(user_id, {}) if i in self.vectors]
        if not ids or not query.strip():
            return []
        sims = np.stack([self.vectors[i] for i in ids]) @ self._vec([query])[0]
        order = np.lexsort((-np.arange(len(ids)), -sims))[:k]  # ties: newest first
        return [Recalled(ids[j], self.docs[ids[j]].text, float(sims[j])) for j in order]

    def _delete(self, ids: list[str]) -> int:
        for i in ids:
            self.vectors.pop(i, None)
        return super()._delete(ids)


# -- the extremes: never forgets, forgets everything ----------------------------------------------------
class NeverForgets(RememberEverything):
    """Acknowledges forget requests and erasure but deletes nothing (a deletion score must be 0)."""

    name = "never-forgets"

    def forget(
        self,
        user_id: str,
        *,
        memory_id: str | None = None,
        key: str | None = None,
        request: str | None = None,
    ) -> int:
        return 1

    def erase_user(self, user_id: str) -> None:
        return None


class ForgetsEverything(RememberEverything):
    """Stores nothing it can give back; every recall and context is empty (a retention score must be 0)."""

    name = "forgets-everything"

    def forget(
        self,
        user_id: str,
        *,
        memory_id: str | None = None,
        key: str | None = None,
        request: str | None = None,
    ) -> int:
        if request is not None:  # any request wipes the user: whatever was asked goes, and the rest too
            return self._delete(list(self.by_user.get(user_id, {})))
        return super().forget(user_id, memory_id=memory_id, key=key)

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        return []

    def history(self, user_id: str, key: str) -> list[str]:
        return []

    def remembered_texts(self, user_id: str) -> list[str]:
        return []

    def expires_in(self, user_id: str) -> dict[str, float | None]:
        return {i: 0.0 for i in self.by_user.get(user_id, {})}  # everything expired the moment it is told

    def is_remembered(self, memory_id: str) -> bool:
        return False


def _private() -> MemoryAdapter:
    return RemnantAdapter(privacy=True, label="remnant-private")


ADAPTERS: dict[str, AdapterFactory] = {
    "remnant": RemnantAdapter,
    "remnant-private": _private,
    "baseline": RememberEverything,
    "bm25": RememberEverything,  # the same BM25 baseline, by what it is
    "vector-baseline": VectorRememberEverything,
    "never-forgets": NeverForgets,
    "forgets-everything": ForgetsEverything,
}


def register_adapter(name: str, factory: AdapterFactory, *, replace: bool = False) -> None:
    """Make ``factory`` selectable as ``name`` (``remnant eval --adapter NAME``, ``run_eval``)."""
    if not name or not callable(factory):
        raise EvalError("an adapter needs a name and a callable factory")
    if name in ADAPTERS and not replace:
        raise EvalError(f"adapter {name!r} is already registered")
    ADAPTERS[name] = factory


def adapter_factory(name: str) -> AdapterFactory:
    try:
        return ADAPTERS[name]
    except KeyError:
        raise EvalError(f"unknown adapter {name!r}; choose from {', '.join(ADAPTERS)}") from None
