"""The web inspector in a real headless Chromium (Debian's, driven by Playwright).

Loads a user, sees the memories with strength bars, opens a decay curve, pins one and purges one
(through the confirmation dialog). Saves ``artifacts/inspector.png``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

CHROMIUM = os.environ.get("REMNANT_CHROMIUM", "/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    ),
]
sync_api = pytest.importorskip("playwright.sync_api")

from remnant.core.clock import ManualClock  # noqa: E402

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


def seed(c: httpx.Client, clock: ManualClock) -> dict[str, str]:
    """Six weeks of one user's life, so curves have a past and some memories faded or were replaced."""
    ids: dict[str, str] = {}

    def remember(name: str, content: str, **kw: Any) -> None:
        r = c.post("/v1/memories", json={"content": content, "user_id": "ana", **kw})
        assert r.status_code == 201, r.text
        ids[name] = r.json()["id"]

    remember("diet", "Ana is vegetarian", kind="preference", key="diet", importance=0.7)
    remember("peanut", "Ana is allergic to peanuts", kind="fact", importance=0.95)
    remember("city", "Lives in the old town, near the river", kind="fact", key="home", importance=0.6)
    remember("chat", "Asked about train times for the weekend", kind="episode", importance=0.2)
    remember("bug", "Her laptop will not wake from sleep", kind="open_issue", importance=0.5)
    clock.advance(days=9)
    c.post(f"/v1/memories/{ids['peanut']}/review")
    remember("tea", "Prefers green tea in the afternoon", kind="preference", importance=0.4)
    clock.advance(days=12)
    remember("city2", "Moved to a flat by the sea", kind="fact", key="home", importance=0.6)
    remember("phone", "Her phone number is +351 912 345 678", kind="fact", key="phone", importance=0.6)
    remember("code", "Gym locker code 4471", kind="fact", importance=0.5, ttl="3d")
    c.post(f"/v1/memories/{ids['diet']}/review")
    clock.advance(days=5)
    c.post("/v1/sweep", json={})
    remember("trip", "Planning a hiking trip in April", kind="open_issue", importance=0.6)
    c.post(f"/v1/memories/{ids['tea']}/review")
    remember("bob", "Colleague Bob prefers email over calls", kind="fact", user_id="bob", importance=0.5)
    return ids


@pytest.fixture(scope="module")
def browser_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, ManualClock]]:
    from tests.server.conftest import start_live

    clock = ManualClock(datetime(2026, 10, 1, 9, 0, tzinfo=UTC))
    yield from ((live, clock) for live in start_live(tmp_path_factory.mktemp("ui"), clock=clock))


def test_inspector(browser_server: tuple[LiveServer, ManualClock]) -> None:
    live, clock = browser_server
    with live.client("a_all") as c:
        ids = seed(c, clock)
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 780})
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        # the first call has no key yet: its 401 is expected (it is what shows the key form)
        page.on(
            "console",
            lambda m: problems.append(m.text) if m.type == "error" and "401" not in m.text else None,
        )
        page.goto(live.base + "/")
        # the key form appears (auth is on); give it the key
        page.get_by_placeholder("API key (rk_…)").fill(live.keys["a_all"])
        page.get_by_role("button", name="Use key").click()
        page.locator("[data-user='ana'] button").click()
        rows = page.get_by_test_id("memlist").get_by_test_id("memory-row")
        sync_api.expect(rows.first).to_be_visible()
        texts = rows.all_inner_texts()
        assert any("allergic to peanuts" in t for t in texts)
        assert not any("old town" in t for t in texts)  # superseded
        assert page.locator(".memlist .bar .fill").count() == rows.count()

        # open the decay curve of the reviewed memory
        rows.filter(has_text="allergic to peanuts").click()
        sync_api.expect(page.get_by_test_id("detail")).to_be_visible()
        sync_api.expect(page.get_by_test_id("curve-projected")).to_have_count(1)
        assert page.get_by_test_id("curve-past").count() == 1
        assert page.get_by_test_id("threshold-line").count() == 1
        assert page.get_by_test_id("event-review").count() == 1

        # pin it
        page.get_by_test_id("btn-pin").click()
        sync_api.expect(page.get_by_test_id("btn-pin")).to_have_text("Unpin")
        sync_api.expect(
            rows.filter(has_text="allergic to peanuts").get_by_test_id("pinned-badge")
        ).to_be_visible()

        # the forgotten tab shows what was superseded or expired, and why
        page.get_by_test_id("tab-forgotten").click()
        page.screenshot(path=str(ARTIFACTS / "inspector-forgotten.png"))
        gone = page.get_by_test_id("forgotlist").inner_text()
        assert "old town" in gone and "superseded" in gone
        page.get_by_test_id("tab-audit").click()
        page.screenshot(path=str(ARTIFACTS / "inspector-audit.png"))
        assert "superseded" in page.get_by_test_id("auditlist").inner_text()
        page.get_by_test_id("tab-remembered").click()

        # purge one, through the confirmation dialog (cancel first: nothing happens)
        rows.filter(has_text="hiking trip").click()
        page.get_by_test_id("btn-purge").click()
        page.get_by_test_id("confirm-cancel").click()
        assert c_get(live, ids["trip"]) == 200
        rows.filter(has_text="hiking trip").click()
        page.get_by_test_id("btn-purge").click()
        page.get_by_test_id("confirm-ok").click()
        sync_api.expect(rows.filter(has_text="hiking trip")).to_have_count(0)
        assert c_get(live, ids["trip"]) == 404

        # the screenshot for the artifact and the docs: a curve with a past and a review
        rows.filter(has_text="vegetarian").click()
        sync_api.expect(page.get_by_test_id("curve-projected")).to_have_count(1)
        page.evaluate("document.getElementById('toast').className = 'toast'")
        page.wait_for_timeout(300)
        page.screenshot(path=str(ARTIFACTS / "inspector.png"))
        assert not problems, problems
        browser.close()


def c_get(live: LiveServer, mid: str) -> int:
    with live.client("a_all") as c:
        return c.get(f"/v1/memories/{mid}").status_code
