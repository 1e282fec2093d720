"""Recall answers the current state: the last step of :meth:`Memory.recall` over the ranked hits.

Three things, each bounded by the hits in hand (one ``get_many`` for the keys of the turns' facts):

- **One slot per turn.** A fact that only copies its source turn's words ("User: so i guess i'm a
  product manager", drawn from that very turn) and the turn itself are one thing said once: when
  both are hits, they take one place, the better ranked one's, and the turn holds it (it says what
  the copy says and the rest of what was said with it); the next hit takes the other place.
- **Newest first on a slot.** A hit speaks of a slot when it is a keyed memory (its key), a turn
  whose facts are keyed (their keys) or a turn that stated an earlier value of a slot
  (``metadata["stale_keys"]``, set by :meth:`Ledger.retire_stale`). When hits from several turns
  speak of one slot, those of the newest turn (by ``occurred_at``, else ``created_at``) take the
  group's first places; the others follow them and are labelled ``Hit.earlier``.
- **Superseded is earlier.** A superseded memory that comes back (through ``as_of`` or
  ``include_stale``) is labelled ``Hit.earlier``.

- **A change the write path did not read.** Among the first :data:`POOL` candidates (all of them
  answering the query: they passed the relevance floor), each pair said in different turns is put
  to the supersession pair model (:class:`~remnant.understand.pair_model.PairJudge`) over the
  hits' stored vectors (:class:`~remnant.engine.seams.StoredVectors`; nothing is embedded), newer
  statement against older. When it judges the newer one a new value of the older one's slot with
  probability at least ``earlier_at`` (:data:`EARLIER_AT`, a recall threshold below the write
  path's: chosen by cross-validation over the development timelines, docs/retrieval.md), the older
  hit is earlier: it leaves the answer and the next hit takes its place. With ``include_stale``
  or ``as_of`` (``show_earlier``) it stays, behind every current hit, labelled ``Hit.earlier``.
  A turn's time is the time it was said: a fact drawn from a turn (``from_episode``) or
  consolidated from one (``derived_from``) is as old as that turn, and is never judged against it.

A turn marked stale for one slot but still carrying another current claim stays a normal hit
unless a newer hit on its stale slot is in the same answer: it is then ranked behind that hit and
labelled earlier (it is found for its other content as before).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from remnant.core.model import MemoryRecord, Status
from remnant.engine.ledger import STALE_KEYS
from remnant.engine.results import Hit

_COPY_PREFIXES = ("user:", "用户：", "用户:")
_MIN_COPY_SHARE = 0.6  # a fact whose text is this share of its turn's (or more) and inside it

#: how many of the ranked candidates the pair model compares (at most POOL * (POOL - 1) / 2 pairs)
POOL = 10
#: the pair model's probability from which the older of two hits is earlier at recall; below the
#: write path's supersede threshold because nothing is lost (the hit is still stored and reachable
#: through ``include_stale``, ``as_of`` and history): chosen by cross-validation over the three
#: development timelines files (docs/retrieval.md, "Current state")
EARLIER_AT = 0.7


@runtime_checkable
class PairScorer(Protocol):
    """The supersession pair model at recall: the probability that ``new`` replaces ``old`` from
    their vectors by ``model_id`` (``None``: it cannot say, e.g. its weights are for another model)."""

    def probability_of(
        self,
        new: str,
        old: str,
        vec_new: npt.ArrayLike,
        vec_old: npt.ArrayLike,
        *,
        model_id: str | None,
    ) -> float | None: ...


Vectors = Callable[[list[str]], tuple[str | None, Mapping[str, npt.NDArray[np.float64]]]]


def _norm(text: str) -> str:
    return "".join(c for c in text.casefold() if unicodedata.category(c)[0] in "LN")


def _body(fact: MemoryRecord) -> str:
    text = fact.content.strip()
    low = text.casefold()
    for prefix in _COPY_PREFIXES:
        if low.startswith(prefix):
            return text[len(prefix) :]
    return text


def copies_turn(fact: MemoryRecord, turn: MemoryRecord) -> bool:
    """True when ``fact`` was drawn from ``turn`` and its text is (nearly all of) the turn's words."""
    if fact.metadata.get("from_episode") != turn.id:
        return False
    body, said = _norm(_body(fact)), _norm(turn.content)
    return bool(body) and body in said and len(body) >= _MIN_COPY_SHARE * len(said)


