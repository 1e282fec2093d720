"""How much a conversation turn matters, offline: salience from cues of what people mean to keep.

A turn that discloses something about the speaker (where they live, work, what they are like),
states a plan or a date, names people and relationships, a preference or a habit, a number that
matters, a change of state, scores high; greetings, thanks, acknowledgements, weather and small
talk, and questions to the assistant that reveal nothing about the speaker score low. The score is
a logistic function of weighted cue counts (English and Chinese); :func:`salience` returns it
with the cues that fired, so an inspector can say why. No model, no LLM: deterministic and fast.

The weights were set by hand on the development turns in ``bench/eval/data/salience_dev.jsonl``;
the held-out turns in ``bench/heldout/salience.jsonl`` were written apart and are only read by
``remnant eval --suite salience``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from remnant.core.text import has_han

_DATA = Path(__file__).resolve().parent / "data"
_NEVER = r"(?!x)x"  # a cue a language has no pattern for (Chinese names have no capitals)


@cache
def _patterns(lang: str) -> dict[str, Any]:
    """``data/salience.<lang>.json``: one language's cue patterns, read once."""
    data: dict[str, Any] = json.loads((_DATA / f"salience.{lang}.json").read_text(encoding="utf-8"))
    return data


_I = re.compile(_patterns("en")["first_person"], re.I)
_ZH_I = re.compile(_patterns("zh")["first_person"])

# (name, weight): the score's weights, set by hand on the dev turns; the patterns are data
_CUE_WEIGHTS: tuple[tuple[str, float], ...] = (
    ("self_state", 1.6),
    ("preference", 1.4),
    ("habit", 1.3),
    ("plan_date", 1.3),
    ("people", 1.2),
    ("change", 1.2),
    ("number", 0.6),
    ("name", 0.5),
)
_FILLER_WEIGHTS: tuple[tuple[str, float], ...] = (
    ("greeting", -2.6),
    ("weather_smalltalk", -1.2),
    ("question_to_assistant", -1.4),
    ("meta", -1.0),
)


def _with_patterns(
    weights: tuple[tuple[str, float], ...], group: str
) -> tuple[tuple[str, float, str, str], ...]:
    """(name, weight, English pattern, Chinese pattern) for each cue of ``group``."""
    en, zh = _patterns("en")[group], _patterns("zh")[group]
    return tuple((name, weight, en.get(name, _NEVER), zh.get(name, _NEVER)) for name, weight in weights)


_CUES = _with_patterns(_CUE_WEIGHTS, "cues")
_FILLER = _with_patterns(_FILLER_WEIGHTS, "filler")

_BIAS = -1.2


@dataclass(frozen=True)
class Salience:
    """A turn's salience in [0, 1] and the cues that decided it."""

    score: float
    cues: tuple[str, ...]


def _count(pattern: str, text: str, flags: int = re.I) -> int:
    return len(re.findall(pattern, text, flags))


def salience(text: str, *, role: str = "user") -> Salience:
    """How much ``text`` matters for a month (see the module docstring). Assistant turns score
    lower: what the assistant said is recoverable; what the user disclosed is not."""
    stripped = text.strip()
    if not stripped:
        return Salience(0.0, ())
    z = _BIAS
    cues: list[str] = []
    zh = has_han(stripped)
    first_person = bool((_ZH_I if zh else _I).search(stripped)) or bool(_ZH_I.search(stripped))
    for name, weight, en, zh_pat in _CUES:
        # capitals carry the meaning of the name cue: matched case-sensitively
        n = _count(en, stripped, 0 if name == "name" else re.I) + _count(zh_pat, stripped, 0)
        if n:
            # a cue about someone else (plans, people) still matters; about nothing in particular less
            z += weight * min(n, 2) ** 0.5
            cues.append(name)
    for name, weight, en, zh_pat in _FILLER:
        if re.search(en, stripped, re.I) or re.search(zh_pat, stripped):
            z += weight
            cues.append(name)
    if first_person:
        z += 0.8
        cues.append("first_person")
    words = len(stripped.split()) if not zh else len(stripped) / 2
    if words <= 2 and "greeting" not in cues:
        z -= 0.8
        cues.append("very_short")
    if role != "user":
        z -= 1.5
        cues.append("assistant_turn")
    return Salience(1.0 / (1.0 + math.exp(-z)), tuple(cues))
