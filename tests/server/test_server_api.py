"""The complete REST API over real HTTP: typed OpenAPI, update, batch, ingest, recall filters, the
shared limits, idempotency keys (durable across a restart) and 5xx codes for server-side faults."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from tests.server.conftest import start_live

from remnant.core.limits import MAX_BATCH_ITEMS, MAX_LIMIT, MAX_QUERY_CHARS

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer


def _remember(c: httpx.Client, content: str, user: str = "ana", **kw: Any) -> dict[str, Any]:
    r = c.post("/v1/memories", json={"content": content, "user_id": user, **kw})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def _code(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.json()["error"]["code"] == code, r.text


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    return schema


def test_every_success_answer_has_a_typed_schema(live: LiveServer) -> None:
    with live.client(None) as c:
        spec = c.get("/openapi.json").json()
    checked = 0
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            ok = {s: r for s, r in op["responses"].items() if s.startswith("2")}
            assert ok, f"{method.upper()} {path} declares no success answer"
            for status, answer in ok.items():
                content = answer.get("content", {}).get("application/json")
                assert content and "schema" in content, f"{method.upper()} {path} {status}: no schema"
                checked += 1
                # named models with their fields, not "any object" (a list of them, or a union of
                # them where mem0's output_format picks the shape)
                top = content["schema"]
                options = top.get("anyOf") or [top]
                for option in options:
                    option = option.get("items", option) if option.get("type") == "array" else option
                    assert "$ref" in option, f"{method.upper()} {path}: untyped {top}"
                    schema = _resolve(spec, option)
                    assert schema.get("properties"), f"{method.upper()} {path}: a schema without fields"
    assert checked >= 40


def test_patch_updates_in_place_and_audits(live: LiveServer) -> None:
    with live.client() as c:
        m = _remember(c, "Ana lives in Lisbon", user="patch-ana", tags=["home"], metadata={"src": "form"})
        r = c.patch(
            f"/v1/memories/{m['id']}",
            json={
                "content": "Ana lives in Porto",
                "importance": 0.9,
                "tags": ["home", "city"],
                "metadata": {"src": None, "checked": True},
                "valid_from": "2026-01-01T00:00:00+00:00",
            },
        )
        assert r.status_code == 200, r.text
        u = r.json()
        assert u["id"] == m["id"] and u["content"] == "Ana lives in Porto" and u["importance"] == 0.9
        assert u["metadata"] == {"tags": ["home", "city"], "checked": True}
        assert u["valid_from"].startswith("2026-01-01") and u["stability"] > m["stability"]
        # re-indexed: the new words are found, the old ones are not
        hit = c.post("/v1/recall", json={"query": "Porto", "user_id": "patch-ana", "touch": False}).json()
        assert [h["memory"]["id"] for h in hit["hits"]] == [m["id"]]
        old = c.post("/v1/recall", json={"query": "Lisbon", "user_id": "patch-ana", "touch": False}).json()
        assert old["hits"] == []
        audit = c.get("/v1/audit", params={"user_id": "patch-ana", "action": "update"}).json()["items"]
        assert audit[-1]["memory_ids"] == [m["id"]] and "Porto" not in str(audit)
        assert audit[-1]["details"]["fields"] == ["content", "importance", "metadata", "tags", "valid_from"]
        # clearing, and the errors
        cleared = c.patch(f"/v1/memories/{m['id']}", json={"valid_from": None, "tags": None}).json()
        assert cleared["valid_from"] is None and "tags" not in cleared["metadata"]
        _code(c.patch(f"/v1/memories/{m['id']}", json={}), 422, "invalid")
        _code(c.patch(f"/v1/memories/{m['id']}", json={"content": None}), 422, "invalid")
        _code(c.patch(f"/v1/memories/{m['id']}", json={"importance": 2}), 422, "invalid")
        _code(c.patch(f"/v1/memories/{m['id']}", json={"kind": "episode"}), 422, "invalid")
        _code(c.patch("/v1/memories/mem_nope", json={"content": "x"}), 404, "not_found")
        with live.client("a_read") as ro:
            _code(ro.patch(f"/v1/memories/{m['id']}", json={"content": "x"}), 403, "forbidden")


def test_patch_redacts_the_new_text(live: LiveServer) -> None:
    with live.client() as c:
        m = _remember(c, "Ana's contact is pending", user="patch-pii")
        u = c.patch(f"/v1/memories/{m['id']}", json={"content": "mail Ana at ana.lima@example.com"}).json()
        if "[EMAIL_" not in u["content"]:
            pytest.skip("the privacy layer is off in this environment")
        assert "ana.lima@example.com" not in u["content"]


def test_batch_is_all_or_nothing(live: LiveServer) -> None:
    with live.client() as c:
        items = [{"content": f"batch fact {i}", "user_id": "batch-ana", "tags": ["b"]} for i in range(3)]
        r = c.post("/v1/memories/batch", json={"items": items})
        assert r.status_code == 201, r.text
        out = r.json()["items"]
        assert [m["content"] for m in out] == [i["content"] for i in items]
        assert all(m["metadata"]["tags"] == ["b"] for m in out)
        # one bad item (a ttl that does not parse): nothing of the batch is stored
        bad = [*items, {"content": "x", "user_id": "batch-ana", "ttl": "soonish"}]
        _code(c.post("/v1/memories/batch", json={"items": bad}), 422, "invalid")
        assert c.get("/v1/memories", params={"user_id": "batch-ana"}).json()["total"] == 3
        too_many = [{"content": "x", "user_id": "u"}] * (MAX_BATCH_ITEMS + 1)
        _code(c.post("/v1/memories/batch", json={"items": too_many}), 422, "invalid")
        _code(c.post("/v1/memories/batch", json={"items": []}), 422, "invalid")


def test_ingest_returns_what_was_stored(live: LiveServer) -> None:
    with live.client() as c:
        r = c.post(
            "/v1/ingest",
            json={
                "user_id": "chat-ana",
                "session_id": "s1",
                "messages": [
                    {"role": "user", "content": "I moved to Berlin last month"},
                    {"role": "assistant", "content": "Nice, how do you like it?"},
                    {"role": "system", "content": "not stored"},
                ],
                "metadata": {"channel": "web"},
            },
        )
        assert r.status_code == 201, r.text
        body = r.json()
        assert [e["content"] for e in body["episodes"]] == [
            "I moved to Berlin last month",
            "Nice, how do you like it?",
        ]
        assert all(e["kind"] == "episode" and e["session_id"] == "s1" for e in body["episodes"])
        assert body["episodes"][0]["metadata"]["channel"] == "web"
        stored = c.get("/v1/memories", params={"user_id": "chat-ana"}).json()["total"]
        assert stored == len(body["episodes"]) + len(body["facts"])
        _code(c.post("/v1/ingest", json={"user_id": "u", "messages": []}), 422, "invalid")
        _code(
            c.post("/v1/ingest", json={"user_id": "u", "messages": [{"role": "bot", "content": "x"}]}),
            422,
            "invalid",
        )


def test_recall_filters_equal_the_python_api(live: LiveServer) -> None:
    with live.client() as c:
        u = "filter-ana"
        a = _remember(c, "the blue notebook is on the desk", user=u, agent_id="helper", tags=["office"])
        b = _remember(c, "the blue notebook was lent to Rui", user=u, session_id="s9", source="chat")
        _remember(c, "the blue notebook cost five euros", user=u, kind="episode", metadata={"shop": "kiosk"})

        def ids(**flt: Any) -> set[str]:
            body = {"query": "blue notebook", "user_id": u, "touch": False, **flt}
            r = c.post("/v1/recall", json=body)
            assert r.status_code == 200, r.text
            return {h["memory"]["id"] for h in r.json()["hits"]}

        assert len(ids()) == 3
        assert ids(agent_id="helper") == {a["id"]}
        assert ids(session_id="s9") == {b["id"]}
        assert ids(tags=["office"]) == {a["id"]}
        assert ids(sources=["chat"]) == {b["id"]}
        assert len(ids(kinds=["episode"])) == 1
        assert len(ids(metadata={"shop": "kiosk"})) == 1
        assert ids(created_before="2000-01-01T00:00:00+00:00") == set()
        assert ids(as_of="2000-01-01T00:00:00+00:00") == set()
        _code(c.post("/v1/recall", json={"query": "x", "user_id": u, "metadata": {"a b": 1}}), 422, "invalid")
        _code(c.post("/v1/recall", json={"query": "x", "user_id": u, "colour": "red"}), 422, "invalid")


def test_limits_are_the_engines(live: LiveServer) -> None:
    from remnant.engine import Memory

    with live.client() as c:
        ok = c.post("/v1/recall", json={"query": "q" * MAX_QUERY_CHARS, "user_id": "lim"})
        assert ok.status_code == 200, ok.text
        _code(
            c.post("/v1/recall", json={"query": "q" * (MAX_QUERY_CHARS + 1), "user_id": "lim"}),
            422,
            "invalid",
        )
        _code(
            c.post("/v1/recall", json={"query": "q", "user_id": "lim", "limit": MAX_LIMIT + 1}),
            422,
            "invalid",
        )
        assert (
            c.post("/v1/recall", json={"query": "q", "user_id": "lim", "limit": MAX_LIMIT}).status_code == 200
        )
    mem = Memory(":memory:")
    from remnant.core.errors import ValidationError

    with pytest.raises(ValidationError):
        mem.recall("q" * (MAX_QUERY_CHARS + 1), user_id="lim")
    with pytest.raises(ValidationError):
        mem.recall("q", user_id="lim", limit=MAX_LIMIT + 1)
    mem.recall("q" * MAX_QUERY_CHARS, user_id="lim", limit=MAX_LIMIT)


def test_history_and_used(live: LiveServer) -> None:
    with live.client() as c:
        first = _remember(c, "Ana drinks green tea", user="hist-ana", key="drink")
        second = _remember(c, "Ana drinks black coffee", user="hist-ana", key="drink")
        items = c.get("/v1/history", params={"user_id": "hist-ana", "key": "drink"}).json()["items"]
        assert [(m["id"], m["status"]) for m in items] == [
            (first["id"], "superseded"),
            (second["id"], "active"),
        ]
        used = c.post("/v1/used", json={"ids": [second["id"], "mem_gone"]}).json()["items"]
        assert [m["id"] for m in used] == [second["id"]] and used[0]["access_count"] == 1


def test_idempotency_keys(live: LiveServer) -> None:
    with live.client() as c:
        body = {"content": "Ana booked the 9:40 train", "user_id": "idem-ana"}
        h = {"Idempotency-Key": "book-train-1"}
        one = c.post("/v1/memories", json=body, headers=h)
        two = c.post("/v1/memories", json=body, headers=h)
        assert one.status_code == two.status_code == 201
        assert one.json() == two.json() and two.headers.get("idempotent-replayed") == "true"
        assert "idempotent-replayed" not in one.headers
        assert c.get("/v1/memories", params={"user_id": "idem-ana"}).json()["total"] == 1
        # the same key with another body: refused, nothing written
        other = c.post("/v1/memories", json={**body, "content": "Ana booked the 10:10"}, headers=h)
        _code(other, 422, "idempotency_key_reused")
        assert c.get("/v1/memories", params={"user_id": "idem-ana"}).json()["total"] == 1
        # and on another route
        _code(
            c.post("/v1/ingest", json={"user_id": "idem-ana", "messages": ["hi"]}, headers=h),
            422,
            "idempotency_key_reused",
        )
        # a failed write records nothing: the same key works once the body is fixed
        k = {"Idempotency-Key": "fix-me"}
        _code(c.post("/v1/memories", json={**body, "ttl": "never-ish"}, headers=k), 422, "invalid")
        assert c.post("/v1/memories", json={**body, "ttl": "7d"}, headers=k).status_code == 201
        # PATCH and review replay too (a second review would raise stability again)
        mid = one.json()["id"]
        p1 = c.patch(f"/v1/memories/{mid}", json={"importance": 0.7}, headers={"Idempotency-Key": "p"})
        p2 = c.patch(f"/v1/memories/{mid}", json={"importance": 0.7}, headers={"Idempotency-Key": "p"})
        assert p1.json() == p2.json()
        r1 = c.post(f"/v1/memories/{mid}/review", headers={"Idempotency-Key": "r"}).json()
        r2 = c.post(f"/v1/memories/{mid}/review", headers={"Idempotency-Key": "r"}).json()
        assert r1 == r2 and c.get(f"/v1/memories/{mid}").json()["review_count"] == 1
        _code(c.post("/v1/memories", json=body, headers={"Idempotency-Key": "x" * 256}), 422, "invalid")
    # keys belong to a tenant: tenant B's same key is its own
    with live.client("b_all") as b:
        assert b.post("/v1/memories", json=body, headers=h).headers.get("idempotent-replayed") is None


@pytest.mark.slow
def test_idempotency_survives_a_restart(tmp_path: Path) -> None:
    body = {"content": "Ana paid the rent", "user_id": "durable"}
    h = {"Idempotency-Key": "rent-2026-12"}
    for live in start_live(tmp_path):
        secret = live.keys["a_all"]
        with live.client() as c:
            first = c.post("/v1/memories", json=body, headers=h).json()
    (tmp_path / "again").mkdir()
    # the same API key after the restart (a record is bound to the key that made it)
    again_at = start_live(
        tmp_path / "again", db=str(tmp_path / "remnant.db"), keys_path=str(tmp_path / "keys.db")
    )
    for live in again_at:
        live.keys["same"] = secret
        with live.client("same") as c:
            again = c.post("/v1/memories", json=body, headers=h)
            assert again.headers.get("idempotent-replayed") == "true" and again.json() == first
            assert c.get("/v1/memories", params={"user_id": "durable"}).json()["total"] == 1
            # erasing the user deletes the recorded answers that hold its memories (here one of a
            # review, whose request names no user), and the erasure's byte scan finds nothing
            mid = again.json()["id"]
            c.post(f"/v1/memories/{mid}/review", headers={"Idempotency-Key": "review-rent"})
            report = c.post("/v1/erasure", json={"user_id": "durable", "confirm": True}).json()
            assert report["verified"] and report["checks"].get("file_bytes", 0) == 0
            fresh = c.post("/v1/memories", json=body, headers=h)
            assert fresh.status_code == 201 and fresh.headers.get("idempotent-replayed") is None
            # and so does mem0's erasure
            assert c.delete("/v1/memories/", params={"user_id": "durable"}).status_code == 200
            third = c.post("/v1/memories", json=body, headers=h)
            assert third.headers.get("idempotent-replayed") is None


@pytest.fixture
def vault_env(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cryptography")
    monkeypatch.delenv("REMNANT_VAULT_KEY", raising=False)
    monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
    monkeypatch.setenv("REMNANT_PRIVACY", "on")


@pytest.mark.slow
def test_a_replaced_vault_key_is_a_5xx_with_a_code(
    tmp_path: Path, vault_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remnant.privacy.keys import generate_key

    for live in start_live(tmp_path):
        with live.client() as c:
            m = _remember(c, "write to ana.lima@example.com", user="vault-ana")
            if "[EMAIL_" not in m["content"]:
                pytest.skip("the privacy layer is not installed")
    # the server comes back with another key than the one the vault was written with
    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    (tmp_path / "b").mkdir()
    for live in start_live(tmp_path / "b", db=str(tmp_path / "remnant.db")):
        with live.client(None) as anon:
            _code(anon.get("/readyz"), 503, "vault_key")
        with live.client("a_vault") as v:
            _code(v.post(f"/v1/memories/{m['id']}/rehydrate"), 503, "vault_key")
        with live.client() as c:
            r = c.post("/v1/memories", json={"content": "mail rui@example.org", "user_id": "vault-ana"})
            _code(r, 503, "vault_key")


def test_a_failing_redactor_is_a_5xx_with_a_code(live: LiveServer) -> None:
    from remnant.privacy.errors import RedactionError

    class Broken:
        def redact(self, text: str, *, tenant: str, user_id: str) -> Any:
            raise RedactionError("the detector crashed")

        def purge_user(self, tenant: str, user_id: str) -> int:
            return 0

    mem = live.app.state.engines.get("tenant-a")  # type: ignore[attr-defined]
    before = mem.redactor
    mem.redactor = Broken()
    try:
        with live.client() as c:
            _code(c.post("/v1/memories", json={"content": "hello", "user_id": "r"}), 503, "redaction_failed")
            assert c.get("/v1/memories", params={"user_id": "r"}).json()["total"] == 0
    finally:
        mem.redactor = before


@pytest.mark.slow
def test_concurrent_retries_with_one_key_write_once(live: LiveServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    body = {"content": "Ana renewed her passport", "user_id": "idem-race"}

    def post(_: int) -> tuple[int, str]:
        with live.client() as c:
            r = c.post("/v1/memories", json=body, headers={"Idempotency-Key": "race-1"})
            return r.status_code, r.json()["id"]

    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(post, range(6)))
    assert {status for status, _ in answers} == {201}
    assert len({mid for _, mid in answers}) == 1
    with live.client() as c:
        assert c.get("/v1/memories", params={"user_id": "idem-race"}).json()["total"] == 1
