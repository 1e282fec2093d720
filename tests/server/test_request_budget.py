"""A request's time budget (issue 29): CPU-heavy reading past the budget is given up before
anything is written, with 503 ``time_budget_exceeded``; other requests and the store are untouched.

A real server on loopback with a budget far below what the worst inputs take (0.05 s), so the
test needs no slow machine to trip it; the engine-level test uses a deadline already past.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.server.conftest import LiveServer, start_live

from remnant import Memory
from remnant.core.budget import checkpoint, remaining, time_budget
from remnant.core.errors import BudgetExceeded
from remnant.core.limits import MAX_CONTENT_CHARS

LONG = "I paid " + "一二三四五六七八九十百千万两" * (MAX_CONTENT_CHARS // 15) + " for the car"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("REMNANT_EMBEDDER", "none")
        yield from start_live(
            Path(tmp_path_factory.mktemp("budget")), max_body_bytes=1 << 20, request_budget=0.05
        )


def test_a_request_past_its_budget_answers_503_and_writes_nothing(server: LiveServer) -> None:
    with server.client("a_all", timeout=120) as c:
        before = c.get("/v1/stats", params={"user_id": "eve"}).json()
        for path, body in (
            ("/v1/ingest", {"messages": [LONG] * 3, "user_id": "eve"}),
            ("/v1/memories/", {"messages": [{"role": "user", "content": LONG}] * 3, "user_id": "eve"}),
        ):
            r = c.post(path, json=body)
            assert r.status_code == 503, (path, r.status_code, r.text[:200])
            assert r.json()["error"]["code"] == "time_budget_exceeded"
        assert c.get("/v1/stats", params={"user_id": "eve"}).json() == before
        # small requests fit the budget
        assert (
            c.post("/v1/memories", json={"content": "I drive a Volvo", "user_id": "eve"}).status_code == 201
        )
        assert c.get("/healthz").status_code == 200


def test_a_forget_request_past_its_budget_changes_nothing(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db")
    for i in range(5):
        mem.remember(f"I paid {i}000 dollars for the car", user_id="u")
    with time_budget(1e-9), pytest.raises(BudgetExceeded, match="nothing was changed"):
        mem.forget("forget how much I paid for the car", user_id="u")
    assert mem.count_memories("u") == 5
    assert all(r.status.value == "active" for r in mem.list_memories("u"))
    with time_budget(1e-9), pytest.raises(BudgetExceeded):
        mem.add(["I moved to Paris"], user_id="u")
    assert mem.count_memories("u") == 5


def test_no_budget_outside_a_request() -> None:
    assert remaining() is None
    checkpoint("anything")  # never raises without a budget
    with time_budget(30):
        left = remaining()
        assert left is not None and 0 < left <= 30
    assert remaining() is None
