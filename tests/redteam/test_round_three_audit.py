"""Red team, issue 29 finding 5: deleting ``<db>.audit-key`` switched signatures off (the cut log
verified with exit 0 and a warning). A signed log now fails closed without its key, or with a wrong
one: non-zero exit, 503 with a code on the audit routes, ``verify_audit()`` ok=False with a code.
Real SQLite files and a real PostgreSQL; the server on loopback."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.cli import cli
from remnant.config import build_memory
from remnant.core.clock import ManualClock


@pytest.fixture(autouse=True)
def _no_key_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REMNANT_AUDIT_KEY", "REMNANT_AUDIT_KEY_FILE"):
        monkeypatch.delenv(name, raising=False)


def _verify(db: Path, *extra: str) -> tuple[int, dict]:
    out = CliRunner().invoke(cli, ["--db", str(db), "audit", "verify", "--json", *extra])
    return out.exit_code, json.loads(out.output[out.output.index("{") :])


def _signed_db(tmp_path: Path, clock: ManualClock) -> Path:
    db = tmp_path / "remnant.db"
    with build_memory(str(db), clock=clock) as mem:
        for i in range(4):
            mem.hide(mem.remember(f"note number {i}", user_id="ana").id)
        assert mem.verify_audit().ok and mem.verify_audit().signed
    assert (tmp_path / "remnant.db.audit-key").exists()
    return db


def _cut_tail(db: Path) -> None:
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER IF EXISTS audit_log_no_delete")
    raw.execute("DELETE FROM audit_log WHERE seq = (SELECT MAX(seq) FROM audit_log)")
    raw.commit()
    raw.close()


def test_deleting_the_key_file_fails_verification(tmp_path: Path, clock: ManualClock) -> None:
    db = _signed_db(tmp_path, clock)
    _cut_tail(db)
    (tmp_path / "remnant.db.audit-key").unlink()
    code, result = _verify(db)
    assert code == 1
    assert result["ok"] is False and result["code"] == "audit_key_missing"
    assert "audit key" in result["problem"]
    # the engine says the same
    with build_memory(str(db), clock=clock) as mem:
        res = mem.verify_audit()
        assert not res.ok and res.code == "audit_key_missing"


def test_a_wrong_key_fails_verification(tmp_path: Path, clock: ManualClock) -> None:
    db = _signed_db(tmp_path, clock)
    (tmp_path / "remnant.db.audit-key").write_text("a-different-key-altogether\n")
    code, result = _verify(db)
    assert code == 1 and result["code"] == "audit_key_wrong"


def test_hash_chain_only_is_an_explicit_choice(tmp_path: Path, clock: ManualClock) -> None:
    """The recovery path when the key is lost for good: the hashes (and an anchor) on purpose."""
    db = _signed_db(tmp_path, clock)
    (tmp_path / "remnant.db.audit-key").unlink()
    code, result = _verify(db, "--hash-chain-only")
    assert code == 0 and result["ok"] is True and result["signed"] is False
    _cut_tail(db)
    code, result = _verify(db, "--hash-chain-only")  # a cut tail needs the key or an anchor to show
    assert code == 0


def test_a_log_that_was_never_signed_still_verifies_by_its_hashes(tmp_path: Path, clock: ManualClock) -> None:
    from remnant.engine import Memory

    db = tmp_path / "plain.db"
    with Memory(str(db), clock=clock) as mem:  # no audit key: an unsigned log
        mem.hide(mem.remember("a note", user_id="ana").id)
        res = mem.verify_audit()
        assert res.ok and not res.signed and res.code is None


def test_audit_routes_answer_503_without_the_key(tmp_path: Path) -> None:
    from tests.server.conftest import start_live

    db = tmp_path / "remnant.db"
    for live in start_live(tmp_path):
        with live.client() as c:
            for i in range(3):
                r = c.post("/v1/memories", json={"content": f"note number {i}", "user_id": "ana"})
                assert r.status_code in (200, 201), r.text
                assert c.post(f"/v1/memories/{r.json()['id']}/hide", json={}).status_code == 200
            verdict = c.get("/v1/audit/verify").json()
            assert verdict["ok"] is True and verdict["signed"] is True
    (tmp_path / "remnant.db.audit-key").unlink()
    _cut_tail(db)
    for live in start_live(tmp_path):
        with live.client() as c:
            for route in ("/v1/audit/verify", "/v1/audit/anchor"):
                r = c.get(route)
                assert r.status_code == 503, (route, r.text)
                assert r.json()["error"]["code"] == "audit_key_missing"


@pytest.mark.pg
def test_postgres_log_without_its_key_fails(
    pg_url: str, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remnant.privacy import generate_key

    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    monkeypatch.setenv("REMNANT_AUDIT_KEY", "a secret kept outside the database")
    with build_memory(pg_url, clock=clock) as mem:
        mem.hide(mem.remember("a note", user_id="ana").id)
        assert mem.verify_audit().signed and mem.verify_audit().ok
    monkeypatch.delenv("REMNANT_AUDIT_KEY")
    with build_memory(pg_url, clock=clock) as mem:
        res = mem.verify_audit()
        assert not res.ok and res.code == "audit_key_missing"
        assert mem.verify_audit(hash_chain_only=True).ok
    monkeypatch.setenv("REMNANT_AUDIT_KEY", "not the key that signed it")
    with build_memory(pg_url, clock=clock) as mem:
        res = mem.verify_audit()
        assert not res.ok and res.code == "audit_key_wrong"
