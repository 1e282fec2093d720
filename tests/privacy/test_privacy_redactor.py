"""The facade fails closed: an error anywhere raises instead of returning plaintext."""

from __future__ import annotations

import sqlite3

import pytest

from remnant.privacy import (
    Detector,
    Keyring,
    RedactionError,
    Redactor,
    SqliteVaultStorage,
    Vault,
    generate_key,
)


def test_storage_failure_fails_the_write(plain_detector: Detector) -> None:
    conn = sqlite3.connect(":memory:")
    vault = Vault(SqliteVaultStorage(conn), Keyring.from_keys([generate_key()]))
    conn.close()  # every vault write now fails
    red = Redactor(vault, detector=plain_detector)
    with pytest.raises(RedactionError, match="nothing may be stored"):
        red.redact("mail a@b.com", tenant="t", user_id="u")


def test_detector_failure_fails_the_write(vault: Vault, plain_detector: Detector) -> None:
    class Broken(Detector):
        def detect(self, text: str):  # type: ignore[no-untyped-def]
            raise RuntimeError("model crashed")

    red = Redactor(vault, detector=Broken(plain_detector.policy))
    with pytest.raises(RedactionError, match="model crashed"):
        red.redact("mail a@b.com", tenant="t", user_id="u")


def test_scan_needs_no_vault(plain_detector: Detector) -> None:
    findings = Redactor(None, detector=plain_detector).scan("mail a@b.com")
    assert [(f.entity_type.name, f.placeholder) for f in findings] == [("EMAIL", "[EMAIL]")]
    with pytest.raises(RedactionError):
        Redactor(None, detector=plain_detector).redact("x", tenant="t", user_id="u")


def test_tenant_and_user_required(redactor: Redactor) -> None:
    with pytest.raises(RedactionError, match="tenant and user_id"):
        redactor.redact("mail a@b.com", tenant="", user_id="u")


def test_repeated_value_not_detected_twice_is_swept(redactor: Redactor) -> None:
    # The cue only marks the first mention; the sweep catches the bare repeat.
    res = redactor.redact("姓名：李四光。李四光明天来。", tenant="t", user_id="u")
    assert "李四光" not in res.text


def test_redacting_redacted_text_is_stable(redactor: Redactor) -> None:
    once = redactor.redact("mail a@b.com", tenant="t", user_id="u").text
    assert redactor.redact(once, tenant="t", user_id="u").text == once
