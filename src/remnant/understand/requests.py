"""The forget request reader: "forget my phone number", "删除我的地址" as a :class:`ForgetIntent`.

:func:`parse_intent` reads a request (a forget, a correction's or a keep's clauses; English and
Chinese) into the small, stable intent the engine's policy acts on (what: keys, kinds, PII types,
topics, scopes, values, free text; what stays; hide or delete; a time scope). :class:`Matcher`
reads one memory against an intent: whether it matches, why, and which spans of its content go.
Rule-based; an LLM can parse instead through :class:`IntentParser` (the rules still match). The
engine's policy (:func:`remnant.engine.forgetting.requests.forget_request`) decides what is hidden,
purged or rewritten; nothing here touches a store.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable

from remnant.core.limits import MAX_REQUEST_CHARS
from remnant.core.memo import text_cache
from remnant.core.model import Kind, MemoryRecord, Status
from remnant.core.text import HAN_CLASS, has_cjk, has_han, is_han, query_terms
from remnant.understand import lexicon
from remnant.understand.intent import ForgetIntent
from remnant.understand.request_parts import (
    BY_LABEL_ONLY,
    VALUE_KINDS,
    measure_said,
    measure_spans,
    measures_named,
    named_value,
    names_someone_else,
    parts,
    person_words,
    plain_values,
    possessive_names,
    says_self,
    split_request,
    value_after,
    value_spans,
)
from remnant.understand.timeexpr import FORGET_SCOPES, forget_scope, scope_window


@dataclass(frozen=True)
class Topic:
    """A kind of personal detail a user may ask to forget, and how to recognise it."""

    key: str  # canonical memory key
    key_stems: tuple[str, ...]  # a memory key containing one of these matches ("mobile_phone")
    request_words: tuple[str, ...]  # phrases in a request that name the topic (EN and ZH)
    content_words: tuple[str, ...]  # phrases in a memory's content that mark it (kept specific)
    pii_types: tuple[str, ...] = ()  # privacy-layer entity labels, as in [PHONE_1]
    value: str | None = None  # the kind of value a memory's text holds for it (request_parts.value_spans)


# the attributes a request can name (data/topics.json) and each language's words for them
# (data/<lang>/topics.json). A condition's name marks one's health, an occupation one's job, only when
# said of oneself ("my asthma", "I'm a nurse", 我是护士: the families own_condition, own_job); injuries
# and births mark health in a request's topic and in its scope alike (the family injuries).
TOPICS: tuple[Topic, ...] = tuple(
    Topic(
        t["key"],
        tuple(t["key_stems"]),
        lexicon.entries("topics", "topics", t["key"], "request_words"),
        lexicon.entries("topics", "topics", t["key"], "content_words"),
        tuple(t["pii_types"]),
        t["value"],
    )
    for t in lexicon.shared("topics")["topics"]
)

_KIND_WORDS: dict[Kind, tuple[str, ...]] = {
    Kind(k): ws for k, ws in lexicon.grouped("requests", "kinds").items()
}
_HARD = re.compile(
    r"\b(delete|erase|purge|remove|wipe|destroy|permanently|for good|completely|get rid of)\b"
    r"|删除|删掉|删了|彻底|永久|清除|清空|抹去|抹掉|销毁"
)
_SOFT = re.compile(
    r"\b(forget|hide|unlearn|stop remembering|don'?t remember)\b|忘记|忘掉|忘了|别记|不要记|隐藏"
)
_EVERYTHING = re.compile(
    r"\b(everything|all (of )?my (memories|data|information|info)|all memories|anything you know|all of it)\b"
    r"|所有|全部|一切"
)
_ABOUT = re.compile(r"\b(about|regarding|related to|concerning|on)\b|关于|有关")
# words of the request that say how, not what
_FILLER_EN = re.compile(
    r"\b(please|pls|can|could|would|you|kindly|forget|hide|delete|erase|purge|remove|wipe|destroy|"
    r"permanently|for good|completely|get rid of|everything|anything|all|memories|memory|data|"
    r"information|info|stuff|things|about|regarding|related to|concerning|that|what|which|i|told|said|"
    r"know|my|mine|me|old|previous|former|past|earlier|the|a|an|of|from|your|remember|it|now)\b"
)
_FILLER_ZH = re.compile(
    r"能帮我|能不能|可不可以|可以帮我|能否|请|帮我|麻烦|你|忘记|忘掉|忘了|别记|不要记|隐藏|删除|删掉|删了|彻底|永久|清除|清空|抹去|抹掉|销毁|所有|全部|一切|记住的|记忆|"
    r"关于|有关|我的|我|的|信息|记录|东西|内容|资料|以前|之前|旧|吧|了|吗|把|掉|都|在|去|和"
)
_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z_]*?)_\d+\]")


@runtime_checkable
class IntentParser(Protocol):
    """Turns a request into a :class:`ForgetIntent` (e.g. with an LLM); ``None`` falls back to the rules."""

    def parse(self, text: str) -> ForgetIntent | None: ...


def _has_phrase(text: str, phrase: str) -> bool:
    if has_cjk(phrase):
        return phrase in text
    return re.search(rf"(?<![\w]){re.escape(phrase)}(?![\w])", text) is not None


# -- ordinary words: descriptions, word forms, synonyms, scopes, time, whose ------------------------
# descriptions of an attribute: the phrase names these topics (longest phrases are tried first)
_DESCRIPTIONS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (p, tuple(keys)) for p, keys in lexicon.pairs("requests", "descriptions")
)


@dataclass(frozen=True)
class Scope:
    """A broad subject ("anything about my health"): any memory whose key or content belongs to it."""

    name: str
    request_words: tuple[str, ...]
    words: tuple[str, ...]  # stemmed English words or Chinese phrases in a memory's key or content


SCOPES: tuple[Scope, ...] = tuple(
    Scope(
        name,
        lexicon.entries("scopes", "scopes", name, "request_words"),
        lexicon.entries("scopes", "scopes", name, "words"),
    )
    for name in lexicon.shared("topics")["scopes"]
)

# whose, or which one: "my wife's phone", "my work email", "老婆的电话"
_QUALIFIERS: dict[str, str] = lexicon.mapping("requests", "qualifiers")
# people whose own topic a request can name by a possessive alone ("my daughter's stuff")
_PERSON_TOPIC: dict[str, str] = lexicon.mapping("requests", "person_topic")
# son and daughter are kids: a key "child_school" is the daughter's when the request says "女儿"
_KID_WORDS = frozenset({"kid", "son", "daughter"})
# the speaker as a subject (not "my …", not 我的/我妈…): the clause is about oneself
# a clause whose subject is someone named ("Rowan is 4 months", "Dana works at …")
_NAME_SUBJECT = re.compile(
    r"^(?!I\b|My\b|We\b|Our\b)[A-Z][a-z]+\s+(?:is|was|has|had|goes|works|just|got|gets)\b"
)
_SELF_SUBJECT = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|we)\b|我(?!的|妈|爸|老|女|儿|哥|姐|弟|妹|家|爷|奶|外|婆|公|媳|对象|男|闺|儿|同事|朋友|室友|导师|表|兄弟|师)"
)
_PEOPLE = frozenset(lexicon.words("requests", "people"))
# key words that say whose a memory is ("children", "spouse_phone")
_KEY_PERSON: dict[str, str] = lexicon.mapping("requests", "key_person")
_OWN = frozenset(lexicon.words("requests", "own_words"))  # "my personal email" is simply mine
_MUM_DAD: dict[str, str] = lexicon.mapping("requests", "kin_forms")
_POSSESSIVE_EN = re.compile(r"\b([a-z]+)(?:'s|’s|s')\s")
_GENERIC_HEADS = frozenset(lexicon.words("requests", "generic_heads"))

# time scopes, relative to the caller's clock
_WHEN = FORGET_SCOPES

# words of a request that are neither topic nor subject ("stop remembering that I got…")
_MORE_FILLER = frozenset(lexicon.words("requests", "more_filler"))
# words that make a request about a subject ("anything about work", 工作相关)
_ABOUT_WORDS = lexicon.words("requests", "about_words")
_ZH_MORE_FILLER = lexicon.words("requests", "filler_phrases")
# what the rest of a request says stays ("…, keep the work one", "…，但保留城市")
_KEEP_TAIL = re.compile(
    r"(?:[,;]|\bbut\b|\band\b)\s*(?:please\s+)?(?:you\s+can\s+|can\s+you\s+)?(?:keep|leave|except)\b.*$"
    r"|\bexcept\b.*$"
    r"|[，,；;]?\s{0,64}(?:但是?|不过)?(?:请|可以)?(?:保留|留着|留下|别删|不要删).*$"
)

# word forms: a few irregular ones, then suffixes (allergy/allergic/allergies -> allerg)
_IRREGULAR: dict[str, str] = lexicon.mapping("requests", "irregular")
_SUFFIXES = lexicon.words("requests", "suffixes")


# a pure function of the word, asked for every word of every memory a request is matched against
# (millions of times for a request over long memories): the cache is bounded, so memory is too
@text_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    w = _IRREGULAR.get(word, word)
    if w != word or has_cjk(w):
        return w
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix in ("s", "es") and w.endswith("ss") and suffix == "s":
                continue
            st = w[: -len(suffix)]
            # quitting -> quit, planned -> plan (a doubled consonant before -ing/-ed)
            if (
                suffix in ("ing", "ed", "er", "ers", "ings")
                and len(st) > 3
                and st[-1] == st[-2]
                and st[-1] not in "lsaeiou"
            ):
                st = st[:-1]
            return st
    return w


# meanings several words share (each line: stems or Chinese phrases); a term matches any of its line
_CONCEPTS: tuple[tuple[str, ...], ...] = tuple(lexicon.grouped("requests", "concepts").values())
_CONCEPT_OF: dict[str, int] = {}
for _i, _line in enumerate(_CONCEPTS):
    for _w in _line:
        _CONCEPT_OF.setdefault(_w, _i)
        if " " not in _w and not has_cjk(_w):
            _CONCEPT_OF.setdefault(_stem(_w), _i)

_EN_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_CLAUSE = re.compile(
    r"((?:[.;!?](?=\s|$)|,(?=\s)|[\n。；！？，、])+\s*"
    # a run of spaces is a separator from its first space only (every space of a long run was a start)
    r"|(?<!\s)\s++(?:and|but|also|plus|while|though|although|then)\s+|(?<!\s)\s++-+\s+"
    r"|(?:而且|但是|不过|另外|还有))"
)
# the words that name the one a key is about ("child_school": my daughter …), by key person
_KEY_SUBJECT_WORDS: dict[str, tuple[str, ...]] = lexicon.grouped("requests", "key_subject_words")
_NOT_NAMES = frozenset(lexicon.words("requests", "not_names"))
_REGISTERED_PLACE = re.compile(rf"(?:户籍|户口|老家|籍贯)(?:在|是)[{HAN_CLASS}]{{2,4}}")
# words that carry no information of their own in what is left of a memory
_REST_FILLER = lexicon.words("requests", "rest_filler")
_ZH_REST_FILLER = lexicon.words("requests", "rest_filler_phrases")
FORGOTTEN = "[forgotten]"  # what a forgotten value or clause reads as afterwards

# personal data in plain text (memories stored without the privacy layer): simple shapes
_PII_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("EMAIL", re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]++@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")),
    ("CN_ID", re.compile(r"(?<!\d)\d{17}[\dXx](?!\d)")),
    ("CARD", re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")),
    ("PASSPORT", re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,2}\d{6,9}(?![A-Za-z0-9])")),
    ("PHONE", re.compile(r"(?<![A-Za-z0-9+])\+?\(?\d[\d ().-]{5,18}\d(?![A-Za-z0-9])")),
    (
        "ADDRESS",
        re.compile(
            r"\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:street|st|road|rd|avenue|ave|lane|ln|drive|dr|"
            r"boulevard|blvd|way|court|ct|place|pl|row|close|crescent|terrace|grove)\b\.?(?:,?\s*(?:apt|unit|flat|#)\s*\w+)?"
            # the town, state and postcode that finish it ("…, Fresno, CA 93721"; "… in Millbeck")
            r"(?:(?:,\s*|\s+in\s+)(?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)(?![a-z]))?"
            # a US state and ZIP, or a UK postcode ("…, Burnley BB11 3QT")
            r"(?:,?\s*(?-i:[A-Z]{2})\s+\d{5}(?:-\d{4})?|,?\s*(?-i:[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2})(?![A-Za-z0-9]))?"
            rf"|[{HAN_CLASS}]{{2,12}}(?:路|街|道|巷)\s*\d+\s*(?:号|弄)"
            rf"(?:\s*\d+\s*(?:号|弄|栋|幢|楼|单元|室))*(?:\s*\d{{1,5}}(?!\d))?(?:[{HAN_CLASS}\d]{{0,8}}(?:室|楼|单元))?"
            # where one lives without a number: a road or an estate after 住 / 住在 / 家住
            # ("我家住在朝阳区望京西园三区", "住禾兴路那边")
            rf"|(?:住在|家住|住)[{HAN_CLASS}]{{2,12}}(?:路|街|巷|小区|花园|家园|新村|公寓|苑|园|区)"
            r"(?:[一二三四五六七八九十\d]{1,3}(?:区|期|栋|幢|号楼))?"
            # a street named before its number ("Travessa do Carmo 9", "Calle de la Paz 14")
            r"|\b(?:rua|travessa|avenida|calle|carrer|via|viale|rue|strasse|straße)\s+"
            r"(?:(?:do|da|dos|das|de|del|la|di|du)\s+)*(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,3},?\s+\d{1,4}[a-z]?\b",
            re.IGNORECASE,
        ),
    ),
)


def _luhn(digits: str) -> bool:
    total, alt = 0, False
    for ch in reversed(digits):
        d = int(ch)
        if alt:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
        alt = not alt
    return total % 10 == 0


# the comma-joined parts before a street that begin an address ("5F Block B, Xinghe Garden, 88
# Meilin Rd"): capitalised words, numbers and a unit letter, right after what introduces an
# address (the address topic's content words: "my delivery address is …", "i live at …")
_ADDRESS_PARTS = re.compile(
    r"(?-i:(?:(?:\d+[A-Za-z]?|[A-Z][\w'-]*)(?:[ \t]+(?:\d+[A-Za-z]?|[A-Z][\w'-]*)){0,3}),[ \t]*){1,4}$"
)
_ADDRESS_LEAD = re.compile(
    r"\b(?:"
    + "|".join(
        re.escape(w)
        for t in TOPICS
        if t.key == "address"
        for w in sorted(t.content_words, key=len, reverse=True)
        if not has_cjk(w)
    )
    + r")(?:\s+is|\s*:)?\s+$",
    re.IGNORECASE,
)


def _address_start(text: str, s: int) -> int:
    """Where an address found at ``s`` begins: back over the parts before its street when an
    address is introduced right before them; ``s`` otherwise. Bounded: a short window back."""
    window = max(0, s - 120)
    m = _ADDRESS_PARTS.search(text, window, s)
    if m is None or not _ADDRESS_LEAD.search(text[max(0, m.start() - 60) : m.start()]):
        return s
    return m.start()


def builtin_pii(text: str) -> list[tuple[str, int, int]]:
    """Personal data in plain text by simple patterns: (type, start, end), earlier types win overlaps."""
    found: list[tuple[str, int, int]] = []
    for label, pattern in _PII_PATTERNS:
        for m in pattern.finditer(text):
            s, e = m.span()
            digits = re.sub(r"\D", "", m.group(0))
            if label == "CARD" and not (
                13 <= len(digits) <= 19
                and (
                    _luhn(digits)
                    or re.search(
                        r"(?:卡号|card (?:number|no\.?))\s*[:：是]?\s*$", text[max(0, s - 12) : s], re.I
                    )
                )
            ):
                continue  # a card number passes the Luhn check, or is said to be one ("卡号…")
            if label == "PHONE" and not 7 <= len(digits) <= 15:
                continue
            if label == "PHONE" and re.fullmatch(r"(19|20)\d\d[-./](\d\d?)[-./]\d\d?", m.group(0)):
                continue  # a date
            if label == "ADDRESS" and has_han(m.group(0)):
                # "我住在南京鼓楼区汉中路 12 号": the address starts after what introduces it
                lead = re.match(r".*(?:住在|住|在|是|到)", m.group(0))
                if lead and lead.end() < e - s - 4:
                    s += lead.end()
            if label == "ADDRESS" and not has_han(m.group(0)):
                s = _address_start(text, s)
            if any(s < fe and fs < e for _, fs, fe in found):
                continue
            found.append((label, s, e))
    return sorted(found, key=lambda f: f[1])


class Detection(Protocol):
    """One value a PII detector found (the privacy layer's ``Detection`` has these)."""

    @property
    def entity_type(self) -> object: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


# a PII detector: the privacy layer's ``detect`` (text -> detections), when the redactor has one
Detect = Callable[[str], Iterable[Detection]]


def detect_values(text: str, detect: Detect | None = None) -> list[tuple[str, int, int]]:
    """Placeholders, plus values ``detect`` (the privacy layer's ``detect``, when the redactor has
    one) or the built-in patterns find in plain text."""
    out = [(m.group(1), m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)]
    plain: list[tuple[str, int, int]] = []
    if detect is not None:
        try:
            plain = [
                (str(getattr(d.entity_type, "value", d.entity_type)), d.start, d.end) for d in detect(text)
            ]
        except Exception:  # a detector that fails must not make a forget request fail
            plain = []
    if not plain:
        plain = builtin_pii(text)
    out += [p for p in plain if not any(p[1] < e and s < p[2] for _, s, e in out)]
    return sorted(out, key=lambda f: f[1])


class _Text:
    """A memory's content (or key) prepared for matching: clauses, stems, Chinese text."""

    def __init__(self, text: str) -> None:
        self.raw = text
        self.norm = unicodedata.normalize("NFKC", text).lower()
        parts = _CLAUSE.split(text)
        # (start, end) of each clause in the original text; separators are kept outside
        self.clauses: list[tuple[int, int]] = []
        pos = 0
        for i, part in enumerate(parts):
            if (i % 2 == 0 and part.strip() and _EN_WORD.search(part.lower())) or (
                i % 2 == 0 and has_cjk(part)
            ):
                lead = len(part) - len(part.lstrip())
                self.clauses.append((pos + lead, pos + len(part.rstrip())))
            pos += len(part)
        self.stems = [self._stems(self.raw[s:e]) for s, e in self.clauses]
        self.all_stems = {st for c in self.stems for st in c}

    @staticmethod
    def _stems(text: str) -> list[str]:
        norm = unicodedata.normalize("NFKC", text).lower()
        return [_stem(w.replace("’", "'").removesuffix("'s")) for w in _EN_WORD.findall(norm)]

    def clause_hits(self, phrase: str) -> list[int]:
        """Indexes of the clauses holding ``phrase`` (stemmed English words in order, or Chinese text)."""
        if has_cjk(phrase):
            return [i for i, (s, e) in enumerate(self.clauses) if phrase in self.raw[s:e].lower()]
        want = [_stem(w) for w in _EN_WORD.findall(phrase.lower())]
        if not want:
            return []
        hits = []
        for i, stems in enumerate(self.stems):
            n = len(want)
            if any(stems[j : j + n] == want for j in range(len(stems) - n + 1)):
                hits.append(i)
        return hits


def _key_tokens(key: str | None) -> list[str]:
    return [t for t in re.split(r"[_\W]+", (key or "").lower()) if t]


def _key_head(tokens: list[str]) -> tuple[str | None, list[str]]:
    """The word a snake_case key is about (``work_email`` -> email) and the words that qualify it."""
    toks = list(tokens)
    while len(toks) > 1 and (
        toks[-1] in _GENERIC_HEADS or (toks[-1] == "address" and toks[-2] in ("email", "mail", "e", "ip"))
    ):
        toks = toks[:-1]
    if not toks:
        return None, []
    return toks[-1], toks[:-1]


def _concept_forms(term: str) -> set[str]:
    """A term's stem and every word that shares its meaning (:data:`_CONCEPTS`)."""
    st = _stem(term)
    line = _CONCEPT_OF.get(st, _CONCEPT_OF.get(term))
    forms = {st, term}
    if line is not None:
        forms.update(_CONCEPTS[line])
    return forms


_NEW_WORD_ENDINGS = frozenset(lexicon.words("requests", "new_word_endings"))


def _near_word(asked: str, said: str) -> bool:
    """Whether a stem the request gives names a stem of the memory beyond what the stemmer joins:
    the same word in another form (pregnanc-y / pregnant, investig-ation / investigat-ed: a shared
    start of six letters or more, each going on by three at most), or a typo of one letter
    left out, added or swapped in a word of five or more ("adress", "medcial"). Substitutions are
    not typos here: they join real words (lives / loves)."""
    if asked == said or has_cjk(asked) or has_cjk(said):
        return asked == said
    n = 0
    for x, y in zip(asked, said, strict=False):
        if x != y:
            break
        n += 1
    tails = (asked[n:], said[n:])
    # an ending that makes another word (account / accountant, person / personal, secret / secretary)
    other_word = any(t in _NEW_WORD_ENDINGS for t in tails)
    if n >= 6 and max(map(len, tails)) <= 3 and not other_word:
        return True
    if n >= 5 and min(map(len, tails)) == 0 and max(map(len, tails)) <= 2 and not other_word:
        return True  # separ-ation / separat-ed
    return _typo_of(asked, said)


def _typo_of(asked: str, said: str) -> bool:
    """One letter left out, added or swapped with its neighbour, in words of five letters or more."""
    if min(len(asked), len(said)) < 5 or abs(len(asked) - len(said)) > 1 or asked == said:
        return False
    if len(asked) == len(said):  # one swap of neighbours
        diff = [i for i in range(len(asked)) if asked[i] != said[i]]
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and asked[diff[0]] == said[diff[1]]
            and asked[diff[1]] == said[diff[0]]
        )
    short, long_ = (asked, said) if len(asked) < len(said) else (said, asked)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _text_has(text: _Text, forms: set[str]) -> list[int]:
    hits: set[int] = set()
    for f in forms:
        if has_cjk(f) or " " in f:
            hits.update(text.clause_hits(f))
        else:
            st = _stem(f)
            hits.update(
                i
                for i, stems in enumerate(text.stems)
                if f in stems or st in stems or any(_near_word(st, w) for w in stems)
            )
    return sorted(hits)


