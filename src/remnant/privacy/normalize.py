"""Text normalization for detection, with a map back to the original offsets.

Detection runs on an NFKC-normalized copy (full-width digits and letters become ASCII, odd dashes
become ``-``, zero-width characters disappear) so that ``１３８ １２３４ ５６７８`` or a phone
number with a zero-width space inside is still found. Spans are mapped back so the replacement
happens on the exact original characters.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from remnant.privacy.lexicon import languages, table

# Characters an adversary can slip inside a number without changing how it reads.
_DROP = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u30fc")

# Chinese numerals as phone numbers are read out (一三九…, 幺 for 1 as in radio speech, 两 and
# 洞 less often), and the financial forms (壹贰叁…). They become digits only inside a run of at
# least 7 digits: alone, 一 is the commonest character there is.
_CN_DIGITS = {
    **dict(zip("〇零一二三四五六七八九", "00123456789", strict=True)),
    **dict(zip("壹贰叁肆伍陆柒捌玖", "123456789", strict=True)),
    "幺": "1",
    "两": "2",
    "洞": "0",
}
_CN_RUN = re.compile(
    "(?:["
    + "".join(_CN_DIGITS)
    + "0-9０-９](?:[ \\-_~,./、，·]{1,2}(?=["
    + "".join(_CN_DIGITS)
    + "0-9０-９]))?)+"
)
_CN_RUN_MIN_DIGITS = 7


def _cn_numeral_positions(text: str) -> dict[int, str]:
    """Original indices of Chinese numerals that stand for digits of a long number."""
    out: dict[int, str] = {}
    if not any(ch in _CN_DIGITS for ch in text):
        return out
    for m in _CN_RUN.finditer(text):
        run = m.group()
        # the numerals alone must make a long number: a year in words beside digits
        # (护照Y30327798二〇三一年到期) stays words
        if sum(1 for ch in run if ch in _CN_DIGITS) < _CN_RUN_MIN_DIGITS:
            continue
        # a run of only 两/洞 (三三两两) is not a number
        if sum(1 for ch in run if ch in _CN_DIGITS and ch not in "两洞") < 3:
            continue
        for k, ch in enumerate(run):
            if ch in _CN_DIGITS:
                out[m.start() + k] = _CN_DIGITS[ch]
    return out


# Digits spelled as English words ("five five five, one two three, four five six seven"): like
# the Chinese numerals, only a run of at least 7 becomes digits.
# (the words are data: data/<lang>/normalize.json)
_EN_DIGIT_WORDS: dict[str, str] = {
    w: d for lang in languages() for w, d in table(lang, "normalize").get("digit_words", {}).items()
}
_EN_WORD = "(?:" + "|".join(_EN_DIGIT_WORDS) + ")"
_EN_RUN = re.compile(rf"(?<![A-Za-z]){_EN_WORD}(?:[ ,\-.]{{1,3}}{_EN_WORD})+(?![A-Za-z])", re.IGNORECASE)
_EN_WORD_RE = re.compile(_EN_WORD, re.IGNORECASE)

# Defanged punctuation: ana@example[.]com, 192(.)168(.)1(.)1, ana[@]example.com
_DEFANGED = re.compile(r"[\[(（{]\s?([.@])\s?[\])）}]")
# Percent-encoding as in a URL (ana%40example.com, mailto:ana%40example%2Ecom): only characters
# an address or a number is made of are decoded
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_PERCENT_OK = frozenset("@.+-_") | frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

# Cyrillic and Greek letters that look like Latin ones. Inside a token that also holds ASCII
# letters (аna@exаmple.com with a Cyrillic а) they are read as the Latin letter; a token all in
# Cyrillic or Greek (иван@пример.рф) is left alone.
_LOOKALIKES = {
    **dict(zip("аеорсухіјѕԁԛԝАВЕКМНОРСТХІЈЅ", "aeopcyxijsdqwABEKMHOPCTXIJS", strict=True)),
    **dict(zip("αοριυνκτΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "aopiuvktABEZHIKMNOPTYX", strict=True)),
}
_TOKEN = re.compile(r"[\w.%+\-@]+")


def _spelled_positions(text: str) -> tuple[dict[int, str], set[int]]:
    """Replacements (index -> text) and dropped indices for digit words and defanged dots."""
    repl: dict[int, str] = {}
    drop: set[int] = set()
    if any(c.isalpha() for c in text):
        for m in _EN_RUN.finditer(text):
            words = list(_EN_WORD_RE.finditer(m.group()))
            if len(words) < _CN_RUN_MIN_DIGITS:
                continue
            for w in words:
                start = m.start() + w.start()
                repl[start] = _EN_DIGIT_WORDS[w.group().lower()]
                drop.update(range(start + 1, m.start() + w.end()))
    if "." in text or "@" in text:
        for m in _DEFANGED.finditer(text):
            repl[m.start()] = m.group(1)
            drop.update(range(m.start() + 1, m.end()))
    if "%" in text:
        for m in _PERCENT.finditer(text):
            ch = chr(int(m.group(1), 16))
            if ch in _PERCENT_OK:
                repl[m.start()] = ch
                drop.update(range(m.start() + 1, m.end()))
    if not text.isascii() and any(ch in _LOOKALIKES for ch in text):
        for m in _TOKEN.finditer(text):
            token = m.group()
            if any(c.isascii() and c.isalpha() for c in token):
                for k, c in enumerate(token):
                    if c in _LOOKALIKES:
                        repl[m.start() + k] = _LOOKALIKES[c]
    return repl, drop


def _invisible(ch: str) -> bool:
    """Format characters (zero-width, bidi controls, soft hyphen): nothing a reader sees."""
    return ch in _DROP or unicodedata.category(ch) == "Cf"


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """``text`` is the normalized form; ``origin[i]`` is the original index of ``text[i]``."""

    original: str
    text: str
    origin: tuple[int, ...]

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalized half-open span to the smallest original span that produced it."""
        if start >= end:
            raise ValueError("empty span")
        last = self.origin[end - 1] + 1
        # take the marks dropped after the last character (1̲3̲8̲: the final ̲ is part of it)
        limit = self.origin[end] if end < len(self.origin) else len(self.original)
        while last < limit and not self.original[last].isspace():
            last += 1
        return self.origin[start], last


