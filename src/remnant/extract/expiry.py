"""Expiry said in words: the period a turn says something holds for, from now, or ``None``.

What decides is what the period attaches to. It sets a TTL when it bounds, from now:

1. **the validity of a piece of information**: "valid for ten minutes", "expires in 2 hours", "the
   link will be gone in 7 days", "the PIN changes in 24h", "the invite code only lasts a week",
   "use it within 10 minutes", "2 days left" (of a trial), 十分钟内有效, 半小时后就过期,
   有效期三天, 只能用五天, 还能用俩月, 停车券只管半天, 优惠还有两天, 明天就失效 (a day),
   "this week's wifi password" (a week). Verbs that bound anything ("lasts", "works", "holds",
   "ends", "closes") count only when said of information (a code, a link, a pass, an offer) or
   with "only" / "the next" / "more";
2. **a present or coming state**: "for the next 90 minutes", "for another 10 days", "six more
   weeks", "I'm staying in Osaka for 10 days", "40 days starting today", "banned for 3 days",
   接下来俩小时, 还要戴三周, 我要出差三天, 从今天起住俩星期, 被禁言三天, 临时停电八个小时,
   一个月之内别跑步, 两天内去取.

It sets nothing when the period is an event's, a process's or a thing's length rather than a
validity ("the class lasts 90 minutes", "the course runs for 8 weeks", "the warranty lasts 2
years", "the visa is good for 10 years", "valid for 7 days after purchase", 续航八小时, 护照有效期十年,
红烧肉要炖一个半小时, 要等二十天), when the state is past ("I was in hospital for a week", "my
sister drove for 6 hours", 住了一周, 三个月了), recurring ("every morning", "after lunch", "most
days", 每天, 一般, 一分钟刷新一次), a plan that starts later ("next month", "starting Monday",
"after my exams", 下个月, 暑假, 打算, 可能; but "back on Monday", 月底回来 end a stay, they do not
start one), a countdown to an event ("3 more days until my vacation", 离考研还有三个月, 高考还剩一百天),
an age or a measure (三周大, "3 weeks into"), a rate ("15 minutes a day", 一个月三百), a
capacity or an instruction ("I can hold my breath for 2 minutes", "hold the plank for 30
seconds"), vague ("a few days", "a day or two", 2-3 days, 一两天, 这两天), a hypothesis or
hearsay ("if the code is valid for ...", 如果, 听说), or asked about ("how long ...?", 吗).
Precision comes first: a memory that disappears wrongly is the worse failure, so when a cue to
drop the period is present, it is dropped.

Number words: English cardinals to ninety-nine, "a couple of", "half an hour", "an hour and a
half", compound periods ("2 hours and 30 minutes"); Chinese 两, 俩, 仨, 半, 个半, 一天半, 半个月,
一个半月, 两个钟, 三晚, 一刻钟, 1小时30分钟, 一小时二十分.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from remnant.core.text import HAN_CLASS
from remnant.core.text.calendar import WEEKDAYS, ZH_WEEKDAYS, coming_weekday, end_of_day
from remnant.core.text.numerals import ENGLISH_MONTHS, ZH_DIGITS
from remnant.extract.salience import salience

_MINUTE, _HOUR, _DAY = 60, 3600, 86400
_DATA = Path(__file__).resolve().parent / "data"


@functools.cache
def _lang(lang: str) -> dict[str, list[str]]:
    """The word lists of one language (extract/data/expiry.<lang>.json)."""
    data: dict[str, list[str]] = json.loads((_DATA / f"expiry.{lang}.json").read_text(encoding="utf-8"))
    return data


def _alternation(words: list[str]) -> str:
    """Literal words as one alternation, longest first, a space matching any run of spaces."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


# -- English ---------------------------------------------------------------------------------------
_ONES = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
}  # fmt: skip
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
_EN_NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "a single": 1, "couple of": 2, "a couple of": 2, "a dozen": 12, "a hundred": 100,
    "one hundred": 100, **_ONES, **_TEENS, **_TENS,
}  # fmt: skip
for _tens, _t in _TENS.items():
    for _one, _o in _ONES.items():
        _EN_NUMBERS[f"{_tens}-{_one}"] = _EN_NUMBERS[f"{_tens} {_one}"] = _t + _o