_CJK_QUALIFIERS = sorted((w for w in _QUALIFIERS if has_cjk(w)), key=len, reverse=True)


def _qualifiers_in(text: str) -> set[str]:
    found = set()
    for w in _EN_WORD.findall(text.lower()):
        q = _QUALIFIERS.get(w.replace("’", "'").removesuffix("'s"))
        if q is not None:
            found.add(_MUM_DAD.get(q, q))
    # longest first, each taking its characters: 男朋友 is a partner, not also a friend (朋友)
    for w in _CJK_QUALIFIERS:
        if w in text:
            found.add(_QUALIFIERS[w])
            text = text.replace(w, " ")
    return found


def _cut(rest: str, phrase: str) -> tuple[str, bool]:
    if _has_phrase(rest, phrase):
        if has_cjk(phrase):
            return rest.replace(phrase, " "), True
        return re.sub(rf"(?<![\w]){re.escape(phrase)}(?![\w])", " ", rest), True
    return rest, False


# misspelt verbs ("pls forgt my gf's name") and "we"/"our" said for oneself ("where we live")
_TYPO_VERBS = re.compile(r"\b(?:" + "|".join(lexicon.words("requests", "typo_verbs")) + r")\b")
_TYPO_FIX: dict[str, str] = lexicon.mapping("requests", "typo_fix")
_WE = (
    (r"\bwe're\b", "i'm"),
    (r"\bwe've\b", "i've"),
    (r"\bwe\b", "i"),
    (r"\bour\b", "my"),
    (r"\bours\b", "mine"),
)
_OLD = re.compile(
    r"\b(?:old|previous|former|earlier|ancient history|used to)\b|以前的|之前的|原来的|旧的|以前住"
)
_CURRENT = re.compile(
    r"\b(?:current|currently|present)\b|\b(?:live|living|work|working|based|staying)\b[^,]{0,12}\bnow\b"
    r"|现在的|目前的|现在住"
)
_FACET = re.compile(
    r"\b(?:which|what|exact|the)\s+(?:city|town|place|village)\b|哪个城市|哪座城市|哪个城|具体"
)
# the request names the value itself ("儿子的出生日期", "the name of my kid's school", "the exact …")
_LIST_SPLIT = re.compile(r",|\band\b|\bor\b|\bboth\b|\bas well as\b|、|以及|或者")
_EXACT = re.compile(r"\b(?:date|exact|specific|name of)\b|'s name\b|日期|几号|具体|的名字")
_KEEP_WORDS = frozenset(lexicon.words("requests", "keep_words"))
_ZH_KEEP_FILLER = re.compile(
    r"保留|留着|留下|别删|不要删|不用删|别动|不要动|不用动|可以记着|可以记|可以留|记着就行|就行|就好|无所谓|没关系|不用管|没事|"
    r"知道|这事|这个|那个|哪个"
)
_STRONG_VALUES = frozenset({"postcode", "plate", "handle"})
_SHAPED = frozenset({"age"})
# how long something has lasted is said about the value, not something else ("for six years")
_DURATION_WORDS = frozenset(_stem(w) for w in lexicon.words("requests", "duration_words"))
_CONTINUES = re.compile(
    r"^\s+and\s+(?:his|her|their|my|our|the|a|an|two|three)\s+\w+(?:\s+(?:in|at|on|of|from)\b.*)?$"
)
# a clause that begins with one of these continues the one before it and shares its subject
# ("…pin is hard to remember, it's 830516", 密码老记不住，是 830516, "sandra's pregnant!! due in
# november"): a span that ends a clause takes its continuation with it (requests.json → continuing_leads)
_LEADS = lexicon.words("requests", "continuing_leads")
_CONTINUING = re.compile(
    "|".join(
        [rf"{re.escape(w)}(?![\w'])" for w in sorted(_LEADS, key=len, reverse=True) if not has_cjk(w)]
        + [re.escape(w) for w in sorted(_LEADS, key=len, reverse=True) if has_cjk(w)]
    )
    or r"(?!)",
    re.IGNORECASE,
)
_PART_FACETS = frozenset(
    {"company", "postcode", "license_plate", "handle", "nickname"}
)  # attributes a value's shape alone names ("I'm 41", 今年34了)  # shapes that say what they are
_VALUE_FACETS = frozenset({"postcode", "license_plate", "handle", "school", "nickname", "company"})


def _alternation(ws: Iterable[str]) -> str:
    """One regex alternation of data words, longest first; an English word ends at a word boundary."""
    return "|".join(
        re.escape(w) if has_cjk(w) else rf"(?<!\w){re.escape(w)}(?!\w)"
        for w in sorted(set(ws), key=len, reverse=True)
    )


