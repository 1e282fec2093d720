"""Recognizers for numeric identifiers: phone numbers, payment cards, Chinese resident IDs.

They share one pass: runs of digit groups joined by light separators (space, dash, dot, slash,
parentheses) are collected, then every contiguous sub-run is tried longest-first against the
validators. This is what makes ``138 1234 5678``, ``138-1234-5678`` and ``1 3 8 1 2 3 4 5 6 7 8``
(after full-width digits were normalized) all read as the same phone number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from remnant.privacy.entities import Detection, EntityType

_GROUP = re.compile(r"\d+(?:[Xx](?![A-Za-z0-9]))?")
# Light separators, plus the ones people use to dodge filters (138_1234_5678, 138~1234~5678,
# 138,1234,5678): a run joined by those must still look like a phone number's grouping.
# One line break (a number wrapped or split across lines to dodge a filter) joins as well.
_SEPARATOR_GAP = re.compile(r"[ \-./()\u00b7_~,]{1,3}|[ \t]*\r?\n[ \t]*")
_ODD_SEPARATORS = frozenset("_~,")
_EXTENSION = re.compile(r"\s{0,16}(?:x|ext\.?|extension|#|分机|转)\s{0,16}(\d{1,6})(?![0-9])", re.IGNORECASE)
_MAX_GROUPS = 24
# the digits a phone number (7 to 17 written with "+" or "00", else 10 to 12), a card (12 to 19)
# or a resident ID (18) has
_MIN_DIGITS, _MIN_NATIONAL_DIGITS, _MAX_DIGITS = 7, 10, 19

# Issuer prefixes of the major card schemes: a Luhn-valid number must also start like a card.
_CARD_PREFIX = re.compile(
    r"^(?:0604|1800|2131|4|5[1-5]|2[2-7]|3[47]|3[068]|35|6011|64[4-9]|65|62|5[06-9]|6[0-9])"
)


@dataclass(frozen=True, slots=True)
class _Group:
    start: int
    end: int
    digits: str


def luhn_ok(digits: str) -> bool:
    """Luhn checksum (payment cards)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# First two digits of a resident ID: the province-level division.
_CN_PROVINCE_CODES = frozenset(
    {11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46}
    | {50, 51, 52, 53, 54, 61, 62, 63, 64, 65, 71, 81, 82}
)


def cn_ric_ok(value: str) -> bool:
    """Chinese resident identity card number: province code, birth date and ISO 7064 check digit.

    The county code is not checked against ``stdnum``'s database on purpose: county codes change
    over time and the database is incomplete, and missing a real ID costs more than a rare
    false positive on an 18-digit number with a valid checksum and birth date.
    """
    from stdnum.cn import ric

    if len(value) != 18 or not value[:17].isdigit() or int(value[:2]) not in _CN_PROVINCE_CODES:
        return False
    try:
        if value[-1].upper() != ric.calc_check_digit(value):
            return False
        born = ric.get_birth_date(value)
    except Exception:  # stdnum raises on impossible dates
        return False
    return 1900 <= born.year <= 2100


def _runs(text: str) -> Iterable[list[_Group]]:
    """Yield maximal runs of digit groups separated by light separators."""
    run: list[_Group] = []
    for m in _GROUP.finditer(text):
        g = _Group(m.start(), m.end(), m.group().upper())
        if run:
            gap = text[run[-1].end : g.start]
            joinable = (
                not run[-1].digits.endswith("X")
                and _SEPARATOR_GAP.fullmatch(gap) is not None
                and len(run) < _MAX_GROUPS
            )
            if not joinable:
                yield run
                run = []
        run.append(g)
    if run:
        yield run


