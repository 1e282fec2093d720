"""Month names and Chinese digits, shared by the query parser, the time resolver and the ingestor."""

from __future__ import annotations

ENGLISH_MONTHS: tuple[str, ...] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
MONTH_NUMBER: dict[str, int] = {name: i + 1 for i, name in enumerate(ENGLISH_MONTHS)}

ZH_DIGITS: dict[str, int] = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
