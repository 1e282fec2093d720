"""The summary's words: ``data/<lang>/summary.json``, one folder per language, each read once."""

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
def table(lang: str) -> dict[str, Any]:
    """``data/<lang>/summary.json`` (empty when the language has none)."""
    path = DATA_DIR / lang / "summary.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else {}


def words(field: str, lang: str | None = None) -> tuple[str, ...]:
    """The entries of ``field``: every language's in order, or ``lang``'s."""
    return tuple(w for lg in (languages() if lang is None else (lang,)) for w in table(lg).get(field, ()))
