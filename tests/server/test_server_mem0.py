"""The mem0-compatible routes, driven by the real ``mem0ai`` client against the live server."""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING, Any

import pytest

# the client reads these at import: no telemetry to PostHog, its config file in a temporary folder
os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="mem0-"))
mem0 = pytest.importorskip("mem0")

from mem0 import MemoryClient  # noqa: E402
from mem0.exceptions import MemoryNotFoundError  # noqa: E402

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer


def _client(live: LiveServer, key: str = "a_all") -> Any:
    return MemoryClient(api_key=live.keys[key], host=live.base)


def _texts(results: dict[str, Any]) -> list[str]:
    return [m["memory"] for m in results["results"]]


def test_construction_pings_with_a_token_header(live: LiveServer) -> None:
    c = _client(live)
    assert (c.org_id, c.project_id) == ("tenant-a", "tenant-a")
    with pytest.raises(ValueError, match="401"):
        MemoryClient(api_key=live.keys["revoked"], host=live.base)
    with live.client(None) as raw:  # the Token scheme works on a note on the own routes too
        r = raw.get("/v1/whoami", headers={"Authorization": f"Token {live.keys['a_read']}"})
        assert r.status_code == 200 and r.json()["tenant"] == "tenant-a"


def test_multi_turn_update_delete_and_isolation(live: LiveServer) -> None:
    c = _client(live)
    user = "m0-alice"
    added = c.add(
        [
            {"role": "user", "content": "I live in Paris and I work as a baker"},
            {"role": "assistant", "content": "Good to know!"},
        ],
        user_id=user,
        metadata={"channel": "chat"},
    )
    # infer (mem0's default): the memories are the extracted facts; a message that yielded none
    # is kept as it was said; the message the facts came from is no memory of its own
    assert added["status"] == "SUCCEEDED"
    assert [(e["event"], e["memory"]) for e in added["results"]] == [
        ("ADD", "User lives in Paris"),
        ("ADD", "User works as baker"),
        ("ADD", "Good to know!"),
    ]
    home = added["results"][0]["id"]
    # adds are done when they answer; the event says so
    with live.client() as raw:
        event = raw.get(f"/v1/event/{added['event_id']}/").json()
        assert event["status"] == "SUCCEEDED" and event["results"] == added["results"]

    found = c.search("where does the user live Paris", filters={"user_id": user})
    assert found["results"][0]["id"] == home and found["results"][0]["metadata"]["channel"] == "chat"
    assert "score" in found["results"][0] and found["results"][0]["user_id"] == user
    assert not any("I live in Paris" in t for t in _texts(found))  # the source message is no memory
    assert sorted(_texts(c.get_all(filters={"user_id": user}))) == [
        "Good to know!",
        "User lives in Paris",
        "User works as baker",
    ]

    # a second turn: the user moved. The new fact supersedes the old one under its key
    moved = c.add([{"role": "user", "content": "I live in Berlin now"}], user_id=user)
    assert [(e["event"], e["memory"], e.get("previous_memory")) for e in moved["results"]] == [
        ("UPDATE", "User lives in Berlin", "User lives in Paris")
    ]
    berlin = moved["results"][0]["id"]
    assert berlin != home
    hits = _texts(c.search("where does the user live", filters={"user_id": user}, top_k=10))
    assert "User lives in Berlin" in hits and not any("Paris" in t for t in hits)
    listing = _texts(c.get_all(filters={"user_id": user}))
    assert "User lives in Berlin" in listing and not any("Paris" in t for t in listing)
    assert c.get(home)["memory"] == "User lives in Berlin"  # an old id resolves to the live version
    history = c.history(home)
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == "User lives in Paris"
    assert history[1]["new_memory"] == "User lives in Berlin"

    # mem0's update is a new version in Remnant: a third version of the chain, history lists all three
    third = c.update(berlin, text="User lives in Berlin, Kreuzberg")
    assert third["event"] == "UPDATE" and third["previous_id"] == berlin and third["id"] != berlin
    assert [h["event"] for h in c.history(third["id"])] == ["ADD", "UPDATE", "UPDATE"]
    assert c.get(home)["memory"] == "User lives in Berlin, Kreuzberg"

    # another user and another tenant see none of it
    assert c.search("Berlin baker", filters={"user_id": "m0-bob"})["results"] == []
    assert c.get_all(filters={"user_id": "m0-bob"})["count"] == 0
    other = _client(live, "b_all")
    assert other.search("Berlin baker", filters={"user_id": user})["results"] == []
    assert other.get_all(filters={"user_id": user})["count"] == 0
    with pytest.raises(MemoryNotFoundError):
        other.get(third["id"])
    with pytest.raises(MemoryNotFoundError):
        other.delete(third["id"])

    # deleted stays gone
    assert c.delete(third["id"])["message"] == "Memory deleted successfully!"
    with pytest.raises(MemoryNotFoundError):
        c.get(third["id"])
    with pytest.raises(MemoryNotFoundError):
        c.get(home)
    for query in ("Berlin baker Kreuzberg", "where does the user live Berlin"):
        assert not any("Berlin" in t for t in _texts(c.search(query, filters={"user_id": user})))
    assert not any("Berlin" in t for t in _texts(c.get_all(filters={"user_id": user})))
    assert "User works as baker" in _texts(c.get_all(filters={"user_id": user}))  # only that one went

    # the rest of the user: delete_all is a user erasure
    assert c.delete_all(filters={"user_id": user})["message"] == "Memories deleted successfully!"
    assert c.get_all(filters={"user_id": user})["count"] == 0