def turn_of(record: MemoryRecord) -> str:
    """The turn a memory came from: a fact's ``from_episode``, else the memory itself."""
    source = record.metadata.get("from_episode")
    return source if isinstance(source, str) and source else record.id


def said_in(record: MemoryRecord) -> str:
    """The turn whose words a memory states: :func:`turn_of`, or the one turn a consolidated fact
    was made from (``derived_from``), else the memory itself."""
    source = turn_of(record)
    if source != record.id:
        return source
    derived = record.metadata.get("derived_from")
    if isinstance(derived, list) and len(derived) == 1 and isinstance(derived[0], str) and derived[0]:
        return derived[0]
    return record.id


def _when(record: MemoryRecord) -> tuple[float, str]:
    at: datetime | None = record.occurred_at or record.created_at
    return (at.timestamp() if at else 0.0, record.id)


def current_first(
    hits: Sequence[Hit],
    fetch: Callable[[list[str]], list[MemoryRecord]],
    *,
    limit: int,
    now: datetime | None = None,
    stale_shown: bool = False,
    judge: PairScorer | None = None,
    vectors: Vectors | None = None,
    earlier_at: float = EARLIER_AT,
    show_earlier: bool = False,
    below: Sequence[Hit] = (),
) -> list[Hit]:
    """The hits, copies collapsed, newest first on each slot, earlier ones labelled; at most
    ``limit``. ``fetch`` reads memories by id (any status). ``stale_shown``: the recall asked for
    superseded memories past their validity (``include_stale``), so what is outside its validity at
    ``now`` and not superseded is dropped here (the store's filter could not). ``judge`` and
    ``vectors`` (the stored vectors of ids): the pair model's step on the first :data:`POOL` hits,
    and on ``below`` (candidates the relevance floor dropped: one enters only in the place of a hit
    it replaces); ``show_earlier``: what it judges earlier stays in the answer, behind the current
    hits."""
    kept = list(hits)
    if stale_shown and now is not None:
        kept = [h for h in kept if _valid_or_superseded(h.memory, now)]
    kept = _collapse_copies(kept)
    judged = judge is not None and vectors is not None and bool(kept) and (len(kept) > 1 or bool(below))
    if not judged:
        kept = kept[:limit]
    if len(kept) < 2 and not below and not any(h.memory.status == Status.SUPERSEDED for h in kept):
        return kept
    pool = kept[:POOL] if judged else kept
    have = {h.memory.id for h in kept}
    spare = [h for h in below if h.memory.id not in have][:POOL] if judged else []
    wanted = [
        f
        for h in pool
        for f in (h.memory.metadata.get("facts") or [])
        if isinstance(f, str) and f not in have
    ]
    sources = [s for h in [*pool, *spare] if (s := said_in(h.memory)) not in have] if judged else []
    read = fetch(list(dict.fromkeys([*wanted, *sources]))) if wanted or sources else []
    keys_of = {r.id: r.key for r in read}
    if judged:
        assert judge is not None and vectors is not None
        times = {r.id: _when(r) for r in read}
        times.update({h.memory.id: _when(h.memory) for h in [*kept, *spare]})
        late, instead = _judged_earlier(pool, spare, judge, vectors, times, earlier_at, limit)
        if late:
            current: list[Hit] = []
            for h in kept:
                newer = instead.get(h.memory.id)
                if newer is not None and newer not in current:
                    current.append(newer)  # the newer statement takes the place of the one it replaces
                if h.memory.id not in late:
                    current.append(h)
            shown = [replace(h, earlier=True) for h in kept if h.memory.id in late] if show_earlier else []
            kept = [*current, *shown]
        kept = kept[:limit]
        if len(kept) < 2 and not any(h.memory.status == Status.SUPERSEDED for h in kept):
            return kept
    keys_of.update({h.memory.id: h.memory.key for h in kept})
    slots: dict[str, list[int]] = {}
    for i, h in enumerate(kept):
        for slot in _slots(h.memory, keys_of):
            slots.setdefault(slot, []).append(i)
    earlier = [h.memory.status == Status.SUPERSEDED or h.earlier for h in kept]
    order = list(range(len(kept)))  # position -> hit
    for members in slots.values():
        turns = {turn_of(kept[i].memory) for i in members}
        if len(turns) < 2:
            continue
        newest = turn_of(max((kept[i].memory for i in members), key=_when))
        for i in members:
            if turn_of(kept[i].memory) != newest:
                earlier[i] = True
    where = list(range(len(kept)))  # hit -> its position in order
    for members in slots.values():
        positions = sorted(where[i] for i in members)
        ranked = sorted((order[p] for p in positions), key=lambda i: (earlier[i], where[i]))
        for p, i in zip(positions, ranked, strict=True):
            order[p] = i
            where[i] = p
    return [replace(kept[i], earlier=earlier[i]) if earlier[i] else kept[i] for i in order]


