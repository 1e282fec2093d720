"""The MCP server: in-process, over streamable HTTP on the live server (with keys), and over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from remnant.server.auth import LOCAL_PRINCIPAL  # noqa: E402
from remnant.server.engines import Engines  # noqa: E402
from remnant.server.mcp_server import build_mcp_server  # noqa: E402

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer

SRC = str(Path(__file__).resolve().parents[2] / "src")


async def _agent_session(client: Any, user: str) -> dict[str, Any]:
    """What an agent does: remember, recall, pin, forget with a dry run, read the resource."""
    out: dict[str, Any] = {}
    tools = await client.list_tools()
    out["tools"] = {t.name: t for t in tools.tools}
    r = await client.call_tool(
        "remember",
        {"content": "The user is allergic to peanuts", "user_id": user, "kind": "fact", "importance": 0.9},
    )
    assert not r.is_error, r.content
    out["remembered"] = r.structured_content
    mid = r.structured_content["id"]
    r = await client.call_tool("recall", {"query": "peanuts allergy", "user_id": user})
    out["recalled"] = r.structured_content
    r = await client.call_tool("pin", {"memory_id": mid, "user_id": user})
    out["pinned"] = r.structured_content
    r = await client.call_tool("forget", {"request": mid, "user_id": user, "dry_run": True})
    out["dry_run"] = r.structured_content
    res = await client.read_resource(f"remnant://users/{user}/memories")
    out["resource"] = json.loads(res.contents[0].text)
    r = await client.call_tool("pin", {"memory_id": "mem_doesnotexist", "user_id": user})
    out["missing"] = (r.is_error, r.content[0].text)
    r = await client.call_tool("forget", {"request": mid, "user_id": user, "hard": True, "confirm": True})
    out["purged"] = r.structured_content
    return out


def _check(out: dict[str, Any], tenant: str) -> None:
    assert set(out["tools"]) >= {"remember", "recall", "forget", "pin"}
    doc = out["tools"]["remember"].description
    assert "0.9" in doc and "0.3" in doc and "preference" in doc and "open_issue" in doc
    assert out["remembered"]["strength"] == pytest.approx(0.95)
    assert [m["id"] for m in out["recalled"]["memories"]] == [out["remembered"]["id"]]
    assert out["pinned"]["pinned"] is True
    assert out["dry_run"]["dry_run"] is True and out["dry_run"]["matched"] == 1
    assert out["resource"]["tenant"] == tenant
    assert [m["content"] for m in out["resource"]["memories"]] == ["The user is allergic to peanuts"]
    assert out["missing"][0] is True and "not_found" in out["missing"][1]
    assert out["purged"]["action"] == "purge" and len(out["purged"]["forgotten"]) == 1


SUPERSET = {
    # Remnant's own
    "remember", "recall", "forget", "pin", "review", "why", "add",
    # OpenMemory's
    "add_memories", "search_memory", "list_memories", "delete_memories", "delete_all_memories",
    # the MCP reference memory server's knowledge graph
    "create_entities", "create_relations", "add_observations", "delete_entities",
    "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes",
}  # fmt: skip


async def _every_tool(client: Any, user: str) -> dict[str, Any]:
    """Every tool of the superset, called once or more the way its origin's clients call it."""
    out: dict[str, Any] = {"tools": {t.name for t in (await client.list_tools()).tools}}

    async def call(name: str, args: dict[str, Any]) -> Any:
        r = await client.call_tool(name, {**args, "user_id": user})
        out.setdefault("errors", {})[name] = r.is_error
        return r.structured_content if not r.is_error else r.content[0].text

    await call(
        "create_entities",
        {
            "entities": [
                {"name": "Ana", "entityType": "person", "observations": ["speaks Portuguese", "likes tea"]},
                {"name": "Acme", "entityType": "company", "observations": []},
            ]
        },
    )
    out["again"] = await call("create_entities", {"entities": [{"name": "Ana", "entityType": "robot"}]})
    await call("create_relations", {"relations": [{"from": "Ana", "to": "Acme", "relationType": "works at"}]})
    out["obs"] = await call(
        "add_observations", {"observations": [{"entityName": "Ana", "contents": ["runs"]}]}
    )
    out["graph"] = await call("read_graph", {})
    out["search"] = await call("search_nodes", {"query": "TEA"})
    out["open"] = await call("open_nodes", {"names": ["Acme"]})
    await call("delete_observations", {"deletions": [{"entityName": "Ana", "observations": ["likes tea"]}]})
    await call("delete_relations", {"relations": [{"from": "Ana", "to": "Acme", "relationType": "works at"}]})
    await call("delete_entities", {"entityNames": ["Acme"]})
    out["graph_after"] = await call("read_graph", {})
    out["added"] = await call("add_memories", {"text": "I moved to Lisbon last spring"})
    mid = out["added"]["results"][0]["id"]
    out["added_again"] = await call("add_memories", {"text": "I moved to Lisbon last spring"})
    out["searched"] = await call("search_memory", {"query": "Lisbon"})
    out["listed"] = await call("list_memories", {})
    out["reviewed"] = await call("review", {"memory_id": mid})
    out["why"] = await call("why", {"memory_id": mid})
    out["deleted"] = await call("delete_memories", {"memory_ids": [mid]})
    out["dry_all"] = await call("delete_all_memories", {})
    out["all"] = await call("delete_all_memories", {"confirm": True})
    out["left"] = await call("list_memories", {})
    return out


