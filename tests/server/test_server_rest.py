"""The REST API over real HTTP: every operation, pagination, errors and their shape."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import httpx
import pytest
from tests.leaks import leaks

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer


def _remember(c: httpx.Client, content: str, user: str = "ana", **kw: object) -> dict:
    r = c.post("/v1/memories", json={"content": content, "user_id": user, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def _error(r: httpx.Response, status: int, code: str | None = None) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"}
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code:
        assert body["error"]["code"] == code
    return body["error"]


def test_health_and_readiness(live: LiveServer) -> None:
    with live.client(None) as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        assert c.get("/readyz").json() == {"status": "ready"}


def test_memory_lifecycle(live: LiveServer) -> None:
    with live.client() as c:
        m = _remember(c, "Ana prefers green tea", kind="preference", key="drink", importance=0.8)
        assert m["strength"] > 0.52 and m["remembered"] and m["tenant"] == "tenant-a"
        assert c.get(f"/v1/memories/{m['id']}").json()["content"] == "Ana prefers green tea"

        hits = c.post("/v1/recall", json={"query": "what tea", "user_id": "ana"}).json()["hits"]
        assert [h["memory"]["id"] for h in hits] == [m["id"]]

        reviewed = c.post(f"/v1/memories/{m['id']}/review").json()
        assert reviewed["review_count"] == 1 and reviewed["stability"] > m["stability"]

        assert c.post(f"/v1/memories/{m['id']}/pin").json()["pinned"] is True
        _error(c.delete(f"/v1/memories/{m['id']}"), 409, "conflict")  # pinned: needs force
        assert c.post(f"/v1/memories/{m['id']}/unpin").json()["pinned"] is False

        hidden = c.post(f"/v1/memories/{m['id']}/hide", json={"reason": "user asked"}).json()
        assert hidden["status"] == "hidden" and hidden["status_reason"] == "user asked"
        assert c.post("/v1/recall", json={"query": "tea", "user_id": "ana"}).json()["hits"] == []
        assert c.post(f"/v1/memories/{m['id']}/unhide").json()["status"] == "active"

        newer = _remember(c, "Ana now drinks coffee", kind="preference", key="drink")
        old = c.get(f"/v1/memories/{m['id']}").json()
        assert old["status"] == "superseded" and old["superseded_by"] == newer["id"]

        assert c.delete(f"/v1/memories/{newer['id']}").json() == {"purged": 1, "id": newer["id"]}
        _error(c.get(f"/v1/memories/{newer['id']}"), 404, "not_found")

        actions = [e["action"] for e in c.get("/v1/audit", params={"user_id": "ana"}).json()["items"]]
        assert {"supersede", "hide", "unhide", "purge"} <= set(actions)
        verify = c.get("/v1/audit/verify").json()
        assert verify["ok"] is True and verify["checked"] >= 4


def test_list_pagination_and_filters(live: LiveServer) -> None:
    with live.client() as c:
        ids = [_remember(c, f"page note {i}", user="pager")["id"] for i in range(7)]
        seen: list[str] = []
        offset: int | None = 0
        while offset is not None:
            page = c.get("/v1/memories", params={"user_id": "pager", "limit": 3, "offset": offset}).json()
            assert page["total"] == 7 and len(page["items"]) <= 3
            seen += [m["id"] for m in page["items"]]
            offset = page["next_offset"]
        assert sorted(seen) == sorted(ids) and len(set(seen)) == 7
        assert seen == list(reversed(ids))  # newest first
        c.post(f"/v1/memories/{ids[0]}/hide")
        hidden = c.get("/v1/memories", params={"user_id": "pager", "status": "hidden"}).json()
        assert [m["id"] for m in hidden["items"]] == [ids[0]]
        users = {u["user_id"]: u for u in c.get("/v1/users").json()["items"]}
        assert users["pager"]["total"] == 7 and users["pager"]["active"] == 6
        stats = c.get("/v1/stats", params={"user_id": "pager"}).json()
        assert stats["by_status"] == {"active": 6, "hidden": 1} and stats["remembered_now"] == 6


def test_decay_curve(live: LiveServer) -> None:
    with live.client() as c:
        m = _remember(c, "Project deadline is Friday", user="curve", kind="open_issue", importance=0.6)
        curve = c.get(f"/v1/memories/{m['id']}/curve", params={"days_ahead": 60, "points": 30}).json()
        assert curve["threshold"] == 0.52
        assert len(curve["projected"]) == 30
        s = [p["strength"] for p in curve["projected"]]
        assert s == sorted(s, reverse=True) and s[0] > curve["threshold"] > s[-1]
        assert 0 < curve["fade_in_days"] < 60
        assert curve["events"][0]["type"] == "created"
        c.post(f"/v1/memories/{m['id']}/review")
        after = c.get(f"/v1/memories/{m['id']}/curve").json()
        assert after["fade_in_days"] > curve["fade_in_days"]
        assert after["review_count"] == 1


def test_forget_dry_run_and_erasure(live: LiveServer) -> None:
    with live.client() as c:
        m = _remember(c, "Ben's phone is 555-0100", user="ben")
        _remember(c, "Ben likes chess", user="ben")
        dry = c.post("/v1/forget", json={"request": m["id"], "dry_run": True}).json()
        assert dry["dry_run"] is True and dry["matched"] == 1
        assert c.get(f"/v1/memories/{m['id']}").json()["status"] == "active"  # nothing changed
        done = c.post("/v1/forget", json={"request": m["id"]}).json()
        assert done["action"] == "hide" and done["forgotten"] == [m["id"]]
        _error(c.post("/v1/erasure", json={"user_id": "ben"}), 422)  # confirm is required
        report = c.post("/v1/erasure", json={"user_id": "ben", "confirm": True}).json()
        assert report["removed_total"] == 2 and report["verified"] is True
        assert c.get("/v1/memories", params={"user_id": "ben"}).json()["total"] == 0
        assert c.get("/v1/audit", params={"action": "erase_user"}).json()["items"]


def test_sweep_endpoint(live: LiveServer) -> None:
    with live.client() as c:
        report = c.post("/v1/sweep", json={"dry_run": True}).json()
        assert report["dry_run"] is True and "steps" in report
    with live.client("a_read") as c:
        _error(c.post("/v1/sweep", json={}), 403, "forbidden")


def test_auth_errors(live: LiveServer) -> None:
    with live.client(None) as c:
        err = _error(c.get("/v1/memories"), 401, "unauthorized")
        assert "missing" in err["message"]
        _error(c.get("/v1/memories", headers={"Authorization": "Bearer rk_nope_nope"}), 401)
        _error(c.get("/v1/memories", headers={"X-API-Key": "not-a-key"}), 401)
    with live.client("revoked") as c:
        _error(c.get("/v1/memories"), 401)
    with live.client("a_read") as c:
        assert c.get("/v1/memories").status_code == 200
        _error(c.post("/v1/memories", json={"content": "x", "user_id": "u"}), 403, "forbidden")
        _error(c.delete("/v1/memories/mem_x"), 403)


def test_bad_input_is_4xx(live: LiveServer) -> None:
    with live.client() as c:
        h = {"Content-Type": "application/json"}
        _error(c.post("/v1/memories", content=b"{not json", headers=h), 400, "malformed_json")
        _error(c.post("/v1/memories", json={"content": 5, "user_id": "u"}), 422, "invalid")
        _error(c.post("/v1/memories", json={"content": "x", "user_id": "u", "importance": 2}), 422)
        _error(c.post("/v1/memories", json={"content": "   ", "user_id": "u"}), 422)
        _error(c.post("/v1/memories", json={"content": "x", "user_id": "a\x01b"}), 422)
        _error(c.post("/v1/memories", json={"content": "x", "user_id": "u", "ttl": "soon"}), 422)
        _error(c.post("/v1/memories", json={"content": "x", "user_id": "u", "surprise": 1}), 422)
        _error(c.post("/v1/memories", json={"content": "x", "user_id": "u", "ttl": "99999999999d"}), 422)
        _error(c.post("/v1/memories", json=[1, 2]), 422)
        deep = "[" * 5000 + "]" * 5000
        assert c.post("/v1/memories", content=deep.encode(), headers=h).status_code in (400, 422)
        _error(c.post("/v1/memories", content=b"x" * (65 * 1024), headers=h), 413, "payload_too_large")
        _error(c.get("/v1/memories/mem_doesnotexist"), 404, "not_found")
        _error(c.get("/v1/memories/..%2F..%2Fetc%2Fpasswd"), 404)
        _error(c.get("/v1/memories", params={"limit": 0}), 422)
        _error(c.get("/v1/memories", params={"status": "gone"}), 422)
        _error(c.get("/v1/nothing-here"), 404)
        _error(c.put("/v1/memories"), 405)
        assert c.get("/ui/../../etc/passwd").status_code == 404
        assert c.get("/ui/%2e%2e/app.py").status_code == 404


def test_logs_are_json_without_content(live: LiveServer) -> None:
    # needles random log text cannot hold: a bare "7391" matched a timestamp ("ts": 17673913..)
    # or a memory id now and then, and "zebra" is spelled in the ids' base32 (tests/leaks.py)
    secret = "my locker code is 7391-4682 quagga"
    with live.client() as c:
        m = _remember(c, secret, user="logcheck")
        c.post("/v1/recall", json={"query": "locker quagga", "user_id": "logcheck"})
        c.get(f"/v1/memories/{m['id']}")
    lines = list(live.logs.lines)
    requests = [json.loads(line) for line in lines if json.loads(line).get("event") == "request"]
    assert requests and any(r.get("tenant") == "tenant-a" and r["status"] == 201 for r in requests)
    for line in lines:
        assert not leaks(line, ["7391-4682", "quagga", "locker"]), json.loads(line)


def test_openapi_and_ui(live: LiveServer) -> None:
    with live.client(None) as c:
        spec = c.get("/openapi.json").json()
        assert spec["openapi"].startswith("3.") and "/v1/memories" in spec["paths"]
        assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
        page = c.get("/")
        assert page.status_code == 200 and "Remnant inspector" in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
        assert "http" not in page.text.split("<body>")[1].replace("http://www.w3.org", "")  # no CDN
        assert c.get("/ui/app.js").status_code == 200
        assert c.get("/docs").status_code == 200


def test_no_auth_mode_is_local_only(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Without keys: one local tenant, and no DNS-rebinding or cross-site requests."""
    from tests.server.conftest import start_live

    for live in start_live(tmp_path_factory.mktemp("noauth"), auth=False, tenant="solo"):
        with httpx.Client(base_url=live.base) as c:
            m = _remember(c, "local note")
            assert m["tenant"] == "solo"
            assert c.get("/v1/whoami").json()["tenant"] == "solo"
            _error(c.get("/v1/memories", headers={"Host": "evil.example"}), 403, "forbidden")
            _error(c.post(f"/v1/memories/{m['id']}/pin", headers={"Origin": "https://evil.example"}), 403)
            _error(c.post("/v1/sweep", headers={"Origin": "null"}), 403)
            same = c.post(f"/v1/memories/{m['id']}/pin", headers={"Origin": live.base})
            assert same.status_code == 200
            assert c.get("/v1/memories", headers={"Host": "localhost:1234"}).status_code == 200


