"""The one table of CJK scripts (Han, kana, hangul) and the predicates and regex classes built from it.

Every rule that asks "is this Chinese/Japanese/Korean text?" reads this table, so the lexical
index, the query analysers, the extractors and the PII detectors agree on what a CJK character is.
Two questions are kept apart on purpose:

* ``is_cjk`` / ``has_cjk`` / ``CJK_CLASS``: any script written without spaces between words
  (Han, hiragana, katakana) or cut into bigrams like them (hangul). Use these for segmentation,
  token counts and "is this a CJK value" checks.
* ``is_han`` / ``has_han`` / ``HAN_CLASS``: Chinese characters only. Use these where a rule is about
  Chinese (Chinese names, the Chinese sentence templates, ``lang="zh"``).
"""

from __future__ import annotations

import bisect
import re
from typing import Literal, NamedTuple

Script = Literal["han", "hiragana", "katakana", "hangul"]


class ScriptRange(NamedTuple):
    start: int  # first code point, inclusive
    end: int  # last code point, inclusive
    script: Script


# Sorted, non-overlapping. Letters only: CJK punctuation (、。「」・゠) and the full-width forms
# block are not here (NFKC turns full-width Latin and digits into ASCII before anyone looks).
SCRIPT_RANGES: tuple[ScriptRange, ...] = (
    ScriptRange(0x1100, 0x11FF, "hangul"),  # Hangul Jamo (conjoining)
    ScriptRange(0x3005, 0x3007, "han"),  # 々 〆 〇 (Unicode Script=Han; 々 sits inside words: 人々)
    ScriptRange(0x3021, 0x3029, "han"),  # Hangzhou numerals
    ScriptRange(0x3038, 0x303B, "han"),  # 〸 〹 〺 〻
    ScriptRange(0x3041, 0x309F, "hiragana"),  # incl. the voiced sound marks ゙ ゚ ゛ ゜ and ゝ ゞ ゟ
    ScriptRange(0x30A1, 0x30FA, "katakana"),  # not ゠ (U+30A0, a double hyphen)
    ScriptRange(0x30FC, 0x30FF, "katakana"),  # ー ヽ ヾ ヿ; not ・ (U+30FB, a word separator)
    ScriptRange(0x3131, 0x318E, "hangul"),  # Hangul Compatibility Jamo
    ScriptRange(0x31F0, 0x31FF, "katakana"),  # Katakana Phonetic Extensions (small ㇰ ㇱ …)
    ScriptRange(0x3400, 0x4DBF, "han"),  # CJK Unified Ideographs Extension A
    ScriptRange(0x4E00, 0x9FFF, "han"),  # CJK Unified Ideographs
    ScriptRange(0xA960, 0xA97F, "hangul"),  # Hangul Jamo Extended-A
    ScriptRange(0xAC00, 0xD7A3, "hangul"),  # Hangul Syllables
    ScriptRange(0xD7B0, 0xD7FF, "hangul"),  # Hangul Jamo Extended-B
    ScriptRange(0xF900, 0xFAFF, "han"),  # CJK Compatibility Ideographs
    ScriptRange(0xFF66, 0xFF9F, "katakana"),  # half-width katakana (NFKC makes them full-width)
    ScriptRange(0xFFA0, 0xFFDC, "hangul"),  # half-width hangul
    ScriptRange(0x1B000, 0x1B16F, "hiragana"),  # Kana Supplement, Extended-A, Small Kana (mostly hentaigana)
    ScriptRange(0x20000, 0x2FFFF, "han"),  # Supplementary Ideographic Plane: Ext. B-F, I, compat. supplement
    ScriptRange(0x30000, 0x3FFFF, "han"),  # Tertiary Ideographic Plane: Ext. G, H
)

_STARTS = [r.start for r in SCRIPT_RANGES]


def script_of(ch: str) -> Script | None:
    """The CJK script of one character (``"han"``, ``"hiragana"``, ``"katakana"``, ``"hangul"``), else None."""
    if not ch:
        return None
    cp = ord(ch[0])
    if cp < 0x1100:  # everything below is Latin, Greek, Cyrillic …: skip the search
        return None
    i = bisect.bisect_right(_STARTS, cp) - 1
    if i >= 0 and cp <= SCRIPT_RANGES[i].end:
        return SCRIPT_RANGES[i].script
    return None


def _class(*scripts: Script) -> str:
    """The inside of a regex character class (no brackets) for the table rows of ``scripts``."""
    return "".join(
        chr(r.start) if r.start == r.end else f"{chr(r.start)}-{chr(r.end)}"
        for r in SCRIPT_RANGES
        if r.script in scripts
    )


# Character-class bodies for building regexes: f"[{CJK_CLASS}]+" is a run of CJK characters.
CJK_CLASS = _class("han", "hiragana", "katakana", "hangul")
HAN_CLASS = _class("han")
KANA_CLASS = _class("hiragana", "katakana")
HANGUL_CLASS = _class("hangul")

_CJK_RE = re.compile(f"[{CJK_CLASS}]")
_HAN_RE = re.compile(f"[{HAN_CLASS}]")


def is_cjk(ch: str) -> bool:
    """True if ``ch`` (one character) is Han, kana or hangul."""
    return script_of(ch) is not None


def is_han(ch: str) -> bool:
    """True if ``ch`` (one character) is a Chinese character (Han ideograph, any plane)."""
    return script_of(ch) == "han"


def is_kana(ch: str) -> bool:
    """True if ``ch`` is hiragana or katakana (full- or half-width)."""
    return script_of(ch) in ("hiragana", "katakana")


def is_hangul(ch: str) -> bool:
    """True if ``ch`` is a hangul syllable or jamo."""
    return script_of(ch) == "hangul"


def has_cjk(text: str) -> bool:
    """True if the text contains Chinese, Japanese or Korean characters."""
    return _CJK_RE.search(text) is not None


def has_han(text: str) -> bool:
    """True if the text contains Chinese characters (Han ideographs)."""
    return _HAN_RE.search(text) is not None
