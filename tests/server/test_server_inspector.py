"""The inspector's routes over real HTTP: an explained recall that reinforces nothing, the overview."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import pairwise
from typing import TYPE_CHECKING

import pytest

from remnant.core.clock import ManualClock

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LiveServer, ManualClock, dict[str, str]]]:
    from tests.server.conftest import start_live

    clock = ManualClock(T0)
    for live in start_live(tmp_path_factory.mktemp("insp"), clock=clock):
        ids: dict[str, str] = {}
        with live.client("a_all") as c:

            def add(name: str, content: str, ids: dict[str, str] = ids, **kw: object) -> None:
                r = c.post("/v1/memories", json={"content": content, "user_id": "ana", **kw})
                assert r.status_code == 201, r.text
                ids[name] = r.json()["id"]

            add("peanut", "Ana is allergic to peanuts", importance=0.9)
            add("home", "Lives in the old town", key="home")
            add("chat", "Asked about train times", kind="episode", importance=0.1)
            add("code", "Gym locker code 4471", ttl="2d")
            clock.advance(days=3)
            add("home2", "Moved to a flat by the sea", key="home")  # supersedes "home"
            add("pin", "Her passport is red", pinned=True)
            assert c.post(f"/v1/memories/{ids['chat']}/hide", json={"reason": "noise"}).status_code == 200
            clock.advance(days=2)
        yield live, clock, ids


def test_explained_recall_is_the_recall_and_reinforces_nothing(served) -> None:
    live, _, ids = served
    with live.client("a_read") as c:  # the read scope is enough
        before = c.get(f"/v1/memories/{ids['peanut']}").json()
        r = c.post("/v1/inspector/recall", json={"query": "allergic to peanuts?", "user_id": "ana"})
        assert r.status_code == 200, r.text
        ex = r.json()
        plain = c.post(
            "/v1/recall",
            json={"query": "allergic to peanuts?", "user_id": "ana", "limit": 10, "touch": False},
        ).json()
        assert [h["memory"]["id"] for h in ex["hits"]] == [h["memory"]["id"] for h in plain["hits"]]
        assert [h["score"] for h in ex["hits"]] == [h["score"] for h in plain["hits"]]
        top = ex["hits"][0]
        assert top["memory"]["id"] == ids["peanut"] and top["rank"] == 1
        assert set(top["matched_terms"]) == {"allergic", "peanuts"}
        assert top["lexical_rank"] == 1 and top["above_threshold"] and top["reinforces"]
        assert ex["threshold"] == pytest.approx(0.52) and ex["retriever"] == "hybrid"
        after = c.get(f"/v1/memories/{ids['peanut']}").json()
        assert after["access_count"] == before["access_count"] == 0
        assert after["strength"] == before["strength"]
        # superseded and hidden memories are not recalled, so not explained
        seen = {
            h["memory"]["id"]
            for h in c.post(
                "/v1/inspector/recall", json={"query": "old town train times", "user_id": "ana"}
            ).json()["hits"]
        }
        assert ids["home"] not in seen and ids["chat"] not in seen


@pytest.mark.parametrize(
    "body",
    [
        {"query": "x", "user_id": ""},
        {"query": "x" * 4001, "user_id": "ana"},
        {"query": "x", "user_id": "ana", "limit": 0},
        {"query": "x", "user_id": "ana", "touch": True},  # not an option here: it never touches
        {"query": "x", "user_id": "ana", "kinds": ["nonsense"]},
        {"user_id": "ana"},
    ],
)
def test_explained_recall_rejects_bad_input(served, body) -> None:
    live, _, _ = served
    with live.client("a_read") as c:
        r = c.post("/v1/inspector/recall", json=body)
        assert r.status_code == 422, r.text
        assert r.json()["error"]["code"]


def test_inspector_routes_need_a_key(served) -> None:
    live, _, _ = served
    with live.client(None) as c:
        assert c.get("/v1/inspector/overview").status_code == 401
        assert c.post("/v1/inspector/recall", json={"query": "x", "user_id": "ana"}).status_code == 401


def test_overview_counts(served) -> None:
    live, _, _ = served
    with live.client("a_read") as c:
        r = c.get("/v1/inspector/overview", params={"days": 6, "points": 7, "ahead": 30})
        assert r.status_code == 200, r.text
        ov = r.json()
        assert ov["tenant"] == "tenant-a" and ov["user_id"] is None and ov["clock_mode"] == "wall"
        stats = c.get("/v1/stats").json()
        assert ov["by_status"] == stats["by_status"]
        first, now = ov["history"][0], ov["history"][-1]
        assert first == {
            "at": first["at"],
            **dict.fromkeys(("active", "fading", "faded", "expired", "superseded", "hidden"), 0),
        }  # six days ago nothing existed yet
        # now: the locker code expired (not swept), "home" superseded, the episode hidden
        assert now["expired"] == 1 and now["superseded"] == 1 and now["hidden"] == 1
        assert sum(v for k, v in now.items() if k != "at") == stats["total"]
        # a day in (history sample 2): the four first memories, all still live
        day1 = ov["history"][2]
        assert day1["superseded"] == day1["hidden"] == day1["expired"] == 0
        assert sum(v for k, v in day1.items() if k != "at") == 4
        # retention: starts at everything remembered now, never rises, the pinned one stays
        ret = ov["retention"]
        assert ret[0]["day"] == 0 and ret[0]["share"] == 1.0 and ret[0]["remembered"] == ov["remembered_now"]
        assert all(a["remembered"] >= b["remembered"] for a, b in pairwise(ret))
        assert ret[-1]["remembered"] >= ov["pinned"] == 1
        assert ov["remembered_now"] == c.get("/v1/stats", params={"user_id": "ana"}).json()["remembered_now"]
        # one user only
        mine = c.get("/v1/inspector/overview", params={"user_id": "nobody"}).json()
        assert mine["remembered_now"] == 0 and mine["by_status"] == {}


@pytest.mark.parametrize(
    "params",
    [{"days": 0}, {"points": 1}, {"points": 500}, {"ahead": -1}, {"fading_days": 0}, {"user_id": ""}],
)
def test_overview_rejects_bad_input(served, params) -> None:
    live, _, _ = served
    with live.client("a_read") as c:
        assert c.get("/v1/inspector/overview", params=params).status_code == 422


def test_openapi_types_the_inspector(served) -> None:
    live, _, _ = served
    spec = live.app.openapi()  # type: ignore[attr-defined]
    for path, method, model in (
        ("/v1/inspector/recall", "post", "Explanation"),
        ("/v1/inspector/overview", "get", "Overview"),
    ):
        schema = spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema == {"$ref": f"#/components/schemas/{model}"}
    hit = spec["components"]["schemas"]["ExplainedHit"]["properties"]
    assert {"lexical_rank", "vector_similarity", "fused", "signal_factor", "matched_terms"} <= set(hit)
