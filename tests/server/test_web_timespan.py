"""Unit tests of the inspector's one time-span formatter (``web/timespan.js``), run by node.

The browser test checks the page loads this same file; here every case is run without a browser.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from remnant.server.app import web_dir

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

NOW = "2026-10-27T09:00:00Z"
AGO = [  # (then, expected) against NOW
    ("2026-10-27T09:00:00Z", "just now"),
    ("2026-10-27T08:59:20Z", "just now"),
    ("2026-10-27T09:00:30Z", "just now"),
    ("2026-10-27T08:59:00Z", "1 minute ago"),
    ("2026-10-27T08:16:00Z", "44 minutes ago"),
    ("2026-10-27T08:15:00Z", "1 hour ago"),
    ("2026-10-27T07:00:00Z", "2 hours ago"),
    ("2026-10-27T11:00:00Z", "in 2 hours"),
    ("2026-10-26T09:00:00Z", "24 hours ago"),
    ("2026-10-25T21:00:00Z", "2 days ago"),
    ("2026-10-24T09:00:00Z", "3 days ago"),
    ("2026-10-30T09:00:00Z", "in 3 days"),
    ("2026-10-06T09:00:00Z", "3 weeks ago"),
    ("2026-07-27T09:00:00Z", "3 months ago"),
    ("2024-10-27T09:00:00Z", "2 years ago"),
    (None, "–"),
    ("not a time", "–"),
]
DAYS = [
    (7, "7 days"),
    (1, "24 hours"),
    (0.5, "12 hours"),
    (13.4, "13 days"),
    (30, "4 weeks"),
    (None, "never"),
]
LEGACY = [
    ("expired more than 7 days, 0:00:00 ago", "expired more than 7 days ago"),
    ("faded more than 30 days, 0:00:00 ago", "faded more than 30 days ago"),
    ("expired more than 1 day, 12:00:00 ago", "expired more than 1 day 12 hours ago"),
    ("expired more than 2:00:00 ago", "expired more than 2 hours ago"),
    ("strength under the recall threshold 0.52", "strength under the recall threshold 0.52"),
]


def run_js(expr: str) -> object:
    script = f"const T = require({json.dumps(str(web_dir() / 'timespan.js'))}); console.log(JSON.stringify({expr}));"
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=30, check=True)  # type: ignore[list-item]
    return json.loads(out.stdout)


def test_ago() -> None:
    got = run_js(f"{json.dumps([a for a, _ in AGO])}.map((t) => T.ago(t, {json.dumps(NOW)}))")
    assert got == [b for _, b in AGO]


def test_days() -> None:
    assert run_js(f"{json.dumps([a for a, _ in DAYS])}.map(T.days)") == [b for _, b in DAYS]


def test_duration_never_says_zero_or_clock_time() -> None:
    got = run_js("[0, 0.4, 44, 45, 2700, 129600, Infinity].map(T.duration)")
    assert got == ["1 second", "1 second", "44 seconds", "1 minute", "1 hour", "2 days", "forever"]


def test_exact_says_what_python_says() -> None:
    from datetime import timedelta

    from remnant.core.durations import format_duration

    spans = [7 * 86400, 86400, 5400, 86700, 183840, 45, 0, 3600]
    assert run_js(f"{spans}.map(T.exact)") == [format_duration(timedelta(seconds=s)) for s in spans]


def test_legacy_reasons_read_naturally() -> None:
    assert run_js(f"{json.dumps([a for a, _ in LEGACY])}.map(T.naturalText)") == [b for _, b in LEGACY]
