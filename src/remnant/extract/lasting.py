"""What of a turn lasts: the clauses consolidation keeps when a salient turn is about to fade.

Consolidation (:mod:`remnant.engine.forgetting.consolidation`) used to copy the whole turn into a
fact, so what the turn said only for a while (a code "this weekend only", a room "till sunday", a
week's course of tablets) lived on in the copy for months. :func:`lasting_parts` reads the turn
clause by clause (:func:`remnant.extract.expiry.pieces`) and leaves out

- **what lapses**: a clause whose own period or end point, read from when the turn was said, ends
  by the consolidation horizon (the rules: :func:`remnant.extract.expiry.lapsing`; and, when its
  weights load and the policy asks for it, the learned expiry reader's judgement of the clause,
  :mod:`remnant.extract.expiry_model`, with the length :func:`~remnant.extract.expiry_model.length_of`
  reads);
- **questions** to the assistant (their mark: ?, ？, 吗);
- **filler**: when something went and what is left is filler by the rule cues, the clauses the
  salience model scores under the remainder bar (a request without a question mark, "recommend a
  place near the college", is left to this judgement).

The claim gate (:mod:`remnant.understand.claim_gate`) was tried on each clause and is not used: it
was trained on whole turns, and on a clause its cues misfire (给我 in 股份都转给我了 reads as a
request, a 🙄 beside "joined Paper Tigers instead" as sarcasm), which lost current values on the
development timelines (docs/benchmarks/understanding.md).

Nothing left: nothing is consolidated (the turn just fades). Nothing left out: the turn's own text,
as before. The models read the clauses' vectors, computed by the caller in one embedder call for
every turn of a sweep (:class:`Readers`), before any lock is taken. Linear in the text: at most
:data:`~remnant.extract.expiry._CLAUSE_CAP` clauses a turn, each read a bounded number of times.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from remnant.embed.base import Vectors
from remnant.engine.options import Lasting
from remnant.extract.expiry import (
    FILLER_FLOOR,
    asked,
    bare,
    cues,
    expiry_of,
    lapsing,
    names_a_while,
    period_refused,
    pieces,
)
from remnant.extract.expiry_model import SENTENCE_CHARS, ExpiryWeights, length_of
from remnant.extract.salience import salience
from remnant.extract.salience_model import SalienceModel

REMAINDER_BAR = 0.4
"""The salience model's importance at which what is left of a turn is kept on its own, by the
ingestor when it splits a temporary turn and by consolidation clause by clause: below the
consolidation bar (0.5), since a lasting clause dropped there expires with the value beside it (a
memory lost wrongly is the worse failure); filler scores far under it."""


@dataclass(frozen=True)
class Readers:
    """The models that judge a clause, each optional (without one, the rules decide): the salience
    model and the learned expiry reader, both over ``embed``'s vectors."""

    embed: Callable[[Sequence[str]], Sequence[Vectors] | None] | None = None
    salience: SalienceModel | None = None
    expiry: ExpiryWeights | None = None

    @property
    def any(self) -> bool:
        return self.embed is not None and (self.salience is not None or self.expiry is not None)


def _head(piece: str) -> str:
    return bare(piece)[:SENTENCE_CHARS]


def lasting_parts(turns: Sequence[tuple[str, datetime]], until: datetime, readers: Readers) -> list[Lasting]:
    """For each ``(text, said)``, what of it lasts past ``until`` (see the module docstring); one
    embedder call for the clauses of all the turns that have something the rules did not decide."""
    split = [pieces(text) for text, _ in turns]
    gone = [
        lapsing(parts, said, until) if len(parts) else []
        for parts, (_, said) in zip(split, turns, strict=True)
    ]
    why: list[list[str]] = [["expiry"] * any(g) for g in gone]
    for parts, g, w in zip(split, gone, why, strict=True):
        for i, part in enumerate(parts):
            if not g[i] and asked(part):
                g[i] = True
                w.append("question")
    vectors = _vectors(split, gone, readers)
    out: list[Lasting] = []
    for t, ((text, said), parts, g, w) in enumerate(zip(turns, split, gone, why, strict=True)):
        vec = vectors.get(t, {})
        for i, part in enumerate(parts):
            if g[i] or i not in vec:
                continue
            if readers.expiry is not None and _reader_lapses(
                readers.expiry, vec[i], _head(part), said, until
            ):
                g[i] = True
                w.append("expiry_model")
        out.append(_kept(text, said, parts, g, w, vec, readers.salience))
    return out


