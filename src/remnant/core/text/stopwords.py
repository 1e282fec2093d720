"""The stop words of the lexical paths: function words that say nothing about which memory is meant.

The words are data (``data/<lang>/stopwords.json``), every language's merged."""

from __future__ import annotations

from remnant.core.text.words import words

# Used for FTS queries of the engine's plain lexical path, contradiction and forget-request matching.
STOPWORDS = frozenset(words("stopwords", "stopwords"))

# For ranking (the hybrid retriever's query analysis), adjusted by what LoCoMo measured (see the data).
RANKING_STOPWORDS = (STOPWORDS - frozenset(words("stopwords", "ranking_keeps"))) | frozenset(
    words("stopwords", "ranking_adds")
)
