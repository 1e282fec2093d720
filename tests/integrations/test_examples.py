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
    """The README's command, as written, with ``.venv/bin/python`` (what ``scripts/bootstrap`` makes)
    standing for this interpreter."""
    readme = (ROOT / "examples" / example / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if line.startswith(".venv/bin/python "))
    argv = shlex.split(command.split("#", 1)[0])
    out = subprocess.run(
        [sys.executable, *argv[1:]],
        cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return out.stdout


def test_every_example_command_uses_the_project_environment() -> None:
    """A bare ``python examples/…`` runs whatever Python is on PATH (ModuleNotFoundError: httpx):
    the READMEs name the environment that has the example's dependencies."""
    for readme in sorted((ROOT / "examples").glob("*/README.md")):
        text = readme.read_text(encoding="utf-8").splitlines()
        lines = [ln for ln in text if "examples/" in ln and ".py" in ln]
        runs = [ln for ln in lines if ln.split("#")[0].strip().endswith(".py") or " --" in ln.split("#")[0]]
        runs = [ln for ln in runs if not ln.startswith(("`", "-", "|", "[")) and " " in ln.strip()]
        assert runs, readme
        for line in runs:
            assert line.startswith((".venv/bin/python ", ".venv-crewai/bin/python ")), f"{readme}: {line}"


def test_the_mem0_example_says_what_to_run_without_its_dependencies(tmp_path: Path) -> None:
    # a Python without httpx and mem0: the standard library only, no site-packages
    out = subprocess.run(
        [sys.executable, "-S", "-I", str(ROOT / "examples/mem0_switch/run.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1 and "is not installed" in out.stderr and "scripts/bootstrap" in out.stderr


@pytest.mark.slow
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


@pytest.mark.slow
def test_llamaindex_example() -> None:
    pytest.importorskip("llama_index.core.memory")
    out = run_readme_command("llamaindex")
    city = out.split("ana asks: Which city do I live in?")[1].split("new session")[0]
    assert "- User lives in Porto" in city and "Lisbon" not in city
    phone = out.split("ana asks: What is my phone number?")[1].split("new session")[0]
    assert "912" not in phone and "phone" not in phone
    assert "- User's favourite color: green" in out
    assert "city history: User lives in Lisbon -> User lives in Porto" in out
    # personal data is purged; the first turn (name and city) keeps its name, its city marked stale
    assert "audit: forget_part, forget_request, purge, stale, supersede" in out
