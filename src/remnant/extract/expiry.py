"""Expiry said in words: the period a turn says something holds for, from now, or ``None``.

Three kinds of wording set a TTL, in English and Chinese:

1. **validity words** on a period: "valid for ten minutes", "expires in 2 hours", "the coupon dies
   in 6 hrs", "self-destructs after ten minutes", "lasts 30 min", 十分钟内有效, 半小时后就过期,
   有效期三天, 一天半有效;
2. **a period counted from now**: "for the next 90 minutes", "for another 10 days", "six more
   weeks", 接下来一个小时, 还要戴三周, 还剩4天, 为期二十天, 保留72小时, 这六天;
3. **a present or coming state "for" a period**: "I'm staying in Osaka for 10 days", "borrowing my
   sister's car for a fortnight", 我要出差三天, 我妈来我家住两周, unless the sentence is about the
   past ("I was in hospital for a week", 我跑了四十分钟, 以前住过十天), a habit ("every 12 hours",
   每两小时), an age ("3 weeks old", 三周大), a capacity ("the battery lasts 10 hours on a full
   charge", 能用十个小时), cooking ("rest the dough for 30 minutes") or a question about it.

A period in passing sets nothing: "I waited ten minutes", "the movie was 2 hours long".
"""

from __future__ import annotations

import re
from datetime import timedelta

from remnant.core.text.numerals import ZH_DIGITS

_MINUTE, _HOUR, _DAY = 60, 3600, 86400