def _beside_digit(text: str, i: int) -> bool:
    return (i > 0 and text[i - 1].isdigit()) or (i + 1 < len(text) and text[i + 1].isdigit())


def normalize(text: str) -> NormalizedText:
    """Normalize character by character so every output character has a single origin."""
    out: list[str] = []
    origin: list[int] = []
    cn = _cn_numeral_positions(text)
    spelled, dropped = _spelled_positions(text)
    for i, ch in enumerate(text):
        if i in dropped:
            continue
        if i in spelled:
            norm = spelled[i]
        elif ch.isascii():
            norm = ch
        elif _invisible(ch):
            continue
        elif unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            # a combining mark (1̲3̲8̲, a keycap 1⃣, a variation selector) on a digit hides nothing
            if out and out[-1].isdigit():
                continue
            norm = ch
        elif i in cn:
            norm = cn[i]
        elif ch in _DASHES and (ch != "\u30fc" or _beside_digit(text, i)):
            # ー is the kana prolonged sound mark (メール, 京ー.jp); a dash only inside a number
            norm = "-"
        elif unicodedata.category(ch) == "Nd":
            norm = str(unicodedata.decimal(ch))  # Arabic-Indic ٣, Persian ۳, Devanagari ३, ...
        else:
            norm = unicodedata.normalize("NFKC", ch)
            if norm.isspace():
                norm = " "
        for c in norm:
            out.append(c)
            origin.append(i)
    return NormalizedText(original=text, text="".join(out), origin=tuple(origin))


def compact(value: str) -> str:
    """Casefolded value without spaces or punctuation: the key for "same value, same placeholder"."""
    norm = normalize(value).text.casefold()
    return "".join(c for c in norm if c.isalnum() or c in "@+")


def canonical_value(entity_type: str, value: str) -> str:
    """The form two spellings of the same value share (``+86 138-1234-5678`` == ``13812345678``).

    Used only as HMAC input, so "same value, same placeholder" works without storing plaintext.
    """
    import ipaddress

    norm = " ".join(normalize(value).text.split())
    if entity_type == "EMAIL":
        low = norm.casefold()
        low = re.sub(
            r"\s*[\[(（{<]\s*(at|dot)\s*[\])）}>]\s*|\s+(at|dot)\s+",
            lambda m: f" {m.group(1) or m.group(2)} ",
            low,
        )
        low = re.sub(r"\s*艾特\s*", " at ", low)
        low = re.sub(r"\s*[点點。]\s*", " dot ", low)
        low = low.replace(" at ", "@").replace(" dot ", ".")
        return low.replace(" ", "")
    if entity_type == "PHONE":
        main, _, ext = norm.casefold().replace("ext.", "x").replace("ext", "x").partition("x")
        digits = "".join(c for c in main if c.isdigit())
        if digits.startswith("00"):
            digits = digits[2:]
        elif len(digits) == 10 and not digits.startswith("0") and not main.lstrip().startswith("+"):
            digits = "1" + digits  # North American national form
        elif len(digits) == 11 and digits[0] == "1" and digits[1] in "3456789" and "+" not in main:
            digits = "86" + digits  # Chinese mobile national form
        ext_digits = "".join(c for c in ext if c.isdigit())
        return digits + ("x" + ext_digits if ext_digits else "")
    if entity_type == "IP":
        try:
            return str(ipaddress.ip_address(norm.strip()))
        except ValueError:
            return norm.casefold()
    if entity_type in ("CARD", "IBAN", "CN_ID", "PASSPORT"):
        return "".join(c for c in norm if c.isalnum()).upper()
    # Names and addresses: case, spacing and punctuation do not make a different value.
    return " ".join("".join(c if c.isalnum() else " " for c in norm.casefold()).split())