_EN_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": _MINUTE, "min": _MINUTE, "mins": _MINUTE, "minute": _MINUTE, "minutes": _MINUTE,
    "h": _HOUR, "hr": _HOUR, "hrs": _HOUR, "hour": _HOUR, "hours": _HOUR,
    "d": _DAY, "day": _DAY, "days": _DAY, "night": _DAY, "nights": _DAY,
    "w": 7 * _DAY, "wk": 7 * _DAY, "wks": 7 * _DAY, "week": 7 * _DAY, "weeks": 7 * _DAY,
    "fortnight": 14 * _DAY, "fortnights": 14 * _DAY,
    "month": 30 * _DAY, "months": 30 * _DAY, "year": 365 * _DAY, "years": 365 * _DAY,
}  # fmt: skip
_EN_WORD_NUM = "|".join(sorted(map(re.escape, _EN_NUMBERS), key=len, reverse=True)).replace(r"\ ", r"\s+")
_EN_UNIT = "|".join(sorted(_EN_UNITS, key=len, reverse=True))
# a number word needs a space and a whole unit word ("a day", never the "a"+"s" of "works as")
_EN_WORD_UNIT = "|".join(sorted((u for u in _EN_UNITS if len(u) > 1), key=len, reverse=True))
_HALF_UNIT = r"hour|day|minute|week|month|year|second|night"
_EN_DURATION = re.compile(
    r"\b(?:(?P<quarter>(?:a\s+)?quarter\s+of\s+an\s+hour)"
    rf"|(?P<half>(?:half\s+an?\s+|an?\s+half[\s-]|half-)(?P<half_unit>{_HALF_UNIT}))"
    r"|(?:(?P<num>\d+(?:\.\d+)?)(?P<and_half>\s+and\s+a\s+half)?(?P<more>\s+more)?\s*-?\s*(?P<unit>"
    + _EN_UNIT
    + r"))"
    r"|(?:(?P<wnum>"
    + _EN_WORD_NUM
    + r")(?P<wand_half>\s+and\s+a\s+half)?(?P<wmore>\s+more)?(?:\s+|-)(?P<wunit>"
    + _EN_WORD_UNIT
    + r"))"
    r"(?P<unit_half>\s+and\s+a\s+half)?)\b",
    re.I,
)
# "for the next hour", "another day": one of the unit
_EN_BARE_NEXT = re.compile(
    r"\b(?:(?:for|within|in|over)\s+the\s+next|for\s+(?:at\s+least\s+|about\s+|up\s+to\s+)?another)\s+(?P<unit>hour|day|week|month|year|minute|"
    r"fortnight|night)\b",
    re.I,
)
# a word that bounds a piece of information's validity whatever it is said of
_EN_VALID_STRONG = re.compile(
    r"\b(?:valid|good\s+(?:only\s+|just\s+)?(?:for|until)|expires?|expiring|self-destructs?|"
    r"(?:be|is|are|gets?)\s+(?:gone|deleted|removed|wiped|erased|revoked|deactivated|disabled|taken\s+down)|"
    r"gone|deleted|removed|disappears?|vanish(?:es)?|auto-deletes?|(?:only|just)\s+for)"
    r"(?:\s+(?:only|just))?(?:\s+(?:for|in|within|after))?\s+"
    r"(?:the\s+next\s+|another\s+|only\s+|just\s+)?$",
    re.I,
)
# a word that bounds validity when said of information, or with "only" / "the next" / "more"
_EN_VALID_WEAK = re.compile(
    r"\b(?:good|works?|working|active|usable|lasts?|live|alive|holds?|changes?|resets?|rotates?|"
    r"stays?\s+(?:up|open|on|active|valid|live)|reserved|kept|open|available|dies|ends?|runs?\s+out|is\s+over|"
    r"closes?|shuts?)"
    r"(?:\s+(?:only|just))?(?:\s+(?:for|in|within|after))?\s+"
    r"(?:the\s+next\s+|another\s+|only\s+|just\s+)?$",
    re.I,
)
_EN_INFO = re.compile(
    r"\b(?:codes?|pin|otp|passwords?|passcode|passphrase|tokens?|keys?|keycard|links?|url|invite|"
    r"invitation|pass|passes|tickets?|vouchers?|coupons?|promo|offer|deal|discount|price|badge|card|"
    r"wristband|qr|access|login|session|account|trial|reservation|booking|album|folder|files?|build|"
    r"page|post|story|listing|wi-?fi|address|number|sale|shipping|auction|promotion|registration|sign-?up|"
    r"window|slot|spot|seat|membership)\b",
    re.I,
)
_EN_RESTRICT = re.compile(r"\b(?:only|just|still)\b|\bmore\b|\bthe\s+next\b|\banother\b|\bfrom\s+now\b", re.I)
_EN_PAST_VALID = re.compile(rf"\b(?:{_alternation(_lang('en')['past_valid_words'])})\s+(?:\w+\s+)?$", re.I)
_EN_FROM_NOW = re.compile(
    r"\b(?:the\s+next|(?:at\s+least\s+)?another|(?:with)?in\s+the\s+next|over\s+the\s+next)\s+$", re.I
)
_EN_THING_FOR = re.compile(
    r"\b(?:runs|lasts|takes|goes\s+on)\s+(?:for\s+)?(?:about\s+|around\s+)?$|\b(?:is|are|was)\s+for\s+$", re.I
)
# "use it within 10 minutes": the window to use something is its validity
_EN_USE_WITHIN = re.compile(
    r"\b(?:use|redeem|claim|activate|enter|confirm|spend|download|grab)\b(?:\s+[\w'-]+){0,4}\s+within\s+"
    r"(?:the\s+next\s+)?$",
    re.I,
)
# a past verb of any subject ("my dad worked there for 30 years"), not a participle after be or get
# ("is booked", "got stuck"), nor a verb that hands something over from now ("lent me her car")
_EN_PAST_VERB = re.compile(
    r"(?<!\bam )(?<!\bis )(?<!\bare )(?<!'m )(?<!'s )(?<!'re )(?<!\bbe )(?<!\bget )(?<!\bgot )(?<!\bbeen )"
    r"\b(?!(?:lent|loaned|borrowed|rented|leased|booked|reserved|extended|granted|assigned|prescribed|"
    r"need|needed|used|supposed|scheduled|married|tired|bored|excited|worried|scared|stressed|exhausted|"
    r"interested|pleased|based|red|bed|shed|led|fed|wed|sled|speed|feed|seed|weed|bleed|breed|proceed|"
    r"succeed|exceed|indeed|agreed)\b)"
    r"(?:\w+ed|drove|flew|rode|swam|wrote|ate|drank|sang|spoke|stood|fell|fought|taught|caught|bought|"
    r"brought|kept|held|met|won|lost|hid|dug|grew|knew|threw|wore|broke|chose|froze|woke|left)\b(?!['’])",
    re.I,
)
_EN_PERFECT = re.compile(
    r"\b(?:'ve|have|has|had)\s+(?:\w+\s+)?(?:\w+ed|been|known|seen|done|gone|grown|had|wanted|kept|felt)\b",
    re.I,
)
# a sentence that opens on a bare verb of an instruction (recipes, exercises, devices)
_EN_INSTRUCTION = re.compile(
    r"^\s*(?:stir|mix|bake|cook|boil|simmer|heat|microwave|let|leave|hold|soak|chill|cool|freeze|fry|grill|"
    r"roast|steam|whisk|blend|knead|marinate|steep|brew|press|massage|apply|rinse|repeat|jog|stretch|"
    r"breathe|cover|set|charge|run\s+it|plank)\b",
    re.I,
)
# a validity counted from an event, not from now: "valid for 7 days after purchase"
_EN_FROM_EVENT = re.compile(
    r"^\s*(?:after|from|of)\s+(?:the\s+)?(?:purchase|purchasing|activation|activating|issue|issuance|opening|"
    r"delivery|the\s+date|when|first\s+use|booking|signup|sign-up|registration|arrival|check-?in)\b",
    re.I,
)
# when a stay ends is not when it starts: "back on Monday", "until Friday" do not make it a plan
_EN_END_OF_STAY = re.compile(
    r"\b(?:back|home|returning|return|leaving|leave)\s+(?:on\s+|by\s+|in\s+|at\s+)?\w+"
    r"|\b(?:until|till|through|thru)\s+\w+(?:\s+\w+)?",
    re.I,
)
_EN_USE_FOR = re.compile(r"\b(?:use|using|redeem)\b(?:\s+[\w'-]+){0,3}\s+for\s+$", re.I)
_EN_FOR = re.compile(r"\bfor\s+(?:about\s+|around\s+|roughly\s+|at\s+least\s+|up\s+to\s+|like\s+)?$", re.I)
# "40 days starting today", "counting from today": the period runs from now whatever its verb
_EN_ANCHOR = re.compile(
    r"\b(?:starting|beginning|counting|effective)\s+(?:from\s+)?(?:today|now|tonight|this\s+morning)\b"
    r"|\bfrom\s+(?:today|now)\b|\bas\s+of\s+(?:today|now)\b",
    re.I,
)
# a term imposed on the speaker: it runs from now
_EN_SANCTION = re.compile(
    r"\b(?:got|been|am|'m|is|'s|are|'re|was)\s+(?:\w+\s+)?(?:banned|suspended|muted|grounded|blocked|"
    r"barred|benched|locked\s+out|restricted|timed\s+out)\b",
    re.I,
)
_EN_AFTER_SKIP = re.compile(
    r"^\s*(?:old|ago|each|per|a\s+(?:day|week|night|month|year)|earlier|later|late|over|long|away|into|out|of|"
    r"from(?!\s+(?:now|today|tonight|this))|walk|drive|ride|flight|pregnant|sober|apart|behind|ahead|early)\b",
    re.I,
)
_EN_BEFORE_SKIP = re.compile(
    r"\b(?:every|each|per|once|twice|a|an|the|my|our|your|his|her|their)\s+(?:other\s+)?$", re.I
)
# "2-3 days", "two or three days", "a day or two", "a week or so": vague
_EN_RANGE_BEFORE = re.compile(r"(?:\d{1,20}|\b(?:" + _EN_WORD_NUM + r"))\s*(?:-|–|to|or)\s*$", re.I)
_EN_RANGE_AFTER = re.compile(r"^\s*(?:or\s+(?:two|three|so|more|less|longer|\d+)|-ish|ish)\b", re.I)
_EN_PAST = re.compile(
    r"\b(?:was|were|been|had|did|took|waited|ran|stayed|slept|spent|lived|went|sat|lasted|thought|felt|"
    r"came|saw|made|ago|known|since|expired|"
    rf"yesterday|back\s+in|used\s+to|last\s+(?:{_alternation(_lang('en')['last_words'])})|"
    r"for\s+the\s+(?:past|last)|in\s+(?:19|20)\d\d)\b"
    r"|\b(?:i|we|he|she|they|you)\s+(?!(?:need|feed|speed|seed|bleed|breed|proceed|succeed|exceed|shed|wed)\b)\w+ed\b",
    re.I,
)
_EN_RECURRING = re.compile(rf"\b(?:{_alternation(_lang('en')['recurring_words'])})\b", re.I)
# a later start: a plan, a date to come (not "for the next week", which runs from now)
_EN_LATER = re.compile(
    rf"(?<!the )\bnext\s+(?:{_alternation([*_lang('en')['next_words'], *WEEKDAYS])})\b"
    rf"|\b(?:{_alternation(_lang('en')['later_words'])})\b|"
    rf"\bin\s+(?:{_alternation(list(ENGLISH_MONTHS))})\b|"
    rf"\b(?:{_alternation(list(WEEKDAYS))})\b|"
    r"\b(?:starting|beginning|from|after)\s+(?:on\s+|the\s+)?(?:next|tomorrow|\d)|"
    r"\bafter\s+(?:my|our|the|his|her|their|i|we)\b|"
    rf"\bthis\s+(?:{_alternation(_lang('en')['this_later_words'])})\b|\bafter\s+(?:christmas|new\s+year)|"
    rf"\b(?:{_alternation(_lang('en')['plan_words'])})\b",
    re.I,
)
# the length of an event, a process or a thing, not a state that holds
_EN_NOT_A_STATE = re.compile(
    r"\b(?:recipe|dough|bake|boil|simmer|marinate|knead|roast|fry|steep|oven|microwave|rest\s+the|proof|"
    r"how\s+long|takes?|took|timer|alarm|remind|reminder|countdown|snooze|stir|whisk|blend|grill|steam|"
    r"toast|soak|chill|fridge|freezer|can(?:not|'t)?|could|able\s+to|needs\s+to)\b",
    re.I,
)
# a product's term: its length, unless "another" / "more" / "the next" count it from now
_EN_PRODUCT = re.compile(
    r"\b(?:battery|charge|warranty|guarantee|contract|lease|mortgage|subscription|plan)\b", re.I
)
# a hypothesis: "if the code is valid for 10 minutes, why ...", "what if"
_EN_IF = re.compile(
    r"^\s*(?:if|unless|suppose|supposing|assuming|in\s+case|what\s+if|whether|even\s+if)\b", re.I
)
_EN_QUESTION_TAG = re.compile(
    r"^\s*(?:right|ok|okay|correct|yeah|yes|no|isn't\s+it|is\s+it|huh|or\s+not)\s*\?+\s*$", re.I
)
_EN_THIS_WEEK = re.compile(r"\bthis\s+week(?:'s)?\b", re.I)
_EN_TOMORROW_VALID = re.compile(
    r"\b(?:expires?|expiring|(?:is|be)\s+(?:gone|deleted|invalid)|stops?\s+working|changes?|resets?|"
    r"(?:valid|good|works?)\s+(?:until|till|through|thru))\s+(?:at\s+midnight\s+)?tomorrow\b",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
_ANY_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])|\n+")  # Chinese sentence ends too


def _en_seconds(m: re.Match[str]) -> float:
    if m.group("quarter"):
        return 15 * _MINUTE
    if m.group("half"):
        return 0.5 * _EN_UNITS[m.group("half_unit").lower()]
    if m.group("num"):
        n, unit = float(m.group("num")), m.group("unit")
    else:
        n, unit = float(_EN_NUMBERS[re.sub(r"\s+", " ", m.group("wnum").lower())]), m.group("wunit")
    if m.group("and_half") or m.group("wand_half") or m.group("unit_half"):
        n += 0.5
    return n * _EN_UNITS[unit.lower()]


def _en_periods(sentence: str) -> list[tuple[int, int, float, bool]]:
    """Each period in the sentence: start, end, seconds, whether "more" was said; a compound period
    ("2 hours and 30 minutes", "1 hour 15 min") is one, summed."""
    out: list[tuple[int, int, float, bool]] = []
    for m in _EN_DURATION.finditer(sentence):
        seconds = _en_seconds(m)
        more = bool(m.group("more") or m.group("wmore"))
        if out:
            start, end, prev, prev_more = out[-1]
            gap = sentence[end : m.start()]
            if re.fullmatch(r"\s*(?:and|,)?\s*", gap, re.I) and 0 < seconds < prev:
                out[-1] = (start, m.end(), prev + seconds, prev_more or more)
                continue
        out.append((m.start(), m.end(), seconds, more))
    for b in _EN_BARE_NEXT.finditer(sentence):
        if not any(s <= b.start("unit") < e for s, e, _, _ in out):
            out.append((b.start("unit"), b.end("unit"), float(_EN_UNITS[b.group("unit").lower()]), True))
    return sorted(out)


def _clause_bounds(text: str, start: int, end: int, marks: str) -> tuple[int, int]:
    lo = max((text.rfind(c, 0, start) for c in marks), default=-1) + 1
    his = [i for i in (text.find(c, end) for c in marks) if i >= 0]
    return lo, (min(his) + 1 if his else len(text))


def _en_question(sentence: str, lo: int, hi: int) -> bool:
    """The clause holding the period asks (ends in "?", or a tag question follows it)."""
    clause = sentence[lo:hi].rstrip()
    if clause.endswith("?"):
        return True
    return bool(_EN_QUESTION_TAG.match(sentence[hi:]))


