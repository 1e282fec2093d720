"""The OpenAI Agents and CrewAI examples run as their READMEs say, offline, and print what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str, tmp_path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, f"examples/{name}/app.py", "--db", str(tmp_path / "m.db")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=True,
    ).stdout


@pytest.mark.slow
def test_the_openai_agents_example(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    out = run_example("openai_agents", tmp_path)
    # the session's ingest extracts the city; the model's remember call restates it, adding no version
    assert "agent: I remember: User lives in Paris" in out
    assert "superseded: User lives in Berlin\n  active: User lives in Paris\n" in out
    assert "user: What is my phone number?\nagent: I don't know that." in out
    assert "phone in history: False" in out


def test_the_crewai_example(tmp_path: Path) -> None:
    pytest.importorskip("crewai")
    out = run_example("crewai", tmp_path)
    assert "where does Ana live? -> Ana lives in Paris now" in out
    assert "superseded: Ana lives in Berlin\n  active: Ana lives in Paris now" in out
    assert "forgot 1 contact record" in out
    assert "Ana's phone? -> nothing" in out
