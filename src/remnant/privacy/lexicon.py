"""The PII finders' words: data files, one folder per language (``data/<lang>/<name>.json``), and
``data/<name>.json`` for what is no one language's (top-level domains). Each file is read once."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = ["DATA_DIR", "languages", "shared", "table", "words"]


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
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else {}


@cache
def shared(name: str) -> dict[str, Any]:
    """``data/<name>.json``: words that are no one language's."""
    return dict(json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8")))


def words(name: str, field: str, lang: str | None = None) -> tuple[str, ...]:
    """The entries of ``field`` in table ``name``: every language's in order, or ``lang``'s."""
    return tuple(
        w for lg in (languages() if lang is None else (lang,)) for w in table(lg, name).get(field, ())
    )
