"""Configuration, optional-dependency behaviour and wiring helpers."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from remnant.privacy import EntityType, Keyring, PrivacyPolicy, Redactor, generate_key
from remnant.privacy.presidio_backend import _looks_like_code


def test_policy_from_env() -> None:
    pol = PrivacyPolicy.from_env(
        {"REMNANT_REDACT_ENTITIES": "email, PHONE,CARD", "REMNANT_REDACT_PRESIDIO": "off"}
    )
    assert pol.entities == {EntityType.EMAIL, EntityType.PHONE, EntityType.CREDIT_CARD}
    assert pol.use_presidio is False
    # names are kept by default (docs/privacy.md, "Person names"); "all" adds them
    assert PrivacyPolicy.from_env({}).entities == frozenset(EntityType) - {EntityType.PERSON}
    assert PrivacyPolicy.from_env({"REMNANT_REDACT_ENTITIES": "all"}).entities == frozenset(EntityType)
    with pytest.raises(ValueError):
        PrivacyPolicy.from_env({"REMNANT_REDACT_PRESIDIO": "sometimes"})


def test_for_sqlite_wiring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    monkeypatch.setenv("REMNANT_REDACT_PRESIDIO", "off")
    conn = sqlite3.connect(tmp_path / "x.db")
    red = Redactor.for_sqlite(conn)
    out = red.redact("mail a@b.com", tenant="t", user_id="u").text
    assert out == "mail [EMAIL_1]"
    assert red.vault is not None and red.vault.rehydrate(out, "t", "u") == "mail a@b.com"
    conn.close()


def test_for_sqlite_with_explicit_keyring(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "y.db")
    red = Redactor.for_sqlite(
        conn, keyring=Keyring.from_keys([generate_key()]), policy=PrivacyPolicy(use_presidio=False)
    )
    assert red.redact("ip 10.0.0.1", tenant="t", user_id="u").text == "ip [IP_1]"
    conn.close()


def test_code_identifiers_are_not_names() -> None:
    assert _looks_like_code("MemoryItem")
    assert _looks_like_code("user_id")
    assert not _looks_like_code("Ronald McDonald")
    assert not _looks_like_code("Anna Smith")


@pytest.mark.slow
def test_works_without_presidio_installed(tmp_path: Path) -> None:
    """Block the presidio import in a fresh interpreter: built-in recognizers still redact."""
    script = textwrap.dedent(
        """
        import sys
        sys.modules["presidio_analyzer"] = None  # import now raises ImportError
        from remnant.privacy import Detector, PrivacyPolicy, PrivacyError
        d = Detector(PrivacyPolicy())
        assert [x.entity_type.name for x in d.detect("mail a@b.com 13812345678")] == ["EMAIL", "PHONE"]
        assert d.uses_presidio is False
        try:
            Detector(PrivacyPolicy.only(["NAME"], use_presidio=True)).detect("Anna Smith")
        except PrivacyError as exc:
            assert "privacy" in str(exc)
        else:
            raise SystemExit("use_presidio=True must fail without presidio")
        print("ok")
        """
    )
    src = Path(__file__).resolve().parents[2] / "src"
    res = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"
