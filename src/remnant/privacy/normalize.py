"""Text normalization for detection, with a map back to the original offsets.

Detection runs on an NFKC-normalized copy (full-width digits and letters become ASCII, odd dashes
become ``-``, zero-width characters disappear) so that ``１３８ １２３４ ５６７８`` or a phone
number with a zero-width space inside is still found. Spans are mapped back so the replacement
happens on the exact original characters.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# Characters an adversary can slip inside a number without changing how it reads.
_DROP = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u30fc")


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
        return self.origin[start], self.origin[end - 1] + 1


def normalize(text: str) -> NormalizedText:
    """Normalize character by character so every output character has a single origin."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch in _DROP:
            continue
        if ch in _DASHES:
            norm = "-"
        elif ch.isascii():
            norm = ch
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
        low = norm.casefold().replace(" ", "")
        for token, repl in (("[at]", "@"), ("(at)", "@"), ("[dot]", "."), ("(dot)", ".")):
            low = low.replace(token, repl)
        return low
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
