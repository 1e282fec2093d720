"""Time expressions (English and Chinese) resolved against a reference date into date ranges.

"yesterday", "last week", "in May", "three days ago", "the week before 9 June 2023", 上周, 五月,
去年, 三天前 ... become :class:`TimeRange` values (``start`` inclusive, ``end`` exclusive, whole
days). A memory's event dates are the day it was said (``occurred_at``) plus what the
expressions in its text resolve to against that day ("I went yesterday", said on 8 May, is about
7 May); a query's ranges are resolved against now, and recall boosts memories whose event dates
fall in them.

Conventions: weeks run Monday to Sunday; a bare weekday or a month named without a year means
the most recent one on or before the reference date (people talk about the past more than the
future) and, for a month, ``yearless`` is set so a caller can match that month in any year;
"N weeks ago" is the week around the day N weeks back. An expression relative to something that
is not a date ("two days before the trip") is left unresolved. "May" is a month only where a
month can stand (after "in", "since", "last" ..., or beside a day or a year), never the modal verb.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from remnant.core.errors import ValidationError
from remnant.core.text.calendar import WEEKDAYS, ZH_WEEKDAYS
from remnant.core.text.numerals import MONTH_NUMBER, ZH_DIGITS
from remnant.understand import lexicon

__all__ = [
    "FORGET_SCOPES",
    "TimeRange",
    "forget_scope",
    "has_time_expression",
    "mentions_recent",
    "resolve",
    "scope_window",
]


@dataclass(frozen=True)
class TimeRange:
    """Whole days ``start <= d < end``; ``text`` is the expression it came from."""

    start: date
    end: date
    text: str = ""
    yearless: bool = False  # a month (or day) named without a year: any year's may be meant

    def overlaps(self, other: TimeRange) -> bool:
        if self.yearless or other.yearless:
            return _month_overlap(self, other)
        return self.start < other.end and other.start < self.end

    def contains(self, day: date) -> bool:
        if self.yearless:
            return any(_month_key(day) == k for k in _months_of(self))
        return self.start <= day < self.end


def _months_of(r: TimeRange) -> set[int]:
    out = set()
    d = r.start
    while d < r.end:
        out.add(d.month)
        d = (d.replace(day=1) + timedelta(days=32)).replace(day=1)
    return out


def _month_key(d: date) -> int:
    return d.month


def _month_overlap(a: TimeRange, b: TimeRange) -> bool:
    return bool(_months_of(a) & _months_of(b))


MONTHS = dict(MONTH_NUMBER)
MONTHS.update({k[:3]: v for k, v in list(MONTHS.items()) if k != "may"})
MONTHS["sept"] = 9
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "couple of": 2,
    "a couple": 2,
}
_ZH_DIGITS = ZH_DIGITS
_ZH_WEEKDAYS = ZH_WEEKDAYS
# "last Fri", "on Tues": each weekday's three-letter stem and the longer clipped forms people write
_WEEKDAY_FORMS: dict[str, int] = dict(WEEKDAYS)
_WEEKDAY_FORMS.update({name[:3]: i for name, i in WEEKDAYS.items()})
_WEEKDAY_FORMS.update({"tues": 1, "weds": 2, "thur": 3, "thurs": 3})
_WEEKDAY_RE = "|".join(sorted(_WEEKDAY_FORMS, key=len, reverse=True))
# vague counts ("a few days ago"): about this many units, read as a span around it
_VAGUE = {"a few": 3, "few": 3, "several": 4, "a number of": 4}
# meteorological seasons (northern hemisphere): the month each starts in, and its length
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def _day(ref: date | datetime) -> date:
    return ref.date() if isinstance(ref, datetime) else ref


def _one(d: date, text: str) -> TimeRange:
    return TimeRange(d, d + timedelta(days=1), text)


def _week(monday: date, text: str) -> TimeRange:
    return TimeRange(monday, monday + timedelta(days=7), text)


def _add_months(d: date, n: int) -> date:
    y, m = divmod(d.year * 12 + (d.month - 1) + n, 12)
    return date(y, m + 1, 1)


def _month(year: int, month: int, text: str, yearless: bool = False) -> TimeRange:
    start = date(year, month, 1)
    return TimeRange(start, _add_months(start, 1), text, yearless)


def _year(year: int, text: str) -> TimeRange:
    return TimeRange(date(year, 1, 1), date(year + 1, 1, 1), text)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None  # 30 February, 29 February of a common year


def _past_month(ref: date, month: int) -> int:
    """The year of the most recent ``month`` on or before ref's month."""
    return ref.year if month <= ref.month else ref.year - 1


