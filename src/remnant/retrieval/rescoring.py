"""What recall does after fusion: time constraints, a second (multi-hop) round, diversity.

* **Temporal**: a query's time expressions ("in May", "last week", 上周) resolve against now into
  date ranges; a memory's event dates are the day it was said (``occurred_at``) plus what its own
  time expressions resolve to against that day. Memories whose event dates fall in a range the
  query names are boosted; on "when ..." questions, memories that mention a time at all are
  boosted a little (the answer to "when" is usually a turn that says "yesterday", "last week").
* **Second round**: the top hits of the first round seed a second lexical query (their content
  words, not the query's), merged into the ranking at a weight, so evidence that shares words with
  the first hits rather than with the question can come up (multi-hop questions).
* **Diversity**: the final top ``limit`` is picked greedily by score minus a penalty for word
  overlap with what is already picked (maximal marginal relevance), so near-duplicate neighbouring
  turns do not fill the top 5.

Every weight is a field of :class:`RecallTuning`, chosen by leave-one-conversation-out
cross-validation on LoCoMo (``remnant bench locomo --folds``, docs/benchmarks/retrieval.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from remnant.core.model import MemoryRecord
from remnant.retrieval.query import content_terms
from remnant.retrieval.timeexpr import TimeRange, has_time_expression, resolve

_WHEN = re.compile(
    r"^\s*(when|what (?:year|month|day|date|time)|how long ago)\b|什么时候|哪天|哪年|几月|何时"
)


@dataclass(frozen=True)
class RecallTuning:
    """Weights of the steps after fusion (0 turns a step off)."""

    temporal_boost: float = 0.0  # x(1+b) for a memory whose event dates fall in a range the query names
    when_boost: float = 0.0  # x(1+b) for a memory that mentions a time, on a "when" question
    expansion_weight: float = 0.0  # weight of the second, seeded lexical round
    expansion_seeds: int = 3  # how many first-round hits seed it
    expansion_terms: int = 12  # at most this many seed words in its query
    diversity: float = 0.0  # MMR penalty for word overlap with already picked hits
    depth: int = 50  # how many fused candidates the boosts look at
    skip_vector_ratio: float = 0.0  # skip the query embedding when BM25's best >= this x its 5th (0: never)


def is_when_question(query: str) -> bool:
    return bool(_WHEN.search(query.lower()))


def query_ranges(query: str, now: datetime) -> list[TimeRange]:
    """The date ranges the query names, resolved against now ([] when it names none)."""
    return resolve(query, now) if has_time_expression(query) else []


def event_ranges(record: MemoryRecord) -> list[TimeRange]:
    """When a memory's content happened: its day, and what its time expressions say against it."""
    said = record.occurred_at or record.valid_from or record.created_at
    if said is None:
        return []
    day = said.date()
    out = [TimeRange(day, day + timedelta(days=1), "said")]
    if has_time_expression(record.content):
        out.extend(resolve(record.content, said))
    return out


def event_text(record: MemoryRecord) -> str:
    """The event dates of a memory's own time expressions, as words for the lexical index
    ("7 May 2023", "May 2023"), or "" when its text has none."""
    said = record.occurred_at or record.valid_from
    if said is None or not has_time_expression(record.content):
        return ""
    words = []
    for r in resolve(record.content, said):
        if (r.end - r.start).days <= 1:
            words.append(f"{r.start.day} {r.start.strftime('%B %Y')}")
        elif (r.end - r.start).days <= 31:
            words.append(r.start.strftime("%B %Y"))
    return " ".join(dict.fromkeys(words))


def temporal_factor(
    record: MemoryRecord, ranges: Sequence[TimeRange], when: bool, tuning: RecallTuning
) -> float:
    """The multiplier the temporal step gives one memory."""
    f = 1.0
    if ranges and tuning.temporal_boost:
        mine = event_ranges(record)
        if any(a.overlaps(b) for a in mine for b in ranges):
            f *= 1.0 + tuning.temporal_boost
    if when and tuning.when_boost and has_time_expression(record.content):
        f *= 1.0 + tuning.when_boost
    return f


def seed_terms(seeds: Sequence[MemoryRecord], query_terms: Sequence[str], limit: int) -> list[str]:
    """Words of the seed memories that the query does not have (speakers' names excluded: they
    are everywhere in a conversation)."""
    skip = set(query_terms)
    for r in seeds:
        speaker = r.metadata.get("speaker") if isinstance(r.metadata, dict) else None
        if isinstance(speaker, str):
            skip.update(content_terms(speaker))
    out: list[str] = []
    for r in seeds:
        for t in content_terms(r.content):
            if t not in skip and len(t) > 2 and not t.isdigit() and t not in out:
                out.append(t)
    return out[:limit]


def merge_rounds(
    first: Sequence[tuple[str, float]], second: Sequence[tuple[str, float]], weight: float
) -> list[tuple[str, float]]:
    """First-round scores plus ``weight`` times the second round's (scaled so its best is 1)."""
    if not second or weight <= 0:
        return list(first)
    best = max(s for _, s in second) or 1.0
    scores = dict(first)
    for i, s in second:
        scores[i] = scores.get(i, 0.0) + weight * (s / best)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def diversify(
    ranked: Sequence[tuple[str, float]], texts: dict[str, str], limit: int, penalty: float
) -> list[tuple[str, float]]:
    """Greedy MMR over ``ranked``: each pick maximises score - penalty * max word overlap (Jaccard)
    with what was picked; the rest follow in their order."""
    if penalty <= 0 or len(ranked) <= 1:
        return list(ranked)
    words = {i: set(content_terms(texts.get(i, ""))) for i, _ in ranked}
    pool = list(ranked)
    top = max(s for _, s in pool) or 1.0
    picked: list[tuple[str, float]] = []
    while pool and len(picked) < limit:
        best_j, best_v = 0, float("-inf")
        for j, (i, s) in enumerate(pool):
            overlap = max((_jaccard(words[i], words[p]) for p, _ in picked), default=0.0)
            v = s / top - penalty * overlap
            if v > best_v:
                best_j, best_v = j, v
        picked.append(pool.pop(best_j))
    return picked + pool


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