# -- English ---------------------------------------------------------------------------------------
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "twenty-four": 24, "thirty": 30, "thirty-six": 36, "forty": 40, "forty-five": 45,
    "forty-eight": 48, "fifty": 50, "sixty": 60, "seventy-two": 72, "ninety": 90, "couple of": 2,
    "a couple of": 2,
}  # fmt: skip
_EN_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": _MINUTE, "min": _MINUTE, "mins": _MINUTE, "minute": _MINUTE, "minutes": _MINUTE,
    "h": _HOUR, "hr": _HOUR, "hrs": _HOUR, "hour": _HOUR, "hours": _HOUR,
    "d": _DAY, "day": _DAY, "days": _DAY,
    "w": 7 * _DAY, "wk": 7 * _DAY, "wks": 7 * _DAY, "week": 7 * _DAY, "weeks": 7 * _DAY,
    "fortnight": 14 * _DAY, "fortnights": 14 * _DAY,
    "month": 30 * _DAY, "months": 30 * _DAY, "year": 365 * _DAY, "years": 365 * _DAY,
}  # fmt: skip
_EN_WORD_NUM = "|".join(sorted(map(re.escape, _EN_NUMBERS), key=len, reverse=True))
_EN_UNIT = "|".join(sorted(_EN_UNITS, key=len, reverse=True))
# a number word needs a space and a whole unit word ("a day", never the "a"+"s" of "works as")
_EN_WORD_UNIT = "|".join(sorted((u for u in _EN_UNITS if len(u) > 1), key=len, reverse=True))
_EN_DURATION = re.compile(
    r"\b(?:(?P<quarter>(?:a\s+)?quarter\s+of\s+an\s+hour)"
    r"|(?P<half>half\s+an?\s+(?P<half_unit>hour|day|minute|week))"
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
_EN_VALIDITY = re.compile(
    r"\b(?:valid|good|works?|working|active|usable|expires?|expiring|lasts?|live|alive|dies|"
    r"self-destructs?|holds?|stays?\s+(?:up|open|on|active|valid|live)|reserved|kept|open)"
    r"(?:\s+(?:only|just))?(?:\s+(?:for|in|within|after))?\s+"
    r"(?:the\s+next\s+|another\s+|only\s+|just\s+)?$",
    re.I,
)
_EN_FROM_NOW = re.compile(r"\b(?:the\s+next|another|(?:with)?in\s+the\s+next|over\s+the\s+next)\s+$", re.I)
_EN_FOR = re.compile(r"\bfor\s+$", re.I)
_EN_AFTER_SKIP = re.compile(
    r"^\s*(?:old|ago|each|per|a\s+(?:day|week|night)|earlier|later|late|over)\b", re.I
)
_EN_BEFORE_SKIP = re.compile(r"\b(?:every|each|per|once|twice)\s+(?:other\s+)?$", re.I)
_EN_PAST = re.compile(
    r"\b(?:was|were|been|had|did|took|waited|ran|stayed|slept|spent|lived|went|sat|lasted|thought|felt|"
    r"said|told|came|left|saw|made|ago|"
    r"yesterday|back\s+in|used\s+to|last\s+(?:week|month|year|night|time|summer|winter))\b"
    r"|\b(?:i|we|he|she|they|you)\s+\w+ed\b",
    re.I,
)
_EN_NOT_A_STATE = re.compile(
    r"\b(?:recipe|dough|bake|boil|simmer|marinate|knead|roast|fry|steep|oven|microwave|rest\s+the|"
    r"battery|charge|how\s+long)\b",
    re.I,
)


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


def _english(text: str) -> timedelta | None:
    past = bool(_EN_PAST.search(text))
    not_a_state = bool(_EN_NOT_A_STATE.search(text)) or text.rstrip().endswith("?")
    for m in _EN_DURATION.finditer(text):
        before, after = text[: m.start()], text[m.end() :]
        if _EN_AFTER_SKIP.match(after) or _EN_BEFORE_SKIP.search(before):
            continue
        seconds = _en_seconds(m)
        if seconds <= 0:
            continue
        if _EN_VALIDITY.search(before) and not re.search(r"\b(?:battery|charge)\b", text, re.I):
            return timedelta(seconds=seconds)
        if past or not_a_state:
            continue
        if m.group("more") or m.group("wmore") or _EN_FROM_NOW.search(before) or _EN_FOR.search(before):
            return timedelta(seconds=seconds)
    return None


# -- Chinese ---------------------------------------------------------------------------------------
_ZH_UNITS = {
    "秒": 1, "秒钟": 1, "分钟": _MINUTE, "小时": _HOUR, "钟头": _HOUR, "天": _DAY, "日": _DAY,
    "周": 7 * _DAY, "星期": 7 * _DAY, "礼拜": 7 * _DAY, "个月": 30 * _DAY, "年": 365 * _DAY,
}  # fmt: skip
_ZH_NUM = r"\d+(?:\.\d+)?|[零一二两三四五六七八九十百]+|半"
_ZH_UNIT = "|".join(sorted(_ZH_UNITS, key=len, reverse=True))
# 一刻钟, 十分钟, 一个半小时, 一天半, 三个星期
_ZH_DURATION = re.compile(
    rf"(?P<quarter>[一三]刻钟?)|(?P<num>{_ZH_NUM})(?P<ge>个)?(?P<mid_half>半)?(?P<unit>{_ZH_UNIT})(?P<end_half>半)?"
)
# the old validity patterns also take a bare 分 (十分钟内有效 and 十分内有效)
_ZH_OLD_UNITS = {"分": _MINUTE, **_ZH_UNITS}
_ZH_OLD_UNIT = "|".join(sorted(_ZH_OLD_UNITS, key=len, reverse=True))
_ZH_VALID_AFTER = re.compile(
    r"^(?:(?:之|以)?内)?(?:都)?(?:有效|过期|失效|作废)"
    r"|^(?:之|以)?后(?:就|会|就会|自动)*(?:过期|失效|作废|删除|退回|清空|注销)"
)
_ZH_VALID_BEFORE = re.compile(r"(?:有效期|有效时间|有效期限)(?:为|是|只有|仅|就)?$")
_ZH_FROM_NOW = re.compile(
    r"(?:接下来|未来|还要|还得|还剩|为期|持续|保留|保持|订了|预订|预约|租了|再)[^，。！？,.!?]{0,8}$|这$"
)
_ZH_USE = re.compile(r"(?<!能)(?<!可以)用$")
# a present or coming state: 要, 在, 来 (not 后来, 原来), 会 (not 会议), 让 ...
_ZH_STATE = re.compile(r"要|在|(?<![后原本])来|让|得|会(?!议)|准备|打算|将|先")
_ZH_PAST = re.compile(r"了|过|以前|当时|那时|那次|曾|上次|去年|上个")
_ZH_NOT_A_STATE = re.compile(r"每|能用|能撑|续航|可以用|能坚持|面团|煮|吗|几|多久")
_CLAUSE_END = "，。！？,.!?；;"


def _zh_number(text: str) -> float | None:
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    if text == "半":
        return 0.5
    total, current = 0, 0
    for ch in text:
        if ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
        elif ch in ZH_DIGITS:
            current = ZH_DIGITS[ch]
        else:
            return None
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
    if m.group("mid_half") or m.group("end_half"):
        n += 0.5
    return n * _ZH_UNITS[unit]


def _clause(text: str, start: int, end: int) -> tuple[str, str]:
    """The clause around a match: what comes before it and after it, up to the punctuation."""
    lo = max((text.rfind(c, 0, start) for c in _CLAUSE_END), default=-1) + 1
    his = [i for i in (text.find(c, end) for c in _CLAUSE_END) if i >= 0]
    hi = min(his) + 1 if his else len(text)
    return text[lo:start], text[end:hi]


def _old_chinese(text: str) -> timedelta | None:
    """The first release's validity patterns (kept: 十分内有效 has a bare 分)."""
    num, unit = f"({_ZH_NUM})", f"({_ZH_OLD_UNIT})"
    for pattern in (
        num + unit + r"(?:之?内|以内)?(?:有效|过期|失效|作废)",
        num + unit + r"(?:之?后|以后)(?:过期|失效|作废)",
        r"有效期(?:为|是|只有)?" + num + unit,
    ):
        z = re.search(pattern, text)
        if z:
            count = _zh_number(z.group(1))
            if count is not None and count > 0:
                return timedelta(seconds=count * _ZH_OLD_UNITS[z.group(2)])
    return None


def _chinese(text: str) -> timedelta | None:
    for m in _ZH_DURATION.finditer(text):
        seconds = _zh_seconds(m)
        if seconds is None:
            continue
        before, after = _clause(text, m.start(), m.end())
        if after.startswith(("大", "前", "级", "多")) or before.endswith(("每", "隔", "过去", "这几")):
            continue
        if _ZH_VALID_AFTER.search(after) or _ZH_VALID_BEFORE.search(before):
            return timedelta(seconds=seconds)
        if _ZH_NOT_A_STATE.search(before + after) or after.startswith("了"):
            continue
        if _ZH_FROM_NOW.search(before) or _ZH_USE.search(before):
            return timedelta(seconds=seconds)
        # 要 / 得 / 需要 right before the period is "it takes" (走路要半个小时), not a state
        if before.endswith(("要", "得", "需")):
            continue
        if _ZH_STATE.search(before) and not _ZH_PAST.search(before):
            return timedelta(seconds=seconds)
    return _old_chinese(text)


def expiry_in_words(text: str) -> timedelta | None:
    """The validity period a message states ("valid for ten minutes" → 10 min), or ``None``.

    Only a period the turn says something holds for from now counts (see the module docstring):
    "I waited ten minutes" sets nothing.
    """
    return _english(text) or _chinese(text)
