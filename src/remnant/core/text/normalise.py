"""The text normaliser: what the lexical index holds for a memory and what a query searches for.

Both sides go through :func:`normalize` (NFKC), so full-width ``ＡＢＣ``/``１２３`` are ``ABC``/``123``,
half-width ``ｶﾀｶﾅ`` is ``カタカナ``, compatibility ideographs are their unified forms, and a
decomposed ``e`` + U+0301 is ``é``; the full-text engines fold case themselves (SQLite's
``unicode61``, PostgreSQL's dictionaries), query terms are lower-cased for stop words and dedup.

Han, kana and hangul have no spaces between words (or, in Korean, particles glued to them), so a
tokenizer would make a whole clause one token. Every CJK run (see :mod:`.scripts`) is therefore
cut into overlapping bigrams (``我喜欢`` → ``我喜 喜欢``, ``こんにちは`` → ``こん んに にち ちは``)
on both sides, and a query's lone CJK character is matched as a prefix (of a bigram, or of the
run's last character, which is indexed for that). Latin words glued
to a CJK run (``我用iPhone拍照``) are indexed on their own as well, since the tokenizer would not
split them off. Text without CJK is indexed as it is: English tokens are exactly the tokenizer's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from remnant.core.text.scripts import CJK_CLASS, has_cjk, is_cjk
from remnant.core.text.stopwords import STOPWORDS

_C = CJK_CLASS
# A CJK run, or a non-CJK word touching one (the tokenizer would keep it inside the run's token).
# a word before a run starts at a word's start and is taken whole (possessive): tried from every
# letter of a long word, the lookahead made this quadratic
_SEGMENT = re.compile(rf"(?P<run>[{_C}]+)|(?<=[{_C}])[^\W_{_C}]+|(?<![^\W_{_C}])[^\W_{_C}]++(?=[{_C}])")
_RUN = re.compile(f"[{_C}]+")
_WORD = re.compile(r"[^\W_]+")  # letters and digits; "_" separates, as in unicode61
_WORD_UNDERSCORE = re.compile(r"\w+")  # snake_case stays one term (an FTS5 phrase)


def normalize(text: str) -> str:
    """NFKC: the one Unicode form of indexed and query text."""
    return unicodedata.normalize("NFKC", text)


def fold(text: str) -> str:
    """Normalised and lower-cased: the form query terms are compared in."""
    return normalize(text).lower()


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of a CJK run (a single character stays itself)."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def index_text(content: str) -> str:
    """The text to put in the lexical index for ``content``.

    The normalised text, then (only if it has CJK) a line with each CJK run's bigrams and last
    character, and the words glued to those runs, in text order.
    """
    text = normalize(content)
    if not has_cjk(text):
        return text
    extra: list[str] = []
    for m in _SEGMENT.finditer(text):
        run = m.group("run")
        if run is not None:
            extra.extend(cjk_bigrams(run))
            if len(run) > 1:  # a one-character query matches as a bigram prefix, so the last
                extra.append(run[-1])  # character of a run needs a token that starts with it
        else:
            extra.append(m.group(0))
    return text + "\n" + " ".join(extra)


def tokens(text: str, *, split_underscores: bool = True) -> list[str]:
    """The lower-cased search tokens of ``text`` in order: words, and CJK runs as their bigrams.

    ``split_underscores=False`` keeps ``snake_case`` as one token (the hybrid retriever's analysis
    always did; the engine's lexical path splits it like the tokenizer does).
    """
    folded = fold(text)
    word = _WORD if split_underscores else _WORD_UNDERSCORE
    out: list[str] = []
    pos = 0
    for m in _RUN.finditer(folded):
        out.extend(word.findall(folded, pos, m.start()))
        out.extend(cjk_bigrams(m.group(0)))
        pos = m.end()
    out.extend(word.findall(folded, pos))
    return out


def query_terms(
    query: str,
    *,
    drop_stopwords: bool = True,
    stopwords: frozenset[str] = STOPWORDS,
    split_underscores: bool = True,
    limit: int | None = None,
) -> list[str]:
    """Distinct search terms of a query in order: tokens minus stop words (all kept if only those)."""
    toks = tokens(query, split_underscores=split_underscores)
    terms = [t for t in toks if t not in stopwords] if drop_stopwords else toks
    if not terms:
        terms = toks
    return list(dict.fromkeys(terms))[:limit]


def match_term(term: str) -> str:
    """One FTS5 term, quoted so no query syntax leaks; a lone CJK character matches as a bigram prefix
    (it cannot equal an indexed bigram)."""
    quoted = '"' + term.replace('"', '""') + '"'
    return quoted + "*" if len(term) == 1 and is_cjk(term) else quoted


def match_expression(terms: Iterable[str]) -> str:
    """An FTS5 MATCH string: the terms OR-ed (BM25 ranks memories with more, rarer terms first)."""
    return " OR ".join(match_term(t) for t in terms)


def fts_match(query: str, *, limit: int = 64) -> str | None:
    """The engine's FTS5 MATCH expression for a query (any of its terms), or None if it has none."""
    terms = query_terms(query, limit=limit)
    if not terms:
        return None
    return match_expression(terms)