def _weekend(ref: date, which: int) -> TimeRange:
    """which = -1 last, 0 this, +1 next weekend (Saturday and Sunday)."""
    wd = ref.weekday()
    # inside a weekend, "this weekend" is the current one
    this_sat = ref - timedelta(days=wd - 5) if wd >= 5 else ref + timedelta(days=5 - wd)
    sat = this_sat + timedelta(days=7 * which)
    if which == -1 and wd < 5:
        sat = this_sat - timedelta(days=7)
    return TimeRange(sat, sat + timedelta(days=2), "weekend")


def _season(ref: date, name: str, which: int, text: str) -> TimeRange:
    """which = -1 last (the most recent one that has ended), 0 this (the one under way, else this
    year's), +1 next (the first to start after ref) ``name`` season of three months."""
    first = SEASONS[name]
    # this year's: the one that starts in ref's year (a winter under way in January began the year before)
    start = date(ref.year - 1 if first == 12 and ref.month < 3 else ref.year, first, 1)
    if which == -1:
        while _add_months(start, 3) > ref:
            start = date(start.year - 1, first, 1)
    elif which == 1:
        while start <= ref:
            start = date(start.year + 1, first, 1)
    return TimeRange(start, _add_months(start, 3), text)


def _shift(ref: date, unit: str, n: int, text: str) -> TimeRange:
    """The unit ``n`` units before ref (n < 0: after)."""
    if unit == "day":
        return _one(ref - timedelta(days=n), text)
    if unit == "week":
        mid = ref - timedelta(days=7 * n)
        return TimeRange(mid - timedelta(days=3), mid + timedelta(days=4), text)
    if unit == "month":
        start = _add_months(ref, -n)
        return TimeRange(start, _add_months(start, 1), text)
    return _year(ref.year - n, text)


def _number(word: str) -> int | None:
    w = word.lower().strip()
    if w.isdigit():
        return int(w)
    return _NUMBER_WORDS.get(re.sub(r"\s+", " ", w))


def _zh_number(s: str) -> int | None:
    if s.isdigit():
        return int(s)
    if not s or any(c not in _ZH_DIGITS and c != "十" for c in s):
        return None
    if "十" in s:
        tens, _, ones = s.partition("十")
        t = _ZH_DIGITS.get(tens, 0) if tens else 1
        o = _ZH_DIGITS.get(ones, 0) if ones else 0
        return t * 10 + o
    value = 0
    for c in s:
        value = value * 10 + _ZH_DIGITS[c]
    return value