def _check_every_tool(out: dict[str, Any]) -> None:
    assert out["tools"] >= SUPERSET
    assert not any(out["errors"].values()), out["errors"]
    assert out["again"]["created"] == []  # existing names are ignored
    assert out["obs"]["results"][0]["addedObservations"] == ["runs"]
    ana = next(e for e in out["graph"]["entities"] if e["name"] == "Ana")
    assert ana["entityType"] == "person" and sorted(ana["observations"]) == [
        "likes tea",
        "runs",
        "speaks Portuguese",
    ]
    assert out["graph"]["relations"] == [
        {"type": "relation", "from": "Ana", "to": "Acme", "relationType": "works at"}
    ]
    assert [e["name"] for e in out["search"]["entities"]] == ["Ana"]
    assert [e["name"] for e in out["open"]["entities"]] == ["Acme"]
    assert out["graph_after"]["relations"] == [] and [e["name"] for e in out["graph_after"]["entities"]] == [
        "Ana"
    ]
    assert sorted(out["graph_after"]["entities"][0]["observations"]) == ["runs", "speaks Portuguese"]
    mid = out["added"]["results"][0]["id"]
    assert out["added"]["results"][0]["event"] == "ADD"
    first = [(r["id"], "NONE") for r in out["added"]["results"]]  # a repeat: the same memories, no copy
    assert [(r["id"], r["event"]) for r in out["added_again"]["results"]] == first
    assert mid in [m["id"] for m in out["searched"]["results"]]
    assert mid in [m["id"] for m in out["listed"]["results"]]
    assert out["reviewed"]["strength"] == pytest.approx(1.0)
    why = out["why"]
    assert why["memory"]["id"] == mid and why["remembered"] is True and why["fades_at"]
    assert [v["id"] for v in why["versions"]] == [mid]
    assert [e["action"] for e in why["audit"]] == [] or all(mid in e["memory_ids"] for e in why["audit"])
    assert out["deleted"]["deleted"] == 1
    assert out["dry_all"]["erased"] is False and out["dry_all"]["would_erase"] >= 1
    assert out["all"]["erased"] is True and out["all"]["verified"] is True
    assert out["left"]["results"] == []


def test_every_tool_in_process(tmp_path: Path) -> None:
    engines = Engines(str(tmp_path / "m.db"))
    server = build_mcp_server(engines, local=LOCAL_PRINCIPAL)

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            return await _every_tool(client, "gia")

    _check_every_tool(anyio.run(main))
    engines.close()


def test_every_tool_over_http(live: LiveServer) -> None:
    async def main() -> dict[str, Any]:
        async with _http_client(live, "b_all") as client:
            return await _every_tool(client, "gia-http")

    _check_every_tool(anyio.run(main))


def test_graph_stays_in_its_tenant(live: LiveServer) -> None:
    async def main() -> tuple[Any, Any]:
        async with _http_client(live, "a_all") as client:
            await client.call_tool(
                "create_entities", {"entities": [{"name": "Zed", "entityType": "person"}], "user_id": "kg"}
            )
        async with _http_client(live, "b_all") as client:
            graph = (await client.call_tool("read_graph", {"user_id": "kg"})).structured_content
        async with _http_client(live, "a_read") as client:
            denied = await client.call_tool("delete_entities", {"entityNames": ["Zed"], "user_id": "kg"})
        return graph, denied

    graph, denied = anyio.run(main)
    assert graph == {"entities": [], "relations": []}
    assert denied.is_error and "forbidden" in denied.content[0].text


def test_in_process(tmp_path: Path) -> None:
    engines = Engines(str(tmp_path / "m.db"))
    server = build_mcp_server(engines, local=LOCAL_PRINCIPAL)

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            return await _agent_session(client, "mia")

    _check(anyio.run(main), "default")
    engines.close()


def _http_client(live: LiveServer, key: str | None) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {live.keys[key]}"} if key else {}
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    return Client(streamable_http_client(f"{live.base}/mcp", http_client=http))


def test_over_http_with_keys(live: LiveServer) -> None:
    async def main() -> dict[str, Any]:
        async with _http_client(live, "b_all") as client:
            return await _agent_session(client, "mia-http")

    _check(anyio.run(main), "tenant-b")


