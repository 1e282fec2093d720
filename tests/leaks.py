"""Scan stored bytes or log text for personal data, with needles that random data cannot fake.

The files and logs these tests scan also hold random text: vault HMACs and audit hashes (lower-case
hex), memory ids (``mem_`` + Crockford base32), key ids, timestamps and durations. A short needle
turns up in them by chance: ``"8765"`` sits somewhere in a 64-character hex HMAC about once in a
thousand HMACs, which made a privacy test fail about once in 60 runs. So every needle is checked
before the scan: its chance of matching at one position of random text, under the smallest
alphabet that holds all its characters (decimal digits count as hex; text with a space, ``.``,
``@`` or non-ASCII only occurs in random *bytes*), must be at most ``MAX_CHANCE``. A needle that is
too weak is a bug in the test, reported as such, never silently skipped: pick a longer piece of the
value, or the piece with its separator (``"139 8765"`` instead of ``"8765"``).

With ``MAX_CHANCE = 1e-10`` a needle needs at least 9 hex characters, 7 base32, 6 base64 or 5
bytes; a scan of 10^5 random positions for 20 needles then has a false hit about once in 5000
runs of the whole suite at worst, and far less in practice (most stored bytes are not random).
"""

from __future__ import annotations

import string
from collections.abc import Iterable

MAX_CHANCE = 1e-10

# the random alphabets found in what the tests scan, smallest first
ALPHABETS: list[tuple[str, frozenset[int]]] = [
    ("hex", frozenset(b"0123456789abcdef")),
    ("HEX", frozenset(b"0123456789ABCDEF")),
    ("base32 (Crockford, lower case)", frozenset(b"0123456789abcdefghjkmnpqrstvwxyz")),
    ("base32 (RFC 4648)", frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567=")),
    ("base64", frozenset((string.ascii_letters + string.digits + "+/=").encode())),
    ("base64url", frozenset((string.ascii_letters + string.digits + "-_=").encode())),
]


def chance(needle: bytes) -> tuple[float, str]:
    """The chance that ``needle`` matches at one position of random text, and that text's alphabet."""
    chars = set(needle)
    for name, alphabet in ALPHABETS:
        if chars <= alphabet:
            return (1 / len(alphabet)) ** len(needle), name
    return (1 / 256) ** len(needle), "random bytes"


def check_needles(needles: Iterable[str | bytes]) -> list[bytes]:
    """The needles as UTF-8 bytes; raises ``ValueError`` naming every needle random text can fake."""
    out = [n.encode("utf-8") if isinstance(n, str) else n for n in needles]
    weak = []
    for n in out:
        p, alphabet = chance(n)
        if p > MAX_CHANCE:
            weak.append(f"{n!r} ({alphabet}: {p:.1e} per position)")
    if weak:
        raise ValueError(
            f"needles too short to scan data holding random ids and hashes (max {MAX_CHANCE:.0e} per "
            "position), they would match by chance: " + ", ".join(weak)
        )
    return out


def leaks(data: bytes | str, needles: Iterable[str | bytes]) -> list[bytes]:
    """Every needle found in ``data`` (after checking that none is too weak to mean anything)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return [n for n in check_needles(needles) if n in raw]


def assert_no_leak(data: bytes | str, needles: Iterable[str | bytes], where: str = "the data") -> None:
    found = leaks(data, needles)
    assert not found, f"{found} reached {where}"