class NumberRecognizer:
    """Finds phone numbers, payment cards and Chinese resident IDs in normalized text."""

    def __init__(self, entities: Iterable[EntityType], phone_regions: Sequence[str]) -> None:
        self.entities = frozenset(entities) & {EntityType.PHONE, EntityType.CREDIT_CARD, EntityType.CN_ID}
        self.phone_regions = tuple(phone_regions)

    def find(self, text: str) -> list[Detection]:
        if not self.entities:
            return []
        found: list[Detection] = []
        for run in _runs(text):
            found.extend(self._scan_run(text, run))
        return found

    def _scan_run(self, text: str, run: list[_Group]) -> list[Detection]:
        out: list[Detection] = []
        i = 0
        n = len(run)
        digits_upto = [0]
        for g in run:
            digits_upto.append(digits_upto[-1] + len(g.digits))
        joined = "".join(g.digits for g in run)
        while i < n:
            # A number glued to a preceding letter (``K63416858``, ``A1``) is a code, not ours.
            before = text[run[i].start - 1] if run[i].start > 0 else ""
            if before.isascii() and before.isalpha():
                i += 1
                continue
            hit: Detection | None = None
            # only a slice of 10 to 19 digits (7 after a "+") can be a phone, card or ID:
            # classifying the others (a run of 24 groups has 300 slices) made long runs slow
            lead = run[i].start
            while lead > 0 and text[lead - 1] in "+(":
                lead -= 1
            fewest = _MIN_DIGITS if "+" in text[lead : run[i].start] else _MIN_NATIONAL_DIGITS
            for j in range(n, i, -1):
                if not fewest <= digits_upto[j] - digits_upto[i] <= _MAX_DIGITS:
                    continue
                hit = self._classify(text, run[i:j], joined[digits_upto[i] : digits_upto[j]])
                if hit is not None:
                    break
            if hit is None:
                i += 1
                continue
            out.append(hit)
            while i < n and run[i].start < hit.end:
                i += 1
        return out

    def _classify(self, text: str, groups: list[_Group], digits: str) -> Detection | None:
        start, end = groups[0].start, groups[-1].end
        after = text[end : end + 1]
        if after.isascii() and after.isalnum() and not _EXTENSION.match(text, end):
            return None
        if "X" in digits[:-1]:
            return None
        if EntityType.CN_ID in self.entities and len(digits) == 18 and cn_ric_ok(digits):
            return Detection(EntityType.CN_ID, start, end, text[start:end], 1.0, "cn_ric")
        if "X" in digits:
            return None
        if (
            EntityType.CREDIT_CARD in self.entities
            and 12 <= len(digits) <= 19
            and _card_shaped(text, groups)
            and _CARD_PREFIX.match(digits)
            and luhn_ok(digits)
        ):
            return Detection(EntityType.CREDIT_CARD, start, end, text[start:end], 1.0, "luhn")
        if EntityType.PHONE in self.entities:
            return self._phone(text, groups, start, end, digits)
        return None

    def _phone(self, text: str, groups: list[_Group], start: int, end: int, digits: str) -> Detection | None:
        prefix_start = start
        # Leading "+", "(" or "(+" belong to the number.
        while prefix_start > 0 and text[prefix_start - 1] in "+(":
            prefix_start -= 1
        international = "+" in text[prefix_start:start]
        if not international and not digits.startswith("00") and not 10 <= len(digits) <= 12:
            return None  # what _phone_score reads as national has 10 to 12 digits (checked first: cheap)
        gaps = {text[a.end : b.start] for a, b in pairwise(groups)}
        uniform = len(gaps) == 1 and gaps <= {"-", "."}
        if any(set(g) & _ODD_SEPARATORS for g in gaps) and not _odd_ok(groups, gaps):
            return None
        if len(groups) == len(digits) and _counting(digits):
            return None  # "1, 2, 3, ... 9, 0" counts; it is no one's number
        score = _phone_score(digits, groups, international, self.phone_regions, uniform, len(gaps) <= 1)
        if score == 0.0:
            return None
        ext = _EXTENSION.match(text, end)
        if ext:
            end = ext.end()
        # A closing parenthesis right after an opening one we took is part of the number.
        if text[prefix_start:start].endswith("(") and text[end : end + 1] == ")":
            end += 1
        return Detection(EntityType.PHONE, prefix_start, end, text[prefix_start:end], score, "phone")


# How people group an 11-digit Chinese mobile number: 13812345678, 138 1234 5678, 138-12345678,
# 1381234 5678. Anything else (16-1-16243305, a code with an 11-digit total) is not one.
_CN_MOBILE_GROUPS = ([11], [3, 4, 4], [3, 8], [7, 4], [3, 4, 4], [4, 3, 4], [3, 3, 5])


def _cn_mobile_grouping(lengths: list[int], one_gap: bool) -> bool:
    if lengths in _CN_MOBILE_GROUPS or all(k == 1 for k in lengths):
        return True
    # regrouped in equal blocks of 3 or more with one separator throughout (138-123-456-78)
    return one_gap and min(lengths[:-1] or lengths) >= 3 and _regular(lengths)