def test_http_tenancy_and_scopes(live: LiveServer) -> None:
    with live.client("a_all") as a:
        mid = a.post("/v1/memories", json={"content": "A's secret plan", "user_id": "ned"}).json()["id"]

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with _http_client(live, "b_all") as client:
            r = await client.call_tool("recall", {"query": "secret plan", "user_id": "ned"})
            out["recall"] = r.structured_content
            r = await client.call_tool("pin", {"memory_id": mid, "user_id": "ned"})
            out["pin"] = r.is_error
            r = await client.call_tool(
                "forget", {"request": mid, "user_id": "ned", "hard": True, "confirm": True}
            )
            out["forget"] = r.is_error
            res = await client.read_resource("remnant://users/ned/memories")
            out["resource"] = json.loads(res.contents[0].text)
        async with _http_client(live, "a_read") as client:
            r = await client.call_tool("remember", {"content": "read-only write", "user_id": "ned"})
            out["readonly_write"] = (r.is_error, r.content[0].text)
        return out

    out = anyio.run(main)
    assert out["recall"]["memories"] == [] and out["pin"] and out["forget"]
    assert out["resource"]["memories"] == [] and out["resource"]["tenant"] == "tenant-b"
    assert out["readonly_write"][0] and "forbidden" in out["readonly_write"][1]
    with live.client("a_all") as a:
        m = a.get(f"/v1/memories/{mid}").json()
        assert m["status"] == "active" and m["pinned"] is False


def test_http_without_key_is_refused(live: LiveServer) -> None:
    import httpx

    r = httpx.post(
        f"{live.base}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


@pytest.mark.slow
def test_over_stdio(tmp_path: Path) -> None:
    # REMNANT_PRIVACY=off: this is about the stdio transport; it spares the subprocess the PII model load
    env = {
        **os.environ,
        "REMNANT_PRIVACY": "off",
        "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "remnant",
            "--db",
            str(tmp_path / "stdio.db"),
            "--tenant",
            "solo",
            "serve",
            "--mcp-stdio",
        ],
        env=env,
    )

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(params) as client:
            return await _agent_session(client, "mia"), await _every_tool(client, "gia")

    agent, every = anyio.run(main)
    _check(agent, "solo")
    _check_every_tool(every)


def test_user_id_is_required_on_every_tool(tmp_path: Path) -> None:
    engines = Engines(str(tmp_path / "m.db"))
    server = build_mcp_server(engines, local=LOCAL_PRINCIPAL)

    async def main() -> tuple[dict[str, Any], Any, Any]:
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            missing = await client.call_tool("remember", {"content": "no user named"})
            mine = (
                await client.call_tool("remember", {"content": "Ana's note", "user_id": "ana"})
            ).structured_content
            other = await client.call_tool("pin", {"memory_id": mine["id"], "user_id": "bob"})
            return tools, missing, other

    tools, missing, other = anyio.run(main)
    assert set(tools) >= SUPERSET
    for name, t in tools.items():
        assert "user_id" in t.input_schema["properties"], name
        assert "user_id" in t.input_schema.get("required", []), f"{name}: user_id must be required"
    assert missing.is_error and "user_id" in missing.content[0].text
    assert other.is_error and "not_found" in other.content[0].text  # another user's memory, by id
    assert engines.get("default").count_memories("default") == 0  # nothing fell back to "default"
    engines.close()


def test_a_stdio_server_bound_to_a_user_may_leave_user_id_out(tmp_path: Path) -> None:
    engines = Engines(str(tmp_path / "m.db"))
    server = build_mcp_server(engines, local=LOCAL_PRINCIPAL, user="solo")

    async def main() -> tuple[Any, Any]:
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            r = await client.call_tool("remember", {"content": "I prefer green tea"})
            return tools["remember"], r

    remember, r = anyio.run(main)
    assert "user_id" not in remember.input_schema.get("required", [])
    assert remember.input_schema["properties"]["user_id"]["default"] == "solo"
    assert not r.is_error and engines.get("default").count_memories("solo") == 1
    engines.close()


def test_add_takes_a_conversation(tmp_path: Path) -> None:
    engines = Engines(str(tmp_path / "m.db"))
    server = build_mcp_server(engines, local=LOCAL_PRINCIPAL)

    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool(
                "add",
                {
                    "user_id": "ana",
                    "session_id": "s1",
                    "messages": [
                        {"role": "user", "content": "hi!"},
                        {"role": "user", "content": "I moved to Lisbon last spring"},
                        {"role": "assistant", "content": "Noted, Lisbon."},
                    ],
                },
            )

    r = anyio.run(main)
    assert not r.is_error, r.content
    out = r.structured_content
    assert [e["content"] for e in out["episodes"]] == [
        "hi!",
        "I moved to Lisbon last spring",
        "Noted, Lisbon.",
    ]
    assert [f["key"] for f in out["facts"]] == ["city"]
    hi = out["episodes"][0]
    assert hi["importance"] < out["episodes"][1]["importance"] and "greeting" in out["reasons"][hi["id"]]
    engines.close()


def test_the_tool_list_follows_the_key_scopes(live: LiveServer) -> None:
    async def names(key: str) -> set[str]:
        async with _http_client(live, key) as client:
            return {t.name for t in (await client.list_tools()).tools}

    async def main() -> tuple[set[str], set[str]]:
        return await names("a_read"), await names("a_all")

    read_only, full = anyio.run(main)
    assert full >= SUPERSET
    assert read_only == {
        "recall",
        "why",
        "search_memory",
        "list_memories",
        "read_graph",
        "search_nodes",
        "open_nodes",
    }
