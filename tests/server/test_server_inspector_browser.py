"""The inspector's recall box and tenant overview in a real headless Chromium, at desktop and phone width.

For each viewport (1280x800, 390x844 and 360x740, the phones as touch devices honouring the
page's viewport meta): the overview draws its status-over-time and retention charts, the recall box shows
hits with their score parts and reinforces nothing, the user view and audit trail read naturally,
and no page is wider than the screen (``scrollWidth <= innerWidth``). Screenshots go to
``artifacts/``; with ``REMNANT_DOCS_SCREENSHOTS=1`` also to ``docs/img/`` (the committed ones).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from tests.server.test_server_browser import ARGS, CHROMIUM, seed

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

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
DOCS_IMG = ROOT / "docs" / "img"
VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "phone-360": {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True},
}
DOCS = ("desktop", "phone")  # the screenshots docs/server.md shows
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    from tests.server.conftest import start_live

    clock = ManualClock(datetime(2026, 10, 1, 9, 0, tzinfo=UTC))
    for live in start_live(tmp_path_factory.mktemp("inspector"), clock=clock):
        with live.client("a_all") as c:
            ids = seed(c, clock)
            # eight days on, the locker code has expired: purged (what was said to expire is kept nowhere)
            clock.advance(days=8)
            assert c.post("/v1/sweep", json={}).status_code == 200
            hide = c.post(f"/v1/memories/{ids['bug']}/hide", json={"reason": "fixed"})
            assert hide.status_code == 200
        yield live, ids


def shot(page: Any, name: str, *, docs: bool = True) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("document.getElementById('toast').className = 'toast'")
    page.wait_for_timeout(250)  # the toast's fade-out
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    if docs and os.environ.get("REMNANT_DOCS_SCREENSHOTS") == "1":
        shutil.copyfile(path, DOCS_IMG / name)


def no_overflow(page: Any, where: str) -> None:
    over = page.evaluate(OVERFLOW)
    assert over <= 0, f"{where}: the page is {over}px wider than the viewport"


@pytest.mark.parametrize("device", list(VIEWPORTS))
def test_recall_box_and_overview(seeded: tuple[LiveServer, dict[str, str]], device: str) -> None:
    live, ids = seeded
    with live.client("a_all") as c:
        before = c.get(f"/v1/memories/{ids['peanut']}").json()
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(**VIEWPORTS[device]).new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on(
            "console",
            lambda m: problems.append(m.text) if m.type == "error" and "401" not in m.text else None,
        )
        page.goto(live.base + "/")
        page.get_by_placeholder("API key (rk_…)").fill(live.keys["a_all"])
        page.get_by_role("button", name="Use key").click()

        # the overview is the landing page: both charts drawn from the tenant's counts
        sync_api.expect(page.get_by_test_id("overview")).to_be_visible()
        sync_api.expect(page.get_by_test_id("status-layer-active")).to_have_count(1)
        assert page.get_by_test_id("status-layer-superseded").count() == 1
        sync_api.expect(page.get_by_test_id("retention-line")).to_have_count(1)
        legend = page.get_by_test_id("status-legend").inner_text()
        for status in ("active", "fading", "faded", "expired", "superseded", "hidden"):
            assert status in legend
        assert "remembered now" in page.get_by_test_id("overview-chips").inner_text()
        no_overflow(page, "overview")
        shot(page, f"inspector-overview-{device}.png", docs=device in DOCS)

        # the recall box: pick a user, ask, see the hits with their score parts
        page.get_by_test_id("nav-recall").click()
        page.get_by_test_id("recall-user").select_option("ana")
        page.get_by_test_id("recall-query").fill("is Ana allergic to peanuts?")
        page.get_by_test_id("recall-submit").click()
        hits = page.get_by_test_id("recall-hit")
        sync_api.expect(hits.first).to_contain_text("allergic to peanuts")
        assert hits.first.locator("mark").count() >= 1  # the matched terms are marked
        assert page.get_by_test_id("hit-parts").count() == hits.count()
        why = hits.first.get_by_test_id("hit-why").inner_text()
        assert "BM25 #1" in why and "recall threshold" in why
        assert "nothing was reinforced" in page.get_by_test_id("recall-summary").inner_text()
        assert "old town" not in page.get_by_test_id("recall-results").inner_text()
        no_overflow(page, "recall")
        if device.startswith("phone"):
            # the parts table collapsed into label / value rows inside the card
            assert hits.first.locator("thead").is_hidden()
        shot(page, f"inspector-recall-{device}.png", docs=device in DOCS)

        # a user's view and audit trail: times read naturally, nothing wider than the screen
        page.locator("[data-user='ana'] button").click()
        sync_api.expect(page.get_by_test_id("memlist").get_by_test_id("memory-row").first).to_be_visible()
        no_overflow(page, "user view")
        page.get_by_test_id("tab-audit").click()
        audit = page.get_by_test_id("auditlist").inner_text()
        assert "expired" in audit
        assert "0:00:00" not in audit and " ago" in audit
        no_overflow(page, "audit")
        shot(page, f"inspector-audit-{device}.png", docs=False)
        page.get_by_test_id("tab-forgotten").click()
        assert "days ago" in page.get_by_test_id("forgotlist").inner_text()
        no_overflow(page, "forgotten")
        # a memory's detail (its decay curve) fits the screen too
        page.get_by_test_id("tab-remembered").click()
        page.get_by_test_id("memlist").get_by_test_id("memory-row").first.click()
        sync_api.expect(page.get_by_test_id("curve-projected")).to_have_count(1)
        no_overflow(page, "detail")
        shot(page, f"inspector-detail-{device}.png", docs=False)

        # the page's formatter is the one the unit tests check
        assert page.evaluate(
            "RemnantTime.ago('2026-01-01T00:00:00Z', Date.parse('2026-01-04T00:00:00Z'))"
        ) == ("3 days ago")
        assert not problems, problems
        browser.close()

    # the recall box reinforced nothing
    with live.client("a_all") as c:
        after = c.get(f"/v1/memories/{ids['peanut']}").json()
    assert after["access_count"] == before["access_count"]
    assert after["last_accessed_at"] == before["last_accessed_at"]