def _vectors(
    split: Sequence[Sequence[str]], gone: Sequence[Sequence[bool]], readers: Readers
) -> dict[int, dict[int, Vectors]]:
    """The vectors of the clauses a model will read, by turn and clause, from one embedder call:
    every clause the rules kept when the expiry reader judges them; else, for the salience model,
    those of a turn that lost some whose rest is filler by the rule cues."""
    if not readers.any or readers.embed is None:
        return {}
    at: list[tuple[int, int]] = []
    for t, (parts, g) in enumerate(zip(split, gone, strict=True)):
        if readers.expiry is None and not (any(g) and _filler(_rest(parts, g))):
            continue
        at += [(t, i) for i, p in enumerate(parts) if not g[i] and bare(p)]
    if not at:
        return {}
    texts = [_head(split[t][i]) for t, i in at]
    unique = list(dict.fromkeys(texts))
    got = readers.embed(unique)
    if got is None:
        return {}
    by_text = dict(zip(unique, got, strict=True))
    out: dict[int, dict[int, Vectors]] = {}
    for (t, i), text in zip(at, texts, strict=True):
        out.setdefault(t, {})[i] = by_text[text]
    return out


def _rest(parts: Sequence[str], gone: Sequence[bool]) -> str:
    return "".join(p for p, g in zip(parts, gone, strict=True) if not g)


def _filler(text: str) -> bool:
    """What is left is filler by the rule cues (nothing left is not: there is nothing to judge)."""
    return bool(bare(text)) and salience(text).score < FILLER_FLOOR


def _reader_lapses(
    weights: ExpiryWeights, vector: Vectors, text: str, said: datetime, until: datetime
) -> bool:
    """The learned reader judges the clause temporary (its threshold, and it names a while with no
    past or recurring word, and the rules did not refuse a period it names: the ingestor's guards) and the length the clause names (a period or an
    end point, never the reader's default horizon: "the dentist on tuesday the 12th" is not over
    because a week has passed) ends by ``until``."""
    said_cues = cues(text, said)
    if not names_a_while(said_cues):
        return False
    # the ingestor's guard: where the rules saw an exact period and refused it ("15 min chunks
    # max", "ran for an hour"), only the stricter ``refused`` bar counts
    bar = weights.refused if period_refused(text, said) else weights.threshold
    if weights.probability(vector, said_cues) < bar:
        return False
    length, source = length_of(text, said, weights.horizon)
    return source != "horizon" and said + length <= until


def _kept(
    text: str,
    said: datetime,
    parts: Sequence[str],
    gone: Sequence[bool],
    why: Sequence[str],
    vec: dict[int, Vectors],
    model: SalienceModel | None,
) -> Lasting:
    if not any(gone):
        return Lasting(text)
    keep = [not g and bool(bare(p)) for p, g in zip(parts, gone, strict=True)]
    if _filler(_rest(parts, gone)):
        # what is left is filler by the rule cues: keep the clauses that matter on their own
        for i, part in enumerate(parts):
            if keep[i]:
                score = salience(part).score
                keep[i] = score >= FILLER_FLOOR or (
                    model is not None and i in vec and model.importance(vec[i], score) >= REMAINDER_BAR
                )
        if not any(keep):
            why = (*why, "filler")
    kept = [p for p, k in zip(parts, keep, strict=True) if k]
    # a clause kept with a period of its own that outlasts the horizon still ends with it
    ends = [said + ttl for p in kept if (ttl := expiry_of(p, said)) is not None]
    return Lasting(bare("".join(kept)), min(ends) if ends else None, tuple(dict.fromkeys(why)))