# -- English -------------------------------------------------------------------------------------
_NUM = (
    r"(\d+|a couple of|a couple|couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(day|week|weekend|month|year)s?"
_VAGUE_RE = r"(a few|few|several|a number of)"
_SEASON_RE = r"(spring|summer|autumn|fall|winter)"
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_MONTH_RE = rf"(?:{_MONTH_NAMES})\.?"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR_RE = r"((?:19|20)\d\d)"
# words after which "may"/"May" is the month, not the verb
_MONTH_CONTEXT = re.compile(
    r"(?:\b(?:in|of|since|until|till|by|during|early|mid|late|last|next|this|from|to|through|before|after|"
    r"throughout|around|end|beginning|start|middle)\s+(?:of\s+)?)$",
    re.IGNORECASE,
)

_EN_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\b{_NUM}\s+{_UNIT}\s+(before|after)\s+", re.IGNORECASE), "offset"),
    (re.compile(r"\bthe\s+(day|week|weekend|month|year)\s+(before|after)\s+", re.IGNORECASE), "the_offset"),
    (re.compile(r"\bthe\s+day\s+before\s+yesterday\b", re.IGNORECASE), "d-2"),
    (re.compile(r"\bthe\s+day\s+after\s+tomorrow\b", re.IGNORECASE), "d+2"),
    (re.compile(r"\b(yesterday|last\s+night)\b", re.IGNORECASE), "d-1"),
    (re.compile(r"\b(today|tonight|this\s+(?:morning|afternoon|evening))\b", re.IGNORECASE), "d0"),
    (re.compile(r"\btomorrow\b", re.IGNORECASE), "d+1"),
    (re.compile(rf"\b{_NUM}\s+{_UNIT}\s+ago\b", re.IGNORECASE), "ago"),
    (re.compile(rf"\b{_VAGUE_RE}\s+{_UNIT}\s+ago\b", re.IGNORECASE), "vague_ago"),
    # "I've had them for 3 years now", "playing for about four months now": it began then
    (
        re.compile(
            rf"\b(?:for\s+)?(?:about\s+|almost\s+|nearly\s+|over\s+|just\s+(?:under|over)\s+)?"
            rf"{_NUM}\s+{_UNIT}\s+now\b",
            re.IGNORECASE,
        ),
        "for_now",
    ),
    (re.compile(rf"\b(last|this|next|past)\s+{_SEASON_RE}\b", re.IGNORECASE), "rel_season"),
    (re.compile(rf"\b(?:the\s+)?{_SEASON_RE}\s+(?:of\s+)?{_YEAR_RE}\b", re.IGNORECASE), "season_year"),
    (re.compile(r"\b(last|this|next|past)\s+(week|weekend|month|year)\b", re.IGNORECASE), "rel"),
    (re.compile(rf"\b(last|this|next|on)\s+({_WEEKDAY_RE})\b\.?", re.IGNORECASE), "weekday"),
    # "on the 15th": that day of this month, or of the month before if it is still to come
    (re.compile(r"\bon\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\b)", re.IGNORECASE), "day_of_month"),
    (re.compile(rf"\b{_ORD}\s+(?:of\s+)?({_MONTH_RE})(?:,?\s+{_YEAR_RE})?\b", re.IGNORECASE), "dmy"),
    (re.compile(rf"\b({_MONTH_RE})\s+{_ORD}(?:,?\s+{_YEAR_RE})?\b(?!\s*(?:am|pm|:))", re.IGNORECASE), "mdy"),
    (re.compile(rf"\b(last|this|next)\s+({_MONTH_RE})\b", re.IGNORECASE), "rel_month"),
    (re.compile(rf"\b({_MONTH_RE})(?:,?\s+(?:of\s+)?{_YEAR_RE})?\b", re.IGNORECASE), "month"),
    (re.compile(rf"\b{_YEAR_RE}\b"), "year"),
]


def _is_month_word(text: str, start: int, end: int, word: str, has_year: bool) -> bool:
    """'May' / 'may' as a month: only where a month can stand (not the modal verb)."""
    if word.lower().rstrip(".") != "may":
        return True
    if has_year:
        return True
    before = text[:start]
    if _MONTH_CONTEXT.search(before):
        return True
    return bool(re.match(r"\s+\d{1,2}(?:st|nd|rd|th)?\b", text[end:]))


