"""docs/server.md's curl block runs against a real server on loopback and prints what the doc says."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def _block(marker: str) -> tuple[str, str]:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(
        rf"<!-- runs-in-tests: {marker} -->\n```bash\n(.*?)```\n\nprints\n\n```text\n(.*?)```", text, re.S
    )
    assert found, f"no runnable {marker} block in docs/server.md"
    return found.group(1), found.group(2)


def test_the_curl_examples_run_as_documented(live: LiveServer) -> None:
    if not (shutil.which("curl") and shutil.which("jq")):
        pytest.skip("curl and jq are needed")
    script, expected = _block("curl")
    env = {"PATH": "/usr/bin:/bin", "URL": live.base, "H": f"Authorization: Bearer {live.keys['a_all']}"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
