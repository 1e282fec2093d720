"""Text helpers shared by the lexical index and queries: words, CJK bigrams, stopwords.

SQLite's ``unicode61`` tokenizer treats a run of Chinese characters as one token, so the indexed
text gets CJK bigrams appended (``我喜欢`` → ``我喜 喜欢``) and queries are cut the same way; Chinese
then matches by substring, which is how Chinese readers search.
"""

from __future__ import annotations

import re
import unicodedata

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HAS_CJK = re.compile(f"[{_CJK}]")

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "did",
        "does",
        "done",
        "got",
        "get",
        "gets",
        "also",
        "ever",
        "really",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
    ]
)


def cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def index_text(content: str) -> str:
    """The text to put in the lexical index for ``content`` (NFKC, plus CJK bigrams)."""
    text = unicodedata.normalize("NFKC", content)
    runs = _CJK_RUN.findall(text)
    if not runs:
        return text
    grams = [g for run in runs for g in cjk_bigrams(run)]
    return text + "\n" + " ".join(grams)


def query_terms(query: str, *, drop_stopwords: bool = True) -> list[str]:
    """Lower-cased search terms of a query: words minus stopwords, CJK runs as bigrams."""
    text = unicodedata.normalize("NFKC", query).lower()
    terms: list[str] = []
    for run in _CJK_RUN.findall(text):
        terms.extend(cjk_bigrams(run))
    text = _CJK_RUN.sub(" ", text)
    for word in _WORD.findall(text):
        if drop_stopwords and word in STOPWORDS:
            continue
        terms.append(word)
    if not terms and drop_stopwords:
        return query_terms(query, drop_stopwords=False)
    seen: dict[str, None] = {}
    for t in terms:
        seen.setdefault(t, None)
    return list(seen)


def fts_match(query: str) -> str | None:
    """An FTS5 MATCH expression: any of the query's terms (bm25 ranks those with more, rarer terms first)."""
    terms = query_terms(query)
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms[:64])


def has_cjk(text: str) -> bool:
    return bool(_HAS_CJK.search(text))
