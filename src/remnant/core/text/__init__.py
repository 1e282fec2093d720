"""Text shared by the lexical index and every query path: normalisation, CJK scripts, stop words.

``scripts``: the one table of Han / kana / hangul ranges and the predicates built from it.
``normalise``: NFKC, CJK bigrams, the index text of a memory and the terms / FTS5 expression of a query.
``stopwords``: the stop-word lists.
"""

from __future__ import annotations

from remnant.core.text.normalise import (
    cjk_bigrams,
    fold,
    fts_match,
    index_text,
    match_expression,
    match_term,
    normalize,
    query_terms,
    tokens,
)
from remnant.core.text.placeholders import PLACEHOLDER
from remnant.core.text.scripts import (
    CJK_CLASS,
    HAN_CLASS,
    HANGUL_CLASS,
    KANA_CLASS,
    SCRIPT_RANGES,
    Script,
    ScriptRange,
    has_cjk,
    has_han,
    is_cjk,
    is_han,
    is_hangul,
    is_kana,
    script_of,
)
from remnant.core.text.stopwords import RANKING_STOPWORDS, STOPWORDS

__all__ = [
    "CJK_CLASS",
    "HANGUL_CLASS",
    "HAN_CLASS",
    "KANA_CLASS",
    "PLACEHOLDER",
    "RANKING_STOPWORDS",
    "SCRIPT_RANGES",
    "STOPWORDS",
    "Script",
    "ScriptRange",
    "cjk_bigrams",
    "fold",
    "fts_match",
    "has_cjk",
    "has_han",
    "index_text",
    "is_cjk",
    "is_han",
    "is_hangul",
    "is_kana",
    "match_expression",
    "match_term",
    "normalize",
    "query_terms",
    "script_of",
    "tokens",
]