def _regular(lengths: list[int]) -> bool:
    """Blocks of one size (the last may be shorter): how people chunk a long number."""
    return len(set(lengths[:-1])) <= 1 and lengths[-1] <= lengths[0]


def _card_shaped(text: str, groups: list[_Group]) -> bool:
    """Cards are written as plain digit blocks: no "+" in front, no parentheses inside, and
    blocks of 3+ digits, one size, or one digit each (4111 1111 ..., 3782 822463 10005)."""
    start = groups[0].start
    if start > 0 and text[start - 1] in "+(":
        return False
    span = text[start : groups[-1].end]
    if "(" in span or ")" in span or "/" in span:
        return False
    lengths = [len(g.digits) for g in groups]
    return min(lengths) >= 3 or _regular(lengths) or max(lengths) == 1


def _odd_ok(groups: list[_Group], gaps: set[str]) -> bool:
    """A number joined by ``_ ~ ,`` is one only when one separator is used throughout and the
    blocks look like a phone number's (3-4 digits, or one digit each): "12,345,678" and lists
    such as "3, 14, 15" are not phones."""
    lengths = [len(g.digits) for g in groups]
    if all(k == 1 for k in lengths):
        return True  # one digit at a time (or read out as words: "five five five, one two three")
    if len(gaps) != 1:
        return False
    return lengths in ([3, 4, 4], [3, 3, 4], [1, 3, 3, 4], [4, 3, 4], [3, 8], [4, 4], [4, 7], [3, 7])


def _counting(digits: str) -> bool:
    """Each digit one more (or one less) than the last, wrapping 9 -> 0: 1234567890, 9876543210."""
    steps = {(int(b) - int(a)) % 10 for a, b in pairwise(digits)}
    return steps in ({1}, {9})


def _date_like(lengths: list[int], digits: str) -> bool:
    """2024-03-15 10, 15.03.2024 1200: dates followed by a time are not phone numbers."""
    if len(lengths) >= 3 and lengths[0] == 4 and digits[:2] in ("19", "20") and lengths[1] <= 2:
        return True
    return len(lengths) >= 3 and lengths[:2] == [2, 2] and lengths[2] == 4


def _phone_score(
    digits: str,
    groups: list[_Group],
    international: bool,
    regions: Sequence[str],
    uniform: bool = False,
    one_gap: bool = True,
) -> float:
    """0.0 when the digits do not read as a phone number, else a confidence."""
    import phonenumbers

    n = len(digits)
    if international or (digits.startswith("00") and n >= 10):
        body = digits[2:] if digits.startswith("00") else digits
        if not 7 <= len(body) <= 15:
            return 0.0
        if body.startswith("1") and len(body) == 11:
            return 0.9  # NANP: area codes are not all assigned yet all dialable in shape
        try:
            parsed = phonenumbers.parse("+" + body, None)
        except phonenumbers.NumberParseException:
            return 0.0
        if phonenumbers.is_valid_number(parsed):
            return 0.95
        return 0.7 if phonenumbers.is_possible_number(parsed) else 0.0
    lengths = [len(g.digits) for g in groups]
    if _date_like(lengths, digits):
        return 0.0
    spaced = all(k == 1 for k in lengths)  # "1 3 8 1 2 ..." (digits spaced apart to dodge filters)
    if n == 11 and digits[0] == "1" and digits[1] in "3456789" and _cn_mobile_grouping(lengths, one_gap):
        return 0.95  # Chinese mobile: 1[3-9] + 9 digits
    if n == 10 and (lengths in ([3, 3, 4], [3, 7], [10]) or spaced):
        return 0.85  # North American 3-3-4
    if n == 10 and uniform and _regular(lengths) and digits[0] in "23456789" and digits[3] in "23456789":
        return 0.8  # North American number regrouped (267-689-297-4)
    if n == 11 and digits[0] == "1" and (lengths in ([1, 3, 3, 4], [1, 10], [4, 3, 4]) or spaced):
        return 0.85  # 1-555-123-4567
    if digits[0] == "0" and 10 <= n <= 12:
        for region in regions:
            try:
                parsed = phonenumbers.parse(digits, region)
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_valid_number(parsed):
                return 0.8  # national format with trunk prefix (CN landline, UK, DE, ...)
    return 0.0
