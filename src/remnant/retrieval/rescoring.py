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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

import numpy as np

from remnant.core.model import MemoryRecord
from remnant.core.text.scripts import has_cjk
from remnant.retrieval.fusion import minmax
from remnant.retrieval.query import STOPWORDS, content_terms, question_cues, words
from remnant.understand.timeexpr import MONTHS, WEEKDAYS, TimeRange, has_time_expression, resolve

# a question that asks for a time ("when …", 什么时候): retrieval/data/questions.<lang>.json
_WHEN = re.compile(
    r"^\s*("
    + "|".join(question_cues("when_openers", "en"))
    + r")\b|"
    + "|".join(question_cues("when_words", "zh"))
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
    vector_feedback: float = 0.0  # weight of a vector round whose query is the question + the seeds' vectors
    session_cap: int = 0  # at most this many of the top ``limit`` from one session (0: no cap)
    strip_names: bool = False  # the vector half's query leaves out the capitalised words (names)
    strip_speakers: bool = False  # the vector half's query leaves out the scope's speakers' names
    speaker_vector_weight: float = (
        0.0  # the vector half's fusion weight when strip_speakers took a name out (0: the fusion's)
    )
    # weight of the entity round (remnant.retrieval.entities): memories naming the question's or its
    # first hits' people, places, organisations, products (0: off)
    entity_weight: float = 0.0
    # the speaker round: per speaker the question names (at most two), this many of that speaker's
    # memories nearest the question's vector, and as many best by BM25 of its other words, join
    # the learned ranker's candidates beside the fused head (0: off; the fixed weights never see
    # them). Multi-hop evidence is mostly the named speaker's turns that share nothing else with
    # the question: the scope-wide lists rank them past the head (docs/retrieval.md)
    speaker_round: int = 0


# A capitalised word (a name, mostly: "Caroline", "Caroline's", "LGBTQ"), but not "I", "I'm".
_CAPITALISED = re.compile(r"\b(?!I\b|I['’])[A-Z][\w'’-]*")


def without_names(query: str) -> str:
    """The question without its capitalised words (the first word only when it is not a stop
    word: "What", "When" stay), for the vector half. In a memory of conversations, the people
    named are in most memories (every turn is someone's), so their names in the query vector pull
    it towards everything they said; the lexical half and the speaker boost still use the names,
    the vector half looks for the rest. The query itself when nothing else would be left."""

    def drop(m: re.Match[str]) -> str:
        word = m.group(0).lower()
        if (m.start() == 0 and word in STOPWORDS) or word in MONTHS or word in WEEKDAYS:
            return m.group(0)  # "What ..." at the start; months and weekdays are not names
        return ""

    out = re.sub(r"\s+", " ", _CAPITALISED.sub(drop, query)).strip()
    return out if any(w not in STOPWORDS for w in words(out)) else query


def speaker_names(speakers: Iterable[str]) -> frozenset[str]:
    """The words :func:`without_speakers` removes for these speakers: each speaker's name and, for a
    name of several words ("Caroline Smith"), each of its words that is not a stop word (a question
    says "Caroline"); case-folded. CJK names are kept whole (no spaces to split at)."""
    out: set[str] = set()
    for s in speakers:
        name = " ".join(s.split()).casefold()
        if not name:
            continue
        out.add(name)
        if not has_cjk(name):
            out.update(w for w in words(name) if len(w) > 1 and w not in STOPWORDS)
    return frozenset(out)


@lru_cache(maxsize=256)
def _speaker_pattern(names: frozenset[str]) -> re.Pattern[str] | None:
    """One regex for the non-CJK names (longest first, so "caroline smith" wins over "caroline"),
    compiled once per scope's set of names."""
    latin = sorted((n for n in names if not has_cjk(n)), key=lambda n: (-len(n), n))
    if not latin:
        return None
    alternatives = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in latin)
    return re.compile(r"\b(" + alternatives + r")(?:['’]s?)?\b", re.IGNORECASE)


def without_speakers(query: str, names: frozenset[str]) -> str:
    """The question without the names of the people whose words the scope holds (``names``, from
    :func:`speaker_names`), for the vector half. Every one of their memories starts with their name
    ("Caroline: ..."), so a name in the query vector pulls it towards everything they said; other
    names ("Harry Potter", "NYC", a friend who never speaks) are content and stay, unlike
    :func:`without_names`. A possessive goes with the name ("Jon's" -> ""). A name that is also a
    stop word, month or weekday ("Will", "May") is removed only where it is capitalised. The
    query itself when nothing else would be left."""
    if not names:
        return query
    out = query
    pattern = _speaker_pattern(names)
    if pattern is not None:

        def drop(m: re.Match[str]) -> str:
            word = m.group(1).casefold()
            if (word in STOPWORDS or word in MONTHS or word in WEEKDAYS) and not m.group(1)[:1].isupper():
                return m.group(0)  # "will", "may" as words, not the names Will and May
            if m.start() == 0 and word in STOPWORDS:
                return m.group(0)  # "Will you ...": a question word at the start, not a name
            return ""

        out = pattern.sub(drop, out)
    for n in names:
        if has_cjk(n):
            out = out.replace(n, "")  # no word boundaries in CJK text
    out = re.sub(r"\s+([?,.!;:])", r"\1", re.sub(r"\s+", " ", out)).strip()
    return out if any(w not in STOPWORDS for w in words(out)) else query


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


def feedback_vector(query: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """The question's vector plus the mean of the seed memories' vectors (Rocchio feedback with
    equal weights), unit length: a query "about" what the first hits are about, so a second
    vector round finds turns that share their topic but none of the question's words."""
    q = np.asarray(query, dtype=np.float32).ravel()
    q = q / (float(np.linalg.norm(q)) or 1.0)
    if seeds.size == 0:
        return q
    m = np.asarray(seeds, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    out = q + (m / np.where(norms == 0, 1.0, norms)).mean(axis=0)
    return np.asarray(out / (float(np.linalg.norm(out)) or 1.0), dtype=np.float32)


def merge_scaled(
    first: Sequence[tuple[str, float]], second: Sequence[tuple[str, float]], weight: float
) -> list[tuple[str, float]]:
    """First-round scores plus ``weight`` times the second round's min-max-normalised scores (for
    cosines, which sit close together: dividing by the best would add nearly ``weight`` to all)."""
    if not second or weight <= 0:
        return list(first)
    scores = dict(first)
    for i, s in minmax(dict(second)).items():
        scores[i] = scores.get(i, 0.0) + weight * s
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def cap_sessions(
    ranked: Sequence[tuple[str, float]], sessions: Mapping[str, str | None], limit: int, cap: int
) -> list[tuple[str, float]]:
    """The top ``limit`` with at most ``cap`` memories of one session (memories without a session
    are not capped); what the cap passes over follows in its order. If too few sessions are
    ranked to fill ``limit``, the passed-over ones fill it."""
    if cap <= 0:
        return list(ranked)
    picked: list[tuple[str, float]] = []
    over: list[tuple[str, float]] = []
    count: dict[str, int] = {}
    for item in ranked:
        if len(picked) >= limit:
            over.append(item)
            continue
        sess = sessions.get(item[0])
        if sess is not None and count.get(sess, 0) >= cap:
            over.append(item)
            continue
        if sess is not None:
            count[sess] = count.get(sess, 0) + 1
        picked.append(item)
    return picked + over


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