def _english_sentence(s: str) -> timedelta | None:
    past = bool(_EN_PAST.search(s))
    recurring = bool(_EN_RECURRING.search(s))
    later = bool(_EN_LATER.search(_EN_END_OF_STAY.sub(" ", s)))
    not_a_state = bool(_EN_NOT_A_STATE.search(s))
    product = bool(_EN_PRODUCT.search(s))
    info = bool(_EN_INFO.search(s))
    anchored = bool(_EN_ANCHOR.search(s))
    periods = _en_periods(s)
    for start, end, seconds, more in periods:
        before, after = s[:start], s[end:]
        if seconds <= 0 or _EN_AFTER_SKIP.match(after) or _EN_BEFORE_SKIP.search(before):
            continue
        if _EN_RANGE_BEFORE.search(before) or _EN_RANGE_AFTER.match(after):
            continue
        lo, hi = _clause_bounds(s, start, end, ",;:!?")
        if _en_question(s, lo, hi) or recurring or _EN_IF.match(s[lo:hi]):
            continue
        clause_before = s[lo:start]
        strong = _EN_VALID_STRONG.search(clause_before)
        weak = _EN_VALID_WEAK.search(clause_before)
        if not past and (
            _EN_USE_WITHIN.search(clause_before) or (info and _EN_USE_FOR.search(clause_before))
        ):
            return timedelta(seconds=seconds)
        if strong or (weak and (info or _EN_RESTRICT.search(s[lo:hi]))):
            verb_at = (strong or weak).start()  # type: ignore[union-attr]
            if _EN_PAST_VALID.search(clause_before[:verb_at]) or _EN_FROM_EVENT.match(after):
                continue
            if seconds >= 365 * _DAY and _EN_FOR.search(before) and not _EN_RESTRICT.search(s[lo:hi]):
                continue  # "the visa is good for 10 years": a document's term, not a validity from now
            if weak and not strong and (not_a_state or product) and not info:
                continue
            return timedelta(seconds=seconds)
        if info and re.match(r"^\s*left\b", after) and not past:
            return timedelta(seconds=seconds)  # "the trial has 2 days left"
        if anchored and not past and not recurring:
            return timedelta(seconds=seconds)
        if _EN_SANCTION.search(clause_before) and not past:
            return timedelta(seconds=seconds)
        from_now = more or bool(_EN_FROM_NOW.search(before))
        if past or not_a_state or (product and not from_now):
            continue
        if not from_now and _EN_THING_FOR.search(before):
            continue  # "the course runs for 8 weeks": a thing's length
        if not from_now and (_EN_PAST_VERB.search(clause_before) or _EN_PERFECT.search(s[lo:hi])):
            continue  # "my sister drove for 6 hours", "for 5 years I've wanted a dog"
        if not from_now and _EN_INSTRUCTION.match(s):
            continue  # "hold the plank for 30 seconds": an instruction, not a state
        if from_now or (_EN_FOR.search(before) and not later):
            countdown = re.match(r"^\s*(?:until|till|before|to\s+go|left)\b", after, re.I)
            if countdown and not re.search(r"\bfor\s+(?:the\s+next\s+|another\s+)?$", before, re.I):
                continue  # a countdown to an event: "3 more days until my vacation"
            return timedelta(seconds=seconds)
    if info and not past and not recurring and not s.rstrip().endswith("?"):
        if _EN_TOMORROW_VALID.search(s):
            return timedelta(days=1)
        if _EN_THIS_WEEK.search(s) and not periods:
            return timedelta(days=7)
    return None


def _english(text: str) -> timedelta | None:
    for sentence in _SENTENCE_END.split(text):
        got = _english_sentence(sentence)
        if got is not None:
            return got
    return None


# -- Chinese ---------------------------------------------------------------------------------------
_ZH_UNITS = {
    "秒": 1, "秒钟": 1, "分钟": _MINUTE, "小时": _HOUR, "钟头": _HOUR, "天": _DAY, "日": _DAY,
    "周": 7 * _DAY, "星期": 7 * _DAY, "礼拜": 7 * _DAY, "个月": 30 * _DAY,
    "年": 365 * _DAY,
}  # fmt: skip
_ZH_COUNT = {"俩": 2, "仨": 3}
# bounded runs: an unbounded number before a unit is read again from each of its digits
_ZH_NUM = r"\d{1,20}(?:\.\d{1,20})?|[零一二两三四五六七八九十百俩仨]{1,20}|半"
_ZH_UNIT = "|".join(sorted(_ZH_UNITS, key=len, reverse=True)) + "|晚(?!上)"
# 一刻钟, 十分钟, 一个半小时, 一天半, 三个星期, 两个钟, 俩月, 一个半月; 晚 not 晚上 (an evening)
_ZH_DURATION = re.compile(
    rf"(?P<quarter>[一三]刻钟?)|(?P<num>{_ZH_NUM})(?P<ge>个)?(?P<mid_half>半)?"
    rf"(?P<unit>{_ZH_UNIT}|(?<=个)钟|(?<=[个俩半两])月)(?P<end_half>半)?"
)
# the old validity patterns also take a bare 分 (十分钟内有效 and 十分内有效)
_ZH_OLD_UNITS = {"分": _MINUTE, **_ZH_UNITS}
_ZH_OLD_UNIT = "|".join(sorted(_ZH_OLD_UNITS, key=len, reverse=True))
_ZH_END = r"过期|失效|作废|到期|删除|退回|清空|注销|清除|销毁|下线|停用|关闭|重置|更换|刷新|改掉|换掉|重设"
_ZH_VALID_AFTER = re.compile(
    rf"^(?:(?:之|以)?内)?(?:都|就|会|就会|便|有效期)?(?:有效|{_ZH_END})"
    rf"|^(?:之|以)?后(?:就|会|就会|自动|便|将|即)*(?:{_ZH_END})"
    r"|^(?:(?:之|以)?内)?(?:使用|可用|能用)?有效"
    rf"|^(?:(?:之|以)?[内后])?[^，。！？,.!?]{{0,8}}?(?:就|将|会|便|即|自动)+(?:{_ZH_END}|没用|不能用|用不了)"
)
_ZH_VALID_BEFORE = re.compile(
    r"(?:有效期|有效时间|有效期限|时效)(?:为|是|只有|仅|就|只)?[:：]?\s*$|(?:只|仅|还)(?:能|可以|可)?(?:用|管|限|使用|保留|登录)$"
)
# within a period, something to do or not to do: 一个月之内别跑步, 两天内去取
_ZH_WITHIN_DO = re.compile(
    r"^(?:之|以)?内(?:都|一定|务必|必须|尽快|最好)?(?:别|不要|不能|不许|不准|禁止|不可以|请|去|要|得|必须|记得|来|"
    r"使用|输入|领取|兑换|支付|付款|完成|提交)"
    r"|^(?:都|最好|千万)?(?:别|不要|不能|不许|不准|禁止)"
)
_ZH_FROM_NOW = re.compile(
    r"(?:接下来|未来|还要|还得|剩|保留|保持|(?:帮|给|替)(?:你|您|我|他|她)留|订了|预订|预约|租|借|再|临时|暂时|暂停)"
    r"[^，。！？,.!?]{0,8}$|这一?$"
)
# 为期 / 持续 bound a person's present state (我在杭州培训，为期二十天), not a thing's length (项目为期两年)
_ZH_TERM = re.compile(r"(?:为期|持续)[^，。！？,.!?]{0,8}$")
_ZH_USE = re.compile(r"(?<!能)(?<!可以)用$")
# a present or coming state: 要, 在, 来 (not 后来, 原来), 会 (not 会议), 让 ...
_ZH_STATE = re.compile(r"要|在|(?<![后原本])来|让|得|会(?!议)|将|先")
_ZH_PAST = re.compile(r"了|过|以前|当时|那时|那次|曾|上次|去年|上个")
# 之前 (before) is past, but not 明天之前 (before tomorrow)
_ZH_PAST_SENTENCE = re.compile(rf"{_alternation(_lang('zh')['past_sentence_words'])}|(?<!明天)之前")
# 隔 (every other: 隔天) but not 隔离 (isolation) or 隔壁 (next door)
_ZH_RECURRING = re.compile(rf"{_alternation(_lang('zh')['recurring_words'])}|隔(?![离壁])")
# a later start: a plan, a date to come, a weekday (周五) or a month (三月, not 三个月 nor 一月内)
_ZH_LATER = re.compile(
    rf"{_alternation(_lang('zh')['later_words'])}|(?:周|星期|礼拜)[一二三四五六日天]|[一二三四五六七八九十\d]{{1,20}}月(?!内)"
)
# an event's, a process's or a thing's length: capacity, cooking, products, journeys
_ZH_NOT_A_STATE = re.compile(
    r"(?<![只仅还])能用|能撑|续航|(?<![只仅还])可以用|能坚持|能睡|面团|煮|炖|蒸|烤|焖|熬|煎|炸|腌|醒面|发酵|"
    r"吗|几|多久|多长|保修|质保|合同|套餐|车程|路程|步行|距离|(?<!隔)离|营业|开放|课程|学制|读|"
    r"电影|视频|这部|一共|总共|全程|出生|闹钟|定时|提醒|倒计时|搅拌|焯|煲|烘|冷藏|冷冻|浸泡|"
    r"认识|结婚|在一起|交往|恋爱|同居"
)
# the time left until an event is a countdown, not a validity: 高考还剩一百天, 离放假还有五天
_ZH_COUNTDOWN = re.compile(
    r"(?:考|婚礼|生日|放假|开学|毕业|比赛|演唱会|演出|出发|过年|春节|国庆|面试|答辩|截止|deadline|ddl)"
    r"[^，。！？,.!?]{0,4}(?:还剩|剩|还有|只有)[^，。！？,.!?]{0,2}$"
)
_ZH_QUESTION = re.compile(r"吗|呢[？?]?$|几|多久|多长|怎么|咋|是不是|[？?]$")
_ZH_THIS_WEEK = re.compile(r"(?:这|本)(?:一)?(?:周|星期|个星期|礼拜|个礼拜)的?")
_ZH_INFO = re.compile(r"密码|口令|码|链接|wifi|WiFi|Wi-Fi|卡|券|令牌|token|账号")
_ZH_TOMORROW_VALID = re.compile(
    rf"明天(?:就|会|就会|便|将)?(?:{_ZH_END})|明天(?:之前|以前|前)(?:都)?有效|有效期?(?:到|至)明天"
)
# what has a validity that runs out (an offer, a trial), where 还有 + a period is the time it has left
_ZH_OFFER = re.compile(r"优惠|活动|折扣|会员|试用|特价|促销|秒杀|团购|体验|积分|额度|流量包")
# 月底回来, 到周五: when a stay ends, not a later start
_ZH_END_OF_STAY = re.compile(
    r"[^，。！？,.!?]{0,6}(?:回来|回去|回家|返回|离开)|(?:到|直到)[^，。！？,.!?]{0,6}(?:为止|结束)?"
)
_ZH_ANCHOR = re.compile(r"从(?:今天|今日|现在|此刻)(?:起|开始|算起|算)|即日起|今天(?:是)?第一天")
_CLAUSE_END = "，。！？,.!?；;"


