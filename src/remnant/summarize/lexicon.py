"""The summary's words: ``data/<lang>/summary.json``, one folder per language, each read once
(through the text layer's one loader, :class:`remnant.core.text.words.Lexicon`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remnant.core.text.words import Lexicon

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = ["DATA_DIR", "languages", "table", "words"]

_LEXICON = Lexicon(DATA_DIR)
languages = _LEXICON.languages


def table(lang: str) -> dict[str, Any]:
    """``data/<lang>/summary.json`` (empty when the language has none)."""
    return _LEXICON.table(lang, "summary")


def words(field: str, lang: str | None = None) -> tuple[str, ...]:
    """The entries of ``field``: every language's in order, or ``lang``'s."""
    return _LEXICON.words("summary", field, lang)
