"""Stale turns and current-first recall over REST, the Python client and MCP (issue 27): a turn that
stated a superseded value no longer answers; ``include_stale`` brings it back labelled ``earlier``;
``/v1/history?turns=true`` lists it. The server runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from tests.server.conftest import start_live

from remnant import Client
from remnant.privacy import generate_key
from remnant.server.auth import LOCAL_PRINCIPAL
from remnant.server.engines import Engines

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer

QUESTION = "which city does the user live in? Berlin"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def server(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LiveServer]:
    if request.param == "postgres":
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
        yield from start_live(tmp_path, db=request.getfixturevalue("pg_url"))
    else:
        yield from start_live(tmp_path)


def _move(c: Any, user: str) -> tuple[str, str]:
    first = c.post("/v1/ingest", json={"messages": ["I live in Berlin."], "user_id": user})
    assert first.status_code == 201, first.text
    second = c.post("/v1/ingest", json={"messages": ["I moved to Paris."], "user_id": user})
    assert second.status_code == 201, second.text
    return first.json()["episodes"][0]["id"], second.json()["facts"][0]["id"]


def test_rest_and_client(server: LiveServer) -> None:
    with server.client() as c:
        old_turn, paris = _move(c, "rest-ana")
        hits = c.post("/v1/recall", json={"query": QUESTION, "user_id": "rest-ana", "touch": False}).json()
        assert hits["hits"] and "Paris" in hits["hits"][0]["memory"]["content"]
        assert all("Berlin" not in h["memory"]["content"] for h in hits["hits"])
        assert all(h["earlier"] is False for h in hits["hits"])
        shown = c.post(
            "/v1/recall",
            json={"query": QUESTION, "user_id": "rest-ana", "touch": False, "include_stale": True},
        ).json()["hits"]
        stale = [h for h in shown if h["memory"]["id"] == old_turn]
        assert stale and stale[0]["earlier"] is True and stale[0]["memory"]["status"] == "superseded"
        assert shown[0]["earlier"] is False
        listed = c.get("/v1/history", params={"key": "city", "user_id": "rest-ana", "turns": "true"})
        assert old_turn in {m["id"] for m in listed.json()["items"]}
        plain = c.get("/v1/history", params={"key": "city", "user_id": "rest-ana"})
        assert old_turn not in {m["id"] for m in plain.json()["items"]}
        bad = c.post("/v1/recall", json={"query": "x", "user_id": "rest-ana", "include_stale": "maybe"})
        assert bad.status_code == 422
    with Client(server.base, api_key=server.keys["a_all"]) as client:
        got = client.recall(QUESTION, user_id="rest-ana", touch=False, include_stale=True)
        assert {h.memory.id: h.earlier for h in got}[old_turn] is True
        assert old_turn in {r.id for r in client.history("city", user_id="rest-ana", turns=True)}
        assert client.current("city", user_id="rest-ana").id == paris  # type: ignore[union-attr]


def test_mcp_recall_labels_earlier(tmp_path: Path) -> None:
    from mcp import Client as McpClient

    from remnant.server.mcp_server import build_mcp_server

    engines = Engines(str(tmp_path / "m.db"))
    server = build_mcp_server(engines, local=LOCAL_PRINCIPAL)

    async def main() -> tuple[Any, Any, str]:
        async with McpClient(server) as client:
            r = await client.call_tool(
                "add", {"messages": [{"role": "user", "content": "I live in Berlin."}], "user_id": "mcp-ana"}
            )
            old_turn = r.structured_content["episodes"][0]["id"]
            await client.call_tool(
                "add", {"messages": [{"role": "user", "content": "I moved to Paris."}], "user_id": "mcp-ana"}
            )
            now = await client.call_tool("recall", {"query": QUESTION, "user_id": "mcp-ana"})
            stale = await client.call_tool(
                "recall", {"query": QUESTION, "user_id": "mcp-ana", "include_stale": True}
            )
            return now.structured_content, stale.structured_content, old_turn

    now, stale, old_turn = anyio.run(main)
    engines.close()
    assert now["memories"] and "Paris" in now["memories"][0]["content"]
    assert all("Berlin" not in m["content"] and m["earlier"] is False for m in now["memories"])
    labelled = {m["id"]: m["earlier"] for m in stale["memories"]}
    assert labelled.get(old_turn) is True