def _zh_number(text: str) -> float | None:
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    if text == "半":
        return 0.5
    if text in _ZH_COUNT:
        return float(_ZH_COUNT[text])
    total, current, prev = 0, 0, ""
    for ch in text:
        if ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
        elif ch in ZH_DIGITS or ch in _ZH_COUNT:
            if prev and prev not in "十百零" and ch != "零":
                return None  # 一两, 三四, 七八: two digits side by side are a range, vague
            current = ZH_DIGITS.get(ch, _ZH_COUNT.get(ch, 0))
        else:
            return None
        prev = ch
    return float(total + current)


def _zh_seconds(m: re.Match[str]) -> float | None:
    if m.group("quarter"):
        return (3 if m.group("quarter")[0] == "三" else 1) * 15 * _MINUTE
    n = _zh_number(m.group("num"))
    unit = m.group("unit")
    if n is None or n <= 0:
        return None
    if unit == "年" and (n >= 100 or m.group("ge")):  # 2025年 is a year, not 2025 years
        return None
    if unit == "晚" and m.group("num") == "半":
        return None
    if m.group("mid_half") or m.group("end_half"):
        n += 0.5
    seconds = n * _ZH_UNITS.get(unit, {"钟": _HOUR, "晚": _DAY}.get(unit, 30 * _DAY))
    return seconds


def _zh_periods(text: str) -> list[tuple[int, int, float]]:
    """Each period: start, end, seconds; 1小时30分钟 / 一个小时二十分 is one, summed."""
    out: list[tuple[int, int, float]] = []
    for m in _ZH_DURATION.finditer(text):
        seconds = _zh_seconds(m)
        if seconds is None:
            continue
        out.append((m.start(), m.end(), seconds))
    merged: list[tuple[int, int, float]] = []
    for start, end, seconds in out:
        if merged and merged[-1][1] == start and seconds < merged[-1][2]:
            merged[-1] = (merged[-1][0], end, merged[-1][2] + seconds)
            continue
        merged.append((start, end, seconds))
    # a trailing bare 分 after hours: 一小时二十分
    result = []
    for start, end, seconds in merged:
        tail = re.match(rf"({_ZH_NUM})分(?!钟)", text[end:])
        if tail and seconds >= _HOUR and (n := _zh_number(tail.group(1))) is not None and n < 60:
            result.append((start, end + tail.end(), seconds + n * _MINUTE))
        else:
            result.append((start, end, seconds))
    return result


def _clause(text: str, start: int, end: int) -> tuple[str, str]:
    """The clause around a match: what comes before it and after it, up to the punctuation."""
    lo, hi = _clause_bounds(text, start, end, _CLAUSE_END)
    return text[lo:start], text[end:hi]


def _old_chinese(text: str) -> timedelta | None:
    """The first release's validity patterns, for a bare 分 only (十分内有效); ``_chinese`` reads the rest."""
    num, unit = f"({_ZH_NUM})", f"({_ZH_OLD_UNIT})"
    for pattern in (
        num + unit + r"(?:之?内|以内)?(?:有效|过期|失效|作废)",
        num + unit + r"(?:之?后|以后)(?:过期|失效|作废)",
        r"有效期(?:为|是|只有)?" + num + unit,
    ):
        z = re.search(pattern, text)
        if z:
            count = _zh_number(z.group(1))
            if count is not None and count > 0 and not _ZH_RECURRING.search(text) and z.group(2) == "分":
                return timedelta(seconds=count * _ZH_OLD_UNITS[z.group(2)])
    return None


def _chinese(text: str) -> timedelta | None:
    recurring = bool(_ZH_RECURRING.search(text))
    past_sentence = bool(_ZH_PAST_SENTENCE.search(text))
    later = bool(_ZH_LATER.search(_ZH_END_OF_STAY.sub("，", text)))
    anchored = bool(_ZH_ANCHOR.search(text))
    periods = _zh_periods(text)
    for start, end, seconds in periods:
        before, after = _clause(text, start, end)
        if after.startswith(("大", "前", "之前", "以前", "级", "多", "左右", "岁")) or before.endswith(
            ("每", "隔", "过去", "这几", "前", "最近", "近", "才", "一天", "一周", "一个月", "一年", "一晚")
        ):
            continue
        if text[max(0, start - 1) : start] in _lang("zh")["this_words"] and text[start] in "两俩":
            continue  # 这两天, 这两周: "these days", vague
        if re.match(r"^[\d零一二两三四五六七八九十百]", after):
            continue  # 一个月三百: a rate
        if re.search(r"超过|最多|不超|以上", after):
            continue  # 一天不能超过三杯: a limit, not a period from now
        if re.search(r"[一两\d]次", after):
            continue  # 一分钟刷新一次: a recurring event
        if recurring or _ZH_QUESTION.search(after) or re.search(r"吗|几|多久|多长|怎么|咋", before):
            continue
        if re.search(r"如果|要是|假如|假设|万一|的话|听说|据说", before + after):
            continue  # a hypothesis or hearsay, not something said to hold
            continue
        if _ZH_VALID_AFTER.search(after) or _ZH_VALID_BEFORE.search(before):
            if (
                seconds >= 365 * _DAY
                and not after.startswith(("后", "之后", "以后"))
                and not re.search(r"还|剩|接下来|未来", before)
            ):
                continue  # 护照有效期十年: a document's term, not a validity from now
            return timedelta(seconds=seconds)
        if re.search(r"(?:能|可以|可)用$", before) and _ZH_INFO.search(before) and not past_sentence:
            return timedelta(seconds=seconds)  # 这个码可以用十分钟: information, not a battery
        if re.search(r"(?:还有|还剩|只剩|剩下)$", before) and (
            _ZH_OFFER.search(before) or _ZH_INFO.search(before)
        ):
            return timedelta(seconds=seconds)  # 这个优惠还有两天
        if _ZH_WITHIN_DO.search(after) and not past_sentence:
            return timedelta(seconds=seconds)
        if anchored and not past_sentence:
            return timedelta(seconds=seconds)
        if re.search(r"被[^了过]*$", before) and not past_sentence:
            return timedelta(seconds=seconds)  # a term imposed: 被禁言三天
        if _ZH_NOT_A_STATE.search(before + after) or after.startswith(("了", "才", "就好", "就行", "就够")):
            continue
        explicit = bool(re.search(r"(?:接下来|未来|还要|还得)[^，。！？,.!?]{0,8}$|这一?$", before))
        if (
            past_sentence
            or (later and not explicit)
            or re.search(r"(?:(?<!隔)离|距离?)[^，。！？,.!?]*$", before)
        ):
            continue
        if before.endswith("了") and not before.endswith(("订了", "租了", "借了", "约了", "请了", "定了")):
            continue  # 住了一周, 学了半年: time spent
        if before.endswith("过") or _ZH_COUNTDOWN.search(before):
            continue  # 再过两周就放假: the time until an event
        if _ZH_TERM.search(before) and re.search(r"[我你咱]", text):
            return timedelta(seconds=seconds)
        if _ZH_FROM_NOW.search(before) or _zh_this().search(before) or _ZH_USE.search(before):
            return timedelta(seconds=seconds)
        # 要 / 得 / 需要 right before the period is "it takes" (走路要半个小时), not a state
        if before.endswith(("要", "得", "需")) or re.search(
            r"(?<![只仅还不可])能.{0,2}$|(?:要|得|需要?)(?:等|花|排队?)$", before
        ):
            continue
        if _ZH_STATE.search(before) and not _ZH_PAST.search(before):
            return timedelta(seconds=seconds)
    if not recurring and not past_sentence and not periods and _ZH_INFO.search(text):
        if _ZH_TOMORROW_VALID.search(text):
            return timedelta(days=1)
        if (w := _ZH_THIS_WEEK.search(text)) and _ZH_INFO.search(text[w.end() :]):
            return timedelta(days=7)
    return _old_chinese(text)


def expiry_in_words(text: str) -> timedelta | None:
    """The validity period a message states ("valid for ten minutes" → 10 min), or ``None``.

    Only a period the turn says something holds for from now counts (see the module docstring):
    "I waited ten minutes" sets nothing.
    """
    return _english(text) or _chinese_text(text)


def _chinese_text(text: str) -> timedelta | None:
    # each sentence is read alone: a habit in the next sentence (顺便说下我的快递一般寄到公司前台)
    # says nothing of the validity said in this one (验证码5分钟内有效)
    for sentence in _ANY_SENTENCE_END.split(text):
        if sentence and (got := _chinese(sentence)) is not None:
            return got
    return None


# -- the part of a turn that expires ---------------------------------------------------------------
# a clause ends at its punctuation
# (ASCII punctuation only before a space or the end, so "Kettle!92" and "4.5 hours" stay whole)
_CLAUSE_SPLIT = re.compile(r"(?<=[，。！？；\n])|(?<=[,;!?.])(?=\s)")
# Chinese typed without its punctuation ends a clause with a space before a Chinese character
# (验证码5839 十分钟内有效 帮我记下 顺便我快递地址是…); a space before a Latin value stays inside
# its clause (优惠券码 SPRING30), and an English clause with a Chinese word in it is not cut
_HAN_GAP = re.compile(rf"[ \t\u3000]+(?=[{HAN_CLASS}])")
_HAN_CHAR = re.compile(rf"[{HAN_CLASS}]")


