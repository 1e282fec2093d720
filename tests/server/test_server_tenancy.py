"""Tenancy isolation across every route: a key of tenant B never sees or changes tenant A's data.

The route table below must cover every ``/v1`` (and mem0's ``/v2``, ``/v3``) route of the app (checked), so a new route without
an isolation case fails this file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx
import pytest

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer

VICTIM = "victim"
SECRET = "the vault combination is 31-7-22 marmalade"


def _no_trace(body: Any, victim_id: str) -> None:
    text = str(body)
    assert victim_id not in text and "marmalade" not in text and "31-7-22" not in text


Case = Callable[[httpx.Client, str], None]


def _404(method: str, path: str, body: dict[str, Any] | None = None) -> Case:
    def case(c: httpx.Client, mid: str) -> None:
        r = c.request(method, path.format(memory_id=mid), json=body)
        assert r.status_code == 404, r.text
        assert r.json()["error"]["code"] == "not_found"

    return case


def _list(c: httpx.Client, mid: str) -> None:
    for params in (
        {"user_id": VICTIM},
        {},
        {"status": ["hidden", "active", "faded", "expired", "superseded"]},
    ):
        body = c.get("/v1/memories", params=params).json()
        _no_trace(body, mid)
    assert c.get("/v1/memories", params={"user_id": VICTIM}).json()["total"] == 0


def _create(c: httpx.Client, mid: str) -> None:
    r = c.post("/v1/memories", json={"content": "b's own note", "user_id": VICTIM, "key": "combo"})
    assert r.status_code == 201 and r.json()["tenant"] == "tenant-b"


def _recall(c: httpx.Client, mid: str) -> None:
    body = c.post("/v1/recall", json={"query": "vault combination marmalade", "user_id": VICTIM}).json()
    assert body["hits"] == [] and body["faded"] == []
    body = c.post(
        "/v1/recall", json={"query": "vault combination", "user_id": VICTIM, "include_faded": True}
    ).json()
    _no_trace(body, mid)


def _forget(c: httpx.Client, mid: str) -> None:
    for dry in (True, False):
        r = c.post("/v1/forget", json={"request": mid, "dry_run": dry, "hard": True, "confirm": True})
        assert r.status_code == 404, r.text
    r = c.post("/v1/forget", json={"request": "forget the vault combination", "user_id": VICTIM})
    assert r.status_code in (200, 404, 409, 422, 501), r.text
    _no_trace(r.json(), mid)


def _erase(c: httpx.Client, mid: str) -> None:
    own = c.get("/v1/memories", params={"user_id": VICTIM}).json()["total"]  # B's own, if any
    report = c.post("/v1/erasure", json={"user_id": VICTIM, "confirm": True}).json()
    assert report["tenant"] == "tenant-b" and report["removed_total"] == own
    _no_trace(report, mid)


def _sweep(c: httpx.Client, mid: str) -> None:
    _no_trace(c.post("/v1/sweep", json={"dry_run": False}).json(), mid)


def _audit(c: httpx.Client, mid: str) -> None:
    for params in ({}, {"user_id": VICTIM}, {"action": "hide"}):
        body = c.get("/v1/audit", params=params).json()
        _no_trace(body, mid)
        assert all(e["tenant"] == "tenant-b" for e in body["items"])


def _verify(c: httpx.Client, mid: str) -> None:
    assert c.get("/v1/audit/verify").json()["ok"] is True


def _anchor(c: httpx.Client, mid: str) -> None:
    body = c.get("/v1/audit/anchor").json()
    assert list(body["tenants"]) == ["tenant-b"]
    _no_trace(body, mid)


def _stats(c: httpx.Client, mid: str) -> None:
    body = c.get("/v1/stats", params={"user_id": VICTIM}).json()
    assert body["tenant"] == "tenant-b" and body.get("remembered_now", 0) <= 1
    assert c.get("/v1/stats").json()["tenant"] == "tenant-b"


def _users(c: httpx.Client, mid: str) -> None:
    users = c.get("/v1/users").json()["items"]
    assert "a-private" not in [u["user_id"] for u in users]
    for u in users:  # every count is B's own
        assert c.get("/v1/memories", params={"user_id": u["user_id"]}).json()["total"] == u["total"]


def _mem0_404(method: str, path: str, body: dict[str, Any] | None = None) -> Case:
    def case(c: httpx.Client, mid: str) -> None:
        r = c.request(method, path.format(memory_id=mid), json=body)
        assert r.status_code == 404, r.text
        assert (
            r.json()["error"]["code"] == "not_found" and "marmalade" not in r.text
        )  # the id is the caller's

    return case


def _mem0_read(method: str, path: str, body: dict[str, Any] | None = None) -> Case:
    def case(c: httpx.Client, mid: str) -> None:
        r = c.request(method, path, json=body, params=None if body else {"user_id": VICTIM})
        assert r.status_code == 200, r.text
        _no_trace(r.json(), mid)

    return case


def _mem0_add(c: httpx.Client, mid: str) -> None:
    for path in ("/v1/memories/", "/v3/memories/add/"):
        r = c.post(path, json={"messages": "b's own turn", "user_id": VICTIM})
        assert r.status_code == 200, r.text
        _no_trace(r.json(), mid)


def _mem0_delete_all(c: httpx.Client, mid: str) -> None:
    assert c.delete("/v1/memories/", params={"user_id": VICTIM}).status_code == 200
    assert c.delete("/v2/entities/user/victim/").status_code == 200


def _mem0_batch(c: httpx.Client, mid: str) -> None:
    body = {"memories": [{"memory_id": mid, "text": "overwrite"}]}
    assert c.put("/v1/batch/", json=body).status_code == 404
    assert c.request("DELETE", "/v1/batch/", json=body).status_code == 404


def _mem0_event(c: httpx.Client, mid: str) -> None:
    assert c.get("/v1/event/00000000-0000-0000-0000-000000000000/").status_code == 404


def _inspector_recall(c: httpx.Client, mid: str) -> None:
    body = c.post("/v1/inspector/recall", json={"query": "vault combination", "user_id": VICTIM})
    assert body.status_code == 200, body.text
    assert body.json()["hits"] == [] and body.json()["faded"] == []
    _no_trace(body.json(), mid)


def _inspector_overview(c: httpx.Client, mid: str) -> None:
    for params in ({}, {"user_id": VICTIM}):
        body = c.get("/v1/inspector/overview", params=params).json()
        assert body["tenant"] == "tenant-b"
        # every count is B's own
        assert body["by_status"] == c.get("/v1/stats", params=params).json()["by_status"]
        last = body["history"][-1]
        assert sum(v for k, v in last.items() if k != "at") == sum(body["by_status"].values())


def _batch(c: httpx.Client, mid: str) -> None:
    items = [{"content": "b's own batch note", "user_id": VICTIM, "key": "combo"}]
    r = c.post("/v1/memories/batch", json={"items": items}, headers={"Idempotency-Key": "same-in-a-and-b"})
    assert r.status_code == 201 and r.json()["items"][0]["tenant"] == "tenant-b"
    _no_trace(r.json(), mid)


def _ingest(c: httpx.Client, mid: str) -> None:
    r = c.post(
        "/v1/ingest", json={"messages": [{"role": "user", "content": "b's own turn"}], "user_id": VICTIM}
    )
    assert r.status_code == 201, r.text
    _no_trace(r.json(), mid)


def _history(c: httpx.Client, mid: str) -> None:
    _no_trace(c.get("/v1/history", params={"user_id": VICTIM, "key": "combo"}).json(), mid)


def _used(c: httpx.Client, mid: str) -> None:
    r = c.post("/v1/used", json={"ids": [mid]})
    assert r.status_code == 200 and r.json()["items"] == []


def _whoami(c: httpx.Client, mid: str) -> None:
    assert c.get("/v1/whoami").json()["tenant"] == "tenant-b"


ROUTES: dict[tuple[str, str], Case] = {
    ("GET", "/v1/whoami"): _whoami,
    ("POST", "/v1/memories"): _create,
    ("GET", "/v1/memories"): _list,
    ("GET", "/v1/memories/{memory_id}"): _404("GET", "/v1/memories/{memory_id}"),
    ("PATCH", "/v1/memories/{memory_id}"): _404(
        "PATCH", "/v1/memories/{memory_id}", {"content": "overwrite"}
    ),
    ("POST", "/v1/memories/batch"): _batch,
    ("POST", "/v1/ingest"): _ingest,
    ("GET", "/v1/history"): _history,
    ("POST", "/v1/used"): _used,
    ("GET", "/v1/memories/{memory_id}/curve"): _404("GET", "/v1/memories/{memory_id}/curve"),
    ("POST", "/v1/recall"): _recall,
    ("POST", "/v1/memories/{memory_id}/review"): _404("POST", "/v1/memories/{memory_id}/review"),
    ("POST", "/v1/memories/{memory_id}/rehydrate"): _404("POST", "/v1/memories/{memory_id}/rehydrate"),
    ("POST", "/v1/memories/{memory_id}/pin"): _404("POST", "/v1/memories/{memory_id}/pin"),
    ("POST", "/v1/memories/{memory_id}/unpin"): _404("POST", "/v1/memories/{memory_id}/unpin"),
    ("POST", "/v1/memories/{memory_id}/hide"): _404("POST", "/v1/memories/{memory_id}/hide", {"reason": "x"}),
    ("POST", "/v1/memories/{memory_id}/unhide"): _404("POST", "/v1/memories/{memory_id}/unhide"),
    ("DELETE", "/v1/memories/{memory_id}"): _404("DELETE", "/v1/memories/{memory_id}?force=true"),
    ("POST", "/v1/forget"): _forget,
    ("POST", "/v1/erasure"): _erase,
    ("POST", "/v1/sweep"): _sweep,
    ("GET", "/v1/audit"): _audit,
    ("GET", "/v1/audit/verify"): _verify,
    ("GET", "/v1/audit/anchor"): _anchor,
    ("GET", "/v1/stats"): _stats,
    ("GET", "/v1/users"): _users,
    # the inspector's read-only routes (server/inspector.py)
    ("POST", "/v1/inspector/recall"): _inspector_recall,
    ("GET", "/v1/inspector/overview"): _inspector_overview,
    # the mem0-compatible routes (server/mem0.py)
    ("GET", "/v1/ping/"): lambda c, mid: (
        _whoami(c, mid) if c.get("/v1/ping/").json()["org_id"] == "tenant-b" else None
    ),
    ("POST", "/v1/memories/"): _mem0_add,
    ("POST", "/v3/memories/add/"): _mem0_add,
    ("GET", "/v1/event/{event_id}/"): _mem0_event,
    ("POST", "/v1/memories/search/"): _mem0_read(
        "POST", "/v1/memories/search/", {"query": "vault combination", "user_id": VICTIM}
    ),
    ("POST", "/v2/memories/search/"): _mem0_read(
        "POST", "/v2/memories/search/", {"query": "vault combination", "filters": {"user_id": VICTIM}}
    ),
    ("POST", "/v3/memories/search/"): _mem0_read(
        "POST", "/v3/memories/search/", {"query": "vault combination", "filters": {"user_id": VICTIM}}
    ),
    ("GET", "/v1/memories/"): _mem0_read("GET", "/v1/memories/"),
    ("POST", "/v2/memories/"): _mem0_read("POST", "/v2/memories/", {"filters": {"user_id": VICTIM}}),
    ("POST", "/v3/memories/"): _mem0_read("POST", "/v3/memories/", {"filters": {"user_id": VICTIM}}),
    ("GET", "/v1/memories/{memory_id}/"): _mem0_404("GET", "/v1/memories/{memory_id}/"),
    ("PUT", "/v1/memories/{memory_id}/"): _mem0_404(
        "PUT", "/v1/memories/{memory_id}/", {"text": "overwrite"}
    ),
    ("DELETE", "/v1/memories/{memory_id}/"): _mem0_404(
        "DELETE", "/v1/memories/{memory_id}/?delete_linked=true"
    ),
    ("GET", "/v1/memories/{memory_id}/history/"): _mem0_404("GET", "/v1/memories/{memory_id}/history/"),
    ("DELETE", "/v1/memories/"): _mem0_delete_all,
    ("GET", "/v1/entities/"): lambda c, mid: _no_trace(c.get("/v1/entities/").json(), "a-private"),
    ("DELETE", "/v2/entities/{entity_type}/{entity_id}/"): _mem0_delete_all,
    ("PUT", "/v1/batch/"): _mem0_batch,
    ("DELETE", "/v1/batch/"): _mem0_batch,
}


def test_route_table_covers_every_route(live: LiveServer) -> None:
    spec = live.app.openapi()  # type: ignore[attr-defined]
    routes = {
        (method.upper(), path)
        for path, ops in spec["paths"].items()
        if path.startswith(("/v1", "/v2", "/v3"))
        for method in ops
    }
    assert routes == set(ROUTES)


def _snapshot(c: httpx.Client, mid: str) -> dict[str, Any]:
    m = c.get(f"/v1/memories/{mid}").json()
    audit = c.get("/v1/audit", params={"user_id": VICTIM}).json()["items"]
    listing = c.get("/v1/memories", params={"user_id": VICTIM}).json()
    return {
        "memory": {
            k: m[k] for k in ("content", "status", "pinned", "review_count", "stability", "access_count")
        },
        "audit": [e["seq"] for e in audit],
        "total": listing["total"],
    }


@pytest.mark.parametrize("route", sorted(ROUTES), ids=lambda r: f"{r[0]} {r[1]}")
def test_other_tenant_cannot_touch(live: LiveServer, route: tuple[str, str]) -> None:
    with live.client("a_all") as a, live.client("b_all") as b:
        r = a.post(
            "/v1/memories", json={"content": SECRET, "user_id": VICTIM, "key": "combo", "pinned": False}
        )
        assert r.status_code == 201
        mid = r.json()["id"]
        a.post("/v1/memories", json={"content": "only in tenant a", "user_id": "a-private"})
        before = _snapshot(a, mid)
        ROUTES[route](b, mid)
        assert _snapshot(a, mid) == before
        # tenant A still recalls it
        hits = a.post("/v1/recall", json={"query": "vault combination", "user_id": VICTIM, "touch": False})
        assert mid in [h["memory"]["id"] for h in hits.json()["hits"]]
        a.delete(f"/v1/memories/{mid}?force=true")
