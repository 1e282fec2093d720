"""The correction reader: a turn that corrects a value the user gave a moment ago.

"I meant Tuesday not Thursday", "typo, it's 0412 not 0421", "scratch that, green was right after
all", 说错了，是周二, 不是周四，是周二 each correct a value of one of the user's recent memories. The
reader returns a :class:`~remnant.engine.options.Correction`: the memory that stated the wrong
value, the wrong value's span in it, the corrected value's span in the turn, and a confidence.

The words are data (``extract/data/<lang>/corrections.json``: markers, vetoes, negators, fillers, words that are no name,
the exact value shapes' word lists); this module holds only the mechanism:

1. a veto phrase ("I meant to", "not bad", "never mind", 对不对) or a question: no correction;
2. an explicit pair: ``X not Y``, ``not Y, (it's) X``, ``X instead of Y``, 是X不是Y, 不是Y，是X,
   X而不是Y. ``Y`` must occur in a recent memory; without a marker both must have the same exact
   shape (a weekday, a time, a number, a colour, a month);
3. a marker and a value alone ("scratch that, green", "actually 5pm", 说错了，是周二): the newest
   recent memory holding a different value of the same shape is the one corrected. Shapes: a
   date ("15 june", "may 19", "the 14th", 6月19号), a time, the data's word shapes, a code
   (CI033), a number; a shorter number replaces the tail of a longer one ("last 4 are 0412");
   of a memory's numbers the one of the same length is the mistyped one. Far from its marker, a
   value said as the answer ("... it's 22 june") corrects only a correction just made;
4. no shaped value, a strong marker: a name spelled anew ("its Dashaun", 是陈诗彤) corrects the memory that
   spells it nearly the same (one or two letters; one character of three or four);
5. none of the rules reads it, a marker (or, without one, a "not" whose object is a value a memory
   states): the *aligned step* pairs each run of the turn new to a memory (one to three words, one
   to four CJK characters; no marker, filler or function word at its edges) with each run of the
   memory the turn does not say (or says only after a "not") of the same shape class (digits, a
   code, CJK numerals, a CJK run, a word), describes each pairing by a handful of features
   (:data:`ALIGN_FEATURES`: marker strength and place, edit similarity, shared neighbours,
   whether the wrong value is repeated after a "not", ...) and takes the likeliest when a small
   logistic model (``extract/data/correction_align.json``, fitted leave-one-author-out on the
   supersession corpora by :mod:`remnant.extract.correction_fit`) puts it at or above its
   threshold. The rules stay first and their vetoes (step 1) stay guards.

Every step is linear in its input: the turn and each memory are read up to :data:`MAX_CHARS`, the
patterns are literal alternations and digit groups with a bounded count, no nested quantifier; the
aligned step reads at most :data:`_ALIGN_UNITS` units of the turn and of each of the
:data:`_ALIGN_MEMORIES` newest memories and pairs at most :data:`_ALIGN_RUNS` runs of each side.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from remnant.core.model import MemoryRecord
from remnant.core.text import CJK_CLASS, PLACEHOLDER
from remnant.engine.options import Correction

#: the folder of the language folders (``<lang>/corrections.json``); :func:`lexicon` reads it once
#: (the fit's word check points it at a copy, then clears the cache)
DATA_DIR = Path(__file__).with_name("data")
#: the characters of a turn, and of each recent memory, the reader looks at
MAX_CHARS = 2000
#: the most words (Latin) or characters (CJK) a value without a shape may have
_MAX_WORDS = 4
_MAX_CJK = 8
#: how far a value's clause reaches from its "not", and how many "not"s and values are tried: so
#: a turn of 2,000 "not"s costs what a turn of a few does
_WINDOW = 80
_MAX_TRIES = 8
#: a correction of a correction: the corrected fact is among this many newest memories
_FRESH = 2
#: metadata key of a corrected fact (engine.forgetting.correction.CORRECTS)
_CORRECTS = "corrects"
#: a turn with at most this many other words is only the correction (the engine retires it)
_LEFTOVER = 2
_CJK = re.compile(f"[{CJK_CLASS}]")
_PUNCT = ',.;:!，。；：！、\n()（）"“”'
_WORD = re.compile(f"[{CJK_CLASS}]|[^\\W{CJK_CLASS}]+")


@dataclass(frozen=True)
class Lexicon:
    """The words of every language folder, merged (a turn may mix languages)."""

    strong: frozenset[str]
    weak: frozenset[str]
    veto: frozenset[str]
    negators: frozenset[str]
    but: frozenset[str]
    instead: frozenset[str]
    filler: tuple[str, ...]  # longest first
    question: tuple[str, ...]
    question_final: tuple[str, ...]
    phrases: re.Pattern[str]  # markers and vetoes, longest first
    pairs: re.Pattern[str]  # negators and "instead of"
    buts: re.Pattern[str]
    covers: re.Pattern[str]  # what a turn that is only a correction holds besides its values
    shapes: tuple[tuple[str, re.Pattern[str], dict[str, str]], ...]  # (shape, pattern, word -> canonical)
    not_values: re.Pattern[str]  # digits that count, not values ("last 4")
    not_names: frozenset[str]  # capitalised words after a marker that are no name ("Sorry")
    function_words: frozenset[str]  # words no aligned value starts or ends with ("my", "her", 我)
    set_off_only: frozenset[str]  # weak markers the aligned step reads only when set off ("no,")
    numerals: frozenset[str]  # the characters of a number written in words (CJK: 二十三)
    # the aligned step's units: a number (digit groups joined by one separator, a unit after it:
    # 5.2kg, 0412 555 019, 7:30), a number in CJK numerals (二十一), one other CJK character, a
    # Latin word (kaiwen#4412, anne's, b+)
    units: re.Pattern[str]
    stated: re.Pattern[str]  # what says the value that follows it ("is", "called", 叫, 是), at the end


def _alternation(words: Sequence[str]) -> str:
    parts = []
    for w in sorted(set(words), key=lambda s: (-len(s), s)):
        body = re.escape(w)
        if not _CJK.search(w):  # a Latin phrase matches whole words only ("*" before a word too)
            head = r"(?<![0-9a-z])" if w[:1].isalnum() else ""
            tail = r"(?![0-9a-z])" if w[-1:].isalnum() else ""
            body = f"{head}{body}{tail}"
        parts.append(body)
    return "|".join(parts) or r"(?!x)x"


def languages() -> list[str]:
    """The language folders that hold correction words."""
    return sorted(p.parent.name for p in DATA_DIR.glob("*/corrections.json"))


@cache
def lexicon() -> Lexicon:
    data = [
        json.loads((DATA_DIR / lang / "corrections.json").read_text(encoding="utf-8")) for lang in languages()
    ]

    def merged(field: str) -> list[str]:
        return [w.lower() for d in data for w in d.get(field, [])]

    shapes: list[tuple[str, re.Pattern[str], dict[str, str]]] = []
    suffixes = merged("time_suffix")
    latin = [re.escape(s) for s in suffixes if not _CJK.search(s)]
    cjk = [re.escape(s) for s in suffixes if _CJK.search(s)]
    times = [r"(?<![0-9])\d{1,2}:\d{2}(?![0-9])"]
    if latin:
        times.insert(0, rf"(?<![0-9])\d{{1,2}}(?::\d{{2}})?\s?(?:{'|'.join(latin)})(?![a-z])")
    if cjk:
        num = "[0-9一二三四五六七八九十两]"
        times.insert(0, rf"{num}{{1,3}}(?:{'|'.join(cjk)})(?:半|{num}{{1,3}}分?)?")
    shapes.append(("time", re.compile("|".join(times)), {}))
    # a date: a day number by a month word ("15 june", "may 19th"), an ordinal day ("the 14th"),
    # 6月19号 / 19号 (the month and day words are data); before the month names and the numbers
    ordinal = "|".join(re.escape(s) for s in merged("ordinal_suffix"))
    months = _alternation(merged("date_months"))
    day = rf"\d{{1,2}}(?:{ordinal})?" if ordinal else r"\d{1,2}"
    dates = []
    if months != r"(?!x)x":
        dates.append(rf"(?<![0-9])\d{{1,2}}(?:{ordinal})?\s(?:of\s)?(?:{months})")
        dates.append(rf"(?:{months})\s{day}(?![0-9a-z])")
    if ordinal:
        dates.append(rf"(?<![0-9])\d{{1,2}}(?:{ordinal})(?![0-9a-z])")
    day_cjk = "|".join(re.escape(s) for s in merged("day_suffix"))
    month_cjk = "|".join(re.escape(s) for s in merged("month_suffix"))
    if day_cjk:
        num = "[0-9一二三四五六七八九十]"
        head = rf"(?:{num}{{1,2}}(?:{month_cjk}))?" if month_cjk else ""
        dates.append(rf"(?<![0-9]){head}{num}{{1,3}}(?:{day_cjk})")
    if dates:
        shapes.insert(0, ("date", re.compile("|".join(dates)), {}))
    names: dict[str, dict[str, str]] = {}
    for d in data:
        for shape, groups in d.get("shapes", {}).items():
            for group in groups:
                for word in group:
                    names.setdefault(shape, {})[word.lower()] = group[0].lower()
    for shape, words in sorted(names.items()):
        shapes.append((shape, re.compile(_alternation(list(words))), words))
    # a code: a few letters and digits (a flight CI033, a plot 47B), before the plain numbers
    shapes.append(
        ("code", re.compile(r"(?<![0-9a-z])(?<!\d\.)(?:[a-z]{1,3}\d{2,6}|\d{1,4}[a-z])(?![0-9a-z])"), {})
    )
    # digit groups joined by one separator each: no two ways to match the same text (and not the
    # digits of a placeholder such as [PHONE_1])
    shapes.append(("number", re.compile(r"(?<![0-9a-z_])\+?\d{1,12}(?:[\-. ]\d{1,12}){0,6}(?![0-9a-z])"), {}))
    numerals = {c for d in data for c in d.get("numeral_chars", "")}
    cjk_number = f"[{re.escape(''.join(sorted(numerals)))}]+|" if numerals else ""
    return Lexicon(
        strong=frozenset(merged("strong")),
        weak=frozenset(merged("weak")),
        veto=frozenset(merged("veto")),
        negators=frozenset(merged("negators")),
        but=frozenset(merged("but")),
        instead=frozenset(merged("instead")),
        filler=tuple(sorted(set(merged("filler")), key=len, reverse=True)),
        question=tuple(merged("question")),
        question_final=tuple(merged("question_final")),
        phrases=re.compile(_alternation(merged("strong") + merged("weak") + merged("veto"))),
        pairs=re.compile(_alternation(merged("negators") + merged("instead"))),
        buts=re.compile(_alternation(merged("but"))),
        covers=re.compile(
            _alternation(
                merged("strong")
                + merged("weak")
                + merged("negators")
                + merged("instead")
                + merged("but")
                + merged("restore")
                + merged("filler")
            )
        ),
        shapes=tuple(shapes),
        not_values=re.compile(_alternation(merged("not_values"))),
        not_names=frozenset(merged("not_names")),
        function_words=frozenset(merged("function_words")),
        set_off_only=frozenset(merged("set_off_only")),
        numerals=frozenset(numerals),
        units=re.compile(
            rf"\+?\d+(?:[\-.: ]\d+)*(?:{_LAT}+)?(?!{_LAT})|{cjk_number}[{CJK_CLASS}]"
            rf"|{_LAT}+(?:[#@.'+\-:/·]{_LAT}+)*\+?"
        ),
        stated=re.compile(f"(?:{_alternation(merged('stated'))})\\s*$"),
    )


def _lower(text: str) -> str:
    """Lower case, one character for one (so spans index the original text)."""
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)


#: a name as a turn writes it: a capitalised Latin word of three letters or more
_NAME = re.compile(r"(?<![\w'])[A-Z][a-z]{2,19}(?![\w'])")
_NAMES = 32


def _near(a: str, b: str, most: int, *, same_length: bool = False) -> bool:
    """True when ``a`` and ``b`` are at most ``most`` edits apart (both at most 20 characters:
    a bounded table), and share their other letters."""
    if same_length:
        return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) <= most
    if abs(len(a) - len(b)) > most or min(len(a), len(b)) <= most + 1:
        return False
    return _edits(a, b) <= most


def _stated(low: str, at: int) -> bool:
    """The value at ``at`` is said as the answer: "it's" / 是 right before it."""
    head = low[max(0, at - 12) : at].rstrip()
    for word in lexicon().but:
        if head.endswith(word) and (
            _CJK.search(word) or len(head) == len(word) or not head[-len(word) - 1].isalnum()
        ):
            return True
    return False


def _boundary_or_end(low: str, i: int) -> bool:
    return i >= len(low) or _boundary(low, i) or low[i].isspace()


def _close(low: str, gap: tuple[int, int], strong: bool) -> bool:
    """A value this far from its marker is the one it corrects: a few words (CJK characters) after
    a strong marker, one after a weak one ("actually 5pm")."""
    tokens = _WORD.findall(low[gap[0] : gap[1]]) if gap[0] < gap[1] else []
    cjk = sum(1 for w in tokens if _CJK.match(w))
    cap = (_MAX_CJK if cjk > len(tokens) / 2 else _MAX_WORDS) if strong else 1
    return len(tokens) <= cap


@dataclass(frozen=True)
class Value:
    start: int
    end: int
    shape: str | None = None
    canonical: str = ""


def _values(low: str) -> list[Value]:
    """The exact-shaped values of a text, left to right, the first shape winning an overlap."""
    found: list[Value] = []
    taken = bytearray(len(low))
    for m in lexicon().not_values.finditer(low):
        taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    for shape, pattern, words in lexicon().shapes:
        for m in pattern.finditer(low):
            if any(taken[m.start() : m.end()]):
                continue
            taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
            text = m.group()
            if shape == "number":
                canonical = re.sub(r"\D", "", text)
            elif shape == "date":
                canonical = re.sub(r"\s|of\s|the\s", "", text)
            elif shape == "time":
                canonical = re.sub(r"[\s.]", "", text)
            else:
                canonical = words.get(text, text)
            found.append(Value(m.start(), m.end(), shape, canonical))
    return sorted(found, key=lambda v: v.start)


def _strip(low: str, start: int, end: int) -> tuple[int, int]:
    """Narrow [start, end) past spaces, punctuation and filler words at either edge."""
    filler = lexicon().filler
    changed = True
    while changed and start < end:
        changed = False
        while start < end and (low[start].isspace() or low[start] in _PUNCT):
            start, changed = start + 1, True
        while start < end and (low[end - 1].isspace() or low[end - 1] in _PUNCT):
            end, changed = end - 1, True
        for f in filler:
            cjk = bool(_CJK.search(f))
            if low.startswith(f, start, end) and (
                cjk or start + len(f) == end or not low[start + len(f)].isalnum()
            ):
                start, changed = start + len(f), True
                break
            if low.endswith(f, start, end) and (
                cjk or end - len(f) == start or not low[end - len(f) - 1].isalnum()
            ):
                end, changed = end - len(f), True
                break
    return start, end


def _limit(low: str, start: int, end: int, *, from_end: bool) -> tuple[int, int]:
    """At most _MAX_WORDS words (a CJK character counting as a word up to _MAX_CJK) of [start, end)."""
    words = list(_WORD.finditer(low, start, end))
    cjk = sum(1 for w in words if _CJK.match(w.group()))
    cap = _MAX_CJK if cjk > len(words) / 2 else _MAX_WORDS
    if len(words) <= cap:
        return start, end
    kept = words[-cap:] if from_end else words[:cap]
    return kept[0].start(), kept[-1].end()


def _boundary(low: str, i: int) -> bool:
    """A clause ends at punctuation, except a ':' or '.' inside a number (10:30, 3.5)."""
    if low[i] not in _PUNCT:
        return False
    inside = 0 < i < len(low) - 1 and low[i - 1].isdigit() and low[i + 1].isdigit()
    return not (inside and low[i] in ":.")


def _clause_start(low: str, at: int, floor: int) -> int:
    i = at
    stop = max(floor, at - _WINDOW)
    while i > stop and not _boundary(low, i - 1):
        i -= 1
    return i


def _clause_end(low: str, at: int) -> int:
    i = at
    stop = min(len(low), at + _WINDOW)
    while i < stop and not _boundary(low, i):
        i += 1
    return i


@dataclass(frozen=True)
class _Memory:
    record: MemoryRecord
    low: str
    values: list[Value]


def _occurrences(low: str, needle: str) -> Iterator[int]:
    if not needle:
        return
    cjk = bool(_CJK.search(needle))
    i = low.find(needle)
    while i >= 0:
        before = low[i - 1] if i else " "
        after = low[i + len(needle)] if i + len(needle) < len(low) else " "
        if cjk or (not before.isalnum() and not after.isalnum()):
            yield i
        i = low.find(needle, i + 1)


def _leftover(low: str, right: tuple[int, int], wrong: str) -> int:
    """How many words (a CJK character counting as one) of the turn are neither the two values nor
    correction words nor filler: 0 for "I meant Tuesday not Thursday", many when the turn says more."""
    covered = bytearray(len(low))
    spans = [right, *((i, i + len(wrong)) for i in _occurrences(low, wrong))]
    spans += [(m.start(), m.end()) for m in lexicon().covers.finditer(low)]
    for a, b in spans:
        covered[a:b] = b"\x01" * (b - a)
    return sum(1 for w in _WORD.finditer(low) if not all(covered[w.start() : w.end()]))


def _markers(low: str) -> tuple[re.Match[str] | None, re.Match[str] | None] | None:
    """The first strong and the first weak marker of a turn; None for a veto or a question."""
    lex = lexicon()
    stripped = low.rstrip(" \t\n" + _PUNCT)
    if any(q in low for q in lex.question) or any(stripped.endswith(q) for q in lex.question_final):
        return None
    strong = weak = None
    for m in lex.phrases.finditer(low):
        phrase = m.group()
        if phrase in lex.veto:
            return None
        if phrase in lex.strong and strong is None:
            strong = m
        elif phrase in lex.weak and weak is None and phrase not in lex.strong:
            weak = m
    return strong, weak


@dataclass(frozen=True)
class Signal:
    """What makes a turn read as a correction: its marker's span and strength, or (``negation``) no
    marker but a "not" / 不是 word, whose object must then be a value a memory states."""

    span: tuple[int, int]
    strong: bool
    negation: bool = False


def signal(text: str) -> Signal | None:
    """A turn's correction signal: the marker the reader reads it by (the first strong one, else the
    first weak one), else its first "not" word; None without one, or for a veto or a question."""
    low = _lower(text[:MAX_CHARS])
    markers = _markers(low)
    if markers is None:
        return None
    marker = markers[0] or markers[1]
    if marker is not None:
        return Signal(marker.span(), markers[0] is not None)
    lex = lexicon()
    negator = next((m for m in lex.pairs.finditer(low) if m.group() in lex.negators), None)
    return Signal(negator.span(), False, negation=True) if negator is not None else None


class CorrectionReader:
    """Reads a correction from a user turn against the user's recent memories (newest first).

    ``weights``: the aligned step's model (by default the shipped one, :func:`align_weights`);
    ``align=False`` reads with the rules alone."""

    def __init__(self, *, align: bool = True, weights: AlignWeights | None = None) -> None:
        self._weights = (weights or align_weights()) if align else None

    def might_correct(self, text: str) -> bool:
        """Cheap test, before any memory is read: a marker or a negator/"instead" word is present."""
        low = _lower(text[:MAX_CHARS])
        lex = lexicon()
        return bool(lex.phrases.search(low) or lex.pairs.search(low))

    def read(self, text: str, recent: Sequence[MemoryRecord]) -> Correction | None:
        turn = text[:MAX_CHARS]
        low = _lower(turn)
        markers = _markers(low)
        if markers is None:
            return None
        strong, weak = markers
        marker = strong or weak
        memories = [
            _Memory(r, mlow, _values(mlow)) for r in recent for mlow in [_lower(r.content[:MAX_CHARS])]
        ]
        floor = marker.end() if marker is not None else 0
        fix = self._pair(turn, low, floor, marker is not None, strong is not None, memories)
        if fix is None and marker is not None:
            fix = self._value_alone(turn, low, marker, strong is not None, memories)
        if fix is None and self._weights is not None:
            said = signal(turn)
            if said is not None:
                fix = _aligned(turn, said, memories, self._weights)
        if fix is None:
            return None
        wrong = next(m for m in memories if m.record.id == fix.memory_id)
        only = _leftover(low, fix.right_span, wrong.low[fix.wrong[0] : fix.wrong[1]]) <= _LEFTOVER
        return replace(fix, only=only)

    # -- X not Y, not Y (but) X, X instead of Y ----------------------------------------------------
    def _pair(
        self, turn: str, low: str, floor: int, marked: bool, strong: bool, memories: list[_Memory]
    ) -> Correction | None:
        lex = lexicon()
        for tried, m in enumerate(lex.pairs.finditer(low, floor)):
            if tried >= _MAX_TRIES:
                break
            for x, y in self._slots(low, m, floor):
                if not (x[0] < x[1] and y[0] < y[1]):
                    continue
                x = _limit(low, *x, from_end=True)
                y = _limit(low, *y, from_end=False)
                found = self._resolve_pair(turn, low, x, y, marked, strong, memories)
                if found is not None:
                    return found
        return None

    @staticmethod
    def _slots(low: str, m: re.Match[str], floor: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """The (X, Y) spans a "not"/"instead of" may pair, most likely first."""
        lex = lexicon()
        negator = m.group() in lex.negators
        out = []
        begin = _clause_start(low, m.start(), floor)
        x = _strip(low, begin, m.start())
        if x[0] < x[1]:  # X not Y / X instead of Y
            y = _strip(low, m.end(), _clause_end(low, m.end()))
            but = lex.buts.search(low, y[0], y[1]) if negator else None
            if but is not None and but.start() > y[0]:
                y = (y[0], _strip(low, y[0], but.start())[1])
            return [(x, y)]
        end = _clause_end(low, m.end())
        y = _strip(low, m.end(), end)
        if negator:  # not Y, (it's) X / 不是Y，是X / not Y but X
            but = lex.buts.search(low, m.end(), end)
            if but is not None and but.start() > m.end():
                out.append((_strip(low, m.end(), but.start()), _strip(low, but.end(), end)))
                y = out[0][0]
                out[0] = (out[0][1], out[0][0])
            elif end + 1 < len(low):
                out.append((_strip(low, end + 1, _clause_end(low, end + 1)), y))
        # X, not Y / 是X，不是Y: the clause before, when the "not" opens its own
        if begin > floor:
            before = _strip(low, _clause_start(low, begin - 1, floor), begin - 1)
            out.append((before, y))
        return out

    def _resolve_pair(
        self,
        turn: str,
        low: str,
        x: tuple[int, int],
        y: tuple[int, int],
        marked: bool,
        strong: bool,
        memories: list[_Memory],
    ) -> Correction | None:
        xv = [Value(x[0] + v.start, x[0] + v.end, v.shape, v.canonical) for v in _values(low[x[0] : x[1]])]
        yv = [Value(y[0] + v.start, y[0] + v.end, v.shape, v.canonical) for v in _values(low[y[0] : y[1]])]
        shaped = next(
            ((a, b) for a in xv for b in yv if a.shape == b.shape and a.canonical != b.canonical), None
        )
        if shaped is not None and not marked:
            # no marker: only "X not Y" said of one value, X right before the "not"
            # ("open Monday to Friday, not Saturday" corrects nothing)
            first = shaped[0]
            if sum(1 for a in xv if a.shape == first.shape) > 1 or first.end != x[1]:
                shaped = None
        if shaped is not None:
            right, wrong = shaped
            for mem in memories:
                hit = next(
                    (v for v in mem.values if v.shape == wrong.shape and v.canonical == wrong.canonical), None
                )
                if hit is not None:
                    target, span = self._prefer_keyed(mem, low[wrong.start : wrong.end], memories, hit)
                    conf = 0.9 if marked else 0.75
                    return Correction(
                        target.id, span, turn[right.start : right.end], (right.start, right.end), conf
                    )
            return None
        if not marked or low[x[0] : x[1]] == low[y[0] : y[1]]:
            return None
        needle = low[y[0] : y[1]]
        for mem in memories:
            at = next(_occurrences(mem.low, needle), None)
            if at is not None:
                target, span = self._prefer_keyed(mem, needle, memories, Value(at, at + len(needle)))
                conf = 0.75 if strong else 0.6
                return Correction(target.id, span, turn[x[0] : x[1]], x, conf)
        return None

    # -- a marker and a value alone ------------------------------------------------------------------
    def _value_alone(
        self, turn: str, low: str, marker: re.Match[str], strong: bool, memories: list[_Memory]
    ) -> Correction | None:
        values = _values(low)
        after = [v for v in values if v.start >= marker.end()][:_MAX_TRIES]
        before = [v for v in values if v.end <= marker.start()][-1:]
        # "I said Friday but I meant Saturday": the value after the marker is the one meant
        seen: dict[tuple[bool, str | None], set[str]] = {}
        for o in values:
            seen.setdefault((o.start >= marker.end(), o.shape), set()).add(o.canonical)
        for v in [*after, *before]:
            if v.start >= marker.end():
                gap = _strip(low, marker.end(), v.start)
            else:
                gap = _strip(low, v.end, marker.start())
            near = _close(low, gap, strong)
            same = seen[(v.start >= marker.end(), v.shape)]
            if any(c != v.canonical and c.endswith(v.canonical) for c in same):
                continue  # "the last three are 059, 07418 226 059": the whole value says it
            others = {c for c in same if c != v.canonical and not v.canonical.endswith(c)}
            for at, mem in enumerate(memories):
                kin = [o for o in mem.values if o.shape == v.shape]
                if not kin:
                    continue
                if not near and not (
                    at < _FRESH
                    and v.start > marker.end()
                    and _CORRECTS in mem.record.metadata
                    and _stated(low, v.start)
                ):
                    # far from its marker, a value corrects only a correction just made ("no wait,
                    # i was reading last year's letter, it's 22 june"): a correction of a correction
                    break
                if any(o.canonical == v.canonical for o in kin):
                    break  # the memory says this value already: nothing to correct
                # of two numbers, the one of the same length is the one mistyped (1203 → 1302)
                hit = min(kin, key=lambda o: len(o.canonical) != len(v.canonical))
                if hit.canonical == v.canonical or (
                    v.shape == "number" and hit.canonical.endswith(v.canonical)
                ):
                    break  # the newest value of this shape is this one already: nothing to correct
                if any(not hit.canonical.endswith(c) for c in others):
                    break  # two values of one shape and no "not": which one is meant is unclear
                if v.shape == "number" and len(v.canonical) < len(hit.canonical):
                    # "last 4 are 0412": the memory's number keeps its head, its tail is replaced
                    digits = [i for i in range(hit.start, hit.end) if mem.low[i].isdigit()]
                    hit = replace(hit, start=digits[-len(v.canonical)])
                target, span = self._prefer_keyed(mem, mem.low[hit.start : hit.end], memories, hit)
                return Correction(
                    target.id, span, turn[v.start : v.end], (v.start, v.end), 0.8 if strong else 0.65
                )
        # a weak marker and a name ("actually Marco is coming") is no respelling
        return self._respelled(turn, low, marker, strong, memories) if strong else None

    @staticmethod
    def _respelled(
        turn: str, low: str, marker: re.Match[str], strong: bool, memories: list[_Memory]
    ) -> Correction | None:
        """A name spelled anew ("its Dashaun", 是陈诗彤): a word right after the marker that a
        recent memory spells nearly the same (one or two letters apart; one character of three or
        four CJK ones): that spelling is the wrong one."""
        latin = [
            m
            for m in _NAME.finditer(turn, marker.end(), min(len(turn), marker.end() + _WINDOW))
            if m.group().lower() not in lexicon().not_names
            and _close(low, _strip(low, marker.end(), m.start()), strong)
        ][:_MAX_TRIES]
        cjk = None
        start = _strip(low, marker.end(), len(low))[0]
        run = re.match(f"[{CJK_CLASS}]{{3,4}}", low[start : start + 5])
        # the name is the clause's answer and all of its end: 是陈诗彤 (not 说错了，你别告诉他)
        if run is not None and _stated(low, start) and _boundary_or_end(low, start + run.end()):
            cjk = (start, start + run.end())
        for mem in memories:
            content = mem.record.content[:MAX_CHARS]
            # each spelling once, at most _NAMES of a memory: a memory of 2,000 names costs what a
            # memory of a few does
            names: dict[str, re.Match[str]] = {}
            for other in _NAME.finditer(content):
                names.setdefault(other.group().lower(), other)
                if len(names) >= _NAMES:
                    break
            for m in latin:
                word = m.group()
                for old, other in names.items():
                    if old != word.lower() and _near(old, word.lower(), 2):
                        return Correction(
                            mem.record.id, other.span(), word, m.span(), 0.75 if strong else 0.6
                        )
            if cjk is not None:
                word = low[cjk[0] : cjk[1]]
                n = len(word)
                for i in range(len(mem.low) - n + 1):
                    part = mem.low[i : i + n]
                    if part != word and _CJK.fullmatch(part[0]) and _near(part, word, 1, same_length=True):
                        return Correction(mem.record.id, (i, i + n), turn[cjk[0] : cjk[1]], cjk, 0.7)
        return None

    @staticmethod
    def _prefer_keyed(
        mem: _Memory, wrong: str, memories: list[_Memory], hit: Value
    ) -> tuple[MemoryRecord, tuple[int, int]]:
        """The turn's keyed fact that states the same wrong value, when there is one (correcting the
        fact supersedes it by key and retires the turn); else the memory itself."""
        if mem.record.key is None:
            facts = set(mem.record.metadata.get("facts") or [])
            for other in memories:
                if other.record.key is None:
                    continue
                linked = (
                    other.record.id in facts or other.record.metadata.get("from_episode") == mem.record.id
                )
                if not linked:
                    continue
                at = next(_occurrences(other.low, wrong), None)
                if at is not None:
                    return other.record, (at, at + len(wrong))
        return mem.record, (hit.start, hit.end)


# -- 5. an aligned pair, scored by a small learned model ---------------------------------------------
#: a letter or digit of no CJK script
_LAT = f"[^\\W_{CJK_CLASS}]"


#: the units of a turn and of a memory the aligned step reads, how many of each side's runs it pairs,
#: the newest memories it aligns against, the longest run (Latin words, CJK characters)
_ALIGN_UNITS = 64
_ALIGN_RUNS = 32
_ALIGN_MEMORIES = 5
_RUN_LAT = 3
_RUN_CJK = 4
#: the shape classes of a value whatever its words: digits, a code, CJK numerals
_EXACT = frozenset(("number", "code", "cjk_numeral"))
#: the aligned step's features, in the order of its weights (extract/data/correction_align.json)
ALIGN_FEATURES = (
    "strong",  # a strong marker (else a weak one)
    "negation_only",  # no marker: the turn says the wrong value after a "not" / 不是 (the signal)
    "marker_at_start",  # the marker opens the turn ("no, ...", "sorry ...", 说错了 ...)
    "marker_set_off",  # punctuation, the end or another marker word right after it ("no, it's", not "no golf")
    "after_marker",  # the right value comes after the marker
    "marker_distance",  # units from the marker to the right value, at most 12, over 12
    "stated",  # "it's" / 是 right before the right value
    "wrong_negated",  # the wrong value said again after a "not" / 不是
    "similarity",  # 1 - edit distance / the longer length
    "weak_similarity",  # the similarity, when the marker is not a strong one
    "same_length",
    "anagram",  # the same characters in another order (0412 / 0421)
    "left_anchor",  # the unit before each is the same
    "right_anchor",  # the unit after each is the same
    "both_at_end",  # each ends its text
    "right_run_edge",  # the right value starts or ends its run of words new to the memory
    "wrong_run_edge",  # the wrong value starts or ends its run of words the turn does not say
    "wrong_at_end",  # the wrong value ends the memory
    "units_apart",  # |units of right - units of wrong|
    "number",  # the shape: digits, a code (letters and digits), CJK numerals, a CJK run, a word
    "code",
    "cjk_numeral",
    "cjk",
    "word",
    "mutual_best",  # of the memory's pairings, each is the other's most similar run
    "wrong_said",  # the turn says the wrong value too, not after a "not" ("rotterdam is where her friend lives")
)


@dataclass(frozen=True)
class AlignWeights:
    """A logistic model over :data:`ALIGN_FEATURES` and the probability it must reach."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float

    def probability(self, x: Sequence[float]) -> float:
        z = self.bias + sum(
            w * (v - m) / s for w, v, m, s in zip(self.weights, x, self.mean, self.scale, strict=True)
        )
        return 0.5 * (1.0 + math.tanh(0.5 * z))

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(ALIGN_FEATURES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "bias": self.bias,
            "threshold": self.threshold,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> AlignWeights:
        if data.get("features") != list(ALIGN_FEATURES):
            raise ValueError("the aligned step's weights were fitted on other features")

        def floats(key: str) -> tuple[float, ...]:
            value = data[key]
            assert isinstance(value, list)
            return tuple(float(v) for v in value)

        bias, threshold = data["bias"], data["threshold"]
        assert isinstance(bias, (int, float)) and isinstance(threshold, (int, float))
        return cls(floats("mean"), floats("scale"), floats("weights"), float(bias), float(threshold))


ALIGN_WEIGHTS = DATA_DIR / "correction_align.json"


@cache
def align_weights() -> AlignWeights | None:
    """The shipped weights of the aligned step (fitted by ``python -m remnant.extract.correction_fit
    --write``); None when the file is absent (the step is then off)."""
    if not ALIGN_WEIGHTS.exists():
        return None
    return AlignWeights.from_json(json.loads(ALIGN_WEIGHTS.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class AlignedCandidate:
    """One pairing of a run of a memory (the wrong value) with a run of the turn (the right one)."""

    memory: int  # index into the recent memories
    wrong: tuple[int, int]
    right: tuple[int, int]
    features: tuple[float, ...]


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    text: str
    cjk: bool


def _units(low: str) -> list[_Unit]:
    return [
        _Unit(m.start(), m.end(), m.group(), bool(_CJK.match(m.group())))
        for m, _ in zip(lexicon().units.finditer(low), range(_ALIGN_UNITS), strict=False)
    ]


def _joined(low: str, a: _Unit, b: _Unit) -> bool:
    """Two neighbouring units of one run: the same script, no punctuation between them, and no
    space between CJK characters (a chat's space separates CJK phrases)."""
    gap = low[a.end : b.start]
    if a.cjk != b.cjk or any(c in _PUNCT for c in gap):
        return False
    return not (a.cjk and gap)


def _shape(text: str) -> str:
    if _CJK.match(text):
        return "cjk_numeral" if all(c in lexicon().numerals for c in text) else "cjk"
    digits = any(c.isdigit() for c in text)
    letters = any(c.isalpha() for c in text)
    return "number" if digits and not letters else "code" if digits else "word"


def _edits(a: str, b: str) -> int:
    """How many one-character edits turn ``a`` into ``b`` (the callers bound both lengths)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _runs(units: list[_Unit], low: str, ok: Sequence[bool]) -> list[tuple[int, int]]:
    """The runs [i, j) of consecutive ``ok`` units, one to _RUN_LAT words (_RUN_CJK characters),
    that neither start nor end with a function word."""
    words = lexicon().function_words
    edge = [u.text not in words for u in units]
    out = []
    for i, u in enumerate(units):
        if not (ok[i] and edge[i]):
            continue
        most = _RUN_CJK if u.cjk else _RUN_LAT
        j = i + 1
        out.append((i, j))
        while j < len(units) and j - i < most and ok[j] and _joined(low, units[j - 1], units[j]):
            j += 1
            if edge[j - 1]:
                out.append((i, j))
    return out


def aligned_candidates(
    text: str,
    recent: Sequence[MemoryRecord],
    marker: tuple[int, int],
    strong: bool,
    *,
    negation: bool = False,
) -> list[AlignedCandidate]:
    """Every pairing the aligned step scores: a run of the turn new to a memory (not a marker, a
    filler or a "not" word) with a run of that memory the turn does not say (or says only after a
    "not"), of the same shape; for the newest :data:`_ALIGN_MEMORIES` memories. Bounded: at most
    :data:`_ALIGN_UNITS` units of each text, :data:`_ALIGN_RUNS` runs of each side."""
    lex = lexicon()
    low = _lower(text[:MAX_CHARS])
    units = _units(low)
    if not units:
        return []
    covered = bytearray(len(low))
    for m in lex.covers.finditer(low):
        covered[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    covered[marker[0] : marker[1]] = b"\x01" * (marker[1] - marker[0])
    negated = bytearray(len(low))
    negators: list[tuple[int, int, int]] = []  # (start, end, end of the clause it negates)
    for m in lex.pairs.finditer(low):
        if m.group() in lex.negators:
            end = _clause_end(low, m.end())
            negated[m.end() : end] = b"\x01" * (end - m.end())
            negators.append((m.start(), m.end(), end))
    free = [not all(covered[u.start : u.end]) for u in units]
    head = _strip(low, 0, len(low))[0]
    at_start = float(marker[0] <= head)
    # set off: "no, it's 5" / "no wait" / 说错了，是 (not "no golf for me"): punctuation, the end or a
    # correction or filler word after it (a CJK marker: a space too)
    raw = low[marker[1] :]
    rest = raw if _CJK.match(low[marker[1] - 1 : marker[1]] or "x") else raw.lstrip()
    set_off = float(not rest or rest[0] in _PUNCT or rest[0].isspace() or lex.covers.match(rest) is not None)
    if low[marker[0] : marker[1]] in lex.set_off_only and not (
        rest and (rest[0] in _PUNCT or lex.phrases.match(rest) is not None)
    ):
        return []  # "no coffee for me", "said no" are no correction; "no, it's 5", "no wait" may be
    said = {u.text for u, f in zip(units, free, strict=True) if not any(negated[u.start : u.end])}
    said |= {u.text for u, f in zip(units, free, strict=True) if not f}
    turn_values = _values(low) if negation else []
    # the values of an exact shape the turn says were wrong ("... not 0412"): a pairing of another
    # value of such a shape corrects what was not said (a memory whose number the privacy layer
    # redacted offers none, and another memory's code must not take the correction)
    denied = {u.text for u in units if any(negated[u.start : u.end]) and _shape(u.text) in _EXACT}
    out: list[AlignedCandidate] = []
    for at, record in enumerate(recent[:_ALIGN_MEMORIES]):
        mlow = _lower(record.content[:MAX_CHARS])
        munits = _units(mlow)
        if not munits:
            continue
        mtexts = {u.text for u in munits}
        mcovered = bytearray(len(mlow))
        for m in lex.covers.finditer(mlow):
            mcovered[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
        # a value the privacy layer redacted ([PHONE_2]) is not there to pair: its digits are none
        for m in PLACEHOLDER.finditer(record.content[:MAX_CHARS]):
            mcovered[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
        new = [f and u.text not in mtexts for u, f in zip(units, free, strict=True)]
        # a memory's filler word ("on", "is", 是) is no value
        lost = [not all(mcovered[u.start : u.end]) for u in munits]
        unsaid = [u.text not in said for u in munits]
        rights = sorted(
            _runs(units, low, new),
            key=lambda r: (units[r[0]].start < marker[1], abs(units[r[0]].start - marker[1])),
        )[:_ALIGN_RUNS]
        # of the memory's runs, first those of a shape a right run has (digits and codes before words),
        # then those the turn does not say again: a long memory's value is not cut off by the cap
        shapes = {_shape(low[units[i].start : units[j - 1].end]) for i, j in rights}
        if shapes & {"number", "code"}:
            shapes |= {"number", "code"}
        keyed = [
            (shape not in shapes, shape not in _EXACT, not all(unsaid[i:j]), n, (i, j))
            for n, (i, j) in enumerate(_runs(munits, mlow, lost))
            for shape in [_shape(mlow[munits[i].start : munits[j - 1].end])]
        ]
        wrongs = [r for *_, r in sorted(keyed)[:_ALIGN_RUNS]]
        scored: list[tuple[tuple[int, int], tuple[int, int], float, tuple[float, ...]]] = []
        for ri, rj in rights:
            rs, re_ = units[ri].start, units[rj - 1].end
            rtext = low[rs:re_]
            rshape = _shape(rtext)
            after = rs >= marker[1]
            gap = (
                sum(1 for u in units if marker[1] <= u.start < rs)
                if after
                else sum(1 for u in units if re_ <= u.start < marker[0])
            )
            answer = _stated(low, rs)
            stated = float(answer or lex.stated.search(low, max(0, rs - 16), rs) is not None)
            redge = float(ri == 0 or not new[ri - 1] or rj == len(units) or not new[rj])
            if units[ri].cjk and (
                (ri > 0 and new[ri - 1] and _joined(low, units[ri - 1], units[ri]))
                or (rj < len(units) and new[rj] and _joined(low, units[rj - 1], units[rj]))
            ):
                continue  # a CJK value is the whole new run: not 告 of 你别告诉他
            for wi, wj in wrongs:
                ws, we = munits[wi].start, munits[wj - 1].end
                wtext = mlow[ws:we]
                wshape = _shape(wtext)
                wshapes = {v.shape for v in _values(wtext)} if negation else set()
                if wshape != rshape and {wshape, rshape} != {"number", "code"}:
                    continue
                if wtext == rtext:
                    continue
                if denied and wshape in _EXACT and not any(d in wtext or wtext in d for d in denied):
                    continue  # "typo, it's 0421 555 019 not 0412" corrects the 0412, not a 5519
                longer = max(len(wtext), len(rtext))
                sim = 1.0 - _edits(wtext, rtext) / longer if longer <= 24 else 0.0
                left = float(ri > 0 and wi > 0 and units[ri - 1].text == munits[wi - 1].text)
                right = float(rj < len(units) and wj < len(munits) and units[rj].text == munits[wj].text)
                wedge = float(wi == 0 or not unsaid[wi - 1] or wj == len(munits) or not unsaid[wj])
                spots = list(_occurrences(low, wtext))
                wneg = float(any(any(negated[i : i + len(wtext)]) for i in spots))
                wsaid = float(any(not any(negated[i : i + len(wtext)]) for i in spots))
                if negation and not any(
                    any(n_end <= i < c_end for i in spots)
                    and ((re_ <= n_start and not low[re_:n_start].strip(" ,，")) or (rs >= c_end and answer))
                    for n_start, n_end, c_end in negators
                ):
                    # the "not" is the only signal: "X not Y" / "not Y, it's X" of the wrong value Y
                    continue
                anchor = (left and units[ri - 1].text not in lex.function_words) or (
                    right and units[rj].text not in lex.function_words
                )
                variant = rshape == "word" and (wtext.startswith(rtext) or rtext.startswith(wtext))
                if not (
                    rshape in _EXACT
                    or (wneg and not negation)
                    or anchor
                    or (left and right)
                    or (sim >= 0.5 and (answer or not variant))
                ):
                    # no sign the two are one value said two ways: digits for digits, the wrong one
                    # negated beside a marker, the same frame ("on harcourt road" / "on hartley road"), a respelling
                    # ("peanut" of "peanuts" only said as the answer: "it's noa")
                    continue
                if not strong and not negation and not (answer or wneg):
                    continue  # a weak marker ("actually", "wait"): the value is said as the answer
                if negation and any(
                    v.shape in wshapes
                    and not (v.start < re_ and rs < v.end)
                    and not any(negated[v.start : v.end])
                    for v in turn_values
                ):
                    continue  # "open Monday to Friday, not Saturday": another value of the shape, no correction
                features = (
                    float(strong),
                    float(negation),
                    at_start,
                    set_off,
                    float(after),
                    min(gap, 12) / 12,
                    stated,
                    wneg,
                    sim,
                    0.0 if strong else sim,
                    float(len(wtext) == len(rtext)),
                    float(sorted(wtext) == sorted(rtext)),
                    left,
                    right,
                    float(rj == len(units) and wj == len(munits)),
                    redge,
                    wedge,
                    float(wj == len(munits)),
                    float(abs((rj - ri) - (wj - wi))),
                    *(float(rshape == s) for s in ("number", "code", "cjk_numeral", "cjk", "word")),
                )
                scored.append(((ws, we), (rs, re_), sim, (*features, wsaid)))
        best_right: dict[tuple[int, int], float] = {}
        best_wrong: dict[tuple[int, int], float] = {}
        for w, r, sim, _ in scored:
            best_right[r] = max(best_right.get(r, 0.0), sim)
            best_wrong[w] = max(best_wrong.get(w, 0.0), sim)
        for w, r, sim, features in scored:
            mutual = float(sim > 0 and sim == best_right[r] == best_wrong[w])
            out.append(AlignedCandidate(at, w, r, (*features[:-1], mutual, features[-1])))
    return out


def _aligned(turn: str, said: Signal, memories: list[_Memory], weights: AlignWeights) -> Correction | None:
    """A marker and no rule's reading: the likeliest pairing of a wrong run of a recent memory with a
    right run of the turn, when the learned scorer puts it at or above its threshold."""
    recent = [m.record for m in memories]
    best: tuple[float, AlignedCandidate] | None = None
    for c in aligned_candidates(turn, recent, said.span, said.strong, negation=said.negation):
        p = weights.probability(c.features)
        if best is None or p > best[0]:
            best = (p, c)
    if best is None or best[0] < weights.threshold:
        return None
    p, c = best
    mem = memories[c.memory]
    target, span = CorrectionReader._prefer_keyed(
        mem, mem.low[c.wrong[0] : c.wrong[1]], memories, Value(*c.wrong)
    )
    # the score ranks pairings and is no calibrated probability: the confidence spans what the rules
    # give (0.5 to 0.9), so a corrected fact is not ranked under the value it corrects
    return Correction(target.id, span, turn[c.right[0] : c.right[1]], c.right, round(0.5 + 0.4 * p, 4))