_HAN_MARKS = re.compile(r"[，。！？；、]")


def _cut(text: str) -> list[str]:
    """The clauses of ``text``, each with its own punctuation and spacing (joined, the text):
    cut at punctuation (``_CLAUSE_SPLIT``) and, in a turn typed without Chinese punctuation, in a
    clause with Chinese in it, at a space before a Chinese character (a turn that has its marks
    uses them: in "呢三日有事打我同事电话 647-555-0364 揾我。" the space is no clause end). Linear: each
    character is looked at a bounded number of times."""
    spaced = _HAN_MARKS.search(text) is None
    out: list[str] = []
    for part in _CLAUSE_SPLIT.split(text):
        if not part:
            continue
        if not spaced:
            out.append(part)
            continue
        lo = 0
        for m in _HAN_GAP.finditer(part):
            if _HAN_CHAR.search(part, lo, m.start()):
                out.append(part[lo : m.end()])
                lo = m.end()
        if lo < len(part):
            out.append(part[lo:])
    return out


FILLER_FLOOR = 0.3
"""A rule salience under which a remainder of a split turn is filler, not worth keeping on its own."""


@dataclass(frozen=True)
class ExpirySplit:
    """A turn whose expiry bounds only part of it: ``temporary`` (the clauses the period attaches
    to, with the value said to expire) holds for ``ttl``; ``lasting`` (the rest) holds on."""

    ttl: timedelta
    temporary: str
    lasting: str


# a value's shape: a token of three or more characters with a digit in it (4471, SZ88QX, ab7-kq2)
_VALUE = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9-]{3,}")


def _has_subject(clause: str) -> bool:
    """The clause names the thing it says expires: a word for it, or the value itself."""
    return bool(_EN_INFO.search(clause) or _ZH_INFO.search(clause) or _VALUE.search(clause))


@functools.cache
def _tied() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What makes a clause follow from the temporary one (extract/data/expiry.*.json): an opener
    ("so ...", 所以…) or a word anywhere ("for now", 暂时)."""
    en, zh = (
        json.loads((_DATA / f"expiry.{lang}.json").read_text(encoding="utf-8")) for lang in ("en", "zh")
    )
    opener = re.compile(
        rf"^\s*(?:(?:{_alternation(en['tied_openers'])})\b|(?:{_alternation(zh['tied_openers'])}))", re.I
    )
    anywhere = re.compile(
        rf"\b(?:{_alternation(en['tied_anywhere'])})\b|{_alternation(zh['tied_anywhere'])}", re.I
    )
    return opener, anywhere


@functools.cache
def _said_of_before() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What opens a clause that says how long the value before it holds (extract/data/expiry.*.json,
    ``said_of_before``): English as a clause's first word, Chinese as its start."""
    en, zh = (_lang(lang)["said_of_before"] for lang in ("en", "zh"))
    return (
        re.compile(rf"^\s*(?:{_alternation(en)})\b", re.I),
        re.compile(rf"^\s*(?:{_alternation(zh)})"),
    )


@functools.cache
def _not_a_code() -> re.Pattern[str]:
    """A time of day, an ordinal or a length ("6pm", "15th", "24h", "10mins"): a value's shape, but
    no value said to expire. The suffixes are each language's data (``time_of_day_suffixes``,
    ``ordinal_suffixes``, ``length_suffixes``); the digits before them are the shape."""
    shapes = []
    for key, digits in (
        ("time_of_day_suffixes", r"\d{1,2}"),
        ("ordinal_suffixes", r"\d+"),
        ("length_suffixes", r"\d+"),
    ):
        words = [w for lang in ("en", "zh") for w in _lang(lang).get(key, [])]
        if words:
            shapes.append(f"{digits}(?:{_alternation(words)})")
    return re.compile("|".join(shapes) or r"(?!)", re.I)


def _codes(clause: str) -> list[str]:
    """The clause's values of an exact shape (4471, SZ88QX, 2-9-14), times and lengths aside."""
    not_a_code = _not_a_code()
    return [m.group() for m in _VALUE.finditer(clause) if not not_a_code.fullmatch(m.group())]


def said_of_before(clause: str) -> bool:
    """A clause of a validity with no value of its own ("only good till 6pm today", "just for this
    week", 今天下午有效): it is said of the value in the clause before it, which expires with it."""
    if _codes(clause):
        return False
    en, zh = _said_of_before()
    if en.match(clause):
        return True
    return bool(zh.match(clause)) and not _ZH_INFO.search(clause)


def takes_value_before(clauses: Sequence[str], at: int) -> bool:
    """Whether the temporary clause ``at`` takes the clause before it: it is :func:`said_of_before`
    and that clause holds a value (a code, a number: an exact shape)."""
    return at > 0 and said_of_before(clauses[at]) and bool(_codes(clauses[at - 1]))


def _lasting(clause: str) -> bool:
    """A clause that holds on its own: not a question, nor one that follows from the temporary part."""
    text = clause.strip(" \t\n,;，；、")
    opener, anywhere = _tied()
    if not text or text.endswith(("?", "？")) or text.endswith("吗") or opener.match(text):
        return False
    return not anywhere.search(text)


_ENDS_SENTENCE = re.compile(r"(?:[.!?。！？]+|\n)\s*$")


def _sentence_of(clauses: list[str], lo: int, hi: int) -> tuple[int, int]:
    """The clauses of the sentence (or sentences) that clauses ``lo``..``hi`` are in."""
    while lo > 0 and not _ENDS_SENTENCE.search(clauses[lo - 1]):
        lo -= 1
    while hi < len(clauses) - 1 and not _ENDS_SENTENCE.search(clauses[hi]):
        hi += 1
    return lo, hi