def test_agent_run_scopes_and_entities(live: LiveServer) -> None:
    c = _client(live)
    c.add("The deploy runs on Fridays", user_id="m0-carol", agent_id="ops-bot", run_id="run-1")
    c.add("The office plant needs water", user_id="m0-carol", agent_id="home-bot")
    c.add("Agents share this note", agent_id="ops-bot")  # agent-only: the pseudo-user agent:ops-bot
    assert _texts(
        c.search("deploy", filters={"AND": [{"user_id": "m0-carol"}, {"agent_id": "ops-bot"}]})
    ) == ["The deploy runs on Fridays"]
    assert c.search("plant", filters={"user_id": "m0-carol", "agent_id": "ops-bot"})["results"] == []
    assert c.get_all(filters={"user_id": "m0-carol", "run_id": "run-1"})["count"] == 1
    assert _texts(c.get_all(filters={"agent_id": "ops-bot"})) == ["Agents share this note"]
    names = {(e["type"], e["name"]) for e in c.users()["results"]}
    assert {("user", "m0-carol"), ("agent", "ops-bot")} <= names
    c.delete_all(filters={"user_id": "m0-carol", "agent_id": "home-bot"})
    assert _texts(c.get_all(filters={"user_id": "m0-carol"})) == ["The deploy runs on Fridays"]
    c.delete_users(agent_id="ops-bot")
    assert c.get_all(filters={"user_id": "m0-carol"})["count"] == 0
    assert c.get_all(filters={"agent_id": "ops-bot"})["count"] == 0


def test_batch_and_scopes(live: LiveServer) -> None:
    c = _client(live)
    ids = [e["id"] for e in c.add("note one", user_id="m0-dan")["results"]]
    ids += [e["id"] for e in c.add("note two", user_id="m0-dan")["results"]]
    again = c.add("note two", user_id="m0-dan")["results"]  # a repeat: no second copy, mem0's NONE
    assert [(e["id"], e["event"]) for e in again] == [(ids[1], "NONE")]
    c.batch_update([{"memory_id": ids[0], "text": "note one, revised"}])
    assert sorted(_texts(c.get_all(filters={"user_id": "m0-dan"}))) == ["note one, revised", "note two"]
    c.batch_delete([{"memory_id": i} for i in ids])
    assert c.get_all(filters={"user_id": "m0-dan"})["count"] == 0
    reader = _client(live, "a_read")
    reader.search("anything", filters={"user_id": "m0-dan"})
    with pytest.raises(Exception, match="write"):
        reader.add("not allowed", user_id="m0-dan")


def test_slash_and_no_slash_routes_coexist(live: LiveServer) -> None:
    with live.client() as raw:
        r = raw.post("/v1/memories", json={"content": "a note on the own route", "user_id": "m0-eve"})
        assert r.status_code == 201 and r.json()["tenant"] == "tenant-a"
        mid = r.json()["id"]
        assert raw.get("/v1/memories", params={"user_id": "m0-eve"}).json()["total"] == 1  # Remnant shape
        assert raw.get("/v1/memories/", params={"user_id": "m0-eve"}).json()["count"] == 1  # mem0 shape
        assert raw.get(f"/v1/memories/{mid}").json()["content"] == "a note on the own route"
        assert raw.get(f"/v1/memories/{mid}/").json()["memory"] == "a note on the own route"
        legacy = raw.post("/v1/memories/", json={"messages": "a v1 add", "user_id": "m0-eve"}).json()
        assert legacy["results"][0]["event"] == "ADD"
        assert isinstance(
            raw.post(
                "/v1/memories/", json={"messages": "x", "user_id": "m0-eve", "output_format": "v1.0"}
            ).json(),
            list,
        )
        v1 = raw.post("/v1/memories/search/", json={"query": "v1 add", "user_id": "m0-eve"}).json()
        v2 = raw.post(
            "/v2/memories/search/", json={"query": "v1 add", "filters": {"user_id": "m0-eve"}}
        ).json()
        assert v1["results"][0]["memory"] == v2["results"][0]["memory"] == "a v1 add"
        # no redirects between the two families, and bad filters are a 4xx, never a 500
        assert raw.get("/v1/ping").status_code in (200, 307)
        bad = raw.post(
            "/v3/memories/search/",
            json={"query": "x", "filters": {"OR": [{"user_id": "a"}, {"user_id": "b"}]}},
        )
        assert bad.status_code == 422
        assert raw.post("/v3/memories/", json={}).status_code == 422
        assert raw.delete(f"/v1/memories/{mid}?force=true").json()["purged"] == 1


@pytest.mark.slow
def test_example_runs_as_its_readme_says() -> None:
    """examples/mem0_switch: `python examples/mem0_switch/run.py` from the repository root."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "examples/mem0_switch/run.py"],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=True,
    ).stdout
    # infer: the extracted facts are the memories, not the message they came from
    assert "added: [('ADD', 'User lives in Paris'), ('ADD', 'User likes jazz')]" in out
    assert "search: ['User lives in Paris']" in out
    assert "moved: [('UPDATE', 'User lives in Paris', 'User lives in Berlin')]" in out
    assert "search after the move: ['User lives in Berlin']" in out
    assert (
        "history: [('ADD', None, 'User lives in Paris'), "
        "('UPDATE', 'User lives in Paris', 'User lives in Berlin'), "
        "('UPDATE', 'User lives in Berlin', 'User lives in Berlin, Kreuzberg')]"
    ) in out
    assert "after delete: []" in out
    assert "still remembered: ['User likes jazz']" in out
