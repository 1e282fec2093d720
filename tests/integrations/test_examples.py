"""The integration examples run offline, exactly as their READMEs say, and print what they promise."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_readme_command(example: str) -> str:
    readme = (ROOT / "examples" / example / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if line.startswith("PYTHONPATH=src python "))
    env_part, *argv = shlex.split(command)
    name, value = env_part.split("=", 1)
    assert argv[0] == "python"
    out = subprocess.run(
        [sys.executable, *argv[1:]],
        cwd=ROOT,
        env={**os.environ, name: str(ROOT / value), "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return out.stdout


def test_langgraph_example() -> None:
    pytest.importorskip("langgraph.graph")
    out = run_readme_command("langgraph")
    assert "day 7  ana: Which city do I live in?\n        bot: From memory: User lives in Porto." in out
    assert "store.get city: Porto" in out
    assert "store.get phone_number: None" in out
    assert "city history: Lisbon -> Porto" in out
    assert "namespaces: [('memories', 'ana')]" in out
    assert "audit: hide, supersede" in out
    assert "912" not in out.split("day 6")[1]  # the number is never said back after the request


def test_llamaindex_example() -> None:
    pytest.importorskip("llama_index.core.memory")
    out = run_readme_command("llamaindex")
    city = out.split("ana asks: Which city do I live in?")[1].split("new session")[0]
    assert "- User lives in Porto" in city and "Lisbon" not in city
    phone = out.split("ana asks: What is my phone number?")[1].split("new session")[0]
    assert "912" not in phone and "phone" not in phone
    assert "- User's favourite color: green" in out
    assert "city history: User lives in Lisbon -> User lives in Porto" in out
    assert "audit: forget_part, forget_request, purge, supersede" in out  # personal data is purged
