"""What reinforces a memory, and by how much: use strengthens, being merely seen does not.

- ``review`` (:meth:`Memory.review`): spaced repetition, the strongest (+0.3 strength, stability
  × ``1 + 2·(1 − R)`` by default).
- ``use`` (:meth:`Memory.used`, and what a context builder packs into a prompt): the application
  put the memory to work (+0.2, stability × ``1 + 1·(1 − R)``).
- ``recall`` (:meth:`Memory.recall` with ``touch``): the weakest (+0.1, × ``1 + 0.5·(1 − R)``), and
  only for hits that clear the relevance bar below. An empty query (the "strongest memories"
  listing) reinforces nothing, and neither does a hit that shares no content word with the query:
  in an agent loop that recalls every turn, whatever keeps showing up for unrelated questions must
  still fade. A paraphrase hit the application then uses is reinforced by :meth:`Memory.used`.

The boosts and gains are :class:`~remnant.core.decay.DecayConfig` fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from remnant.core.text import query_terms

_SUFFIXES = ("ies", "ing", "ed", "es", "ly", "ic", "y", "s")


def _stem(word: str) -> str:
    """A crude English stem (allergy/allergic, drinks/drink): good enough for "shares a word"."""
    if not word.isascii() or len(word) <= 4:
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _terms(text: str) -> set[str]:
    return {_stem(t) for t in query_terms(text) if not re.fullmatch(r"\d{1,2}", t)}


@dataclass(frozen=True)
class ReinforcementPolicy:
    """Which recall hits a recall reinforces. ``min_shared_terms``: content words (after stop-word
    removal and a crude stem; CJK bigrams count) a hit must share with the query; 0 reinforces
    every hit, as Remnant 0.1 did."""

    min_shared_terms: int = 1

    def recall_reinforces(self, query: str, content: str) -> bool:
        if self.min_shared_terms <= 0:
            return True
        if not query.strip():
            return False
        return len(_terms(query) & _terms(content)) >= self.min_shared_terms
