"""Personal data written through every write path never reaches the database files or the logs.

Paths: the Python API (one and many), the CLI, REST, MCP and the assistant (conversation turns,
extracted facts and structured summaries). Knowledge-base documents are operator-authored product
text and are stored as written, by design (docs/privacy.md), so the one added here carries no PII. Audit entries live in the
same file and are scanned with it; the server's log lines are scanned too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.leaks import assert_no_leak

pytest.importorskip("cryptography")
pytest.importorskip("fastapi")

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {
    "api": "Write to greta.pohl@example.net",
    "many": "My card is 4111 1111 1111 1111",
    "cli": "Call me on +44 20 7946 0958",
    "rest": "IBAN for refunds: GB82 WEST 1234 5698 7654 32",
    "mcp": "身份证11010519491231002X",
    "kb": "Escalations go to the tier-2 support queue within 24 hours",
    "chat": "My email is jonas.brandt@example.org and my phone is +1 415 555 0199",
}
# long enough that random ids, HMACs and hashes in the files cannot hold them by chance (tests/leaks.py)
NEEDLES = [
    b"greta.pohl",
    b"4111 1111 1111 1111",
    b"7946 0958",
    b"GB82 WEST",  # the IBAN's first groups, spaced or not
    b"GB82WEST",
    b"11010519491231002X",
    b"jonas.brandt",
    b"555 0199",
    b"555-0199",
]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    from remnant.privacy.keys import generate_key

    values = {
        "REMNANT_VAULT_KEY": generate_key(),
        "REMNANT_REDACT_PRESIDIO": "off",
        "REMNANT_DB": str(tmp_path / "remnant.db"),
        "REMNANT_EMBEDDER": "static",
    }
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    return values


@pytest.mark.slow
def test_no_write_path_stores_plaintext(tmp_path: Path, env: dict[str, str]) -> None:
    from remnant.assistant import Assistant, KnowledgeDoc
    from remnant.config import build_memory

    db = Path(env["REMNANT_DB"])
    mem = build_memory(str(db), tenant="tenant-a")
    mem.remember(SECRETS["api"], user_id="ana")
    mem.remember_many([{"content": SECRETS["many"], "user_id": "ana"}])
    assistant = Assistant(mem, None, summary_every=2, token_budget=400)
    assistant.kb.add(KnowledgeDoc(doc_id="esc", content=SECRETS["kb"], title="Escalation", version="1"))
    for msg in (SECRETS["chat"], "I prefer e-mail over phone calls", "Where is my order #A-1234?"):
        assistant.reply("ana", msg)
    mem.close()

    proc = subprocess.run(
        [sys.executable, "-m", "remnant", "--tenant", "tenant-a", "remember", SECRETS["cli"], "-u", "ana"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.returncode == 0, proc.stderr

    from tests.server.conftest import start_live

    logs: list[str] = []
    for live in start_live(tmp_path / "srv", db=str(db)):
        with live.client("a_all") as client:
            r = client.post("/v1/memories", json={"content": SECRETS["rest"], "user_id": "ana"})
            assert r.status_code in (200, 201), r.text
            assert_no_leak(r.text, NEEDLES, "the REST response")
        _mcp_remember(live, SECRETS["mcp"])
        logs = list(live.logs.lines)

    raw = b"".join(p.read_bytes() for p in tmp_path.glob("remnant.db*") if not p.name.endswith("vault-key"))
    assert raw, "the database files were not found"
    assert_no_leak(raw, NEEDLES, "the database files")
    assert_no_leak("\n".join(logs), NEEDLES, "the server logs")

    # every path did write, redacted, and the vault gives the originals back
    check = build_memory(str(db), tenant="tenant-a")
    contents = [r.content for r in check.list_memories("ana", limit=200)]
    assert any("[EMAIL_" in c for c in contents) and any("[CARD_" in c for c in contents)
    assert any("[IBAN_" in c for c in contents) and any("[CN_ID_" in c for c in contents)
    kinds = {r.kind.value for r in check.list_memories("ana", limit=200)}
    assert {"episode", "summary"} <= kinds, kinds
    rehydrated = [check.rehydrate(r.id) for r in check.list_memories("ana", limit=200)]
    assert any("greta.pohl@example.net" in t for t in rehydrated)
    assert any("GB82 WEST 1234 5698 7654 32" in t for t in rehydrated)
    check.close()


def _mcp_remember(live: Any, content: str) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {live.keys['a_all']}"}, timeout=30)
        async with Client(streamable_http_client(f"{live.base}/mcp", http_client=http)) as client:
            return await client.call_tool(
                "remember", {"content": content, "user_id": "ana", "importance": 0.8}
            )

    result = anyio.run(main)
    assert "11010519491231002X" not in json.dumps(result, default=str)