def test_privacy_redaction_and_vault_scope(live: LiveServer) -> None:
    """Personal data is redacted before storage; only a key with the vault scope gets it back (audited)."""
    with live.client() as c:
        m = _remember(c, "Call Dana on +1 415 555 0134 about the lease", user="dana")
        if "+1 415 555 0134" in m["content"]:
            pytest.skip("the privacy layer is off in this environment (REMNANT_PRIVACY)")
        assert "[PHONE" in m["content"]
        _error(c.post(f"/v1/memories/{m['id']}/rehydrate"), 403, "forbidden")  # admin is not vault
    with live.client("a_vault") as v:
        plain = v.post(f"/v1/memories/{m['id']}/rehydrate").json()
        assert "+1 415 555 0134" in plain["content"]
        assert v.get("/v1/audit", params={"action": "rehydrate"}).json()["items"]
    with live.client("b_all") as b:  # another tenant's vault key: not found
        _error(b.post(f"/v1/memories/{m['id']}/rehydrate"), 404)
    assert not any("555 0134" in line for line in live.logs.lines)


def test_concurrent_writes_with_personal_data(live: LiveServer) -> None:
    """Many clients writing PII at once: no errors, and every memory's vaulted originals come back."""
    from concurrent.futures import ThreadPoolExecutor

    def write(i: int) -> tuple[str, str]:
        phone = f"+1 415 555 {1000 + i:04d}"
        with live.client() as c:
            m = _remember(c, f"Call the plumber on {phone} before Friday", user=f"pii{i % 4}")
            return m["id"], phone

    with ThreadPoolExecutor(max_workers=12) as pool:
        written = list(pool.map(write, range(24)))
    with live.client("a_vault") as v:
        for mid, phone in written:
            content = v.get(f"/v1/memories/{mid}").json()["content"]
            if phone in content:
                pytest.skip("the privacy layer is off in this environment (REMNANT_PRIVACY)")
            assert v.post(f"/v1/memories/{mid}/rehydrate").json()["content"].count(phone) == 1