def _resolve_en(text: str, ref: date, taken: list[tuple[int, int]]) -> list[tuple[int, TimeRange]]:
    out: list[tuple[int, TimeRange]] = []
    pending: list[tuple[int, int, int, str, str]] = []  # offsets waiting for their anchor
    for pattern, kind in _EN_RULES:
        for m in pattern.finditer(text):
            s, e = m.span()
            if any(s < b and a < e for a, b in taken):
                continue
            got = _en_match(kind, m, text, ref)
            if kind in ("offset", "the_offset"):
                pending.append((s, e, *_offset_args(kind, m)))
                continue
            if got is None:
                continue
            taken.append((s, e))
            out.append((s, got))
    # "two days before 7 May 2023": an offset applies to the expression right after it
    for s, e, n, unit, direction in pending:
        anchor = next((r for pos, r in out if pos == e), None)
        if anchor is None:
            continue  # "two days before the trip": not a date, left unresolved
        out = [(pos, r) for pos, r in out if pos != e]
        text_span = text[s : e + len(anchor.text)]
        out.append((s, _apply_offset(anchor, n, unit, direction, text_span)))
        taken.append((s, e))
    return out


def _offset_args(kind: str, m: re.Match[str]) -> tuple[int, str, str]:
    if kind == "offset":
        return _number(m.group(1)) or 1, m.group(2).lower(), m.group(3).lower()
    unit = m.group(1).lower()
    return 1, unit, m.group(2).lower()


