"""Word lists as data: one folder per language (``data/<lang>/<name>.json``), read once.

:class:`Lexicon` is the one loader every layer's word data goes through (the text layer's own
stop words, weekday and month names here; the language readers', the PII finders' and the
summary's through their own instance over their own folder). A reader asks for a field and gets
every language's entries in :meth:`Lexicon.languages` order (a new language is a new folder), or one
language's; ``data/<name>.json`` holds what is no one language's.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = ["DATA_DIR", "Lexicon", "languages", "table", "words"]


class Lexicon:
    """The data files below one folder; each file is read once (a malformed one fails on first use)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.languages = cache(self._languages)
        self.table = cache(self._table)
        self.shared = cache(self._shared)

    def _languages(self) -> tuple[str, ...]:
        """The languages with a folder of data, in the order their words are merged."""
        return tuple(
            sorted(
                p.name for p in self.data_dir.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
            )
        )

    def _table(self, lang: str, name: str) -> dict[str, Any]:
        """``<lang>/<name>.json`` (empty when the language has none)."""
        path = self.data_dir / lang / f"{name}.json"
        if not path.exists():
            return {}
        return _object(path)

    def _shared(self, name: str) -> dict[str, Any]:
        """``<name>.json``: what is no one language's."""
        return _object(self.data_dir / f"{name}.json")

    def words(self, name: str, field: str, lang: str | None = None) -> tuple[str, ...]:
        """The entries of ``field`` in table ``name``: every language's in order, or ``lang``'s."""
        langs = self.languages() if lang is None else (lang,)
        return tuple(w for lg in langs for w in self.table(lg, name).get(field, ()))


def _object(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object")
    return data


_TEXT = Lexicon(DATA_DIR)
languages = _TEXT.languages
table = _TEXT.table
words = _TEXT.words
