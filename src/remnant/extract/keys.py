"""Key normalisation: many ways of naming the same attribute map to one snake_case key.

Supersession works by key, so "my mobile is…", "my phone number is…" and 我的手机号是… must
all land on ``phone_number``; "favourite colour" and 最喜欢的颜色 on ``preferred_color``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

from remnant.core.text import CJK_CLASS

_DATA = Path(__file__).resolve().parent / "data"
_LANGS = ("en", "zh")


@cache
def _table(lang: str) -> dict[str, Any]:
    """``data/keys.<lang>.json``: one language's names of attributes, read once."""
    data: dict[str, Any] = json.loads((_DATA / f"keys.{lang}.json").read_text(encoding="utf-8"))
    return data


def _merged(field: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for lang in _LANGS:
        for k, v in _table(lang).get(field, {}).items():
            out.setdefault(k, v)
    return out


# Spelling variants folded before matching (British -> American, plural noise), in the data's order.
_SPELLING = _merged("spelling")

# Canonical keys for common attribute names (every language's).
CANONICAL: dict[str, str] = _merged("canonical")

_ARTICLES = frozenset(w for lang in _LANGS for w in _table(lang).get("articles", ()))
# a name that says it is a favourite: "favorite_drink", 最喜欢的饮料 -> preferred_drink
_PREFERRED = tuple(p for lang in _LANGS for p in _table(lang).get("preferred_prefixes", ()))
_NON_WORD = re.compile(rf"[^0-9a-z{CJK_CLASS}]+")


def slug(text: str, *, max_words: int = 4) -> str:
    """snake_case a free phrase: lowercase, ASCII words and CJK kept, articles dropped."""
    folded = unicodedata.normalize("NFKC", text).lower()
    for variant, canon in _SPELLING.items():
        folded = folded.replace(variant, canon)
    words = [w for w in _NON_WORD.split(folded) if w and w not in _ARTICLES]
    return "_".join(words[:max_words])


def normalise_key(name: str) -> str:
    """Canonical key for an attribute name: ``"Favourite Colour"`` -> ``preferred_color``.

    Unknown names become their snake_case slug; ``favorite_x`` becomes ``preferred_x`` so that
    "my favourite drink is…" and "I prefer … to drink" meet on one key. Raises ValueError when
    nothing usable remains.
    """
    key = slug(name, max_words=5)
    if not key:
        raise ValueError(f"cannot build a key from {name!r}")
    if key in CANONICAL:
        return CANONICAL[key]
    for prefix in _PREFERRED:
        if key.startswith(prefix):
            rest = key.removeprefix(prefix)
            return "preferred_" + CANONICAL.get(rest, rest).removeprefix("preferred_") if rest else key
    return key