def test_occurred_at_is_the_time_of_the_event_not_of_learning(live: LiveServer) -> None:
    """An imported memory carries when it happened; it is learned now, so it is not faded on arrival."""
    with live.client() as c:
        m = _remember(c, "Ana ran the Lisbon half marathon", user="occ", occurred_at="2023-05-07T09:00:00Z")
        assert m["occurred_at"].startswith("2023-05-07T09:00:00")
        assert m["created_at"] > m["occurred_at"] and m["remembered"] is True
        got = c.get(f"/v1/memories/{m['id']}").json()
        assert got["occurred_at"] == m["occurred_at"]
        added = c.post(
            "/v1/ingest",
            json={
                "messages": ["I adopted a cat called Miso"],
                "user_id": "occ",
                "occurred_at": "2024-02-01T10:00:00Z",
            },
        )
        assert added.status_code == 201, added.text
        episode = c.get("/v1/memories", params={"user_id": "occ", "kind": "episode"}).json()["items"]
        assert any(e["occurred_at"] and e["occurred_at"].startswith("2024-02-01") for e in episode), episode
        _error(
            c.post("/v1/memories", json={"content": "x", "user_id": "occ", "occurred_at": "yesterday-ish"}),
            422,
        )


@pytest.mark.slow
def test_concurrent_recalls_each_get_their_own_users_memories(live: LiveServer) -> None:
    """Requests answered together (their texts embedded in one model call) get their own answers."""
    from concurrent.futures import ThreadPoolExecutor

    animals = ["quokka", "narwhal", "axolotl", "pangolin", "okapi", "tapir", "ibis", "lemur"]
    with live.client() as c:
        for i, animal in enumerate(animals):
            _remember(c, f"My favourite animal is the {animal}", user=f"zoo{i}")

    def ask(i: int) -> tuple[int, list[str]]:
        with live.client() as c:
            r = c.post(
                "/v1/recall", json={"query": f"favourite animal {animals[i % 8]}", "user_id": f"zoo{i % 8}"}
            )
            assert r.status_code == 200, r.text
            return i, [h["memory"]["content"] for h in r.json()["hits"]]

    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(ask, range(32)))
    for i, contents in answers:
        assert contents == [f"My favourite animal is the {animals[i % 8]}"]


