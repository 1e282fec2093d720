"""Pattern recognizers for IBANs, IP addresses and passport-like numbers (e-mail: ``emails``).

Each pattern proposes candidates; a validator (IBAN checksum, ``ipaddress``) confirms them, so the
patterns can be generous about spacing without flooding the output with false positives.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from remnant.privacy.emails import find_emails
from remnant.privacy.entities import Detection, EntityType
from remnant.privacy.lexicon import words

# Country code, check digits, then 11-30 alphanumerics in any grouping (space, dash or dot).
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ \-._~/]?[A-Za-z0-9]){11,34}(?![A-Za-z0-9])")
_IBAN_TOKEN = re.compile(r"[A-Za-z0-9]+")

_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\d|\.\d)")
_IPV6 = re.compile(r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Fa-f:])")

# "passport" in each language (data/<lang>/patterns.json)
_PASSPORT_WORDS = words("patterns", "passport_words")
_PASSPORT_CUE = re.compile("|".join(_PASSPORT_WORDS), re.IGNORECASE)
_PASSPORT_NUMBER = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{0,2}\d{6,9}(?![A-Za-z0-9])")
_PASSPORT_WINDOW = 40


def _iban_ok(compact: str) -> bool:
    from stdnum import iban

    try:
        return bool(iban.is_valid(compact))
    except Exception:
        return False


def find_ibans(text: str) -> list[Detection]:
    out: list[Detection] = []
    for m in _IBAN.finditer(text):
        tokens = list(_IBAN_TOKEN.finditer(m.group()))
        # The greedy pattern may swallow a following word; drop trailing tokens until it validates.
        for k in range(len(tokens), 0, -1):
            end = m.start() + tokens[k - 1].end()
            compact = "".join(t.group() for t in tokens[:k]).upper()
            if len(compact) >= 15 and _iban_ok(compact):
                out.append(Detection(EntityType.IBAN, m.start(), end, text[m.start() : end], 1.0, "iban"))
                break
    return out


def find_ips(text: str) -> list[Detection]:
    out: list[Detection] = []
    for m in _IPV4.finditer(text):
        try:
            ipaddress.IPv4Address(m.group())
        except ValueError:
            continue
        out.append(Detection(EntityType.IP_ADDRESS, m.start(), m.end(), m.group(), 0.95, "ipv4"))
    for m in _IPV6.finditer(text):
        cand = m.group()
        groups = [g for g in cand.split(":") if g]
        # Times (12:30:45) and ratios are not addresses: want "::" or at least 4 hex groups.
        if len(groups) < 2 or ("::" not in cand and len(groups) < 4):
            continue
        try:
            ipaddress.IPv6Address(cand)
        except ValueError:
            continue
        out.append(Detection(EntityType.IP_ADDRESS, m.start(), m.end(), cand, 0.95, "ipv6"))
    return out


def find_passports(text: str) -> list[Detection]:
    """Passport-like numbers, only near a passport keyword (alone they look like any code)."""
    out: list[Detection] = []
    for cue in _PASSPORT_CUE.finditer(text):
        window_end = min(len(text), cue.end() + _PASSPORT_WINDOW)
        m = _PASSPORT_NUMBER.search(text, cue.end(), window_end)
        if m:
            out.append(Detection(EntityType.PASSPORT, m.start(), m.end(), m.group(), 0.85, "passport"))
    return out


def find_structured(text: str, entities: Iterable[EntityType]) -> list[Detection]:
    wanted = frozenset(entities)
    out: list[Detection] = []
    if EntityType.EMAIL in wanted:
        out.extend(find_emails(text))
    if EntityType.IBAN in wanted:
        out.extend(find_ibans(text))
    if EntityType.IP_ADDRESS in wanted:
        out.extend(find_ips(text))
    if EntityType.PASSPORT in wanted:
        out.extend(find_passports(text))
    return out
