"""The TypeScript client (clients/typescript): its OpenAPI copy is fresh, and its build (types
generated from that document + the facade, type-checked by tsc) and node tests pass against a real
server the node test starts (``python -m remnant serve`` on a free loopback port)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from remnant.server.app import openapi_document

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"


def test_the_committed_openapi_document_is_fresh() -> None:
    committed = json.loads((TS / "openapi.json").read_text(encoding="utf-8"))
    assert committed == openapi_document(), (
        "clients/typescript/openapi.json is stale: run remnant openapi -o clients/typescript/openapi.json"
    )


@pytest.mark.slow
def test_the_live_server_serves_the_same_document(live: object) -> None:
    import httpx

    base = live.base  # type: ignore[attr-defined]
    assert httpx.get(f"{base}/openapi.json").json() == openapi_document()


@pytest.mark.slow
def test_typescript_client_builds_and_passes_against_a_real_server() -> None:
    npm = shutil.which("npm")
    if npm is None or not (TS / "node_modules").is_dir():
        pytest.skip("node/npm or clients/typescript/node_modules missing (scripts/bootstrap installs them)")
    env = {**os.environ, "REMNANT_PYTHON": sys.executable, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [npm, "test", "--silent"], cwd=TS, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "fail 0" in done.stdout