# the kind of value a request's facet word names, when the attribute has no value of its own
_FACET_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("age", re.compile(r"\bhow old\b|多大|几岁|年龄|年纪")),
    ("amount", re.compile(r"\bhow much\b|\bamount\b|\bprice\b|\bcost\b|\bfigure\b|多少|价格|金额|价钱")),
    (
        "code",
        re.compile(
            r"\b(?:number|no|id|code|reference|ref|account)\b|号码?|编号|账号|单号|"
            + _alternation(lexicon.words("requests", "code_words"))
        ),
    ),
    (
        "name",
        re.compile(
            r"\bname of\b|'s names?\b|\b(?!real|full|first|last|user|pen|my)[a-z]+ names?\b|的名字|的名称|名字叫什么|它名字|叫什么"
        ),
    ),
    (
        "place",
        re.compile(
            r"\b(?:neighbou?rhood|area|district|suburb|town|village|city|street)\b|小区|哪个区|街道|城市"
        ),
    ),
    ("med", re.compile(r"\b(?:pills?|meds|medication|medicines?|tablets?|drugs?)\b|吃的药|药")),
)
# attributes whose own value already says what goes
_OWN_VALUE = frozenset(lexicon.words("requests", "own_value"))


def _value_kind(norm: str, topics: list[str]) -> str | None:
    """The value a request's facet names ("the flight number" -> code, 借了多少钱 -> amount)."""
    if any(t in _OWN_VALUE for t in topics):
        return None
    for kind, pattern in _FACET_KINDS:
        if pattern.search(norm):
            if kind == "code" and "phone_number" in topics:
                continue
            return kind
    return None


# the speaker as the subject of what to forget ("that I'm from Porto"), not as the one who told
_TELLING = re.compile(
    r"\bi (?:told|said|mentioned|shared|gave|wrote|typed|put)\b|\bi'?ve (?:told|said|mentioned|shared)\b"
    r"|\bi take\b|\bi live\b|\bi work\b|我(?:说|讲|告诉|提|跟你)"
)
_ABOUT_SELF = re.compile(
    r"\b(?:that i|that i'm|i'm|i am|i was|i've|i had|i have|i got)\b|(?<![跟和])我(?:是|在|有|要|想|从)"
)
_LITERAL_NUMBER = re.compile(r"(?<![\w])\+?\d[\d ().-]{3,}\d(?![\w])|(?<![\d])\d{5,}(?![\d])")


# a clause that leaves the noun out: "and my mom's is August 19", "我妈的是8月19号"
_ELLIPSIS = re.compile(
    rf"^(?:and\s+|&\s+)?(?:my\s+|our\s+)?[\w-]+(?:'s|s')\s+(?:is|was|are)\b|^我?[{HAN_CLASS}]{{1,4}}的(?:是|在)",
    re.I,
)
# the local part starts where its run starts (from every digit of a long run it was quadratic)
_LITERAL_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(r"(?<![A-Za-z])['\"‘“「『]([^'\"‘’“”「」『』]{1,40})['\"’”」』](?![A-Za-z])")


def _literal_values(text: str) -> tuple[str, ...]:
    """Numbers and e-mail addresses the request gives itself ("forget 555-0199", "delete
    bookings@…"): the memory that holds one loses it."""
    emails = [m.group(0) for m in _LITERAL_EMAIL.finditer(text)]
    # a value the request quotes ("把'李浩'这个名字删了", forget "Blue Fern"): that exact text
    emails += [m.group(1).strip() for m in _QUOTED.finditer(text) if m.group(1).strip()]
    rest = _LITERAL_EMAIL.sub(" ", text)
    return tuple(
        dict.fromkeys(
            [
                *emails,
                *(
                    m.group(0).strip()
                    for m in _LITERAL_NUMBER.finditer(rest)
                    if len(re.sub(r"\D", "", m.group(0))) >= 5
                ),
            ]
        )
    )


# the request asks for one value, not everything about a thing
_ASKS_VALUE = re.compile(
    r"\b(?:which|where|what|how much|how old|how many|when|number|digits?|name|date|code|address)\b"
    r"|多少|多大|几岁|几号|哪|号码?|名字|叫啥|叫什么|是谁|后四位|数字|日期"
)


# "做手术", "做试管": the light verb 做 before a procedure says nothing of what to forget
_LIGHT_VERB_ZH = re.compile(r"做(?=手术|试管|检查|化疗|透析|胃镜|肠镜|体检|核磁|CT)")


def _normalise_request(norm: str) -> str:
    norm = _TYPO_VERBS.sub(lambda m: _TYPO_FIX.get(m.group(0), "forget"), norm)
    for pattern, repl in _WE:
        norm = re.sub(pattern, repl, norm)
    return _LIGHT_VERB_ZH.sub("", norm)


