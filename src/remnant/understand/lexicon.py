"""The readers' language knowledge: word lists and phrasings in data files, one folder per language.

``data/<lang>/<table>.json`` holds one language's words for a table (``requests``, ``topics``,
``scopes``, ``time``, ``families``); ``data/<table>.json``, where there is one, its
language-neutral structure (the attributes a request can name, their keys). A reader asks for a
field and gets every language's words in :func:`languages` order (a new language is a new folder,
found on first use), or one language's where its rule is that language's own (English words are
matched by token, Chinese phrases by substring). In any list, ``"@name"`` stands for a family of
phrasings of the same language (``families.json``: every ``lead + join + word``, each word with
every lead), so "I'm a nurse", "I am a nurse", "as a nurse" are one word of data.

Each file is read once and cached; a reader builds its tables at import, so a malformed file fails
at import, not in the middle of a request.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remnant.core.text.words import Lexicon

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = [
    "DATA_DIR",
    "entries",
    "grouped",
    "keyed",
    "languages",
    "mapping",
    "pairs",
    "shared",
    "table",
    "words",
]


_LEXICON = Lexicon(DATA_DIR)  # the text layer's one loader over this layer's folder
languages = _LEXICON.languages
table = _LEXICON.table
shared = _LEXICON.shared


def _expand(lang: str, items: list[str]) -> list[str]:
    out: list[str] = []
    for w in items:
        if not w.startswith("@"):
            out.append(w)
            continue
        family = table(lang, "families").get("families", {}).get(w[1:])
        if family is None:
            raise ValueError(f"data/{lang}: no family {w[1:]!r} in families.json")
        if "leads" in family:
            out.extend(
                lead + family.get("join", " ") + word for word in family["words"] for lead in family["leads"]
            )
        else:
            out.extend(family["words"])
    return out


def _langs(lang: str | None) -> tuple[str, ...]:
    return languages() if lang is None else (lang,)


def words(name: str, field: str, lang: str | None = None) -> tuple[str, ...]:
    """The words of ``field`` in table ``name``: every language's in order, or ``lang``'s."""
    return tuple(w for lg in _langs(lang) for w in _expand(lg, list(table(lg, name).get(field, ()))))


def entries(name: str, section: str, key: str, field: str, lang: str | None = None) -> tuple[str, ...]:
    """The words of one entry's field (``topics`` → ``phone_number`` → ``request_words``)."""
    return tuple(
        w
        for lg in _langs(lang)
        for w in _expand(lg, list(table(lg, name).get(section, {}).get(key, {}).get(field, ())))
    )


def mapping(name: str, field: str, lang: str | None = None) -> dict[str, Any]:
    """A mapping merged across languages in order (a later language adds keys, never replaces)."""
    out: dict[str, Any] = {}
    for lg in _langs(lang):
        for k, v in table(lg, name).get(field, {}).items():
            out.setdefault(k, v)
    return out


def pairs(name: str, field: str, lang: str | None = None) -> tuple[tuple[str, Any], ...]:
    """A list of ``[phrase, value]`` pairs, every language's in order."""
    return tuple((str(p), v) for lg in _langs(lang) for p, v in table(lg, name).get(field, ()))


def grouped(name: str, field: str, lang: str | None = None) -> dict[str, tuple[str, ...]]:
    """Named groups of words (``kinds`` → ``preference`` → words), each group's words merged across
    languages in order; groups in the order they first appear."""
    out: dict[str, list[str]] = {}
    for lg in _langs(lang):
        for k, ws in table(lg, name).get(field, {}).items():
            out.setdefault(k, []).extend(_expand(lg, list(ws)))
    return {k: tuple(ws) for k, ws in out.items()}


def keyed(name: str, field: str, key: str, lang: str | None = None) -> dict[str, Any]:
    """One entry's mapping (``values`` → ``diet`` → word: value), merged across languages in order."""
    out: dict[str, Any] = {}
    for lg in _langs(lang):
        for k, v in table(lg, name).get(field, {}).get(key, {}).items():
            out.setdefault(k, v)
    return out