def test_a_key_revoked_while_cached_is_refused_at_once(live: LiveServer) -> None:
    keys = live.app.state.keys  # type: ignore[attr-defined]
    new = keys.create("tenant-a", ["read"], "short-lived")
    headers = {"Authorization": f"Bearer {new.secret}"}
    with httpx.Client(base_url=live.base, headers=headers, timeout=30) as c:
        assert c.get("/v1/memories").status_code == 200
        assert c.get("/v1/memories").status_code == 200  # answered from the key cache
        keys.revoke(new.key.key_id)
        _error(c.get("/v1/memories"), 401, "unauthorized")


def test_security_headers_on_answers_and_errors(live: LiveServer) -> None:
    with live.client() as c:
        for r in (c.get("/v1/memories"), c.get("/v1/memories/mem_nope"), c.get("/healthz")):
            assert r.headers["X-Content-Type-Options"] == "nosniff"
            assert r.headers["Referrer-Policy"] == "no-referrer"
    with live.client(None) as c:
        assert c.get("/v1/memories").headers["X-Content-Type-Options"] == "nosniff"


def test_a_repeat_answers_with_the_memory_it_reinforced(live: LiveServer) -> None:
    """REST: the same text again returns the existing memory, marked deduplicated, not a copy."""
    with live.client() as c:
        first = _remember(c, "I'm training for the Berlin marathon.", user="rest-dup")
        assert first["deduplicated"] is False
        again = _remember(c, "i'm training for the Berlin marathon", user="rest-dup")
        assert again["id"] == first["id"] and again["deduplicated"] is True
        assert again["stability"] > first["stability"]
        listed = c.get("/v1/memories", params={"user_id": "rest-dup"}).json()["items"]
        assert [m["id"] for m in listed] == [first["id"]] and listed[0]["deduplicated"] is False
        added = c.post(
            "/v1/ingest", json={"messages": ["I keep bees.", "I keep bees!"], "user_id": "rest-dup"}
        )
        assert added.status_code == 201, added.text
        body = added.json()
        assert body["episodes"][0]["id"] == body["episodes"][1]["id"] == body["duplicates"][0]
        assert body["episodes"][1]["deduplicated"] is True
