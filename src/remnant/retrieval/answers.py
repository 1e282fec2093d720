"""What kind of answer a question asks for: the answer-type reading of the learned ranker.

A question's wh-shape says which entity kinds of the entity index answer it ("who" a person or a
name, "where" a place or an organisation, "when" a date, "how many" a quantity), and its answer's
head noun says what the answer is ("what activities has Melanie done?" asks for activities,
"which books" for books). :func:`read_answer` reads both from the question alone, with the
per-language data of ``retrieval/data/answers.*.json`` (the question words, the frames a head noun
follows, the words that end it); nothing here knows a word of any language. One pass over the
question's words, each step bounded by the longest phrase of the data: linear in the question.
The ranker's ``answer_entity`` and ``answer_head`` features (remnant.retrieval.ranker) use it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from remnant.core.text import HAN_CLASS

_DATA = Path(__file__).resolve().parent / "data"
# the most words a head noun phrase keeps ("musical artists", "lgbtq events")
MAX_HEAD_WORDS = 3
# a question is read from its first this many characters (bounded work on a pasted document)
MAX_QUESTION_CHARS = 1000

_WORD = re.compile(r"\w+(?:['’]\w*)?")
_HAN = re.compile(f"[{HAN_CLASS}]")


@dataclass(frozen=True)
class AnswerType:
    """What a question asks for: the entity kinds that answer it (empty: the question does not
    say) and its answer's head noun phrase ("" when it has none)."""

    kinds: frozenset[str] = frozenset()
    head: str = ""


@dataclass(frozen=True)
class _Lang:
    wh_kinds: Mapping[tuple[str, ...], frozenset[str]]
    frames: frozenset[tuple[str, ...]]
    skip: frozenset[str]
    stop: frozenset[str]
    head_kinds: Mapping[str, frozenset[str]]
    longest: int


def _load(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((_DATA / f"answers.{lang}.json").read_text(encoding="utf-8"))
    return data


@cache
def _lang(lang: str) -> _Lang:
    d = _load(lang)
    split = (lambda p: tuple(p.split())) if lang == "en" else (lambda p: (p,))
    wh = {split(p): frozenset(k) for p, k in d["wh_kinds"].items()}
    frames = frozenset(split(p) for p in d.get("head_frames", ()))
    return _Lang(
        wh,
        frames,
        frozenset(d.get("head_skip", ())),
        frozenset(d.get("head_stop", ())),
        {w: frozenset(k) for w, k in d.get("head_kinds", {}).items()},
        max(len(p) for p in (*wh, *frames)),
    )


def read_answer(question: str, names: Iterable[str] = ()) -> AnswerType:
    """The answer type of ``question``; ``names`` (lower case: the scope's speakers) end a head
    noun phrase and are never one."""
    text = question[:MAX_QUESTION_CHARS]
    if _HAN.search(text):
        return _read_chinese(text)
    return _read_english(text, frozenset(names))


def _read_chinese(text: str) -> AnswerType:
    zh = _lang("zh")
    for (phrase,) in sorted(zh.wh_kinds, key=lambda p: -len(p[0])):
        if phrase in text:
            return AnswerType(zh.wh_kinds[(phrase,)])
    return AnswerType()


def _read_english(text: str, names: frozenset[str]) -> AnswerType:
    en = _lang("en")
    words = [w.replace("’", "'") for w in _WORD.findall(text.casefold())]
    kinds: frozenset[str] = frozenset()
    head_at = -1
    # the first question word: the longest phrase of the data that starts there
    for i in range(len(words)):
        span = range(min(en.longest, len(words) - i), 0, -1)
        kind = next((tuple(words[i : i + n]) for n in span if tuple(words[i : i + n]) in en.wh_kinds), None)
        frame = next((i + n for n in span if tuple(words[i : i + n]) in en.frames), -1)
        if kind is not None or frame >= 0:
            kinds = en.wh_kinds.get(kind, frozenset()) if kind is not None else frozenset()
            head_at = frame
            break
    if head_at < 0:
        return AnswerType(kinds)
    head: list[str] = []
    k = head_at
    # "what are Melanie's pets' names": the verb, articles and the owner's name come before the head
    while k < len(words) and not head and (words[k] in en.skip or words[k].endswith("'s")):
        k += 1
    while k < len(words) and len(head) < MAX_HEAD_WORDS:
        w = words[k].rstrip("'")
        if w in en.stop or w in names or words[k].endswith("'s") or not w.isalpha():
            break
        head.append(w)
        k += 1
    if head and head[-1] in en.head_kinds:
        kinds = kinds | en.head_kinds[head[-1]]
    return AnswerType(kinds, " ".join(head))
