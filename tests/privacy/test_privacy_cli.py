"""The click commands, driven through CliRunner."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.bench.cli import bench_privacy
from remnant.cli.privacy import privacy
from remnant.privacy import Detector, Keyring, Redactor, SqliteVaultStorage, Vault, VaultKey, generate_key


@pytest.mark.slow
def test_scan_text(detector: Detector) -> None:
    res = CliRunner().invoke(privacy, ["scan", "我叫张伟, mail zhang@example.com"])
    assert res.exit_code == 0, res.output
    assert "EMAIL" in res.output and "我叫[NAME], mail [EMAIL]" in res.output


def test_scan_file_json(tmp_path: Path, detector: Detector) -> None:
    f = tmp_path / "note.txt"
    f.write_text("card 4111 1111 1111 1111\n", encoding="utf-8")
    res = CliRunner().invoke(privacy, ["scan", "--file", str(f), "--json", "--no-presidio"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [x["entity_type"] for x in data["findings"]] == ["CREDIT_CARD"]
    assert data["redacted"] == "card [CARD]\n"


def test_scan_nothing_and_bad_entities() -> None:
    runner = CliRunner()
    assert "nothing to redact" in runner.invoke(privacy, ["scan", "--no-presidio", "hello world"]).output
    bad = runner.invoke(privacy, ["scan", "--entities", "SHOES", "x"])
    assert bad.exit_code != 0 and "unknown entity type" in bad.output


def test_keygen_gives_a_usable_key() -> None:
    res = CliRunner().invoke(privacy, ["keygen"])
    assert res.exit_code == 0
    assert len(VaultKey.parse(res.output.strip()).secret) == 32


def test_rotate_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plain_detector: Detector) -> None:
    db = tmp_path / "v.db"
    old = generate_key()
    conn = sqlite3.connect(db)
    Redactor(Vault(SqliteVaultStorage(conn), Keyring.from_keys([old])), detector=plain_detector).redact(
        "mail a@b.com", tenant="t", user_id="u"
    )
    conn.close()
    new = generate_key()
    monkeypatch.setenv("REMNANT_VAULT_KEY", f"{new},{old}")
    res = CliRunner().invoke(privacy, ["rotate", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "re-encrypted 1" in res.output
    monkeypatch.setenv("REMNANT_VAULT_KEY", old)  # the old key alone is now wrong
    res = CliRunner().invoke(privacy, ["rotate", "--db", str(db)])
    assert res.exit_code != 0 and "not configured" in res.output


@pytest.mark.slow
def test_bench_command_small(detector: Detector) -> None:
    res = CliRunner().invoke(bench_privacy, ["--n", "60", "--clean", "20", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["command"].startswith("remnant bench privacy --n 60")
    assert data["runs"]["main templates"]["sentences"] == 80
    assert data["runs"]["main templates"]["recall"]["EMAIL"] >= 0.99
    text = CliRunner().invoke(bench_privacy, ["--n", "40", "--clean", "10", "--no-holdout"]).output
    assert "| type | lang | gold | recall | precision | target |" in text and "machine:" in text
