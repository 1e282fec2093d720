"""After redacting and vaulting, no original value may appear in the database bytes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.leaks import assert_no_leak

from remnant.privacy import Redactor, redact_for_log

CONVERSATION = [
    "Hi, my name is Margaret Thornton and my email is maggie.thornton@example.org.",
    "My phone is (415) 555-0134 and my card is 4111 1111 1111 1111.",
    "Wire money to DE89 3704 0044 0532 0130 00; passport number X12345678.",
    "我叫王小明，手机１３９ ８７６５ ４３２１，身份证11010519491231002X。",
    "我住在广东省广州市天河区天河路385号，服务器 203.0.113.77。",
    "I live at 1350 Alex Hill Suite 765, Davisshire, MD 20745.",
]
SECRETS = [
    "Margaret Thornton",
    "Thornton",
    "maggie.thornton@example.org",
    "555-0134",
    "4155550134",
    "4111 1111 1111 1111",
    "4111111111111111",
    "DE89 3704",
    "DE89370400440532013000",
    "X12345678",
    "王小明",
    "１３９ ８７６５",
    "13987654321",
    "11010519491231002X",
    "天河路385号",
    "203.0.113.77",
    "Alex Hill",
    "Davisshire",
]


def _raw_bytes(db_path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm", "-journal"):
        p = Path(str(db_path) + suffix)
        if p.exists():
            data += p.read_bytes()
    return data


def test_database_and_wal_hold_no_plaintext(
    redactor: Redactor, conn: sqlite3.Connection, db_path: Path
) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS memories (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(text)")
    for line in CONVERSATION:
        safe = redactor.redact(line, tenant="acme", user_id="u1").text
        conn.execute("INSERT INTO memories (text) VALUES (?)", (safe,))
        conn.execute("INSERT INTO memories_fts (text) VALUES (?)", (safe,))
        conn.commit()
    raw = _raw_bytes(db_path)
    assert b"[EMAIL_1]" in raw  # the redacted text really is in there
    assert_no_leak(raw, [s.encode(enc) for s in SECRETS for enc in ("utf-8", "utf-16-le")], "the database")
    # ...and the privileged path still returns the exact originals.
    vault = redactor.vault
    assert vault is not None
    stored = [r[0] for r in conn.execute("SELECT text FROM memories ORDER BY id")]
    assert [vault.rehydrate(s, "acme", "u1") for s in stored] == CONVERSATION


def test_log_redaction_is_one_way() -> None:
    line = "login by maggie.thornton@example.org from 203.0.113.77, phone 13987654321"
    assert redact_for_log(line) == "login by [EMAIL] from [IP], phone [PHONE]"
