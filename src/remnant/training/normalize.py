"""Normalising claim keys and values so that "15 req/s", "15" and "１５" compare equal, "1 s" equals
"1000 ms", and "Max_Concurrency" is the same attribute as "max concurrency"."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

_SPACE = re.compile(r"\s+")
_KEY_PUNCT = re.compile(r"[_\-–—:：·\"'“”‘’`]+")
_NUMBER = re.compile(r"^([-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+)\s*(.*)$")

_DATA = Path(__file__).resolve().parent / "data"


@cache
def _names(lang: str) -> dict[str, Any]:
    """``data/<lang>/units.json``: one language's unit names and multipliers, read once."""
    path = _DATA / lang / "units.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else {}


_LANGS = tuple(sorted(p.name for p in _DATA.iterdir() if p.is_dir()))
# unit -> (dimension, factor to the dimension's base unit); the names each unit is written with are data
_DIMENSIONS: tuple[tuple[str, str, float], ...] = (
    ("byte", "bytes", 1.0),
    ("kilobyte", "bytes", 1024.0),
    ("megabyte", "bytes", 1024.0**2),
    ("gigabyte", "bytes", 1024.0**3),
    ("terabyte", "bytes", 1024.0**4),
    ("nanosecond", "seconds", 1e-9),
    ("microsecond", "seconds", 1e-6),
    ("millisecond", "seconds", 1e-3),
    ("second", "seconds", 1.0),
    ("minute", "seconds", 60.0),
    ("hour", "seconds", 3600.0),
    ("day", "seconds", 86400.0),
    ("percent", "percent", 1.0),
    ("hertz", "hertz", 1.0),
    ("kilohertz", "hertz", 1e3),
    ("megahertz", "hertz", 1e6),
    ("gigahertz", "hertz", 1e9),
)
_UNITS: dict[str, tuple[str, float]] = {
    name: (dim, factor)
    for unit, dim, factor in _DIMENSIONS
    for lang in _LANGS
    for name in _names(lang).get("units", {}).get(unit, ())
}
_MULTIPLIERS: dict[str, float] = {
    k: float(v) for lang in _LANGS for k, v in _names(lang).get("multipliers", {}).items()
}


def normalize_text(text: str) -> str:
    """NFKC (full-width to half-width), casefold, collapse whitespace."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def normalize_key(text: str) -> str:
    """Entity/attribute key: like :func:`normalize_text`, and ``_``/``-``/quotes become spaces."""
    return _SPACE.sub(" ", _KEY_PUNCT.sub(" ", normalize_text(text))).strip()


@dataclass(frozen=True)
class NormalizedValue:
    """A comparable form of a value: a number in a base unit, or normalised text."""

    dimension: str  # "bytes", "seconds", ... ; "number" for unitless or unknown-unit; "text"
    number: float | None
    text: str

    @property
    def key(self) -> tuple[str, str]:
        if self.number is not None:
            # 12 significant digits: 1 s and 1000 ms match, float noise does not split them
            return (self.dimension, f"{self.number:.12g}")
        return ("text", self.text)


def normalize_value(value: object) -> NormalizedValue:
    """Turn a raw value into a :class:`NormalizedValue`.

    Numbers keep their magnitude in the unit's base (bytes use 1024 steps, as manuals do).
    Unknown unit words ("connections", "req/s", "个") are treated as labels and dropped, so
    "15 connections" equals "15"; this errs towards finding conflicts on the number.
    """
    if isinstance(value, bool):
        return NormalizedValue("text", None, str(value).lower())
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return NormalizedValue("text", None, str(value))
        return NormalizedValue("number", float(value), "")
    text = normalize_text(str(value))
    match = _NUMBER.match(text)
    if not match:
        return NormalizedValue("text", None, text)
    number = float(match.group(1).replace(",", ""))
    rest = match.group(2).strip()
    if rest and rest[0] in _MULTIPLIERS and (len(rest) == 1 or not rest[1].isalpha()):
        # "10k", "10k req/s" or "10万"; "10 kb" or "10 min" have a letter next and are units
        number *= _MULTIPLIERS[rest[0]]
        rest = rest[1:].strip()
    numerator, _, denominator = rest.partition("/")
    numerator, denominator = numerator.strip(), denominator.strip()
    dim, factor = _UNITS.get(numerator, ("number", 1.0))
    if denominator:
        # a rate ("5 MB/s", "15 req/s", "900 次/分钟"): per-unit converted to the base unit too
        per_dim, per_factor = _UNITS.get(denominator, (denominator, 1.0))
        return NormalizedValue(f"{dim}/{per_dim}", number * factor / per_factor, "")
    return NormalizedValue(dim, number * factor, "")


def same_value(a: object, b: object) -> bool:
    return normalize_value(a).key == normalize_value(b).key