def _apply_offset(anchor: TimeRange, n: int, unit: str, direction: str, text: str) -> TimeRange:
    sign = -1 if direction == "before" else 1
    if unit == "weekend":
        base = anchor.start if sign < 0 else anchor.end - timedelta(days=1)
        return _weekend(base, -1 if sign < 0 else 1)
    if unit in ("week", "month", "year") and n == 1 and text.lower().startswith("the"):
        # "the week before X": the seven days up to X (or after it)
        days = {"week": 7, "month": 30, "year": 365}[unit]
        if sign < 0:
            return TimeRange(anchor.start - timedelta(days=days), anchor.start, text)
        return TimeRange(anchor.end, anchor.end + timedelta(days=days), text)
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit] * n
    point = anchor.start + timedelta(days=sign * days)
    if unit == "day":
        return _one(point, text)
    half = max(1, days // 7)
    return TimeRange(point - timedelta(days=half), point + timedelta(days=half + 1), text)


def _en_match(kind: str, m: re.Match[str], text: str, ref: date) -> TimeRange | None:
    t = m.group(0)
    if kind.startswith("d") and kind[1:].lstrip("+-").isdigit():
        return _one(ref + timedelta(days=int(kind[1:])), t)
    if kind == "ago":
        n = _number(m.group(1))
        unit = m.group(2).lower()
        if n is not None and unit == "weekend":
            # "two weekends ago": the weekend n weeks before the last one
            last = _weekend(ref, -1)
            sat = last.start - timedelta(days=7 * (n - 1))
            return TimeRange(sat, sat + timedelta(days=2), t)
        return _shift(ref, unit, n, t) if n is not None else None
    if kind == "rel":
        which = {"last": -1, "past": -1, "this": 0, "next": 1}[m.group(1).lower()]
        unit = m.group(2).lower()
        if unit == "weekend":
            return _weekend(ref, which)
        if unit == "week":
            return _week(ref - timedelta(days=ref.weekday()) + timedelta(days=7 * which), t)
        if unit == "month":
            start = _add_months(ref, which)
            return TimeRange(start, _add_months(start, 1), t)
        return _year(ref.year + which, t)
    if kind == "vague_ago":
        n = _VAGUE[re.sub(r"\s+", " ", m.group(1).lower())]
        unit = m.group(2).lower()
        if unit == "weekend":
            unit = "week"
        near, far = _shift(ref, unit, max(1, n - 1), t), _shift(ref, unit, n + 2, t)
        return TimeRange(far.start, near.end, t)
    if kind == "for_now":
        n = _number(m.group(1))
        if n is None:
            return None
        unit = m.group(2).lower()
        return _shift(ref, "week" if unit == "weekend" else unit, n, t)
    if kind == "rel_season":
        which = {"last": -1, "past": -1, "this": 0, "next": 1}[m.group(1).lower()]
        return _season(ref, m.group(2).lower(), which, t)
    if kind == "season_year":
        begins = date(int(m.group(2)), SEASONS[m.group(1).lower()], 1)
        return TimeRange(begins, _add_months(begins, 3), t)
    if kind == "day_of_month":
        dom = int(m.group(1))
        d = _safe_date(ref.year, ref.month, dom)
        if d is None or d > ref:
            prev = _add_months(ref.replace(day=1), -1)
            d = _safe_date(prev.year, prev.month, dom)
        return _one(d, t) if d is not None else None
    if kind == "weekday":
        rel, wd = m.group(1).lower(), _WEEKDAY_FORMS[m.group(2).lower()]
        monday = ref - timedelta(days=ref.weekday())
        if rel == "this":
            return _one(monday + timedelta(days=wd), t)
        if rel == "next":
            return _one(monday + timedelta(days=7 + wd), t)
        back = (ref.weekday() - wd) % 7
        if rel == "last" and back == 0:
            back = 7
        return _one(ref - timedelta(days=back), t)
    if kind in ("dmy", "mdy"):
        if kind == "dmy":
            day, mon, year = m.group(1), m.group(2), m.group(3)
        else:
            mon, day, year = m.group(1), m.group(2), m.group(3)
        month = MONTHS[mon.lower().rstrip(".")]
        if not _is_month_word(
            text, *m.span(1 if kind == "mdy" else 2), mon, year is not None or kind == "dmy"
        ):
            return None
        y = int(year) if year else _past_month(ref, month)
        d = _safe_date(y, month, int(day))
        if d is None:
            return None
        r = _one(d, t)
        return TimeRange(r.start, r.end, t, yearless=year is None)
    if kind == "rel_month":
        rel, mon = m.group(1).lower(), m.group(2)
        month = MONTHS[mon.lower().rstrip(".")]
        if rel == "this":
            return _month(ref.year, month, t)
        if rel == "last":
            return _month(ref.year if month < ref.month else ref.year - 1, month, t)
        return _month(ref.year if month > ref.month else ref.year + 1, month, t)
    if kind == "month":
        mon, year = m.group(1), m.group(2)
        if not _is_month_word(text, *m.span(1), mon, year is not None):
            return None
        if len(mon.rstrip(".")) == 3 and mon[0].islower() and mon.lower() not in ("may",):
            return None  # "mar", "jan" in lower case are too often other words
        month = MONTHS[mon.lower().rstrip(".")]
        if year:
            return _month(int(year), month, t)
        return _month(_past_month(ref, month), month, t, yearless=True)
    if kind == "year":
        return _year(int(m.group(1)), t)
    return None


# -- Chinese -------------------------------------------------------------------------------------
# bounded runs: an unbounded number before a unit is read again from each of its digits
_ZN = r"([0-9]{1,20}|[零〇一二两三四五六七八九十]{1,20})"
_ZH_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"{_ZN}\s*(天|日|周|个星期|星期|个礼拜|礼拜|个月|月|年)(?:以)?前"), "ago"),
    (re.compile(r"(\d{4}|[零〇一二三四五六七八九]{4})年" + rf"(?:{_ZN}月(?:{_ZN}[日号])?)?"), "ymd"),
    (re.compile(rf"{_ZN}月(?:份)?(?:{_ZN}[日号])?"), "md"),
    (re.compile(r"(上|这|本|下)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])"), "zweekday"),
    (re.compile(r"(?<![上这本下个])(?:周|星期|礼拜)([一二三四五六日天])"), "zbare_weekday"),
    (re.compile(r"(上|这|本|下)(?:个)?(?:周末)"), "zweekend"),
    (re.compile(r"(上上|上|这|本|下)(?:个)?(?:周|星期|礼拜|月)"), "zrel"),
    (re.compile(r"(大前天|前天|昨天|昨日|昨晚|今天|今日|今晚|今早|今天早上|明天|明日|后天)"), "zday"),
    (re.compile(r"(前年|去年|今年|明年|后年)"), "zyear"),
]
_ZH_DAY = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "今天": 0, "今日": 0, "今晚": 0}
_ZH_DAY.update({"今早": 0, "今天早上": 0, "明天": 1, "明日": 1, "后天": 2})
_ZH_YEAR = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
_ZH_WHICH = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1}


