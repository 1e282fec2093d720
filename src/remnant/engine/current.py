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
  answering the query: they passed the relevance floor), each hit and its :data:`NEAREST` newer
  hit said in another turn of the same user are put to the supersession pair model
  (:class:`~remnant.understand.pair_model.PairJudge`) over the hits' stored vectors
  (:class:`~remnant.engine.seams.StoredVectors`; nothing is embedded), newer statement against
  older; a few candidates the floor dropped may be the newer side (and then take the older one's
  place), never the older. When it judges the newer one a new value of the older one's slot with
  probability at least ``earlier_at`` (:data:`EARLIER_AT`, a recall threshold below the write
  path's: chosen by cross-validation over the development timelines, docs/retrieval.md), the older
  hit is earlier: it leaves the answer and the next hit takes its place. So is it when the model
  is unsure (from :data:`UNSURE_AT`) and the newer hit answers the query at least as closely as
  the older one (:data:`CLOSER_BY`; the query's vector with the stored ones, read once, only when
  such a pair is in hand: one query embedding a recall at most, usually the retriever's cached
  one): a long turn of several things dilutes the change in the whole-turn pair, and the query
  says which of its things the answer is about. With ``include_stale``
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
from remnant.understand.pair_model import share_words

_COPY_PREFIXES = ("user:", "用户：", "用户:")
_MIN_COPY_SHARE = 0.6  # a fact whose text is this share of its turn's (or more) and inside it

#: how many of the ranked candidates the pair model's step reads (and as many under the floor)
POOL = 10
#: how many of the newer hits each hit is judged against, the nearest in meaning. One missed a
#: change whose turn was not the nearest (driving the children to school in the old car is nearer a
#: later turn about the school than the turn naming the new car); chosen by leave-one-file-out over
#: the five development timelines files from {1, 2, 3} (docs/retrieval.md): two pairs a hit keep
#: the step within its cost
NEAREST = 2
#: the pair model's probability from which the older of two hits is earlier at recall; below the
#: write path's supersede threshold because nothing is lost (the hit is still stored and reachable
#: through ``include_stale``, ``as_of`` and history): chosen by cross-validation over the three
#: development timelines files (docs/retrieval.md, "Current state")
EARLIER_AT = 0.7
#: the pair model's probability from which the older of two hits is earlier at recall when the
#: newer one answers the query at least :data:`CLOSER_BY` more closely (cosine of the query's vector
#: with each hit's stored one): both answer the same question, and the newer answers it as well.
#: On a long turn the whole-turn pair dilutes the change (a retired teacher's news and her little
#: red fiesta against a drive in the honda jazz: 0.53), while the query says which part matters.
#: Chosen with CLOSER_BY by leave-one-file-out over the six development timelines files from
#: {0.2, 0.3, 0.4} (each within two cases of the others; the middle one breaks half as many cases
#: as 0.2: docs/retrieval.md, "Current state first")
UNSURE_AT = 0.3
#: how much more closely the newer hit must answer the query for :data:`UNSURE_AT` to apply
CLOSER_BY = 0.0


@runtime_checkable
class PairScorer(Protocol):
    """The supersession pair model at recall: for each ``(new, old)`` pair of indices into
    ``texts`` and ``vectors`` (by ``model_id``), the probability that the new statement replaces
    the old one; ``None``: it cannot say (e.g. its weights are for another model)."""

    def probabilities_of(
        self,
        texts: Sequence[str],
        vectors: Sequence[npt.ArrayLike],
        pairs: Sequence[tuple[int, int]],
        *,
        model_id: str | None,
    ) -> list[float] | None: ...


Vectors = Callable[[list[str]], tuple[str | None, Mapping[str, npt.NDArray[np.float64]]]]
#: the query's vector and its model (embedded once, when a pair is uncertain; cached by the embedder)
QueryVector = Callable[[], tuple[str | None, npt.ArrayLike] | None]


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
    query_vector: QueryVector | None = None,
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
    # a fact drawn from a turn was written with it (the same time); one consolidated from a turn
    # later is as old as the turn, read here unless it is a hit
    sources = (
        [s for h in [*pool, *spare] if (s := said_in(h.memory)) not in have and s != turn_of(h.memory)]
        if judged
        else []
    )
    read = fetch(list(dict.fromkeys([*wanted, *sources]))) if wanted or sources else []
    keys_of = {r.id: r.key for r in read}
    if judged:
        assert judge is not None and vectors is not None
        times = {r.id: _when(r) for r in read}
        times.update({h.memory.id: _when(h.memory) for h in [*kept, *spare]})
        late, instead = _judged_earlier(pool, spare, judge, vectors, times, earlier_at, limit, query_vector)
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
    query_vector: QueryVector | None = None,
) -> tuple[set[str], dict[str, Hit]]:
    """The ids of the hits of ``pool`` that a newer hit or ``spare`` candidate, said in another turn,
    replaces by the pair model (probability ``earlier_at`` or more), and for each the spare
    candidate that takes its place, if one does. One read of the stored vectors. The hits are
    judged in rank order, each against its :data:`NEAREST` newer ones by cosine, a round of them at
    a time (one call of the model), until ``limit`` of them stand: the rest would not be shown; at
    most ``NEAREST`` pairs per judged hit. A pair from :data:`UNSURE_AT` counts when the newer hit
    answers the query (``query_vector``, read once, at the first such pair) at least
    :data:`CLOSER_BY` more closely than the older one."""
    model, vecs = vectors([h.memory.id for h in [*pool, *spare]])
    late: set[str] = set()
    instead: dict[str, Hit] = {}
    if model is None or len(vecs) < 2:
        return late, instead
    items = [h for h in [*pool, *spare] if h.memory.id in vecs]
    first_spare = sum(h.memory.id in vecs for h in pool)
    texts = [h.memory.content for h in items]
    rows = [vecs[h.memory.id] for h in items]
    said = [said_in(h.memory) for h in items]
    speaker = [h.memory.metadata.get("speaker") or None for h in items]
    when = [times.get(t, _when(h.memory)) for t, h in zip(said, items, strict=True)]
    unit = np.vstack(rows).astype(np.float64)
    unit /= np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-12)
    near = unit @ unit.T
    answers: list[npt.NDArray[np.float64] | None] = []  # each item's cosine with the query, once read

    def closer(j: int, i: int) -> bool:
        """Whether item ``j`` answers the query at least CLOSER_BY more closely than item ``i``."""
        if not answers:
            got = query_vector() if query_vector is not None else None
            q = np.asarray(got[1], dtype=np.float64).ravel() if got is not None and got[0] == model else None
            if q is not None and q.shape[0] == unit.shape[1] and float(np.linalg.norm(q)) > 0:
                answers.append(unit @ (q / float(np.linalg.norm(q))))
            else:
                answers.append(None)  # another model's vector, or none: the pair model alone decides
        cos = answers[0]
        return cos is not None and float(cos[j]) >= float(cos[i]) + CLOSER_BY

    def nearest_newer(i: int) -> list[int]:
        newer = [
            j
            for j in range(len(items))
            if items[j].memory.user_id == items[i].memory.user_id
            # only a user's own unnamed statements: the model learned on what one person tells an
            # assistant; over named speakers' transcripts (LoCoMo's two friends under one user) it
            # read news and events as changes and took 24 points of turn Recall@5 (conv-26)
            and speaker[j] is None
            and speaker[i] is None
            and said[j] != said[i]
            and when[j] > when[i]
            # a candidate under the floor must share a word with the hit it would replace: the
            # model, trained on pairs about one subject, rates some unrelated pairs high
            and (j < first_spare or share_words(texts[j], texts[i]))
        ]
        return sorted(newer, key=lambda j: -float(near[i, j]))[:NEAREST]

    taken: set[int] = set()
    olds = [i for i in range(first_spare) if items[i].memory.status != Status.SUPERSEDED]
    standing, at = 0, 0
    while standing < limit and at < len(olds):
        batch = olds[at : at + limit - standing]
        at += len(batch)
        pairs = [(j, i) for i in batch for j in nearest_newer(i)]
        ps = judge.probabilities_of(texts, rows, pairs, model_id=model) if pairs else []
        if ps is None:
            return late, instead  # the model cannot judge these vectors
        over: dict[int, list[int]] = {}
        for (j, i), p in zip(pairs, ps, strict=True):
            if p >= earlier_at or (p >= min(UNSURE_AT, earlier_at) and closer(j, i)):
                over.setdefault(i, []).append(j)
        for i in batch:
            news = over.get(i, [])
            if not news:
                standing += 1
                continue
            # earlier whatever replaced it: a newer statement that replaces two hits (a turn and
            # its fact, each with its own placeholder) replaces both; a spare takes one place only
            late.add(items[i].memory.id)
            free = [j for j in news if j not in taken]
            if all(j >= first_spare for j in news) and free:  # only spare candidates replace it: the
                instead[items[i].memory.id] = items[free[0]]  # nearest free one takes its place
                taken.add(free[0])
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