def _judged_earlier(
    pool: list[Hit],
    spare: list[Hit],
    judge: PairScorer,
    vectors: Vectors,
    times: Mapping[str, tuple[float, str]],
    earlier_at: float,
    limit: int,
) -> tuple[set[str], dict[str, Hit]]:
    """The ids of the hits of ``pool`` that a newer hit or ``spare`` candidate, said in another turn,
    replaces by the pair model (probability ``earlier_at`` or more), and for each the spare
    candidate that takes its place, if one does. One read of the stored vectors; the hits are
    taken in rank order until ``limit`` of them stand, each judged against the newer ones only, so
    at most ``limit + len(late)`` rows of ``len(pool) + len(spare)`` pairs."""
    model, vecs = vectors([h.memory.id for h in [*pool, *spare]])
    late: set[str] = set()
    instead: dict[str, Hit] = {}
    if model is None or len(vecs) < 2:
        return late, instead

    def said_when(h: Hit) -> tuple[float, str]:
        return times.get(said_in(h.memory), _when(h.memory))

    ready = [h for h in pool if h.memory.id in vecs]
    spares = [h for h in spare if h.memory.id in vecs]
    taken: set[str] = set()
    standing = 0
    for old in pool:
        if standing >= limit:
            break  # the rest are not shown: nothing to judge
        if old.memory.status == Status.SUPERSEDED or old.memory.id not in vecs:
            standing += old.memory.status != Status.SUPERSEDED
            continue
        for new in [*ready, *(h for h in spares if h.memory.id not in taken)]:
            if (
                new is old
                or new.memory.user_id != old.memory.user_id
                or said_in(new.memory) == said_in(old.memory)
                or said_when(new) <= said_when(old)
            ):
                continue
            p = judge.probability_of(
                new.memory.content,
                old.memory.content,
                vecs[new.memory.id],
                vecs[old.memory.id],
                model_id=model,
            )
            if p is None:
                return late, instead  # the model cannot judge these vectors: no pair will do better
            if p >= earlier_at:
                late.add(old.memory.id)
                if new in spares:
                    instead[old.memory.id] = new
                    taken.add(new.memory.id)
                break
        else:
            standing += 1
    return late, instead


def _slots(record: MemoryRecord, keys_of: dict[str, str | None]) -> set[str]:
    out: set[str] = set()
    if record.key:
        out.add(record.key)
    for f in record.metadata.get("facts") or []:
        key = keys_of.get(f) if isinstance(f, str) else None
        if key:
            out.add(key)
    stale = record.metadata.get(STALE_KEYS)
    if isinstance(stale, dict):
        out.update(k for k in stale if isinstance(k, str))
    return out


def _collapse_copies(hits: list[Hit]) -> list[Hit]:
    by_id = {h.memory.id: i for i, h in enumerate(hits)}
    out = list(hits)
    drop: set[int] = set()
    for i, h in enumerate(hits):
        j = by_id.get(str(h.memory.metadata.get("from_episode")))
        if j is None or i in drop or j in drop:
            continue
        if copies_turn(h.memory, hits[j].memory):
            # one place for the two, the better ranked one's; the turn holds it, since it says all
            # the copy says and the rest of what was said with it ("moved to the day shift" keeps
            # its "7am to 3pm"); the next hit takes the other place
            first, second = min(i, j), max(i, j)
            out[first] = hits[j] if hits[j].memory.status == Status.ACTIVE else hits[i]
            drop.add(second)
    return [h for i, h in enumerate(out) if i not in drop]


def _valid_or_superseded(record: MemoryRecord, now: datetime) -> bool:
    if record.status == Status.SUPERSEDED:
        return True
    if record.valid_from is not None and record.valid_from > now:
        return False
    return record.valid_to is None or record.valid_to > now