def _resolve_zh(text: str, ref: date, taken: list[tuple[int, int]]) -> list[tuple[int, TimeRange]]:
    out: list[tuple[int, TimeRange]] = []
    for pattern, kind in _ZH_RULES:
        for m in pattern.finditer(text):
            s, e = m.span()
            if any(s < b and a < e for a, b in taken):
                continue
            got = _zh_match(kind, m, ref)
            if got is None:
                continue
            taken.append((s, e))
            out.append((s, got))
    return out


def _zh_match(kind: str, m: re.Match[str], ref: date) -> TimeRange | None:
    t = m.group(0)
    if kind == "ago":
        n = _zh_number(m.group(1))
        unit = m.group(2)
        if n is None:
            return None
        name = (
            "day" if unit in ("天", "日") else "month" if "月" in unit else "year" if unit == "年" else "week"
        )
        return _shift(ref, name, n, t)
    if kind == "ymd":
        y = _zh_number(m.group(1))
        if y is None:
            return None
        month = _zh_number(m.group(2)) if m.group(2) else None
        day = _zh_number(m.group(3)) if m.group(3) else None
        if month is None:
            return _year(y, t)
        if not 1 <= month <= 12:
            return None
        if day is None:
            return _month(y, month, t)
        d = _safe_date(y, month, day)
        return _one(d, t) if d else None
    if kind == "md":
        month = _zh_number(m.group(1))
        if month is None or not 1 <= month <= 12:
            return None
        y = _past_month(ref, month)
        if m.group(2):
            day = _zh_number(m.group(2))
            d = _safe_date(y, month, day) if day is not None else None
            return TimeRange(d, d + timedelta(days=1), t, yearless=True) if d else None
        return _month(y, month, t, yearless=True)
    if kind == "zweekday":
        which = _ZH_WHICH[m.group(1)]
        monday = ref - timedelta(days=ref.weekday()) + timedelta(days=7 * which)
        return _one(monday + timedelta(days=_ZH_WEEKDAYS[m.group(2)]), t)
    if kind == "zbare_weekday":
        back = (ref.weekday() - _ZH_WEEKDAYS[m.group(1)]) % 7
        return _one(ref - timedelta(days=back), t)
    if kind == "zweekend":
        return _weekend(ref, _ZH_WHICH[m.group(1)])
    if kind == "zrel":
        which = _ZH_WHICH[m.group(1)]
        if t.endswith("月"):
            start = _add_months(ref, which)
            return TimeRange(start, _add_months(start, 1), t)
        return _week(ref - timedelta(days=ref.weekday()) + timedelta(days=7 * which), t)
    if kind == "zday":
        return _one(ref + timedelta(days=_ZH_DAY[m.group(1)]), t)
    if kind == "zyear":
        return _year(ref.year + _ZH_YEAR[m.group(1)], t)
    return None


def resolve(text: str, ref: date | datetime) -> list[TimeRange]:
    """Every time expression in ``text`` resolved against ``ref``, in the order they appear."""
    if not text:
        return []
    day = _day(ref)
    taken: list[tuple[int, int]] = []
    found = _resolve_en(text, day, taken) + _resolve_zh(text, day, taken)
    found.sort(key=lambda item: item[0])
    return [r for _, r in found]


_CUE = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|ago|last|next|weekend|week|month|year|"
    r"(?:day|week|month|year)s?\s+now|spring|summer|autumn|this\s+fall|winter|the\s+\d{1,2}(?:st|nd|rd|th)|"
    r"(?:on|this)\s+(?:mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|(?:19|20)\d\d|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)\b|"
    r"[昨今明前后去]天|[上下本这]周|星期|礼拜|[去今明前]年|个?月|[0-9一二三四五六七八九十两]{1,20}天前",
    re.IGNORECASE,
)


