"""What reinforces a memory, and by how much: use strengthens, being merely seen does not.

- ``review`` (:meth:`Memory.review`): spaced repetition, the strongest (+0.3 strength, stability
  × ``1 + 2·(1 − R)`` by default).
- ``use`` (:meth:`Memory.used`, and what a context builder packs into a prompt): the application
  put the memory to work (+0.2, stability × ``1 + 1·(1 − R)``).
- ``recall`` (:meth:`Memory.recall` with ``touch``): the weakest (+0.1, × ``1 + 0.5·(1 − R)``), and
  only for hits that clear the relevance bar below: the hit shares more than half of the query's
  content words (stop words removed, a crude stem; CJK bigrams count). The noun a question asks
  for ("which *sport* do I do on Saturdays?", "what is my *job*?", 学什么*语言*) names the type of
  the answer, which the answer seldom repeats ("I go rowing"), so it is not counted when the
  question has other words; neither are the CJK bigrams made of the question word (什么, 哪个). An
  empty query (the
  "strongest memories" listing) reinforces nothing, and neither does a hit that merely shares a
  word with an unrelated question: in an agent loop that recalls every turn, whatever keeps
  showing up must still fade unless it is used. The user's id ("where does Ana live?") does not
  count as a word of the query, and a recall restricted to ``keys`` reinforces what it returns (the
  application asked for exactly that). A paraphrase hit the application then uses is reinforced
  by :meth:`Memory.used`.
- ``repeat`` (a duplicate write: :meth:`Memory.remember`, ``remember_many`` or ``add`` of text the
  user already has, see :meth:`~remnant.engine.ledger.Ledger.insert`): a review (+0.3, stability ×
  ``1 + 2·(1 − R)``) whose stability gain is at least ``repeat_min_gain`` (0.5: × 1.5), since a
  repeat right after the first mention is evidence the turn matters even though a review then adds
  nothing; and never weaker than the repeat stored as a new memory would be (strength and
  stability each at least the new memory's).

The boosts and gains are :class:`~remnant.core.decay.DecayConfig` fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from remnant.core.text import query_terms
from remnant.core.text.scripts import HAN_CLASS
from remnant.understand import lexicon

# The words are each language's data (understand/data/<lang>/relevance.json), read once.
_SUFFIXES = lexicon.words("relevance", "stem_suffixes")
# irregular forms a question and its answer often differ by ("where did I grow up?" / "I grew up")
_IRREGULAR: dict[str, str] = lexicon.mapping("relevance", "irregular")


def _stem(word: str) -> str:
    """A crude English stem (allergy/allergic, drinks/drink, grew/grow): good enough for "shares a
    word"."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if not word.isascii() or len(word) <= 4:
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _terms(text: str) -> set[str]:
    return {_stem(t) for t in query_terms(text) if not re.fullmatch(r"\d{1,2}", t)}


# The noun a question asks for: "which sport do I …", "what kind of car does my …", "what is my job?",
# 学什么语言 (only at the end of its clause: in "what is my dog called?" the dog is the subject, not
# the type).
_AUX = "(?:" + "|".join(lexicon.words("relevance", "aux")) + ")"
# one alternation, as one pattern scans: a match consumes its words for the next
_ASKED_TYPE = re.compile(
    "|".join(
        p.replace("{aux}", _AUX).replace("{han}", HAN_CLASS) for p in lexicon.words("relevance", "asked_type")
    ),
    re.IGNORECASE,
)
_QUESTION_CHARS = frozenset(lexicon.words("relevance", "question_chars"))


def _question_form(query: str, wanted: set[str]) -> set[str]:
    """The terms of ``query`` that say what kind of answer it wants rather than what it is about:
    the asked-for noun, and CJK bigrams holding a question word (no answer contains those)."""
    form = {t for t in wanted if len(t) == 2 and any(ch in _QUESTION_CHARS for ch in t)}
    for m in _ASKED_TYPE.finditer(query):
        form.add(_stem(next(g for g in m.groups() if g).lower()))
    return form & wanted


@dataclass(frozen=True)
class ReinforcementPolicy:
    """Which recall hits a recall reinforces: those that share more than ``min_coverage`` of the
    query's content words (so a two-word question needs both, a four-word one three).
    ``min_coverage=0`` reinforces every hit of a non-empty query, as Remnant 0.1 did."""

    min_coverage: float = 0.5

    def recall_reinforces(self, query: str, content: str, *, ignore: Iterable[str] = ()) -> bool:
        """``ignore``: query words that say whose memory it is (the user's id, often their name:
        "where does Ana live?"), not what it is about."""
        if not query.strip():
            return False
        if self.min_coverage <= 0:
            return True
        wanted = _terms(query) - {_stem(w.lower()) for w in ignore}
        said = _terms(content)
        # the question's form counts only where the answer repeats it ("which school…" / "… School");
        # a question that is only its type ("which school?") must share it
        about = wanted - (_question_form(query, wanted) - said)
        wanted = about or wanted
        shared = len(wanted & said)
        return shared >= 1 and shared > self.min_coverage * len(wanted)
