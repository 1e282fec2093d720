"""The CLI mirrors the API; run it as a real subprocess on a real file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(db: Path, *args: str, ok: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # structured PII detection only: loading spaCy in every subprocess would dominate these tests
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "REMNANT_DB": str(db),
        "REMNANT_REDACT_PRESIDIO": "off",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "remnant", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        timeout=60,
    )
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow
def test_remember_recall_show_and_history(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    first = json.loads(run(db, "remember", "I live in Paris", "-u", "ana", "--key", "city", "--json").stdout)
    run(db, "remember", "I live in Berlin", "-u", "ana", "--key", "city", "--importance", "0.9")
    hits = json.loads(run(db, "recall", "where do I live", "-u", "ana", "--json").stdout)["hits"]
    assert [h["memory"]["content"] for h in hits] == ["I live in Berlin"]
    shown = json.loads(run(db, "show", first["id"], "--json").stdout)
    assert shown["status"] == "superseded" and shown["recall_threshold"] == 0.52 and len(shown["curve"]) == 11
    text = run(db, "show", hits[0]["memory"]["id"]).stdout
    assert "projected" in text and "fades" in text
    hist = json.loads(run(db, "history", "-u", "ana", "city", "--json").stdout)
    assert [h["status"] for h in hist] == ["superseded", "active"]
    listed = json.loads(run(db, "list", "-u", "ana", "--active", "--json").stdout)
    assert len(listed) == 1
    stats = json.loads(run(db, "stats", "-u", "ana", "--json").stdout)
    assert stats["by_status"] == {"active": 1, "superseded": 1}
    assert "audit chain ok" in run(db, "audit", "verify").stdout


@pytest.mark.slow
def test_lifecycle_commands(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    mid = json.loads(run(db, "remember", "-", "-u", "ana", "--json", stdin="from stdin").stdout)["id"]
    for cmd in ("review", "pin", "unpin"):
        assert json.loads(run(db, cmd, mid, "--json").stdout)["id"] == mid
    run(db, "hide", mid)
    run(db, "unhide", mid)
    run(db, "purge", mid, "--yes")
    assert json.loads(run(db, "sweep", "--dry-run", "--json").stdout)["dry_run"] is True
    actions = [e["action"] for e in json.loads(run(db, "audit", "--json").stdout)]
    assert actions == ["hide", "unhide", "purge"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args,message",
    [
        (("remember", "", "-u", "ana"), "empty"),
        (("remember", "x", "-u", "ana", "--importance", "3"), "importance"),
        (("remember", "x", "-u", "ana", "--ttl", "soon"), "duration"),
        (("remember", "x", "-u", "ana", "--meta", "{bad"), "JSON"),
        (("show", "mem_nope"), "no memory"),
    ],
)
def test_bad_input_exits_with_a_clear_message(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    if args[0] != "remember":  # a read needs a database to exist (a missing one is its own error)
        run(tmp_path / "cli.db", "remember", "seed", "-u", "ana")
    proc = run(tmp_path / "cli.db", *args, ok=False)
    assert proc.returncode in (1, 2)
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_corrupt_database_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    db.write_bytes(b"garbage" * 1000)
    proc = run(db, "stats", ok=False)
    assert proc.returncode == 1 and "corrupt" in proc.stderr


@pytest.mark.slow
def test_personal_data_is_redacted_on_the_cli_write_path(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    text = "Call me at +1 415 555 0134 or mail ana.lopez@example.com"
    stored = json.loads(run(db, "remember", text, "-u", "ana", "--json").stdout)
    assert "[PHONE_1]" in stored["content"] and "[EMAIL_1]" in stored["content"]
    recalled = run(db, "recall", "call me", "-u", "ana", "--json").stdout
    assert "555 0134" not in recalled and "ana.lopez" not in recalled
    assert run(db, "rehydrate", stored["id"]).stdout.strip() == text
    assert (tmp_path / "cli.db.vault-key").stat().st_mode & 0o077 == 0
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("cli.db*") if not p.name.endswith("vault-key"))
    assert b"ana.lopez" not in raw and b"555 0134" not in raw


@pytest.mark.slow
def test_add_takes_a_conversation_from_a_file_stdin_or_flags(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    convo = tmp_path / "chat.json"
    convo.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hi!"},
                {"role": "user", "content": "I moved to Lisbon last spring"},
                {"role": "assistant", "content": "Noted."},
            ]
        )
    )
    out = json.loads(run(db, "add", str(convo), "-u", "ana", "--session", "s1", "--json").stdout)
    assert [e["content"] for e in out["episodes"]] == ["hi!", "I moved to Lisbon last spring", "Noted."]
    assert [f["key"] for f in out["facts"]] == ["city"]
    assert out["episodes"][0]["importance"] < out["episodes"][1]["importance"]
    assert all(e["session_id"] == "s1" for e in out["episodes"])
    text = run(db, "add", "-", "-u", "ana", stdin='{"role": "user", "content": "I moved to Porto"}\n').stdout
    assert "stored 1 episode(s) and 1 fact(s)" in text and "[city]" in text
    run(db, "add", "-u", "ana", "-c", "thanks", "-c", "bye", "--role", "user", "--no-infer")
    hist = json.loads(run(db, "history", "-u", "ana", "city", "--json").stdout)
    assert [h["status"] for h in hist] == ["superseded", "active"]  # Porto supersedes Lisbon
    assert run(db, "add", "-u", "ana", ok=False).returncode == 2
    bad = run(db, "add", "-", "-u", "ana", ok=False, stdin='[{"content": 5}]')
    assert bad.returncode == 2 and "content" in bad.stderr


@pytest.mark.slow
def test_update_changes_a_memory_in_place(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    m = json.loads(run(db, "remember", "I live in Paris", "-u", "ana", "--meta", '{"a": 1}', "--json").stdout)
    out = run(
        db, "update", m["id"], "--content", "I live in Lyon", "-i", "0.9", "--tag", "home", "--tag", "city",
        "--meta", '{"a": null, "b": 2}', "--valid-from", "2026-01-01", "--ttl", "30d", "--json",
    )  # fmt: skip
    u = json.loads(out.stdout)
    assert u["id"] == m["id"] and u["content"] == "I live in Lyon" and u["importance"] == 0.9
    assert u["metadata"] == {"b": 2, "tags": ["home", "city"]} and u["valid_from"].startswith("2026-01-01")
    assert u["expires_at"] is not None
    text = run(db, "update", m["id"], "--clear-tags", "--no-expiry").stdout
    assert text.strip() == f"updated {m['id']} (expires_at, tags)"
    hits = json.loads(run(db, "recall", "Lyon", "-u", "ana", "--json").stdout)["hits"]
    assert [h["memory"]["id"] for h in hits] == [m["id"]]
    bad = run(db, "update", m["id"], ok=False)
    assert bad.returncode != 0 and "at least one change" in bad.stderr
    assert run(db, "update", "mem_missing", "--content", "x", ok=False).returncode != 0


@pytest.mark.slow
def test_reembed_embeds_every_memory_ahead_of_recall(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    run(db, "remember", "I live in Paris", "-u", "ana")
    run(db, "remember", "I like green tea", "-u", "bob")
    everyone = json.loads(run(db, "reembed", "--json").stdout)
    assert everyone["reembedded"] == 2 and everyone["model"]
    one = run(db, "reembed", "-u", "ana")
    assert one.stdout.startswith("re-embedded 1 memories with ") and "embedding with" in one.stderr
    bad = run(db, "reembed", "-u", "x" * 300, ok=False)
    assert bad.returncode != 0 and "too long" in bad.stderr and "Traceback" not in bad.stderr