def has_time_expression(text: str) -> bool:
    """A cheap test: does the text mention a time at all (before trying to resolve it)."""
    return bool(_CUE.search(text))


# Words that place what a turn tells on (or just before) the day it was said, with no date of
# their own ("I just got accepted", 我刚买了): the answer to "when did ..." is then that day.
_RECENT = re.compile(
    r"\b(just|recently|lately|the other day|earlier today)\b|刚刚|刚才|最近|刚", re.IGNORECASE
)


def mentions_recent(text: str) -> bool:
    """The text says something happened just now or lately, without a date."""
    return bool(_RECENT.search(text))


# a forget request's time scopes (phrase, scope), every language's, first match wins: data/<lang>/time.json
FORGET_SCOPES: tuple[tuple[str, str], ...] = tuple(
    (p, str(w)) for p, w in lexicon.pairs("time", "forget_scopes")
)


_AGO_RULES = (
    (re.compile(rf"\b{_NUM}\s+{_UNIT}\s+ago\b", re.IGNORECASE), _number),
    (_ZH_RULES[0][0], _zh_number),
)
_ZH_UNIT = {"天": "day", "日": "day", "年": "year"}


def forget_scope(text: str) -> tuple[str, tuple[int, int]] | None:
    """A forget request's "N days / weeks / months ago" (eight days ago, 三天前, 两个星期前) as its
    time scope (``days:N``, ``weeks:N``, ``months:N``, ``years:N``: :func:`scope_window`) and where it stands in
    ``text``; read by the same patterns and numerals as :func:`resolve`. ``None`` when there is none."""
    for pattern, number in _AGO_RULES:
        for m in pattern.finditer(text):
            n = number(m.group(1))
            unit = m.group(2).lower()
            unit = _ZH_UNIT.get(unit, "month" if "月" in unit else "week" if not unit.isascii() else unit)
            if n is None or n < 1 or unit not in ("day", "week", "month", "year"):
                continue  # "two weekends ago": no forget scope of that shape
            return f"{unit}s:{n}", m.span()
    return None


def scope_window(when: str, now: datetime) -> tuple[datetime, datetime]:
    """[start, end) of a forget request's time scope (``ForgetIntent.when``: ``today``,
    ``yesterday``, ``days:N``, ``weeks:N``, ``months:N``, ``this_week``, ``last_week``,
    ``last_month``) in the clock's time zone (calendar days). ``weeks:N`` is the week around the day
    N weeks back and ``months:N`` the calendar month N months back, as :func:`resolve` reads them."""
    day = datetime(now.year, now.month, now.day, tzinfo=now.tzinfo)
    monday = day - timedelta(days=now.weekday())
    if when.startswith(("weeks:", "months:", "years:")):
        unit, _, count = when.partition(":")
        span = _shift(day.date(), unit[:-1], int(count), when)
        start = datetime(span.start.year, span.start.month, span.start.day, tzinfo=now.tzinfo)
        end = datetime(span.end.year, span.end.month, span.end.day, tzinfo=now.tzinfo)
        return start, end
    if when == "today":
        return day, day + timedelta(days=1)
    if when == "yesterday":
        return day - timedelta(days=1), day
    if when.startswith("days:"):
        n = int(when[5:])
        return day - timedelta(days=n), day - timedelta(days=n - 1)
    if when == "this_week":
        return monday, day + timedelta(days=1)
    if when == "last_week":
        # a week ago: what was said one to two weeks back (7 to 13 calendar days ago), not the
        # last few days; on a Monday the calendar's previous week would take yesterday too
        return day - timedelta(days=13), day - timedelta(days=6)
    if when == "last_month":
        first = day.replace(day=1)
        prev = (first - timedelta(days=1)).replace(day=1)
        return prev, first
    raise ValidationError(f"unknown time scope {when!r}")
