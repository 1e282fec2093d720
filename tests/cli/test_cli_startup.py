"""The CLI starts light: read-only commands import no embedder and no PII detector, and with --url
every routed command goes through a running server without opening a database or loading a model.

Checked with real subprocesses and ``sys.modules`` (what a command imported), never with timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from remnant.engine import Memory

# modules that load (or exist only to load) a model or the PII detector
HEAVY = (
    "remnant.embed.e5",
    "remnant.embed.onnx_minilm",
    "remnant.embed.static",
    "remnant.embed.arctic",
    "remnant.embed.sentence_transformers",
    "remnant.embed.openai_http",
    "remnant.privacy.detector",
    "remnant.privacy.presidio_backend",
    "remnant.retrieval.retriever",
    "onnxruntime",
    "tokenizers",
    "presidio_analyzer",
    "spacy",
)

PROBE = """
import atexit, json, runpy, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "remnant"
runpy.run_module("remnant", run_name="__main__")
"""


def run_cli(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    dump = tmp_path / "modules.json"
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(dump), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=full_env,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout, set(json.loads(dump.read_text()))


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "cli.db"
    mem = Memory(path)
    memory_id = mem.remember("I keep my bike in the blue shed", user_id="ana").id
    mem.close()
    return path, memory_id


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["--version"],
        ["list"],
        ["list", "-u", "ana"],
        ["show", "ID"],
        ["stats"],
        ["audit"],
        ["audit", "verify"],
    ],
)
def test_read_commands_load_no_model_and_no_detector(
    tmp_path: Path, db: tuple[Path, str], command: list[str]
) -> None:
    path, memory_id = db
    args = [memory_id if a == "ID" else a for a in command]
    out, modules = run_cli(tmp_path, "--db", str(path), *args)
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    assert "remnant.bench" not in modules and "remnant.server" not in modules  # plug-ins, other layers
    if command[0] == "list":
        assert "blue shed" in out


def test_version_imports_neither_the_engine_nor_numpy(tmp_path: Path) -> None:
    out, modules = run_cli(tmp_path, "--version")
    assert "version" in out
    assert "numpy" not in modules and "remnant.engine" not in modules


@pytest.mark.slow
def test_commands_go_through_a_running_server_without_loading_anything(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from tests.server.conftest import start_live

    for live in start_live(tmp_path, clock=None):
        env = {"REMNANT_URL": live.base, "REMNANT_API_KEY": live.keys["a_all"]}
        out, modules = run_cli(
            tmp_path, "remember", "my locker code is at the front desk", "-u", "ana", "--json", env=env
        )
        memory_id = json.loads(out)["id"]
        # neither a model nor the database is opened here: the server did the work
        assert not modules & set(HEAVY) and "remnant.store.sqlite" not in modules
        out, modules = run_cli(tmp_path, "recall", "locker", "-u", "ana", "--json", env=env)
        assert [h["memory"]["id"] for h in json.loads(out)["hits"]] == [memory_id]
        assert not modules & set(HEAVY) and "remnant.store.sqlite" not in modules
        out, _ = run_cli(tmp_path, "list", "-u", "ana", env=env)
        assert memory_id in out and "locker code" in out
        out, _ = run_cli(tmp_path, "show", memory_id, "--json", env=env)
        assert json.loads(out)["content"] == "my locker code is at the front desk"
        out, _ = run_cli(tmp_path, "stats", "--json", env=env)
        assert json.loads(out)["total"] == 1
        out, _ = run_cli(tmp_path, "audit", "--json", env=env)
        assert isinstance(json.loads(out), list)
        # the server's answer to a bad request is the CLI's error, not a traceback
        dump = tmp_path / "m.json"
        bad = subprocess.run(
            [sys.executable, "-c", PROBE, str(dump), "show", "mem_nope"],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, **env},
            check=False,
        )
        assert bad.returncode == 1 and "404" in bad.stderr and "Traceback" not in bad.stderr
