"""The needle check of tests/leaks.py: weak needles are refused, real leaks are still found."""

from __future__ import annotations

import pytest
from tests.leaks import assert_no_leak, chance, leaks

# bytes of a vault row as they were found in a failing run: the HMAC happened to contain "8765"
VAULT_ROW = b"defaultu1[NAME_1]NAMEf9a087651ebc5118ce18daeef92399f999e1652bfbe3c35c"


def test_a_short_needle_inside_a_random_hmac_is_refused_not_reported_as_a_leak() -> None:
    with pytest.raises(ValueError, match=r"b'8765' \(hex"):
        leaks(VAULT_ROW, ["8765"])


@pytest.mark.parametrize(
    "needle",
    ["8765", "DE89", "GB82", "7391", "5555555", "zebra", "Quokk", "a@b."],
)
def test_weak_needles_are_refused(needle: str) -> None:
    with pytest.raises(ValueError, match="too short"):
        leaks(b"", [needle])


@pytest.mark.parametrize(
    "needle",
    [
        "139 8765",
        "13987654321",
        "８７６５",
        "DE89 3704",
        "GB82WEST",
        "555-0134",
        "Quokka",
        "王小明",
        "Thornton",
    ],
)
def test_strong_needles_find_real_leaks(needle: str) -> None:
    assert leaks(VAULT_ROW, [needle]) == []
    assert leaks(b"note: " + needle.encode() + b" " + VAULT_ROW, [needle]) == [needle.encode()]


def test_the_alphabet_is_the_smallest_that_holds_the_needle() -> None:
    assert chance(b"8765") == (16**-4, "hex")
    assert chance(b"DE89")[1] == "HEX"
    assert chance(b"zebra")[1].startswith("base32")
    assert chance(b"GB82")[1] == "base64"
    assert chance(b"555-0134")[1] == "base64url"
    assert chance(b"a b")[1] == "random bytes"


def test_assert_no_leak_names_what_leaked() -> None:
    with pytest.raises(AssertionError, match=r"GB82 WEST.*the logs"):
        assert_no_leak("iban GB82 WEST 1234", ["GB82 WEST", "jonas.brandt"], where="the logs")