def _keep_part(keep: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(words, whose) of what a request says stays: "the street is fine" -> street; "not my mum's"."""
    if not keep.strip():
        return (), ()
    # whose stays only when said as a possessive ("not my son's", "我老公的留着", "the work one");
    # "跟我妈一起住这个可以留" keeps a fact, not whatever is my mum's
    whose = " ".join(
        m.group(0)
        for m in re.finditer(
            rf"\b[a-z]+(?:'s|s')(?=\W|$)|\b[a-z]+\s+one\b|[{HAN_CLASS}]{{1,4}}(?:的|那个|那份)", keep
        )
    )
    quals = {_MUM_DAD.get(q, q) for q in _qualifiers_in(whose)}
    rest = _without_filler(_ZH_KEEP_FILLER.sub(" ", keep))
    words = [
        t
        for t in query_terms(rest)
        if (len(t) > 1 or has_cjk(t))
        and t not in _MORE_FILLER
        and t not in _KEEP_WORDS
        and _QUALIFIERS.get(t) is None
    ]
    words += sorted(possessive_names(keep))
    return tuple(dict.fromkeys(words)), tuple(sorted(quals))


# the English words that name an attribute or a scope in a request, for putting a typo right
_REQUEST_VOCAB: frozenset[str] = frozenset(
    w
    for phrases in [t.request_words for t in TOPICS] + [sc.request_words for sc in SCOPES]
    for p in phrases
    if not has_cjk(p)
    for w in p.split()
    if len(w) >= 5
)


def _spell_fixed(text: str) -> str:
    """The request with a misspelt word of an attribute's or a scope's name put right ("home adress",
    "my medcial stuff"): one letter left out, added or swapped, in words of five letters or more."""
    words = _EN_WORD.findall(text)
    if not words:
        return text
    for w in set(words):
        if w in _REQUEST_VOCAB or len(w) < 5:
            continue
        # a letter more or less at the end is another form (thing / things), not a typo
        fix = next(
            (v for v in _REQUEST_VOCAB if _typo_of(w, v) and not (v.startswith(w) or w.startswith(v))),
            None,
        )
        if fix is not None:
            text = re.sub(rf"(?<![\w]){re.escape(w)}(?![\w])", fix, text)
    return text


def _without_filler(text: str) -> str:
    """A request's words without its filler, English and Chinese."""
    for filler in _ZH_MORE_FILLER:
        text = text.replace(filler, " ")
    return _FILLER_ZH.sub(" ", _FILLER_EN.sub(" ", text))


def _terms_of_zh(rest: str) -> bool:
    """Whether a Chinese request still names something once its filler is gone."""
    return bool(re.search(rf"[{HAN_CLASS}]{{2,}}", _EVERYTHING.sub(" ", _without_filler(rest))))


def _keep_topics(keep: str, asked: set[str]) -> tuple[str, ...]:
    """The attributes a keep clause names by a description or a word ("where I'm from is fine",
    老家可以留着), with a value kind to know their values by; not one the request asks to forget."""
    if not keep.strip():
        return ()
    found: list[str] = []
    for phrase, keys in _DESCRIPTIONS:
        if _has_phrase(keep, phrase):
            found.extend(keys)
    for t in TOPICS:
        if any(_has_phrase(keep, p) for p in t.request_words):
            found.append(t.key)
    if re.search(r"\bdates?\b|日子|日期", keep) and "birthday" not in asked:
        found.append("date")  # "the dates are fine", 日子留着: a date said in the turn stays
    by_key = {t.key: t for t in TOPICS}
    return tuple(
        k
        for k in dict.fromkeys(found)
        if k not in asked
        and k not in _PERSON_KEYS  # "老公的留着" keeps a person's things: whose, not a value kind
        and (_KEPT_KINDS.get(k) or by_key[k].value or VALUE_KINDS.get(k))
    )


# where one is from has no value kind of its own: its value is a place
_KEPT_KINDS = {"hometown": "place", "date": "date"}
_PERSON_KEYS = frozenset({"partner", "children", "pet", "name"})


def parse_intent(text: str) -> ForgetIntent:
    """The rule-based parser (English and Chinese)."""
    whole = _spell_fixed(
        _normalise_request(unicodedata.normalize("NFKC", text).lower().strip().replace("’", "'"))
    )
    main, keep, _reason = split_request(whole)
    norm = _KEEP_TAIL.sub("", main).strip() or main
    keep_terms, keep_quals = _keep_part(keep)
    version = "old" if _OLD.search(norm) else ("current" if _CURRENT.search(norm) else None)
    rest = norm
    # whose: "my wife's phone", "老婆的电话" (a possessive person is a qualifier, not the topic)
    qualifiers: list[str] = []
    for m in _POSSESSIVE_EN.finditer(rest):
        q = _QUALIFIERS.get(m.group(1))
        if q is not None:
            qualifiers.append(_MUM_DAD.get(q, q))
            rest = rest.replace(m.group(0), " ")
    for w, q in _QUALIFIERS.items():
        if has_cjk(w) and w + "的" in rest:
            qualifiers.append(q)
            rest = rest.replace(w + "的", " ")
    # "工作邮箱", "公司地址": a qualifier right before an attribute's word says which one
    for w, q in _QUALIFIERS.items():
        if (
            has_cjk(w)
            and w in rest
            and any(
                has_cjk(p) and w + p in rest
                for t in TOPICS
                if t.pii_types and t.key != "name"
                for p in t.request_words
            )
        ):
            qualifiers.append(q)
            rest = rest.replace(w, " ")
    when = None
    ago = forget_scope(rest)  # "eight days ago", 三天前: the one resolver's patterns and numerals
    if ago is not None:
        when, (a, b) = ago
        rest = rest[:a] + " " + rest[b:]
    for phrase, scope_when in _WHEN:
        rest, hit = _cut(rest, phrase)
        if hit and when is None:
            when = scope_when
    topics: list[Topic] = []
    by_key = {t.key: t for t in TOPICS}
    for phrase, keys in sorted(_DESCRIPTIONS, key=lambda d: len(d[0]), reverse=True):
        rest, hit = _cut(rest, phrase)
        if hit:
            topics.extend(by_key[k] for k in keys if by_key[k] not in topics)
    scopes: list[str] = []
    about = bool(_ABOUT.search(norm)) or any(w in norm for w in _ABOUT_WORDS)
    for scope in SCOPES:
        for phrase in sorted(scope.request_words, key=len, reverse=True):
            # "my work" / "my job" name the job; "anything about work" / "my health" the subject
            if phrase in ("work", "my job", "工作", "上班") and not about:
                continue
            rest, hit = _cut(rest, phrase)
            if hit and scope.name not in scopes:
                scopes.append(scope.name)
    # longest phrases first, across topics: "email address" is an e-mail, not an address
    for phrase, topic in sorted(
        ((p, t) for t in TOPICS for p in t.request_words), key=lambda pt: len(pt[0]), reverse=True
    ):
        if _has_phrase(rest, phrase):
            if topic not in topics:
                topics.append(topic)
            rest = rest.replace(phrase, " ")
    # word forms: "allergies", "my diets"
    singles = {_stem(p): t for t in TOPICS for p in t.request_words if " " not in p and not has_cjk(p)}
    for w in _EN_WORD.findall(rest):
        t = singles.get(_stem(w))
        if t is not None and w not in _MORE_FILLER:
            if t not in topics:
                topics.append(t)
            rest = re.sub(rf"(?<![\w]){re.escape(w)}(?![\w])", " ", rest)
    topics.sort(key=TOPICS.index)
    kinds: list[Kind] = []
    for kind, words in _KIND_WORDS.items():
        for phrase in words:
            if _has_phrase(rest, phrase):
                kinds.append(kind)
                rest = rest.replace(phrase, " ")
                break
    # a remaining qualifier word ("my work email", "私人邮箱") says which one, when a topic is named
    if topics:
        for w in _EN_WORD.findall(rest):
            q = _QUALIFIERS.get(w)
            if q is not None:
                qualifiers.append(_MUM_DAD.get(q, q))
                rest = re.sub(rf"(?<![\w]){re.escape(w)}(?![\w])", " ", rest)
        for w, q in _QUALIFIERS.items():
            if has_cjk(w) and w in rest:
                qualifiers.append(q)
                rest = rest.replace(w, " ")
    if when and kinds == [Kind.EPISODE]:
        kinds = []  # "昨天的聊天记录", "yesterday's chats": everything said then, whatever it became
    hard = bool(_HARD.search(whole))
    everything = bool(_EVERYTHING.search(norm)) and not topics and not kinds and not scopes and not when
    if everything and has_han(norm) and _terms_of_zh(rest):
        everything = False  # "做试管的事全部删了": all of that, not all of everything

    def _terms_of(piece: str) -> tuple[str, ...]:
        return tuple(t for t in query_terms(piece) if (len(t) > 1 or has_cjk(t)) and t not in _MORE_FILLER)

    # a list of things to forget ("the lump and biopsy episode", "惊恐发作和心理咨询"): each item alone
    groups = [g for g in (_terms_of(p) for p in _LIST_SPLIT.split(rest)) if g] if rest.strip() else []
    rest = _without_filler(rest)
    terms = _terms_of(rest) if rest.strip() else ()
    groups = [tuple(t for t in g if t in terms) for g in groups]
    any_of = tuple(g for g in groups if g) if sum(1 for g in groups if g) > 1 else ()
    if everything and terms and _ABOUT.search(norm):
        everything = False  # "everything about my trip": the trip, not everything
    # "forget my kids' names", 忘掉我对象的事: the person named is what to forget, not a qualifier
    people = [q for q in qualifiers if q in _PERSON_TOPIC]
    alone = not kinds and not scopes and not terms and not everything
    if people and alone and (not topics or [t.key for t in topics] == ["name"]):
        topics = [by_key[_PERSON_TOPIC[q]] for q in dict.fromkeys(people)]
        # "my daughter's stuff" is hers, not her brother's: son and daughter stay as qualifiers
        qualifiers = [q for q in qualifiers if q not in _PERSON_TOPIC or q in ("son", "daughter", "ex")]
    # "where my kid goes to school", 女儿上哪个幼儿园: the person says whose, the school is the topic
    person_keys = {"partner", "children", "pet"}
    if any(t.key not in person_keys and t.key != "name" for t in topics):
        for t in [t for t in topics if t.key in person_keys]:
            if t.key == "pet" and any(x.key == "name" for x in topics):
                continue  # 猫的名字: the pet's name
            topics.remove(t)
            qualifiers.append({"partner": "partner", "children": "kid", "pet": "pet"}[t.key])
    if (
        not topics
        and re.search(r"\bnumber\b", norm)
        and any(q in _PERSON_TOPIC or q in _QUALIFIERS.values() for q in qualifiers)
    ):
        topics = [by_key["phone_number"]]  # "my wife's number"
    # "forget what I told you about my mom", 我妈的情况: a person alone is what to forget
    others = [q for q in qualifiers if q in _PEOPLE and q not in _PERSON_TOPIC]
    if others and not topics and not terms and not kinds and not scopes and not everything:
        terms = tuple(dict.fromkeys(others))
        qualifiers = [q for q in qualifiers if q not in others]
    value_kind = _value_kind(norm, [t.key for t in topics])
    if (value_kind == "amount" and topics) or (value_kind == "amount" and "money" in scopes and terms):
        scopes = [sc for sc in scopes if sc != "money"]  # 借了多少钱: the amount, not all money matters
    facet = (
        any(t.key in _VALUE_FACETS for t in topics)
        or (any(t.key == "name" for t in topics) and len(topics) > 1)
        or bool(_FACET.search(norm))
    )
    return ForgetIntent(
        hard=hard,
        topics=tuple(t.key for t in topics),
        kinds=tuple(kinds),
        pii_types=tuple(dict.fromkeys(p for t in topics for p in t.pii_types)),
        terms=() if everything else terms,
        everything=everything,
        lang="zh" if has_han(norm) else "en",
        scopes=tuple(scopes),
        when=when,
        qualifiers=tuple(dict.fromkeys(qualifiers)),
        # "forget my home address, but do keep the email address": what stays is the e-mail, not
        # the word of the attribute the request takes
        keep_terms=tuple(
            k for k in keep_terms if len(keep_terms) < 2 or not any(k in t.request_words for t in topics)
        ),
        keep_qualifiers=tuple(q for q in keep_quals if q not in qualifiers),
        version=version,
        facet=facet or value_kind not in (None, "med"),
        exact=bool(_EXACT.search(norm)),
        any_of=() if everything else any_of,
        about_self=bool(_ABOUT_SELF.search(_TELLING.sub(" ", norm))),
        values=_literal_values(text),
        value_kind=value_kind,
        people=tuple(sorted(person_words(main))),
        asks_value=bool(_ASKS_VALUE.search(norm)) or facet or value_kind is not None,
        measures=measures_named(norm),
        keep_measures=measures_named(keep),
        keep_topics=_keep_topics(keep, {t.key for t in topics}),
    )


def _stem_set(terms: list[str]) -> set[str]:
    return {t[:-1] if len(t) > 3 and t.endswith("s") and not has_cjk(t) else t for t in terms}


@dataclass
class MatchHit:
    """Why one memory matches and what of it goes: the whole memory, or spans of its content."""

    why: str
    spans: list[tuple[int, int]]  # empty: the whole memory
    topic: Topic | None = None  # the attribute that matched, when one did
    by_key: bool = False  # the memory's key names the attribute: the memory is about it
    value: bool = False  # one value the request names, chosen among several in the turn
    tentative: bool = False  # a guess by meaning below the confident bar: hidden, never purged

    @property
    def part(self) -> bool:
        return bool(self.spans)


# the attributes each scope covers: a memory keyed for another attribute is not the scope's by a word
_SCOPE_TOPICS: dict[str, tuple[str, ...]] = {
    "health": ("health", "allergy", "diet", "age"),
    "work": ("job", "salary", "company"),
    "family": ("partner", "children", "pet", "home", "address"),
    "money": ("salary", "credit_card", "home"),
    "love": ("partner",),
    "travel": (),
}


_SCOPE_KEY_WORDS: dict[str, frozenset[str]] = {
    scope: frozenset(_stem(w) for w in ws)
    for scope, ws in lexicon.grouped("requests", "scope_key_words").items()
}


def _topic_of_key(head: str | None) -> str | None:
    """The attribute a key's head word names (``job`` -> job, ``home_address`` -> address), if any."""
    if head is None:
        return None
    st = _stem(head)
    for t in TOPICS:
        if head == t.key or any(st == _stem(k) for k in t.key_stems):
            return t.key
    return None


def _kin(found: set[str], wanted: set[str]) -> tuple[set[str], set[str]]:
    """A kid is a son or a daughter: "child_school" answers "女儿上哪个幼儿园"."""
    if found & _KID_WORDS and wanted & _KID_WORDS and ("kid" in found or "kid" in wanted):
        both = (found | wanted) & _KID_WORDS
        return found | both, wanted | both
    return found, wanted


def _foreign(found: set[str], wanted: set[str]) -> bool:
    """Whether a memory's qualifiers say it is about someone or something else than the request."""
    found, wanted = _kin(set(found), set(wanted))
    other = {q for q in found if q not in _OWN} - wanted
    return bool(other) and not ({q for q in found} & wanted)


# words too general to say which part of a turn is meant ("that number", 那个数)
_GENERIC_CUES = frozenset(lexicon.words("requests", "generic_cues"))
# one word for each measured attribute, to list them all (measures_named over these)
_MEASURE_WORDS = lexicon.words("requests", "measure_words")


# words that qualify a value without saying anything else ("currently 52k before tax", 现在税前月薪…):
# a memory that holds only them besides the value is the value, and goes whole
_QUALIFYING_EN = lexicon.words("requests", "qualifying", "en")
_QUALIFYING_ZH = lexicon.words("requests", "qualifying", "zh")
# what else a memory's rest may say and still be only its value ("my number is …", 我的号码是…)
_REST_FILLER_EN = lexicon.words("requests", "rest_filler_words", "en")
_REST_FILLER_ZH = lexicon.words("requests", "rest_filler_words", "zh")


class Matcher:
    """Matches one request against a user's memories (the engine's ``forget_request`` runs it).

    ``clock`` is read for a time scope ("what I said yesterday"); ``detect`` finds PII values in a
    memory's plain text. Everything else it reads is the request and the memory."""

    def __init__(
        self,
        intent: ForgetIntent,
        related: set[str],
        literal: set[str] | None = None,
        *,
        clock: Callable[[], datetime],
        detect: Detect | None = None,
    ) -> None:
        self.detect = detect  # the configured PII detector; None: placeholders and built-in patterns
        self.intent = intent
        # terms some memory of the user holds as they are: their synonyms are not needed (网贷 is
        # in one memory; "借了" in another is not what was asked)
        self.literal = literal or set()
        self.topics = [t for t in TOPICS if t.key in intent.topics]
        self.scopes = [s for s in SCOPES if s.name in intent.scopes]
        self.wanted = set(intent.qualifiers)
        self.related = related  # ids the retriever ranks near the request: one more signal
        self.window = scope_window(intent.when, clock()) if intent.when else None
        self._key_people: set[str] = set()

    def match(self, record: MemoryRecord) -> MatchHit | None:
        hit = self._beside_kept(record, self._match_rules(record))
        if hit is None or not hit.spans:
            return hit
        # a span never cuts into personal data: "090" of "090 318 2274" takes the whole number
        spans = self._whole_values(record.content, self._continued(record.content, hit.spans))
        return hit if spans == hit.spans else replace(hit, spans=spans)

    def _continued(self, raw: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Each span that ends a clause, stretched over the clauses after it that continue it (a
        continuing lead, :data:`_CONTINUING`) and hold nothing the request keeps. Linear: how far
        each clause's continuation runs is found in one pass from the end."""
        clauses = _Text(raw).clauses
        if len(clauses) < 2:
            return spans
        starts = [a for a, _ in clauses]
        reach = list(range(len(clauses)))  # the last clause that continues clause i
        for i in range(len(clauses) - 2, -1, -1):
            a, b = clauses[i + 1]
            if _CONTINUING.match(raw, a) and not self._keeps(raw[a:b]):
                reach[i] = reach[i + 1]
        out = []
        for s, e in spans:
            i = bisect_right(starts, s) - 1  # the clause the span starts in
            if 0 <= i < len(clauses) and s < clauses[i][1] and e >= clauses[i][1]:
                e = max(e, clauses[reach[i]][1])
            out.append((s, e))
        return out

    def _match_rules(self, record: MemoryRecord) -> MatchHit | None:
        intent = self.intent
        if self.window is not None:
            said = record.occurred_at or record.created_at  # when it was said, not when it was written
            if said is None or not (self.window[0] <= said < self.window[1]):
                return None
        if intent.everything:
            return MatchHit("everything", [])
        if intent.values:
            return self._literal_hit(record)
        spelt = self._spelt_name(record)
        if spelt is not None:
            return spelt
        reasons: list[str] = []
        spans: list[tuple[int, int]] | None = None  # None: whole memory
        text = _Text(record.content)
        tokens = _key_tokens(record.key)
        self._key_people = {_KEY_PERSON[t] for t in tokens if t in _KEY_PERSON}
        head, quals = _key_head(tokens)
        key_quals = {_MUM_DAD.get(q, q) for q in (_QUALIFIERS.get(t) for t in quals) if q}
        topic: Topic | None = None
        by_key = False
        if self.scopes:
            # "anything about my family? Parents, sister, wife, the lot": what follows the subject
            # is examples of it, so a memory about the subject or about one of them goes, whole
            why = self._scope_hit(record, text, tokens)
            if why is None and self.topics:
                hit = self._topic_hit(record, text, head, key_quals)
                why = hit.why if hit is not None else None
            if why is None:
                return None
            reasons.append(why)
            spans = None
        elif self.topics:
            hit = self._topic_hit(record, text, head, key_quals)
            if hit is None:
                hit = self._value_by_terms(record, text, tokens)
            if hit is None:
                return None
            reasons.append(hit.why)
            spans = hit.spans or None
            topic = hit.topic
            by_key = hit.by_key
        if intent.kinds:
            if record.kind not in intent.kinds:
                return None
            reasons.append(f"kind {record.kind.value}")
        if intent.terms and not self.topics and not self.scopes and not intent.kinds:
            hit = self._terms_hit(record, text, tokens)
            if hit is None:
                return None
            reasons.append(hit.why)
            spans = hit.spans or None
            if intent.value_kind is not None:
                # "the flight number", 借了多少钱: the words find the memory, the facet the value
                vs = self._facet_spans(record, text)
                if vs:
                    reasons.append(f"{intent.value_kind} value")
                    return MatchHit(", ".join(reasons), vs if self._other_info(text, vs, None) else [])
        if self.window is not None:
            reasons.append(f"said {intent.when.replace('_', ' ') if intent.when else ''}".strip())
        if not reasons:
            return None
        refined = self._refine(record, text, key_quals, topic, spans, by_key)
        if refined is False:
            # what stays is in this turn: the value in the part that holds the request's words
            # goes, when another part holds what stays; else the memory is left alone
            if topic is None and not self.wanted and not intent.keep_qualifiers:
                return self._split_by_keep(record, MatchHit(", ".join(reasons), [], topic))
            return None
        if refined is not None and refined != spans:
            reasons.append("only the value asked for" if refined else "")
        hit = MatchHit(", ".join(r for r in reasons if r), refined or [], topic, by_key=by_key)
        return self._which_part(record, text, hit)

    # -- what stays beside what goes, part by part ---------------------------------------------------
    def _own_part(self, raw: str, a: int, b: int) -> bool:
        piece = raw[a:b]
        return not names_someone_else(piece) and not (person_words(piece) - set(self.intent.people))

    def _beside_kept(self, record: MemoryRecord, hit: MatchHit | None) -> MatchHit | None:
        """A turn that holds what goes and what stays side by side loses only the value that goes.

        A measured attribute is known by its unit or label when its word is not said ("多少斤" and
        一百三十斤, "my weight" and "5'6 and 168 lbs", 血压 and 160/95); a memory holding such a
        value of the user's own matches, one naming it only of someone else ("my husband weighs
        himself") does not. With a keep clause ("身高无所谓", "rent you can keep") or another
        measured value beside it, only the value asked for goes. Without measures, a keep clause
        selects too: the parts holding the request's words lose the value said there when another
        part holds what stays ("My stipend is $2,400 a month and rent is $1,650")."""
        intent = self.intent
        if intent.scopes or intent.when or intent.everything or intent.values:
            return hit
        if hit is not None and (hit.tentative or hit.value):
            return hit
        go_kinds = [k for k in intent.measures if k not in intent.keep_measures]
        keep_said = bool(intent.keep_terms or intent.keep_measures)
        if not (keep_said or go_kinds):
            return hit
        raw = record.content
        segs = parts(raw)
        starts = [a for a, _b in segs]
        # every reading of a part is kept: a text of one long part holds thousands of values, and
        # reading the part again for each was quadratic (issue 29)
        memo: dict[tuple[str, int, int], bool] = {}

        def once(what: str, seg: tuple[int, int], read: Callable[[], bool]) -> bool:
            key = (what, *seg)
            if key not in memo:
                memo[key] = read()
            return memo[key]

        def part_of(s: int) -> tuple[int, int] | None:
            i = bisect_right(starts, s) - 1
            return segs[i] if i >= 0 and segs[i][0] <= s < segs[i][1] else None

        def own(s: int) -> bool:
            seg = part_of(s)
            return seg is None or once("own", seg, lambda: self._own_part(raw, *seg))

        def labelled(kind: str, s: int) -> bool:
            # an amount is pay only in a part that says so ("I make 118k", 年薪…), not "rent is …"
            seg = part_of(s)
            return kind not in BY_LABEL_ONLY or (
                seg is not None and once(kind, seg, lambda: measure_said(kind, raw[slice(*seg)]))
            )

        def kept_part(s: int, e: int) -> bool:
            seg = part_of(s) or (s, e)
            return keep_said and once("keep", seg, lambda: self._keeps(raw[slice(*seg)]))

        measured = [
            (s, e)
            for k in go_kinds
            for s, e in measure_spans(k, raw)
            if own(s) and labelled(k, s) and not kept_part(s, e)
        ]
        kept = [(s, e) for k in intent.keep_measures for s, e in measure_spans(k, raw)]
        if go_kinds and not measured:
            if (
                hit is not None
                and any(measure_said(k, raw[a:b]) for k in go_kinds for a, b in segs)
                and not any(
                    measure_said(k, raw[a:b]) and self._own_part(raw, a, b) for k in go_kinds for a, b in segs
                )
            ):
                return None  # "my husband weighs himself": the attribute, but someone else's
            if hit is None:
                return None
        if measured:
            go = [(s, e) for s, e in measured if not any(a < e and s < b for a, b in kept)]
            others = [
                (s, e)
                for k in measures_named(" ".join(_MEASURE_WORDS))
                if k not in go_kinds
                for s, e in measure_spans(k, raw)
                if not any(a < e and s < b for a, b in go)
            ]
            # what stays: a kept measure, another measure, what the keep clause names, or (with a
            # keep clause) another number said beside the value ("FTP is 245 watts and I'm 59kg")
            numbers = [v for a, b in segs for v in plain_values(raw, a, b, set()) if raw[v[0]].isdigit()]
            stays = (
                kept
                or others
                or (keep_said and self._keeps(redacted(raw, go)))
                or (keep_said and any(not any(a < e and s < b for a, b in go) for s, e in numbers))
            )
            if go and stays:
                why = hit.why + ", " if hit is not None else ""
                return MatchHit(
                    why + f"only the {go_kinds[0].replace('_', ' ')} value",
                    go,
                    hit.topic if hit else None,
                    value=True,
                )
            if hit is None:
                return MatchHit(f"a {go_kinds[0].replace('_', ' ')} value of the user's", [])
            return hit
        if hit is None:
            return None
        return self._split_by_keep(record, hit, kept) or hit

    def _split_by_keep(
        self, record: MemoryRecord, hit: MatchHit, kept: list[tuple[int, int]] | None = None
    ) -> MatchHit | None:
        """The value said in the parts that hold the request's words, when another part holds what
        the keep clause says stays ("My stipend is … and rent is …" for "…, rent you can keep");
        None when the turn does not split that way."""
        intent = self.intent
        raw = record.content
        segs = parts(raw)
        kept = kept or []
        if not intent.keep_terms or len(segs) < 2:
            return None
        keep_idx = {
            i for i, (a, b) in enumerate(segs) if self._keeps(raw[a:b]) or any(a <= s < b for s, _ in kept)
        }
        cues = [t for t in intent.terms if t not in _GENERIC_CUES and t not in intent.people and len(t) > 1]
        go_idx = [
            i
            for i, (a, b) in enumerate(segs)
            if i not in keep_idx and any(self._part_has(raw[a:b], t) for t in cues)
        ]
        if not keep_idx or not go_idx:
            return None
        within = [segs[i] for i in go_idx]
        ends = [e for e in self._term_ends(raw) if any(a < e <= b for a, b in within)]
        go = [(s, e) for s, e in value_after(raw, ends) if any(a <= s < b for a, b in within)]
        go = go or [v for a, b in within for v in plain_values(raw, a, b, set())]
        if not go or (hit.spans and set(go) == set(hit.spans)):
            return None
        return MatchHit(
            hit.why + ", only the value in its part, what stays beside it kept", go, hit.topic, value=True
        )

    def _whole_values(self, raw: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Spans grown to the personal data they cut into: a value chosen by its shape ("090" of
        "090 318 2274") takes the whole phone number, card or code the detectors find there."""
        found = [(s, e) for _, s, e in detect_values(raw, self.detect)]
        if not found:
            return spans
        out = []
        for a, b in spans:
            for s, e in found:
                if s < b and a < e:
                    a, b = min(a, s), max(b, e)
            out.append((a, b))
        return sorted(set(out))

    # -- which of several values in one turn -------------------------------------------------------
    def _which_part(self, record: MemoryRecord, text: _Text, hit: MatchHit) -> MatchHit:
        """A turn that says several things side by side ("My son Kwame goes to … and my daughter Ama
        is at …", "I'm allergic to shellfish, latex and bee stings", 我在琴行上班，我女朋友在字节跳动)
        loses only the value in the part the request selects: by the person it names when another
        part is about someone else, else by its own words; in that part, the value of the kind asked
        for, the value said after its words (a bracket too), a name holding its word ("the Hotel
        Edison"), the item itself in a list, else a value by its shape. Otherwise the hit stands."""
        intent = self.intent
        raw = record.content
        segs = parts(raw)
        if len(segs) < 2 or intent.scopes or intent.when or intent.everything:
            return hit
        if intent.keep_terms and hit.spans:
            # "个人那个邮箱别存了，饭店的留着": a value in the part that says what stays, stays
            kept = [
                (s, e) for s, e in hit.spans if not any(a <= s < b and self._keeps(raw[a:b]) for a, b in segs)
            ]
            if kept and len(kept) < len(hit.spans):
                return MatchHit(hit.why + ", not the one kept", kept, hit.topic)
        people = set(intent.people)
        names = {t for t in intent.terms if re.search(rf"\b{re.escape(t[:1].upper() + t[1:])}\b", raw)}
        whose = [person_words(raw[a:b]) | {w for w in names if w in raw[a:b].lower()} for a, b in segs]
        chosen: list[int] = []
        by_person = False
        wanted = people | names
        if wanted:
            chosen = [i for i, w in enumerate(whose) if w & wanted]
            others = [
                i
                for i, w in enumerate(whose)
                if i not in chosen and ((w and not w & wanted) or says_self(raw[slice(*segs[i])]))
            ]
            by_person = 0 < len(chosen) < len(segs) and bool(others)
        if not by_person:
            # the request's own words, and the words of the attribute it names (上班 for "在哪家公司上班")
            cues = [t for t in intent.terms if t not in people and len(t) > 1]
            if not cues and hit.topic is not None and not hit.topic.pii_types:
                cues = [w for w in hit.topic.content_words if w in raw]
            chosen = [i for i, (a, b) in enumerate(segs) if any(self._part_has(raw[a:b], t) for t in cues)]
            if not 0 < len(chosen) < len(segs):
                return hit
        inside = [(s, e) for s, e in hit.spans if any(segs[i][0] <= s < segs[i][1] for i in chosen)]
        if hit.spans and inside and by_person and intent.value_kind is not None:
            # "how old my son is": the age in his part, not the name the attribute's kind finds
            typed = self._part_values(record, segs, chosen, names | people, kinds_only=True)
            inside = typed[0] if typed else inside
        if hit.spans and inside and by_person:
            return MatchHit(hit.why + ", the part about the one named", inside, hit.topic)
        if hit.spans and not by_person:
            return hit
        if hit.spans and not any(
            whose[i] and not whose[i] & wanted and segs[i][0] <= s < segs[i][1]
            for s, _ in hit.spans
            for i in range(len(segs))
        ):
            return hit  # "Our son Teo is 4 and goes to …": the value continues his part
        values = self._part_values(record, segs, chosen, names | people)
        if not values:
            return MatchHit(hit.why + ", the part about the one named", inside, hit.topic) if inside else hit
        if not (intent.asks_value or values[1]):
            return hit  # "everything about Clive", 前女友的事: the subject, not one value of it
        spans = values[0]
        rest = [segs[i] for i in range(len(segs)) if i not in chosen]
        if by_person:
            # another part is someone else's (or the speaker's) with a value or a person of its own;
            # "…, in case I ever ask you to remind me" is a remark, and the memory goes whole
            if not any(plain_values(raw, a, b, set()) or person_words(raw[a:b]) for a, b in rest):
                return hit
        elif values[1]:
            pass  # a list item or a name the request's word is part of: the other items stay
        elif hit.by_key and not intent.facet:
            # a memory keyed for the attribute, with only a remark besides the value, goes whole
            if not self._other_info(text, spans, hit.topic, keyed=True):
                return hit
        elif not (self._other_info(text, spans, hit.topic, min_words=2) or _says_more(raw, rest)):
            return hit
        return MatchHit(hit.why + ", only the value in its part", spans, hit.topic, value=True)

    def _part_has(self, piece: str, term: str) -> bool:
        if has_cjk(term):
            return term in piece
        stems = {_stem(w) for w in _EN_WORD.findall(piece.lower())}
        return bool({_stem(f) for f in self._forms(term) if not has_cjk(f)} & stems)

    def _part_values(
        self,
        record: MemoryRecord,
        segs: list[tuple[int, int]],
        chosen: list[int],
        skip: set[str],
        *,
        kinds_only: bool = False,
    ) -> tuple[list[tuple[int, int]], bool] | None:
        """The value in the chosen parts, and whether it is named by the request's own words (a
        name holding the word, the item of a list) rather than by a kind or a shape."""
        raw = record.content
        intent = self.intent
        within = [segs[i] for i in chosen]

        def inside(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
            return [(s, e) for s, e in spans if any(a <= s < b for a, b in within)]

        kinds = [intent.value_kind] + [t.value or VALUE_KINDS.get(t.key) for t in self.topics]
        for kind in dict.fromkeys(k for k in kinds if k):
            found = inside(value_spans(kind, raw))
            if found:
                return found, False
            if kinds_only:
                return None
        terms = [t for t in intent.terms if t not in intent.people]
        ends = [e for e in self._term_ends(raw) if any(a < e <= b for a, b in within)]
        after = inside(value_after(raw, ends))
        if after:
            return after, False
        for a, b in within:
            for t in terms:
                found = [] if has_cjk(t) else named_value(raw, a, b, t)
                if found:
                    return found, True
            piece = raw[a:b]
            if (
                len(segs) > 2
                and len(piece.split()) <= 3
                and not has_cjk(piece)
                and not says_self(piece)
                and any(self._part_has(piece, t) for t in terms)
            ):
                return [(a, b)], True  # an item of a list: "shellfish, latex and bee stings"
        found = [v for a, b in within for v in plain_values(raw, a, b, skip)]
        return (found, False) if found else None

    # -- exactly what was asked: what stays, and one value of an attribute -------------------------
    def _other_persons(self, text: _Text, i: int) -> bool:
        """Whether clause ``i`` is about a person the request does not name."""
        clause = text.raw[slice(*text.clauses[i])]
        named = _qualifiers_in(" ".join(self.intent.terms))
        people = {_MUM_DAD.get(q, q) for q in _qualifiers_in(clause)} & _PEOPLE
        if _SELF_SUBJECT.search(clause.lower()):
            return False  # "我跟男朋友分手了", "I broke up with him": about oneself too
        return bool(people - named)

    def keeps(self, text: str) -> bool:
        """Whether ``text`` holds what the request says stays ("…, the street is fine")."""
        return self._keeps(text)

    def _keeps(self, text: str) -> bool:
        """Whether ``text`` holds what the request says stays ("…, the street is fine")."""
        if not (self.intent.keep_terms or self.intent.keep_topics):
            return False
        t = _Text(text)
        return any(_text_has(t, {k}) for k in self.intent.keep_terms) or bool(self._kept_values(text))

    def _kept_values(self, text: str) -> list[tuple[int, int]]:
        """Values in ``text`` of an attribute the keep clause names ("where I'm from is fine": a place)."""
        by_key = {t.key: t for t in TOPICS}
        kinds = [
            _KEPT_KINDS.get(k) or (by_key[k].value or VALUE_KINDS.get(k) if k in by_key else None)
            for k in self.intent.keep_topics
        ]
        return [v for k in dict.fromkeys(k for k in kinds if k) for v in value_spans(k, text)]

    def kept_whose(self, text: str) -> bool:
        kq = set(self.intent.keep_qualifiers)
        return bool(kq) and bool(_kin(_qualifiers_in(text), kq)[0] & _kin(_qualifiers_in(text), kq)[1])

    def _refine(
        self,
        record: MemoryRecord,
        text: _Text,
        key_quals: set[str],
        topic: Topic | None,
        spans: list[tuple[int, int]] | None,
        by_key: bool = False,
    ) -> list[tuple[int, int]] | Literal[False] | None:
        """The spans to remove (None: the whole memory; False: leave the memory alone) once what
        the request keeps ("…, keep the work one", "宝宝的留着") and the value it names are applied."""
        intent = self.intent
        kq = set(intent.keep_qualifiers)
        keep_said = bool(intent.keep_terms or kq or intent.keep_topics)
        if not (keep_said or intent.facet):
            return spans
        if spans is not None and topic is not None and (intent.facet or self._kept_values(record.content)):
            inside = [
                (s, e)
                for s, e in self._value_spans(record, text, topic)
                if any(a <= s and e <= b for a, b in spans)
            ]
            if not inside and not intent.facet:
                # "I was born June 3, 1972 in …": a date the clause split cuts in two is still its value
                inside = [
                    (s, e)
                    for s, e in self._value_spans(record, text, topic)
                    if any(a < e and s < b for a, b in spans)
                ]
            spans = inside or spans  # the company's name in "I work at … in claims", not the clause
        if spans is not None:
            kept = [
                (s, e)
                for s, e in spans
                if not self._keeps(text.raw[s:e])
                and not self._keeps_around(text, s, e)
                and not self.kept_whose(self._clause_at(text, s))
            ]
            return kept or False
        whose_kept = bool(kq) and bool(_kin(key_quals, kq)[0] & _kin(key_quals, kq)[1])
        in_memory = whose_kept or self.kept_whose(text.norm) or self._keeps(record.content)
        if topic is None:
            return False if in_memory else None
        valued = (topic.value or VALUE_KINDS.get(topic.key)) is not None
        if not (in_memory or intent.facet or (intent.keep_terms and valued)):
            return None  # what stays is in another memory: this one goes as it matched
        if by_key and not in_memory and topic.key in intent.topics and topic.value is not None:
            return None  # keyed "child_school": the memory is the value asked for, it goes whole
        values = self._value_spans(record, text, topic)
        free = [
            (s, e)
            for s, e in values
            if not self._keeps(record.content[s:e])
            and not self.kept_whose(self._clause_at(text, s))
            and not self._keeps_around(text, s, e)
        ]
        if free and (len(free) < len(values) or self._rest_matters(text, free, topic)):
            return free
        kept_values = self._kept_values(record.content)
        if free and any(not any(a < e and s < b for a, b in free) for s, e in kept_values):
            return free  # "…, where I'm from is fine": the place said beside the date stays

        if whose_kept or self.kept_whose(text.norm):
            return False
        if self._keeps(record.content):
            clauses = sorted({i for w in topic.content_words for i in text.clause_hits(w)})
            cut = [text.clauses[i] for i in clauses if not self._keeps(text.raw[slice(*text.clauses[i])])]
            return cut or False
        return None

    def _keeps_around(self, text: _Text, s: int, e: int) -> bool:
        """A value whose own clause is what the request keeps ("Greg's cell is …" for "but not Greg's")."""
        clause = self._clause_at(text, s)
        # only a person kept by name protects the clause around a value ("Greg's cell is …");
        # "you can remember my doctor's name" keeps the doctor, not the medicine in the same clause
        names = [
            k
            for k in self.intent.keep_terms
            if not has_cjk(k) and re.search(rf"\b{re.escape(k[:1].upper() + k[1:])}\b", clause)
        ]
        return bool(names) and not self._keeps(text.raw[s:e]) and len(text.clauses) > 1

    def _value_spans(self, record: MemoryRecord, text: _Text, topic: Topic) -> list[tuple[int, int]]:
        """Where the value the request names sits in the memory: personal data of the topic's types,
        else the topic's value kind (a name after "called", a place, a school…)."""
        kinds = [t for t in self.topics if t.key == "name"] and len(self.topics) > 1
        kind = "name" if kinds and topic.key != "nickname" else (topic.value or VALUE_KINDS.get(topic.key))
        kind = kind or self.intent.value_kind  # 我吃的药 (health): the medicine's name
        pii = [
            (s, e)
            for label, s, e in detect_values(record.content, self.detect)
            if label in topic.pii_types and not self._someone_elses(text, s)
        ]
        if pii:
            return pii
        if kind is None:
            return []
        return [(s, e) for s, e in value_spans(kind, record.content) if not self._someone_elses(text, s)]

    def _groups(self) -> list[tuple[str, ...]]:
        """The items of a list request, each with the terms still asked for (after relaxing)."""
        terms = set(self.intent.terms)
        return [g for g in (tuple(t for t in grp if t in terms) for grp in self.intent.any_of) if g]

    def _forms(self, term: str) -> set[str]:
        if term not in self.literal:
            return _concept_forms(term)
        # a Chinese verb and its object said apart (离婚 / 离的婚, 分手 / 分了手) is the same word,
        # not a synonym: kept even when some memory holds the term as it is
        split = (
            {f"{term[0]}{mid}{term[1:]}" for mid in "的了过完"} if len(term) == 2 and has_cjk(term) else set()
        )
        return {term, _stem(term)} | split

    def _own_values(self, record: MemoryRecord, text: _Text, topic: Topic) -> list[tuple[int, int]]:
        """The attribute's values in the memory by their shape (an age, a date, a school), in the
        clauses of the one the request means (the user's, or the person it names)."""
        kind = topic.value or VALUE_KINDS.get(topic.key)
        if kind is None or topic.key in ("name", "partner", "children", "pet"):
            return []
        return [
            (s, e)
            for s, e in value_spans(kind, record.content)
            if not self._someone_elses(text, s) and self._named(text, s)
        ]

    def _spelt_name(self, record: MemoryRecord) -> MatchHit | None:
        """A request for a name that spells it ("I don't want Jordan's name anywhere", 李浩这个名字):
        the name goes from every memory that says it, the rest of each turn stays."""
        if "name" not in self.intent.topics or self.intent.scopes or self.intent.when:
            return None
        raw = record.content
        spans: list[tuple[int, int]] = []
        for t in self.intent.terms:
            if t in self.intent.people or len(t) < 2:
                continue
            if has_cjk(t):
                if len(self.intent.terms) == 1:
                    spans += [m.span() for m in re.finditer(re.escape(t), raw)]
            else:
                # "my Steam name is …": the word names what has the name, it is not the name
                spans += [
                    m.span()
                    for m in re.finditer(rf"\b{re.escape(t[:1].upper() + t[1:])}\b", raw)
                    if not re.match(
                        r"(?:'s)?\s+(?:name|handle|username|account|id|nickname)\b", raw[m.end() :], re.I
                    )
                ]
        if not spans:
            return None
        # "the gym name" in "Iron Temple Gym": the whole name that holds the word
        spans = [next(((a, b) for a, b in _cap_names(raw) if a <= s and e <= b), (s, e)) for s, e in spans]
        text = _Text(raw)
        return MatchHit(
            "says the name the request spells", spans if self._other_info(text, spans, None) else []
        )

    def _literal_hit(self, record: MemoryRecord) -> MatchHit | None:
        """A memory holding a value the request gives itself ("forget 555-0199") loses that value."""
        spans = []
        for value in self.intent.values:
            if "@" in value or not re.search(r"\d", value):
                spans += [m.span() for m in re.finditer(re.escape(value), record.content, re.I)]
                continue
            digits = re.sub(r"\D", "", value)
            for m in re.finditer(r"\+?\d[\d ().-]*\d", record.content):
                if re.sub(r"\D", "", m.group(0)) == digits:
                    spans.append(m.span())
        if not spans:
            return None
        text = _Text(record.content)
        return MatchHit(
            "holds the value the request gives", spans if self._other_info(text, spans, None) else []
        )

    def _term_ends(self, raw: str) -> list[int]:
        """Where the request's words end in ``raw`` (stemmed English words, Chinese phrases)."""
        ends: list[int] = []
        for term in self.intent.terms:
            forms = self._forms(term)
            stems = {_stem(f) for f in forms if not has_cjk(f) and " " not in f}
            for f in forms:
                if has_cjk(f):
                    ends.extend(m.end() for m in re.finditer(re.escape(f), raw))
            for m in re.finditer(r"[A-Za-z0-9']+", raw):
                if _stem(m.group(0).lower().removesuffix("'s")) in stems:
                    ends.append(m.end())
        return sorted(set(ends))

    def _facet_spans(self, record: MemoryRecord, text: _Text) -> list[tuple[int, int]]:
        """The value of the facet the request names, next to the request's own words: said right
        after them ("my Steam name is …", "健身房是乐刻"), else a value of the facet's kind in a
        clause that holds them."""
        kind = self.intent.value_kind
        raw = record.content
        ends = self._term_ends(raw)
        after = [(s, e) for s, e in value_after(raw, ends) if not self._someone_elses(text, s)]
        if kind is None:
            return after
        kinds = [(s, e) for s, e in value_spans(kind, raw) if not self._someone_elses(text, s)]
        hit_clauses = [text.clauses[i] for t in self.intent.terms for i in _text_has(text, self._forms(t))]
        in_clause = [(s, e) for s, e in kinds if any(a <= s < b for a, b in hit_clauses)]
        typed = [(s, e) for s, e in after if any(a <= s < b or s <= a < e for a, b in kinds)]
        return typed or in_clause or (after if kind in ("name", "code") else [])

    def _other_info(
        self,
        text: _Text,
        spans: list[tuple[int, int]],
        topic: Topic | None,
        *,
        keyed: bool = False,
        min_words: int = 3,
    ) -> bool:
        """Whether the memory says something besides the value: another value (a name, a place,
        a date, a number, an amount, personal data) or, unless the memory is keyed for the
        attribute (then the rest is a remark about the value: "…，填表老忘"), a clause of its own
        with content words. The name of the one a key is about ("My daughter Lucia" keyed
        ``child_school``) is part of the same statement, not something else."""
        rest = text.raw
        for s, e in sorted(spans, reverse=True):
            rest = rest[:s] + " " * (e - s) + rest[e:]
        own = [r for p, rs in _KEY_SUBJECT_WORDS.items() if p in self._key_people for r in rs]
        if self.intent.exact:
            own = []  # "儿子的出生日期": one value asked for, his name is something else
        subject = re.compile(rf"(?:{'|'.join(own)})\s*(?:叫|是)?\s*$", re.I) if own else None
        for kind in ("name", "place", "date", "age", "amount", "code", "school"):
            for s, _ in value_spans(kind, rest):
                if not (kind == "name" and subject is not None and subject.search(rest[max(0, s - 14) : s])):
                    return True
        for m in re.finditer(r"(?<=[a-z,] )[A-Z][a-z]{2,}\b", rest):
            if m.group(0).lower() in _NOT_NAMES:
                continue
            if subject is None or not subject.search(rest[max(0, m.start() - 14) : m.start()]):
                return True  # a name or a place by its capital ("…, her best friend there is Mia")
        if builtin_pii(rest) or _REGISTERED_PLACE.search(rest):
            return True
        if keyed and not self.intent.keep_terms:
            return False
        topic_words = (
            {_stem(w) for p in topic.request_words + topic.content_words for w in p.split()}
            if topic
            else set()
        )
        filler = {_stem(w) for w in _MORE_FILLER} | {_stem(w) for w in _REST_FILLER}
        asked = {_stem(t) for t in self.intent.terms if not has_cjk(t)}
        for part in re.split(r"[,;.!?，。；！？]|\band\b|\bbut\b", rest):
            for t in self.intent.terms:
                if has_cjk(t):
                    part = part.replace(t, "")
            words = (
                {_stem(w) for w in _EN_WORD.findall(part.lower()) if len(w) > 2}
                - filler
                - topic_words
                - asked
            )
            zh = "".join(ch for ch in part if is_han(ch))
            for w in (topic.request_words + topic.content_words if topic else ()) + _ZH_REST_FILLER:
                zh = zh.replace(w, "")
            if len(words - _DURATION_WORDS) >= min_words or len(zh) >= 4:
                return True
        return False

    def _someone_elses(self, text: _Text, pos: int) -> bool:
        """A clause about someone the request does not name ("Greg's cell is …", 她号码 …)."""
        if self.wanted - _OWN:
            return False
        clause = self._clause_at(text, pos)
        return names_someone_else(clause)

    def _value_by_terms(self, record: MemoryRecord, text: _Text, tokens: list[str]) -> MatchHit | None:
        """ "Forget which city I fly to": the request's words find the memory, the topic's value kind
        finds what in it goes."""
        if not self.intent.terms or not self.intent.facet:
            return None
        hit = self._terms_hit(record, text, tokens)
        if hit is None:
            return None
        for topic in self.topics:
            vs = [(s, e) for s, e in self._value_spans(record, text, topic) if self._named(text, s)]
            if vs:
                return MatchHit(f"{hit.why}, {topic.key.replace('_', ' ')} value", vs, topic)
        vs = [(s, e) for s, e in self._facet_spans(record, text) if self._named(text, s)]
        if vs:  # "健身房的名字": the name said right after the request's words ("健身房是乐刻")
            return MatchHit(
                f"{hit.why}, the value after its words", vs, self.topics[0] if self.topics else None
            )
        return None

    # -- topics: keys, personal data, phrases ------------------------------------------------------
    def _topic_hit(
        self, record: MemoryRecord, text: _Text, head: str | None, key_quals: set[str]
    ) -> MatchHit | None:
        key = (record.key or "").lower()
        values = [v for v in detect_values(record.content, self.detect)]
        for topic in self.topics:
            own = _qualifiers_in(" ".join(topic.request_words))  # "girlfriend" names the topic itself
            key_hit = bool(key) and (
                key == topic.key
                or key in topic.key_stems
                or (head is not None and any(_stem(head) == _stem(s) for s in topic.key_stems))
                or (head is not None and _stem(head) == _stem(topic.key.split("_")[0]))
            )
            if key_hit and _foreign(key_quals, self.wanted):
                key_hit = False  # "wife_phone" for "forget my phone number"
            # "forget my work email": an unqualified key counts only if the text says so
            if (
                key_hit
                and self.wanted - _OWN
                and not (key_quals & self.wanted)
                and not _qualifiers_in(text.norm) & self.wanted
            ):
                key_hit = False
            typed = [(s, e) for label, s, e in values if label in topic.pii_types]
            mine = [
                (s, e)
                for s, e in typed
                if not self._foreign_clause(text, s, own)
                and self._named(text, s)
                and not self._someone_elses(text, s)
            ]
            if len(mine) > 1 and self.wanted - _OWN:
                # "导师的邮箱是 …" beside one's own: the value in the clause that names the person
                direct = [
                    (s, e)
                    for s, e in mine
                    if _kin(_qualifiers_in(self._clause_at(text, s)), self.wanted - _OWN)[0]
                    & _kin(_qualifiers_in(self._clause_at(text, s)), self.wanted - _OWN)[1]
                ]
                mine = direct or mine
            if key_hit:
                others = [v for v in values if v[0] not in topic.pii_types]
                if mine and (
                    others or len(mine) < len(typed) or self._other_info(text, mine, topic, keyed=True)
                ):
                    # the turn carries other personal data too (or someone else's value of the same
                    # type, a work e-mail beside the personal one, or something else worth keeping):
                    # forget the value, keep the rest
                    return MatchHit(
                        f"key {record.key}, value of type {'/'.join(topic.pii_types)}", mine, topic
                    )
                vs = self._own_values(record, text, topic) if not typed else []
                # a part of a longer statement (the company in one's job, a postcode in an address)
                # leaves the statement; the attribute itself goes whole unless something else is said
                part_of = topic.key in _PART_FACETS or self.intent.exact
                if vs and self._other_info(text, vs, topic, keyed=not part_of, min_words=2 if part_of else 3):
                    # "我儿子小宇是2019年8月15号生的，属猪" keyed child_birthday: the date goes, the rest stays
                    return MatchHit(f"key {record.key}, only its {topic.key.replace('_', ' ')}", vs, topic)
                return MatchHit(f"key {record.key}", [], topic, by_key=True)
            if _foreign(key_quals, self.wanted):
                continue  # "husband_phone": someone else's, whatever its text holds
            if mine:
                labels = sorted({lb for lb, _, _ in values if lb in topic.pii_types})
                return MatchHit(
                    f"contains {'/'.join(labels)}",
                    mine if self._rest_matters(text, mine, topic) else [],
                    topic,
                )
            if topic.key in _SHAPED:
                found = self._own_values(record, text, topic)
                if found:  # "I'm 41, married to Leila": an age said by its shape
                    return MatchHit(
                        f"holds {topic.key.replace('_', ' ')}",
                        found if self._other_info(text, found, topic) else [],
                        topic,
                    )
            if topic.value in _STRONG_VALUES:
                found = [
                    v for v in value_spans(topic.value, record.content) if not self._someone_elses(text, v[0])
                ]
                if found:
                    return MatchHit(
                        f"holds a {topic.key.replace('_', ' ')}",
                        found if self._rest_matters(text, found, topic) else [],
                        topic,
                    )
                continue  # "QQ号删了": no handle in "班级QQ群我是群主", only the word
            clauses = sorted({i for w in topic.content_words for i in text.clause_hits(w)})
            hits = list(clauses)
            clauses = [
                i
                for i in clauses
                if not self._foreign_clause(text, text.clauses[i][0], own, pii=bool(topic.pii_types))
                and self._named(text, text.clauses[i][0])
                # "My roommate Tasha's email is …": someone else's value of a personal-data topic
                and not (topic.pii_types and self._someone_elses(text, text.clauses[i][0]))
            ]
            said_again = self._said_again(record, text, topic, hits)
            if said_again is not None:
                return said_again  # the person's own clause, not the one of whoever is said first
            if clauses:
                why = f"mentions {topic.key.replace('_', ' ')}"
                # "… with my boyfriend Sam and his brother in a tiny flat": a phrase joined by "and"
                # with no verb of its own continues the clause before it
                for i in range(1, len(text.clauses)):
                    if (
                        i - 1 in clauses
                        and i not in clauses
                        and _CONTINUES.match(text.raw[text.clauses[i - 1][1] : text.clauses[i][1]])
                    ):
                        clauses.append(i)
                # what the other clauses hold is only a word or two ("…two kids, Sam and Ava"):
                # it belongs to the same statement, so the memory goes whole
                rest_words = sum(
                    len(text.stems[i]) + sum(map(is_han, text.raw[a:b])) // 2
                    for i, (a, b) in enumerate(text.clauses)
                    if i not in clauses
                )
                if len(clauses) == len(text.clauses) or rest_words < 3:
                    return MatchHit(why, [], topic)
                return MatchHit(why + " (in part)", [text.clauses[i] for i in clauses], topic)
        return None

    def _said_again(
        self, record: MemoryRecord, text: _Text, topic: Topic, hits: list[int]
    ) -> MatchHit | None:
        """The attribute said again for the person the request names, with its noun left out
        ("My husband's birthday is March 3 and my mom's is August 19", 我老公生日是…，我妈的是…): the
        value in that clause goes."""
        wanted = self.wanted - _OWN
        if not wanted or not hits:
            return None
        kind = topic.value or VALUE_KINDS.get(topic.key)
        for i in range(min(hits) + 1, len(text.clauses)):
            a, b = text.clauses[i]
            clause = text.raw[a:b]
            if not _ELLIPSIS.match(clause.strip()):
                continue
            found, want = _kin({_MUM_DAD.get(q, q) for q in _qualifiers_in(clause)}, wanted)
            if not found & want:
                continue
            spans = [(s, e) for s, e in value_spans(kind, record.content) if a <= s < b] if kind else []
            return MatchHit(
                f"mentions {topic.key.replace('_', ' ')} (said again for the one named)",
                spans or [(a, b)],
                topic,
            )
        return None

    def _clause_at(self, text: _Text, pos: int) -> str:
        for s, e in text.clauses:
            if s <= pos < e:
                return text.raw[s:e]
        return text.raw

    def _foreign_clause(self, text: _Text, pos: int, own: set[str], *, pii: bool = True) -> bool:
        """Whether the clause around ``pos`` is about someone else ("my wife's number is …"). The
        user with someone ("Me and my girlfriend live at …", "我和我妹合租…") is the user; so is
        "I live with my boyfriend" for an attribute that is not a piece of personal data."""
        clause = self._clause_at(text, pos)
        start = next((s for s, e in text.clauses if s <= pos < e), 0)
        if re.search(r"\b(?:me|i)\s+(?:and|&)\s*$", text.raw[:start], re.I) or re.search(
            r"我(?:和|跟|与)", clause
        ):
            return False
        if not pii and _SELF_SUBJECT.search(clause.lower()):
            return False
        return _foreign(_qualifiers_in(clause), self.wanted | own)

    def _named(self, text: _Text, pos: int) -> bool:
        """Whether the clause around ``pos`` says the one the request qualifies ("my work email");
        for a person ("my kids' school"), the memory saying it anywhere, or its key, is enough."""
        wanted = self.wanted - _OWN
        if not wanted:
            return True
        found, want = _kin(_qualifiers_in(self._clause_at(text, pos)), wanted)
        if found & want:
            return True
        if wanted <= _PEOPLE:
            around = _qualifiers_in(text.norm) | self._key_people
            found, want = _kin(around, wanted)
            return bool(found & want)
        return False

    @staticmethod
    def _rest_matters(text: _Text, spans: list[tuple[int, int]], topic: Topic) -> bool:
        """Whether the content says more than the value (then only the value goes)."""
        rest = text.raw
        for s, e in sorted(spans, reverse=True):
            rest = rest[:s] + " " + rest[e:]
        words = {_stem(w) for w in _EN_WORD.findall(rest.lower())} - {_stem(w) for w in _MORE_FILLER}
        topic_words = {_stem(w) for p in topic.request_words + topic.content_words for w in p.split()}
        filler = {_stem(w) for w in (*_REST_FILLER_EN, *_QUALIFYING_EN)}
        content = words - topic_words - filler - {w for w in words if len(w) < 3}
        zh = "".join(ch for ch in rest if is_han(ch))
        for w in topic.request_words + topic.content_words:
            zh = zh.replace(w, "")
        for f in (*_QUALIFYING_ZH, *_REST_FILLER_ZH):
            zh = zh.replace(f, "")
        return len(content) >= 2 or len(zh) >= 3

    # -- scopes and free text ----------------------------------------------------------------------
    def _scope_hit(self, record: MemoryRecord, text: _Text, tokens: list[str]) -> str | None:
        key_stems = {_stem(t) for t in tokens}
        head, _ = _key_head(tokens)
        key_topic = _topic_of_key(head)
        for scope in self.scopes:
            for w in scope.words:
                if not has_cjk(w) and " " not in w and _stem(w) in key_stems:
                    return f"key {record.key} is about {scope.name}"
            if key_stems & _SCOPE_KEY_WORDS.get(scope.name, frozenset()):
                return f"key {record.key} is about {scope.name}"
            if scope.name == "money" and any(
                lb == "CARD" for lb, _, _ in detect_values(record.content, self.detect)
            ):
                return f"about {scope.name} (a card number)"
            if scope.name == "money" and value_spans("amount", record.content):
                return f"about {scope.name} (an amount)"
            if key_topic is not None and key_topic not in _SCOPE_TOPICS.get(scope.name, ()):
                continue  # a job memory that mentions a hospital is about the job, not one's health
            for w in scope.words:
                hits = text.clause_hits(w)
                if scope.name == "love":
                    # "我闺蜜最近交了男朋友" is the friend's love life, not the user's
                    hits = [i for i in hits if not self._someone_elses_love(text, i)]
                elif scope.name in ("health", "work"):
                    # "my husband works nights at the hospital", "Rowan is finally sleeping": theirs
                    hits = [i for i in hits if not self._someone_elses_own(text, i)]
                if hits:
                    return f"about {scope.name} ({w})"
        return None

    def _someone_elses_own(self, text: _Text, i: int) -> bool:
        """Whether clause ``i`` is about another person's health or job, not the user's."""
        clause = text.raw[slice(*text.clauses[i])]
        if _SELF_SUBJECT.search(clause.lower()):
            return False
        people = {_MUM_DAD.get(q, q) for q in _qualifiers_in(clause)} & _PEOPLE
        # "Rowan is 4 months and finally sleeping …": a clause without a subject has the turn's
        named = _NAME_SUBJECT.match(clause) or (
            not _SELF_SUBJECT.search(text.norm) and _NAME_SUBJECT.match(text.raw.strip())
        )
        return bool(people) or names_someone_else(clause) or bool(named)

    def _someone_elses_love(self, text: _Text, i: int) -> bool:
        clause = text.raw[slice(*text.clauses[i])]
        people = {_MUM_DAD.get(q, q) for q in _qualifiers_in(clause)} & (
            _PEOPLE | {"colleague", "coworker", "boss", "landlord"}
        ) - {"partner", "ex"}
        return bool(people) and not _SELF_SUBJECT.search(clause.lower())

    def _terms_hit(self, record: MemoryRecord, text: _Text, tokens: list[str]) -> MatchHit | None:
        terms = list(self.intent.terms)
        _, quals = _key_head(tokens)
        key_quals = {_MUM_DAD.get(q, q) for q in (_QUALIFIERS.get(t) for t in quals) if q} & _PEOPLE
        named = {_MUM_DAD.get(q, q) for q in _qualifiers_in(" ".join(terms))}
        names = {m.group(0).lower() for m in re.finditer(r"\b[A-Z][a-z]+", record.content)} & set(terms)
        if key_quals and not (key_quals & (self.wanted | named)) and not names:
            # "spouse_vehicle" for "我买车那事": someone else's, whatever its words (unless the
            # request names that someone: "Arjun's teacher")
            return None
        key_stems = {_stem(t) for t in tokens}
        covered_by_key = 0
        clause_hits: set[int] = set()
        matched = 0
        held: set[str] = set()
        for term in terms:
            forms = self._forms(term)
            in_key = bool({_stem(f) for f in forms if not has_cjk(f)} & key_stems)
            hits = _text_has(text, forms)
            if has_cjk(term) and not hits and any(f in (record.key or "") for f in forms):
                in_key = True
            if in_key or hits:
                matched += 1
                held.add(term)
                covered_by_key += int(in_key)
                clause_hits.update(hits)
        zh_terms = [t for t in terms if has_cjk(t)]
        need = len(terms)
        if self.intent.value_kind is not None:
            # "my work number": "number" says which value goes, not where it is ("work line is …")
            facet = dict(_FACET_KINDS).get(self.intent.value_kind)
            said = [t for t in terms if not has_cjk(t) and facet is not None and facet.fullmatch(t)]
            if said and len(said) < len(terms) and not zh_terms:
                need -= len([t for t in said if t not in held])
        if zh_terms and len(zh_terms) == len(terms):
            need = max(1, -(-len(terms) * 3 // 5))  # Chinese bigrams: three in five
        if matched < need and not any(all(t in held for t in g) for g in self._groups()):
            return None
        if (
            clause_hits
            and not self.wanted
            and self.intent.about_self
            and all(self._other_persons(text, i) for i in clause_hits)
        ):
            return None  # "forget that I'm from Porto": not "my mother in Porto calls every Sunday"
        why = "text: " + " ".join(terms)
        if record.id in self.related:
            why += " (retriever agrees)"
        if covered_by_key or not clause_hits or len(clause_hits) == len(text.clauses):
            return MatchHit(why, [])
        rest_words = sum(
            len(text.stems[i]) + sum(map(is_han, text.raw[a:b])) // 2
            for i, (a, b) in enumerate(text.clauses)
            if i not in clause_hits
        )
        if rest_words < 3:  # "…分手了，心情很差": a word or two about the same thing
            return MatchHit(why, [])
        if not re.search(r"[.;!?。；！？\n]", text.raw.strip().rstrip(".!?。！？")):
            return MatchHit(why, [])  # one sentence ("thinking about quitting and opening …") is one thought
        return MatchHit(why + " (in part)", [text.clauses[i] for i in sorted(clause_hits)])


def literal_terms(terms: tuple[str, ...], records: list[MemoryRecord]) -> set[str]:
    """The terms some record holds as they are (by stem, or as Chinese text), key or content."""
    out = set()
    texts = [(_Text(r.content), {_stem(t) for t in _key_tokens(r.key)}, (r.key or "")) for r in records]
    for term in terms:
        forms = {term, _stem(term)}
        if any(_text_has(t, forms) or (not has_cjk(term) and _stem(term) in ks) for t, ks, _ in texts):
            out.add(term)
    return out


def relax_terms(intent: ForgetIntent, records: list[MemoryRecord], request: str) -> tuple[str, ...] | None:
    """The request's free-text terms without those no memory holds (in its key or content), or None
    when nothing would change or nothing would be left. A term the request spells as a name
    ("Japan") or a number is kept: a request for something not stored forgets nothing. With a time
    scope every term may go: the window alone is what was asked."""
    texts = [(_Text(r.content), {_stem(t) for t in _key_tokens(r.key)}, (r.key or "")) for r in records]

    def held(term: str) -> bool:
        forms = _concept_forms(term)
        stems = {_stem(f) for f in forms if not has_cjk(f)}
        return any(
            _text_has(t, forms) or stems & ks or (has_cjk(term) and any(f in key for f in forms))
            for t, ks, key in texts
        )

    named = {w.lower() for w in re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+\b", request.strip())}
    kept = tuple(t for t in intent.terms if held(t) or t in named or any(ch.isdigit() for ch in t))
    if kept == intent.terms or (not kept and not intent.when):
        return None
    en_kept = [t for t in kept if not has_cjk(t)]
    en_dropped = [t for t in intent.terms if not has_cjk(t) and t not in kept]
    if not intent.when and len(en_dropped) > len(en_kept) + 1:
        return None  # most of what was asked is stored nowhere: nothing to forget, rather than a guess
    return kept


def _cap_names(raw: str) -> list[tuple[int, int]]:
    """Names of two or more capitalised words ("Iron Temple Gym", "Hotel Edison")."""
    return [m.span() for m in re.finditer(r"\b[A-Z][\w'&-]*(?:\s+(?:of\s+)?[A-Z][\w'&-]*)+", raw)]


def _says_more(raw: str, spans: list[tuple[int, int]]) -> bool:
    """Whether the parts ``spans`` of ``raw`` say something of their own (two content words, or
    three Chinese characters besides filler)."""
    for a, b in spans:
        piece = raw[a:b]
        words = {w for w in _EN_WORD.findall(piece.lower()) if len(w) > 2} - _MORE_FILLER - set(_REST_FILLER)
        han = re.sub(r"[我你他她的了是在就也都很吧呢啊]", "", "".join(ch for ch in piece if is_han(ch)))
        if len(words) >= 2 or len(han) >= 3:
            return True
    return False


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans in order with overlapping ones joined (two rules may find the same value)."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out


def redacted(content: str, spans: list[tuple[int, int]]) -> str:
    out = content
    for s, e in reversed(_merged(spans)):
        out = out[:s] + FORGOTTEN + out[e:]
    return re.sub(rf"(?:{re.escape(FORGOTTEN)}[\s,;]*){{2,}}", FORGOTTEN + " ", out).strip()


def narrow(
    found: list[tuple[MemoryRecord, MatchHit]], intent: ForgetIntent
) -> list[tuple[MemoryRecord, MatchHit]]:
    """What the rest of the request says among the matches: "old" takes only what was replaced,
    "now" only what is current, and a word beside the topic ("our old address in Millbeck") the
    memories that hold it, when some do."""
    if intent.version == "old":
        old = [(r, h) for r, h in found if r.status == Status.SUPERSEDED]
        found = old or found
    elif intent.version == "current":
        current = [(r, h) for r, h in found if r.status != Status.SUPERSEDED]
        found = current or found
    # one Chinese character left of a phrase (吃 of 看病吃药) says too little to narrow by
    terms = [t for t in intent.terms if not (has_cjk(t) and len(t) < 2)]
    if terms and (intent.topics or intent.scopes) and len(found) > 1:
        with_terms = [
            (r, h)
            for r, h in found
            if all(_text_has(_Text(r.content), _concept_forms(t)) for t in terms if not has_cjk(t))
            and any(_text_has(_Text(r.content), _concept_forms(t)) for t in terms)
        ]
        found = with_terms or found
    return found


# what introduces a person's name in Chinese ("他叫马克", 佢叫Jason): a name the rules find elsewhere
# without it ("男朋友吵架了") is a word, not a name
_ZH_NAMED = re.compile(r"(?:叫做|名叫|叫|名字是)\s*$")


_MAX_NAMES = 4


def _names_in(raw: str) -> set[str]:
    out = set()
    for a, b in value_spans("name", raw):
        name = raw[a:b].strip()
        if has_cjk(name):
            if len(name) >= 2 and _ZH_NAMED.search(raw[max(0, a - 4) : a]):
                out.add(name)
        elif name[:1].isupper() and len(name) >= 2:
            out.add(name)
    return out


def by_names(
    matcher: Matcher, found: list[tuple[MemoryRecord, MatchHit]], records: list[MemoryRecord]
) -> list[tuple[MemoryRecord, MatchHit]]:
    """A request about a person ("everything about my ex", 关于我前男友嘅嘢) that finds a memory
    naming them ("…佢叫Jason"): the user's other memories that name them by that name are about
    them too ("Jason仲成日send message嚟"). Only for a request that names a person and no attribute
    or time, from whole matches; each added memory goes as the match that named it (hidden when that
    one is). Linear: one pass over the memories per name found."""
    intent = matcher.intent
    if not intent.people or intent.topics or intent.values or intent.when or intent.everything:
        return []
    names: dict[str, MatchHit] = {}
    for record, hit in found:
        if not hit.spans:
            for name in _names_in(record.content):
                names.setdefault(name, hit)
    if not names:
        return []
    # one person has a name or two; a request whose matches name more is not about one person
    if len(names) > _MAX_NAMES:
        return []
    taken = {r.id for r, _ in found}
    out = []
    for record in records:
        if record.id in taken or matcher.kept_whose(record.content) or matcher._keeps(record.content):
            continue
        for name, hit in names.items():
            at = record.content.find(name)
            if at < 0:
                continue
            if not has_cjk(name) and not re.search(
                rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", record.content
            ):
                continue
            out.append(
                (
                    record,
                    MatchHit(
                        f"names {name}, named in a memory the request takes", [], tentative=hit.tentative
                    ),
                )
            )
            break
    return out


# a turn that opens by pointing back at someone just spoken of ("he also owes me £240", "and she
# told mum…", 他还让我…) goes on with the story of the turn before it (requests.json: story_pronouns,
# story_joins)
_STORY_LEAD = re.compile(
    rf"^[\W_]*(?:(?:{_alternation(lexicon.words('requests', 'story_joins'))})[\s,，]*)?"
    rf"(?:{_alternation(lexicon.words('requests', 'story_pronouns'))})",
    re.IGNORECASE,
)
#: how soon after a turn the next one still tells the same story (one sitting)
STORY_SITTING_S = 6 * 3600.0


def goes_on(text: str) -> bool:
    """Whether a turn opens by pointing back at someone the turn before spoke of ("he also owes
    me £240", "and she told mum", "他还让我…")."""
    return bool(_STORY_LEAD.match(unicodedata.normalize("NFKC", text).strip().replace("’", "'")))


def story_turns(
    matcher: Matcher,
    found: list[tuple[MemoryRecord, MatchHit]],
    records: list[MemoryRecord],
    *,
    sitting_s: float = STORY_SITTING_S,
) -> list[tuple[MemoryRecord, MatchHit]]:
    """The user's turns that go on with the story of a turn the request takes: the next turn of
    the same sitting (within ``sitting_s``) that opens by pointing back at someone ("I had a row
    with my brother…" then "He wants to sell it to…"), and the one after that when it does too.
    Only for a request about a subject (words, a scope, a person, a time), not one naming a type of
    personal data or one value; a turn holding what the request keeps stays. Each goes as the match
    it continues (hidden when that one is). One sort and one pass over the user's turns."""
    intent = matcher.intent
    if (
        not found
        or intent.pii_types
        or intent.values
        or intent.value_kind
        or intent.everything
        or intent.kinds
    ):
        return []
    turns = sorted(
        (
            r
            for r in records
            if r.kind == Kind.EPISODE
            and r.created_at is not None
            and r.metadata.get("role", "user") == "user"
        ),
        key=lambda r: (r.created_at, r.id),
    )
    # a turn counts as taken when it or its copy (a fact with the same text) is matched, unless the
    # match is one value the request names
    by_text: dict[str, MatchHit] = {}
    for record, hit in found:
        if not hit.value:
            by_text.setdefault(record.content.strip(), hit)
    taken = {r.id for r, _ in found}
    out: list[tuple[MemoryRecord, MatchHit]] = []
    prev: tuple[MemoryRecord, MatchHit] | None = None
    for turn in turns:
        said = by_text.get(turn.content.strip())
        if said is not None:
            prev = (turn, said)
            continue
        if (
            prev is not None
            and turn.created_at is not None
            and prev[0].created_at is not None
            and (turn.created_at - prev[0].created_at).total_seconds() <= sitting_s
            and turn.id not in taken
            and goes_on(turn.content)
            and not matcher.keeps(turn.content)
            and not matcher.kept_whose(turn.content)
        ):
            step = MatchHit(
                "goes on with the story of a turn the request takes (said right after it)",
                [],
                tentative=prev[1].tentative,
            )
            out.append((turn, step))
            prev = (turn, step)
            continue
        prev = None
    return out


def core_request(text: str) -> str:
    """The request without its verb and filler ("forget that I'm married" -> "I'm married")."""
    main, _, _ = split_request(_normalise_request(unicodedata.normalize("NFKC", text).strip().lower()))
    out = _VERB_STRIP.sub(" ", main)
    return re.sub(r"\s+", " ", out).strip(" ,.") or text


_VERB_STRIP = re.compile(
    r"\b(?:please|pls|can you|could you|would you|you can|just|forget|delete|erase|remove|wipe|purge|drop|"
    r"stop remembering|don'?t remember|do not remember|you don'?t need to know|no need to remember|"
    r"get rid of|about|that|anymore|the thing|thing)\b"
    r"|请|帮我|麻烦|你|忘记|忘掉|忘了|别记|不要记住|不要记|不用记|别再记|别提|删掉|删除|删了|清除|吧|了|的事|这件事|那件事"
)


# words of a request's core that say nothing of what to forget ("what I said about", "that thing")
_CORE_FILLER = frozenset(lexicon.words("requests", "core_filler"))


def has_content(core: str) -> bool:
    """Whether a request without its verb still names something ("my will"; not "it", "that")."""
    words = re.findall(r"[a-z]{3,}", core.lower())
    return any(w not in _CORE_FILLER for w in words) or bool(re.search(rf"[{HAN_CLASS}]{{2,}}", core))


_ASKS_TO_FORGET = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|also|and|please|pls|kindly|can you|could you|would you|will you|you can|"
    r"i want you to|i'd like you to|i need you to|now)[\s,]+)*"
    r"(?:forget|delete|erase|remove|wipe|purge|unlearn|stop remembering|don'?t remember|do not remember|"
    r"don'?t keep|stop storing)\b"
    r"|^(?:请|麻烦|帮我|你)*(?:把|将)?.{0,30}(?:忘记|忘掉|忘了|删除|删掉|删了|清除|抹掉)(?:吧|掉|了)?[。！!.]*$"
    r"|^(?:请|麻烦|你)*(?:别再?记|不要再?记|不用再?记|别再?存|忘记|忘掉|删除|删掉|清除)"
)


_QUESTION_OPENERS = lexicon.words("requests", "question_openers")
_SERVICE_ACTION = re.compile(
    "|".join(
        rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w)
        for w in lexicon.words("requests", "service_actions")
    )
)


def is_forget_request(text: str) -> bool:
    """Whether a chat message asks the assistant to forget something ("please forget my address",
    "把我的手机号删了"), as opposed to talking about deleting ("how do I delete my account?")."""
    if len(text) > MAX_REQUEST_CHARS:
        return False  # a long message is talk, not a request; Memory.forget refuses one this long
    norm = unicodedata.normalize("NFKC", text).lower().strip().replace("’", "'")
    if not norm or norm.startswith(_QUESTION_OPENERS):
        return False
    if _SERVICE_ACTION.search(norm):
        return False  # a customer-service action, not a memory request
    return bool(_ASKS_TO_FORGET.search(norm)) and not parse_intent(text).empty
