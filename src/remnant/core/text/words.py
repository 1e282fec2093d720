"""The text layer's word lists: data files, one folder per language (``data/<lang>/<name>.json``).

Stop words, weekday and month names live there, not in code; each file is read once. A reader asks
for a field and gets every language's entries in :func:`languages` order (a new language is a new
folder).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = ["DATA_DIR", "languages", "table", "words"]


@cache
def languages() -> tuple[str, ...]:
    """The languages with a folder of data, in the order their words are merged."""
    return tuple(
        sorted(p.name for p in DATA_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    )


@cache
def table(lang: str, name: str) -> dict[str, Any]:
    """``data/<lang>/<name>.json`` (empty when the language has none)."""
    path = DATA_DIR / lang / f"{name}.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object")
    return data


def words(name: str, field: str, lang: str | None = None) -> tuple[str, ...]:
    """The entries of ``field`` in table ``name``: every language's in order, or ``lang``'s."""
    return tuple(
        w for lg in (languages() if lang is None else (lang,)) for w in table(lg, name).get(field, ())
    )
