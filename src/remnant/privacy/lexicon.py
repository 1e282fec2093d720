"""The PII finders' words: data files, one folder per language (``data/<lang>/<name>.json``), and
``data/<name>.json`` for what is no one language's (top-level domains). Each file is read once
(through the text layer's one loader, :class:`remnant.core.text.words.Lexicon`)."""

from __future__ import annotations

from pathlib import Path

from remnant.core.text.words import Lexicon

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = ["DATA_DIR", "languages", "shared", "table", "words"]

_LEXICON = Lexicon(DATA_DIR)
languages = _LEXICON.languages
table = _LEXICON.table
shared = _LEXICON.shared
words = _LEXICON.words