@functools.cache
def _own_clause() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What makes a clause say something of its own rather than more of the expiring thing
    (extract/data/expiry.*.json, ``own_clause_words``): English as whole words, Chinese anywhere."""
    en, zh = (_lang(lang)["own_clause_words"] for lang in ("en", "zh"))
    return re.compile(rf"\b(?:{_alternation(en)})\b", re.I), re.compile(_alternation(zh))


def _more_of_value(clause: str) -> bool:
    """A clause that goes on describing the thing said to expire: it carries a value (a code, an
    amount: 券码是YH8830, 满100减30) or names the thing's information (pin, 券码), opens no clause
    of its own (``clause_openers``) and names no other owner or subject (my, 我, 另外: ``own_clause_words``)."""
    text = bare(clause)
    if not text or asked(clause) or _en_clause_open().match(text):
        return False
    if not (_codes(text) or _EN_INFO.search(text) or _ZH_INFO.search(text)):
        return False
    en, zh = _own_clause()
    return not (en.search(text) or zh.search(text))


def _value_span_end(clauses: Sequence[str], hi: int) -> int:
    """The last clause of the thing that expires, from its validity clause ``hi``: of the clauses
    after it in its sentence that go on describing it (:func:`_more_of_value`), up to the last that
    names its information ("超市给了我一张优惠券，只在今天有效，满100减30，券码是YH8830。": the code is
    the coupon's, said after the validity words). A value with no such word ("..., good today
    only, unit 12B") may be something else that lasts: it holds on (a memory lost wrongly is the
    worse failure)."""
    end = at = hi
    while (
        at + 1 < len(clauses) and not _ENDS_SENTENCE.search(clauses[at]) and _more_of_value(clauses[at + 1])
    ):
        at += 1
        if _EN_INFO.search(clauses[at]) or _ZH_INFO.search(clauses[at]):
            end = at
    return end


def _not_filler(text: str) -> bool:
    return salience(text).score >= FILLER_FLOOR


def split_expiry(
    text: str,
    now: datetime | None = None,
    *,
    matters: Callable[[str], bool] | None = None,
    matters_many: Callable[[Sequence[str]], Sequence[bool]] | None = None,
) -> ExpirySplit | None:
    """The temporary and lasting parts of a turn that states an expiry, or ``None`` when the
    period bounds the whole turn (one clause, or the rest is filler) or nothing.

    The period attaches to the clause it is read in alone ("good for 15 minutes"), or to the pair
    that ends with it; a clause without the thing it is said of ("it's good for a day", 十分钟内有效)
    takes the clause before it too ("the code is 4471,"). A state has no such thing ("I'm at the
    travelodge for the next 3 nights, room 214"): its whole sentence is temporary, and another
    sentence ("my usual number's 07845 661 203") holds on. Given ``now``, an end point counts too
    (:func:`expiry_of`). ``matters`` says whether what is left is worth keeping on its own (default:
    the rule salience is not filler; the ingestor adds its salience model's judgement);
    ``matters_many`` says it of several texts in one call (the whole remainder first, then each of
    its clauses, whose verdicts are read only when the whole's is ``False``), so a model behind it
    embeds them in one batch. Linear: each clause is read once or twice."""
    keep = matters or _not_filler

    def keep_many(texts: Sequence[str]) -> Sequence[bool]:
        return matters_many(texts) if matters_many is not None else [keep(t) for t in texts]

    ttl = expiry_of(text, now)
    if ttl is None:
        return None
    clauses = _cut(text)
    if len(clauses) < 2:
        return None
    span: tuple[int, int] | None = None
    for i, clause in enumerate(clauses):
        if expiry_of(clause, now) == ttl:
            span = (i, i)
            break
        if i and expiry_of(clauses[i - 1] + clause, now) == ttl:
            span = (i - 1, i)
            break
    if span is None:
        return None
    lo, hi = span
    if lo > 0 and (not _has_subject("".join(clauses[lo : hi + 1])) or takes_value_before(clauses, lo)):
        # "the code is 4471, good for a day": the period is said of the thing before it; "combo
        # 31-07-44, just for this week till my card comes": of the value before it, which expires
        lo -= 1
    if not _has_subject("".join(clauses[lo : hi + 1])):
        # a state ("I'm in Osaka for 10 days, room 214 if anyone needs me"): what holds for the
        # period is its whole sentence; another sentence says something of its own
        lo, hi = _sentence_of(clauses, lo, hi)
        if lo == 0 and hi == len(clauses) - 1:
            return None  # one sentence: the whole turn holds for the period
    else:
        hi = _value_span_end(clauses, hi)  # the thing's value said after its validity expires too
    # a clause that follows from the temporary one (a question about it, "so ...") expires with it;
    # each other clause holds on its own, so a turn loses only what was said to expire
    rest = [c for c in (*clauses[:lo], *clauses[hi + 1 :]) if _lasting(c)]
    lasting = "".join(rest).strip(" \t\n,;，；、")
    if lasting:
        # one call for the whole remainder and each clause (a model batches its embedding); filler
        # beside what holds ("帮我记一下…。另外我的邮箱是…"): keep the clauses that matter
        whole, *each = keep_many([lasting, *rest]) if len(rest) > 1 else [*keep_many([lasting])] * 2
        if not whole:
            lasting = "".join(c for c, ok in zip(rest, each, strict=True) if ok).strip(" \t\n,;，；、")
    if not lasting:
        return None
    temporary = "".join(clauses[lo : hi + 1]).strip(" \t\n,;，；、")
    return ExpirySplit(ttl, temporary, lasting)


def pieces(text: str) -> list[str]:
    """The turn's clauses as the split cuts them, each with its own punctuation and spacing, so
    that joining them gives the text back; at most ``_CLAUSE_CAP`` (the rest goes with the last)."""
    out = _cut(text)
    if len(out) > _CLAUSE_CAP:
        out = [*out[: _CLAUSE_CAP - 1], "".join(out[_CLAUSE_CAP - 1 :])]
    return out


def bare(piece: str) -> str:
    """A piece of :func:`pieces` without its edge punctuation and spaces."""
    return piece.strip(" \t\n,;，；、")


def asked(piece: str) -> bool:
    """The clause is a question (its mark: ?, ？, 吗 at its end)."""
    return bare(piece).endswith(("?", "？", "吗"))


def lapsing(parts: Sequence[str], said: datetime, until: datetime) -> list[bool]:
    """Which of a turn's :func:`pieces` hold only until ``until`` or less, read from ``said`` (when
    the turn was said), by the rules of :func:`split_expiry`: a clause whose own period or end point
    (:func:`expiry_of`, alone or with the clause before it; or an end point :func:`end_point_said`
    reads after an until word, "room 31 till thursday", with no past or recurring word) ends by
    then, with the clause before it in its sentence when it does not name the thing it is said of
    ("the code is 4471," "good till friday"), and, when it is a state ("at the travelodge for 3 nights, room
    214"), the clauses of its sentence up to one that opens a clause of its own ("and I get
    seasick"; ``clause_openers``); beside such a clause, those that follow from it ("so ...", "for
    now"). A period that outlasts ``until`` leaves its clauses alone. Linear: each clause is read a
    few times."""
    out = [False] * len(parts)
    for i, part in enumerate(parts):
        span: tuple[int, int] | None = None
        ttl = expiry_of(part, said) or _end_after_until(part, said)
        if ttl is not None:
            span = (i, i)
        elif i and expiry_of(parts[i - 1], said) is None:
            ttl = expiry_of(parts[i - 1] + part, said)
            span = (i - 1, i) if ttl is not None else None
        if span is None or ttl is None or said + ttl > until:
            continue
        lo, hi = span
        # the clause before names what it is said of, in the same sentence only
        if (
            lo > 0
            and not _has_subject("".join(parts[lo : hi + 1]))
            and not _ENDS_SENTENCE.search(parts[lo - 1])
        ):
            lo -= 1
        if not _has_subject("".join(parts[lo : hi + 1])):
            lo, hi = _state_of(parts, lo, hi)
        else:
            hi = _value_span_end(parts, hi)
        if (
            lo > 0
            and not _ENDS_SENTENCE.search(parts[lo - 1])
            and _en_words("stay_words").search(parts[lo - 1])
        ):
            lo -= 1  # the stay the value belongs to ("we're at the Harbour Inn, room 101 till thursday")
        for j in range(lo, hi + 1):
            out[j] = True
    if any(out):
        for j, part in enumerate(parts):
            if not out[j] and bare(part) and not _lasting(part):
                out[j] = True
    return out


def _end_after_until(part: str, said: datetime) -> timedelta | None:
    """An end point :func:`end_point_said` reads in a clause that bounds something by it ("room 31
    till thursday", "on nights until the weekend": ``until_words``), with no past, recurring or
    question cue. A day named alone ("back at work today", 今天回福永上班了) is when something
    happened, not how long it holds."""
    if not _en_words("until_words").search(part):
        return None
    said_cues = cues(part, said)
    if any(said_cues[CUES.index(c)] for c in ("past", "recurring", "question")):
        return None
    return end_point_said(part, said)


def _state_of(parts: Sequence[str], lo: int, hi: int) -> tuple[int, int]:
    """A state's clauses: its sentence, short of a clause that opens one of its own."""
    s_lo, s_hi = _sentence_of(list(parts), lo, hi)
    opens = _en_words("clause_openers")
    while lo > s_lo and not opens.match(bare(parts[lo])):
        lo -= 1
    while hi < s_hi and not opens.match(bare(parts[hi + 1])):
        hi += 1
    return lo, hi


# -- an end point: "good until friday", 只在今天有效 ---------------------------------------------
@functools.cache
def _en_until() -> re.Pattern[str]:
    d = _lang("en")
    verbs = _alternation(d["valid_until_verbs_strong"] + d["valid_until_verbs_weak"])
    days = _alternation([*WEEKDAYS, *d["today_words"], *d["weekend_words"], *d["month_end_words"]])
    days += r"|\d{1,2}(?:st|nd|rd|th)"  # a day of the month: "till the 15th"
    # what bounds the period: a validity verb ("good till"), a bound said of a state ("only till
    # friday", "just temporary till ..."), a present stay ("im at the Hanting hotel till sunday",
    # up to 60 characters of where, bounded) or a value ("the pin is 3318 till sunday"); up to six
    # words between the cue and the day ("till IT fixes the system on friday"): bounded
    return re.compile(
        rf"\b(?:(?P<verb>{verbs})\s+(?:only\s+|just\s+)?|(?P<bound>{_alternation(d['until_bounds'])})\s+"
        rf"|(?P<stay>{_alternation(d['stay_words'])})\s[^,;.!?\n]{{0,60}}?"
        rf"|(?P<value>(?<![\w-])(?=[\w#!-]{{0,40}}\d)[\w#!-]{{3,40}})\s+)"
        rf"(?:{_alternation(d['until_words'])})\s+"
        rf"(?:(?P<this>this|on)\s+)?(?:[\w']+\s+){{0,6}}?(?P<day>{days})\b",
        re.I,
    )


@functools.cache
def _en_for_span() -> re.Pattern[str]:
    """ "just for this afternoon", "her pin for today", "this week only": the current day (``day``)
    or week (``week``) bounds it; ``bound`` is the "only" / "just" said with it."""
    d = _lang("en")
    day, week = _alternation(d["for_today_words"]), _alternation(d["this_week_words"])
    span = rf"(?:(?P<day>{day})|(?P<week>{week}))"
    return re.compile(
        rf"\b(?:(?P<bound>only|just)\s+(?:for\s+)?{span}\b(?!\s*'s)"
        rf"|(?:for\s+)?(?P<day2>{day})\s+(?P<bound2>only)\b|(?:for\s+)?(?P<week2>{week})\s+(?P<bound3>only)\b"
        rf"|for\s+(?P<day3>{day})\b(?!\s*'s))",
        re.I,
    )


@functools.cache
def _zh_until() -> tuple[re.Pattern[str], re.Pattern[str]]:
    d = _lang("zh")
    today, valid, end = (
        _alternation(d["today_words"]),
        _alternation(d["valid_words"]),
        _alternation(d["end_words"]),
    )
    # a weekday, the end of the month (到月底有效) or a day of it with no month said (到15号)
    weekday = rf"(?:{_ZH_WEEKDAY.pattern}|{_alternation(d['month_end_words'])}|{_ZH_DAY_OF_MONTH.pattern})"
    change, after = _alternation(d["change_words"]), _alternation(d["until_after"])
    # 只在今天有效, 仅限当天, 今天之内有效, 有效期到今天; 今天之内要取 (to do within the day);
    # 今晚十二点前用有效 (up to six characters of the hour, bounded); 今晚过后就改 (changed after it)
    on_today = re.compile(
        rf"(?:只|仅)?(?:在|限)?(?:{today})(?:之内|以内|内)?(?:都|才)?(?:{valid}){_ZH_VERB_END}|仅限(?:{today})"
        rf"|有效期?(?:{_alternation(d['until_before'])})(?:{today})"
        rf"|(?:{today})(?:之内|以内|内)(?:{_alternation(d['within_do_words'])})"
        rf"|(?:{today})[^，。！？,.!?]{{0,6}}?(?:{after})(?:用|使用|都)?(?:{valid}){_ZH_VERB_END}"
        rf"|(?:{today})(?:过后|之后|以后|过了)(?:都|就|会|便|将)*(?:{change}|{end})"
    )
    # 到周五就不能用了, 只能用到周五, 周五之前有效, 有效期到周五, 到周五为止有效
    on_weekday = re.compile(
        rf"(?:{_alternation(d['until_before'])}){weekday}(?:{_alternation(d['until_after'])})?"
        rf"(?:都|就|会|便|将)*(?:{valid}|{end}){_ZH_VERB_END}"
        rf"|用(?:{_alternation(d['until_before'])}){weekday}"
        rf"|(?<![到至止]){weekday}(?:{_alternation(d['until_after'])})(?:都|就|会)*(?:{valid}){_ZH_VERB_END}"
        rf"|有效期?(?:{_alternation(d['until_before'])}){weekday}"
        # 只到这周五为止 (a state bounded by the day), 礼拜日就回去了 / 下周一再回 (a stay ends then)
        rf"|(?:{_alternation(d['only_words'])})(?:{_alternation(d['until_before'])}){weekday}"
        rf"|{weekday}(?:就|便|才|再)(?:{_alternation(d['leave_words'])})"
    )
    return on_today, on_weekday


@functools.cache
def _zh_tomorrow_change() -> re.Pattern[str]:
    """明天就换 (of information): it holds until then."""
    d = _lang("zh")
    return re.compile(
        rf"(?:{_alternation(d['tomorrow_words'])})(?:就|会|便|将)+(?:{_alternation(d['change_words'])})"
    )


@functools.cache
def _zh_this() -> re.Pattern[str]:
    """这 right before a period, or 呢 in Cantonese (呢三日): counted from now."""
    return re.compile(rf"(?:{_alternation(_lang('zh')['this_words'])})一?$")


# the verb ends its clause (能用了, 有效。), not a verb of something else (可以用电脑, 有效率)
_ZH_VERB_END = rf"(?=[了啦的哦喔呢]|$|[^{HAN_CLASS}])"
_ZH_WEEKDAY = re.compile(r"(?:下|这|本)?个?(?:周|星期|礼拜)[一二三四五六日天]")
# 15号, 十五号 with no month before it (3月15号 is a date this reader does not place)
_ZH_DAY_OF_MONTH = re.compile(
    r"(?<![月\d零一二三四五六七八九十])(\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])[号日](?![元块子])"
)
_ZH_NOT_SAID = re.compile(
    r"吗|[？?]|如果|要是|假如|假设|万一|的话|听说|据说|已经|上周|上个?星期|上个?礼拜|去年"
)


def _until(day: date | None, now: datetime) -> timedelta | None:
    if day is None:
        return None
    left = end_of_day(day, now) - now
    return left if left > timedelta(0) else None


@functools.cache
def _en_words(key: str) -> re.Pattern[str]:
    """Any of the English data's ``key`` words, as a whole word, case-insensitive."""
    return re.compile(rf"\b(?:{_alternation(_lang('en')[key])})\b", re.I)


@functools.cache
def _en_clause_open() -> re.Pattern[str]:
    return re.compile(rf"[,;:]|{_en_words('clause_openers').pattern}", re.I)


def _clause_before(sentence: str, at: int, end: int | None = None) -> str:
    """The clause of the sentence around ``at``..``end``: from the last clause boundary before
    ``at`` ("..., so its only good till") to the first after ``end`` (the sentence's end when
    ``end`` is not given): a habit said in another clause ("they change it every week", "... and
    please remember the membership number because we need it for every gala") is not this one's."""
    lo = 0
    for m in _en_clause_open().finditer(sentence, 0, at):
        lo = m.end()
    hi = len(sentence)
    if end is not None and (nxt := _en_clause_open().search(sentence, end)) is not None:
        hi = nxt.start()
    return sentence[lo:hi]


def _english_until(sentence: str, now: datetime) -> timedelta | None:
    if sentence.rstrip().endswith("?") or _EN_IF.match(sentence):
        return None
    d = _lang("en")
    m = _en_until().search(sentence)
    if m is None:
        t = _en_for_span().search(sentence)
        bound = t is not None and any(t.group(g) for g in ("bound", "bound2", "bound3"))
        if t is None or not (bound or _EN_INFO.search(sentence)):
            return None
        clause = _clause_before(sentence, t.start(), t.end())
        if _EN_RECURRING.search(clause) or _en_words("past_words").search(clause):
            return None
        if t.group("week") or t.group("week2"):
            return _until(coming_weekday(now.date(), WEEKDAYS["sunday"]), now)  # through its Sunday
        return _until(now.date(), now)
    clause = _clause_before(sentence, m.start(), m.end())
    if _EN_RECURRING.search(clause):
        return None
    strong = {w.casefold() for w in d["valid_until_verbs_strong"]}
    verb = m.group("verb")
    if (
        verb is not None
        and verb.casefold() not in strong
        and not (_EN_INFO.search(sentence) or _en_words("bound_words").search(sentence))
    ):
        return None  # "the store is open till friday": a thing's hours, not a validity
    if m.group("value") and not _EN_INFO.search(sentence):
        return None  # "4471 till friday" of a code, not "I worked 9-5 till friday"
    if _EN_PAST_VALID.search(sentence[: m.start()]) or _en_words("past_words").search(clause):
        return None
    day = m.group("day").casefold()
    if day[0].isdigit():
        if _EN_MONTH.search(m.group(0)) or _EN_MONTH.match(sentence[m.end() :]):
            return None  # "till march 15th", "the 15th of june": a date this reader does not place
        return _until(_coming_day_of_month(now.date(), int(day[:-2])), now)
    if day in WEEKDAYS:
        if (dated := _WEEKDAY_DATE.match(sentence, m.end())) is not None:
            return _until(_coming_day_of_month(now.date(), int(dated.group(1))), now)  # "tuesday the 15th"
        return _until(
            coming_weekday(now.date(), WEEKDAYS[day], week=0 if m.group("this") == "this" else None), now
        )
    if day in {w.casefold() for w in d["weekend_words"]}:
        return _until(coming_weekday(now.date(), WEEKDAYS["sunday"]), now)
    if day in {w.casefold() for w in d["month_end_words"]}:
        return _until(_month_end(now.date()), now)
    return _until(now.date(), now)


_EN_MONTH = re.compile(
    r"\s*(?:of\s+)?\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", re.I
)


def _coming_day_of_month(today: date, n: int) -> date | None:
    """The day ``n`` of this month if it is still to come (today included), else of the next."""
    for months_on in (0, 1):
        first = today.replace(day=1)
        if months_on:
            first = (first + timedelta(days=32)).replace(day=1)
        if n <= _month_end(first).day and (months_on or n >= today.day):
            return first.replace(day=n)
    return None


def _month_end(day: date) -> date:
    first_of_next = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
    return first_of_next - timedelta(days=1)


def _chinese_until(text: str, now: datetime) -> timedelta | None:
    if _ZH_NOT_SAID.search(text) or _ZH_RECURRING.search(text):
        return None
    on_today, on_weekday = _zh_until()
    if on_today.search(text):
        return _until(now.date(), now)
    if _ZH_INFO.search(text) and _zh_tomorrow_change().search(text):
        return timedelta(days=1)  # as "changes tomorrow": a day
    m = on_weekday.search(text)
    if m is None:
        return None
    said = _ZH_WEEKDAY.search(m.group(0))
    if said is None:
        if any(w in m.group(0) for w in _lang("zh")["month_end_words"]):
            return _until(_month_end(now.date()), now)
        dom = _ZH_DAY_OF_MONTH.search(m.group(0))
        n = _zh_number(dom.group(1)) if dom else None
        return _until(_coming_day_of_month(now.date(), int(n)), now) if n and n <= 31 else None
    week = {"下": 1, "这": 0, "本": 0}.get(said.group(0)[0])
    return _until(coming_weekday(now.date(), ZH_WEEKDAYS[said.group(0)[-1]], week=week), now)


def expiry_until(text: str, now: datetime) -> timedelta | None:
    """The time left, from ``now``, until the end point a message gives a validity, or ``None``:
    "good until friday", "only works till we check out sunday", 只在今天有效, 到周五就不能用了;
    a state's or a stay's end ("only till friday", "im at the Hanting hotel till sunday", 只到这周五为止,
    礼拜日就回去了), the current day or week ("just for this afternoon", "this week only", 今天之内要取,
    今晚过后就改), the weekend, the end of the month and a day of it with no month said ("till the
    15th", 到15号有效). The words are the data files' (extract/data/expiry.*.json).

    A day named as an end point lasts through that day, to the midnight that ends it in ``now``'s
    zone (the later reading: a memory that disappears early is the worse failure). A bare weekday
    is the next one on or after today; "this friday" / 这周五 once passed, and anything asked,
    supposed, past or recurring, set nothing."""
    # each sentence is read alone: a habit or a question in another sentence ("我每周一都去…")
    # says nothing of the validity said in this one
    for sentence in _ANY_SENTENCE_END.split(text):
        got = _english_until(sentence, now)
        if got is None:
            got = _chinese_until(sentence, now)
        if got is not None:
            return got
    return None


def expiry_of(text: str, now: datetime | None = None) -> timedelta | None:
    """A period said (:func:`expiry_in_words`) or, given ``now``, an end point (:func:`expiry_until`)."""
    got = expiry_in_words(text)
    if got is None and now is not None:
        got = expiry_until(text, now)
    return got


# -- what the learned reader (extract/expiry_model.py) reads beside the sentence's vector ----------
# Chinese typed without punctuation separates its sentences with spaces (这两周在戒碳水 我在铁馆练了三年了)
_HAN_SPACE = re.compile(rf"(?<=[{HAN_CLASS}])[ \t\u3000]+(?=[{HAN_CLASS}])")
_CLAUSE_CAP = 32
"""At most this many clauses of a turn are read one by one (the rest goes with the last)."""


def sentence_holds_alone(sentence: str, text: str, now: datetime) -> bool:
    """``sentence`` is one of several of ``text`` (its ends: ``.!?。！？``, a new line; a space
    between Chinese characters is not one) and says nothing of a while: no period, end point or
    temporary word, not a question, not one that follows from another ("so ...", 所以…, "for
    now"). Such a sentence holds on beside one that expires ("…，到周五回去。我是做外贸的，公司在宁波",
    "…, remind me later. it's the grey Mazda 3, my only car"), as the rules' split keeps another
    sentence: a memory lost wrongly is the worse failure. Linear in the text."""
    said = [bare(s) for s in _ANY_SENTENCE_END.split(text) if bare(s)]
    if len(said) < 2 or bare(sentence) not in said or asked(sentence) or not _lasting(sentence):
        return False
    return not any(cues(sentence, now)[1:4])


def units(text: str) -> list[str]:
    """What the learned reader judges one by one in a turn: its sentences (ends, new lines, a
    space between Chinese characters) when it has several, else the clauses of its one sentence."""
    out = [
        c
        for part in _ANY_SENTENCE_END.split(text)
        if part
        for piece in _HAN_SPACE.split(part)
        if (c := piece.strip(" \t\n,;，；、"))
    ]
    if len(out) < 2:
        return clauses(text)
    if len(out) > _CLAUSE_CAP:
        out = [*out[: _CLAUSE_CAP - 1], " ".join(out[_CLAUSE_CAP - 1 :])]
    return out


def clauses(text: str) -> list[str]:
    """The turn's clauses as the split reads them (punctuation, new lines, a space between Chinese
    characters), stripped of their edge punctuation, empty ones dropped; at most ``_CLAUSE_CAP``,
    the rest joined to the last: linear in the text."""
    out = [
        c
        for part in _CLAUSE_SPLIT.split(text)
        if part
        for piece in _HAN_SPACE.split(part)
        if (c := piece.strip(" \t\n,;，；、"))
    ]
    if len(out) > _CLAUSE_CAP:
        out = [*out[: _CLAUSE_CAP - 1], " ".join(out[_CLAUSE_CAP - 1 :])]
    return out


def period_refused(text: str, now: datetime | None = None) -> bool:
    """The text names an exact period ("for an hour", 两小时) and the rules read no expiry in it:
    they saw the period and refused it (past, recurring, a thing's length, an instruction). The
    learned reader does not overrule that refusal (a precision guard: "ran for an hour this
    morning", "steep the tea for five minutes", 会议拖了一个半小时)."""
    # any exact period counts, the ones the rules skip at once too ("2 hours 40 minutes long")
    exact = any(seconds > 0 for _s, _e, seconds, _more in _en_periods(text)) or any(
        seconds > 0 for _s, _e, seconds in _zh_periods(text)
    )
    return exact and expiry_of(text, now) is None


def period_said(text: str) -> timedelta | None:
    """The first period the text names ("10 minutes", 三天, "an hour and a half"), read without
    the context rules of :func:`expiry_in_words` (whether it bounds a validity is the learned
    reader's call): the exact length when the reader says the sentence is temporary."""
    for start, end, seconds, _more in _en_periods(text):
        if seconds > 0 and not _EN_AFTER_SKIP.match(text[end:]) and not _EN_BEFORE_SKIP.search(text[:start]):
            return timedelta(seconds=seconds)
    for _start, _end, seconds in _zh_periods(text):
        if seconds > 0:
            return timedelta(seconds=seconds)
    en, zh = _few()
    if (m := en.search(text)) is not None:
        return timedelta(seconds=3 * _EN_UNITS[m.group("unit").casefold()])
    if (z := zh.search(text)) is not None:
        return timedelta(seconds=3 * _ZH_UNITS.get(z.group("unit"), _DAY))
    return None


@functools.cache
def _few() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """ "a few days", 这几天: three of the unit (a vague period the rules leave alone)."""
    units = "|".join(sorted((u for u in _EN_UNITS if len(u) > 3), key=len, reverse=True))
    zh_units = "|".join(sorted(_ZH_UNITS, key=len, reverse=True)) + "|晚"
    return (
        re.compile(rf"\b(?:{_alternation(_lang('en')['few_words'])})\s+(?P<unit>{units})\b", re.I),
        re.compile(rf"(?:{_alternation(_lang('zh')['few_words'])})个?(?P<unit>{zh_units})"),
    )


@functools.cache
def _en_end_words() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    d = _lang("en")
    today = re.compile(rf"\b(?:{_alternation(d['today_words'] + d['for_today_words'])})\b", re.I)
    week = re.compile(rf"\b(?:{_alternation(d['this_week_words'] + d['weekend_words'])})\b", re.I)
    weekday = re.compile(rf"\b(?:{_alternation(list(WEEKDAYS))})\b", re.I)
    tomorrow = re.compile(rf"\b(?:{_alternation(d['tomorrow_words'])})\b", re.I)
    return today, week, weekday, tomorrow


def end_point_said(text: str, now: datetime) -> timedelta | None:
    """The time left until an end point the text names, read without the context rules of
    :func:`expiry_until`: a weekday (the coming one, through its end), tomorrow, this week or the
    weekend (through Sunday), today or tonight, the end of the month. ``None`` when none is named."""
    today, week, weekday, tomorrow = _en_end_words()
    zh = _lang("zh")
    if (m := weekday.search(text)) is not None:
        return _until(_weekday_or_date(now.date(), m.group(0).casefold(), text[m.end() :]), now)
    if (z := _ZH_WEEKDAY.search(text)) is not None:
        wk = {"下": 1, "这": 0, "本": 0}.get(z.group(0)[0])
        return _until(coming_weekday(now.date(), ZH_WEEKDAYS[z.group(0)[-1]], week=wk), now)
    if tomorrow.search(text) or any(w in text for w in zh["tomorrow_words"]):
        return _until(now.date() + timedelta(days=1), now)
    if week.search(text) or _ZH_THIS_WEEK.search(text) or "周末" in text:
        return _until(coming_weekday(now.date(), WEEKDAYS["sunday"]), now)
    if any(w in text.casefold() for w in _lang("en")["month_end_words"]) or any(
        w in text for w in zh["month_end_words"]
    ):
        return _until(_month_end(now.date()), now)
    if (left := _hour_left(text, now)) is not None:
        return left
    if (d := _EN_DAY_OF_MONTH.search(text) or _ZH_DAY_OF_MONTH.search(text)) is not None:
        n = _zh_number(d.group(1)) if not d.group(1).isdigit() else float(d.group(1))
        if n is not None and 1 <= n <= 31:
            return _until(_coming_day_of_month(now.date(), int(n)), now)
    en = _lang("en")
    folded = text.casefold()
    if any(w in folded for w in en["next_week_words"]) or any(w in text for w in zh["next_week_words"]):
        return _until(coming_weekday(now.date(), WEEKDAYS["sunday"], week=1), now)
    if any(w in folded for w in en["this_month_words"]) or any(w in text for w in zh["this_month_words"]):
        return _until(_month_end(now.date()), now)
    if today.search(text) or any(w in text for w in zh["today_words"]):
        return _until(now.date(), now)
    return None


# a weekday given with its day of the month ("tuesday the 15th", "fri 20th"): the date is the
# day of the month, not the coming weekday (an exact shape: weekday, then an ordinal)
_WEEKDAY_DATE = re.compile(r"\s*,?\s*(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b", re.I)


def _weekday_or_date(today: date, weekday: str, after: str) -> date | None:
    """The day a weekday names: the day of the month said right after it, else the coming weekday."""
    dated = _WEEKDAY_DATE.match(after)
    if dated is not None and 1 <= int(dated.group(1)) <= 31:
        return _coming_day_of_month(today, int(dated.group(1)))
    return coming_weekday(today, WEEKDAYS[weekday])


# a day of the month as an end point: "till the 22nd", "until the 3rd"
_EN_DAY_OF_MONTH = re.compile(
    r"\b(?:till|until|til|thru|through|by|before)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b", re.I
)
# a clock hour as an end point: "till 6", "until 5:30pm", "by 9 am", 到6点, 六点前
_EN_HOUR = re.compile(
    r"\b(?:till|until|til|thru|through|by|before)\s+(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.)?(?![\w:])",
    re.I,
)
_ZH_HOUR = re.compile(
    r"(?P<h>\d{1,2}|[一二三四五六七八九十]{1,3})点(?:(?P<half>半)|(?P<m>[0-5]?\d)分?)?(?:之前|以前|前|为止)"
)


def _hour_left(text: str, now: datetime) -> timedelta | None:
    """The time left until a clock hour named as an end point, today (or tomorrow once passed);
    a bare hour under 8 is the afternoon's ("parking till 6", 到六点为止), unless the morning is said."""
    hour = minute = None
    if (m := _EN_HOUR.search(text)) is not None:
        hour, minute = int(m.group("h")), int(m.group("m") or 0)
        ap = (m.group("ap") or "").casefold()[:1]
        if (ap == "p" and hour < 12) or (not ap and hour < 8):
            hour += 12
        elif ap == "a" and hour == 12:
            hour = 0
    elif (z := _ZH_HOUR.search(text)) is not None:
        n = _zh_number(z.group("h"))
        hour = int(n) if n is not None else None
        minute = 30 if z.group("half") else int(z.group("m") or 0)
        if hour is not None and hour < 8 and not re.search(r"早上|早晨|上午|凌晨|清晨", text):
            hour += 12
    if hour is None or minute is None or hour > 23:
        return None
    at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if at <= now:
        at += timedelta(days=1)
    return at - now


@functools.cache
def _temporary_words() -> re.Pattern[str]:
    en, zh = _lang("en")["temporary_words"], _lang("zh")["temporary_words"]
    return re.compile(rf"\b(?:{_alternation(en)})\b|{_alternation(zh)}", re.I)


CUES = ("rule", "period", "end_point", "temporary_words", "value", "past", "recurring", "question", "han")
"""The lexical cues :func:`cues` reads, in order (the learned reader's features beside the vector)."""


def names_a_while(cue_values: list[float]) -> bool:
    """Of :func:`cues`: the text names a period, an end point or a temporary word, and no past or
    recurring word; otherwise the learned reader adds no expiry (the rules' precision guards: a
    plain fact, "two cats at home, both rescues", 鞋码42, says nothing of how long it holds; a
    change told in the past, "started at the Lloyds in Leyland on monday", and a habit, "每周二我找他拿货",
    hold on)."""
    return any(cue_values[1:4]) and not (
        cue_values[CUES.index("past")] or cue_values[CUES.index("recurring")]
    )


def while_clause(text: str, now: datetime) -> str | None:
    """The first clause of ``text`` (:func:`clauses`) that, read alone, :func:`names_a_while`, or
    ``None``: a past or recurring word in another clause ("…，只在今天有效，我每个周末都去…", "这周我在外地
    出差…。我是做销售的，天天跑客户") is that clause's, and says nothing of the while this one names.
    Linear: at most ``_CLAUSE_CAP`` clauses, each read once."""
    return next((c for c in clauses(text) if names_a_while(cues(c, now))), None)


def cues(text: str, now: datetime) -> list[float]:
    """The lexical cues of :data:`CUES` for one sentence: whether the rules read an expiry, a period
    or an end point is named, how many temporary words (capped at 3), a value's shape (a code, a
    number), a past or recurring word, a question, Chinese. Linear in the text."""
    stripped = text.rstrip()
    return [
        float(expiry_of(text, now) is not None),
        float(period_said(text) is not None),
        float(end_point_said(text, now) is not None),
        float(min(3, len(_temporary_words().findall(text)))),
        float(_VALUE.search(text) is not None),
        float(bool(_EN_PAST.search(text) or _ZH_PAST_SENTENCE.search(text))),
        float(bool(_EN_RECURRING.search(text) or _ZH_RECURRING.search(text))),
        float(stripped.endswith(("?", "？", "吗"))),
        float(bool(re.search(f"[{HAN_CLASS}]", text))),
    ]
