"""An optional part used without its extra: one error (``MissingExtraError``, a ``RemnantError``)
that names the extra to install, and nothing written first. Each case runs in a fresh interpreter
in which the extra's package cannot be imported (``sys.modules[name] = None``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _python(code: str, cwd: Path, *blocked: str) -> subprocess.CompletedProcess[str]:
    prelude = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMNANT_")}
    env["PYTHONPATH"] = str(SRC)
    return subprocess.run(
        [sys.executable, "-c", prelude + code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_serve_without_the_server_extra_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    code = (
        "from remnant.cli import main\nsys.argv = ['remnant', '--db', 'm.db', 'serve', '--no-auth']\nmain()"
    )
    got = _python(code, tmp_path, "fastapi")
    assert got.returncode == 1, got.stderr
    lines = got.stderr.strip().splitlines()
    assert lines == [
        "Error: remnant serve needs the 'server' extra: pip install 'remnant[server]' (missing: fastapi)"
    ], got.stderr
    assert list(tmp_path.iterdir()) == []


def test_url_without_httpx_names_the_client_extra(tmp_path: Path) -> None:
    code = (
        "from remnant.cli import main\n"
        "sys.argv = ['remnant', '--url', 'http://127.0.0.1:9', '--db', 'm.db', 'forget', 'mem_x']\nmain()"
    )
    got = _python(code, tmp_path, "httpx")
    assert got.returncode == 1 and "pip install 'remnant[client]'" in got.stderr, got.stderr
    assert "Traceback" not in got.stderr and list(tmp_path.iterdir()) == []


CASES = {
    "client": ("httpx", "import remnant\nremnant.Client"),
    "pg": ("psycopg", "from remnant.store import open_store\nopen_store('postgresql://u@127.0.0.1:9/db')"),
    "llm": ("httpx", "import remnant.llm.openai_compat"),
    "langgraph": ("langgraph", "import remnant.integrations.langgraph"),
    "llamaindex": ("llama_index", "import remnant.integrations.llamaindex"),
    "openai-agents": ("agents", "import remnant.integrations.openai_agents"),
    "crewai": ("crewai", "import remnant.integrations.crewai"),
}


@pytest.mark.parametrize("extra", sorted(CASES))
def test_each_missing_extra_is_named(tmp_path: Path, extra: str) -> None:
    blocked, code = CASES[extra]
    probe = (
        "from remnant.core.errors import MissingExtraError\n"
        f"try:\n    exec({code!r})\n"
        "except MissingExtraError as exc:\n    print('EXTRA', exc.extra, '|', exc)\n"
    )
    got = _python(probe, tmp_path, blocked)
    assert got.returncode == 0, got.stderr
    assert f"EXTRA {extra} |" in got.stdout and f"pip install 'remnant[{extra}]'" in got.stdout, got.stdout
    assert list(tmp_path.iterdir()) == []


def test_memory_without_the_vault_packages_writes_no_database_and_no_key(tmp_path: Path) -> None:
    code = (
        "from remnant import Memory, RemnantError\n"
        "try:\n    Memory('m.db')\nexcept RemnantError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    got = _python(code, tmp_path, "cryptography")
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("MissingExtraError ") and "cryptography" in got.stdout, got.stdout
    assert list(tmp_path.iterdir()) == []  # no m.db, no m.db.vault-key, no m.db.audit-key
    # switched off by name, the same install stores text as given
    got = _python(
        "from remnant import Memory\nMemory('m.db', privacy=False).close()", tmp_path, "cryptography"
    )
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "m.db").exists() and not (tmp_path / "m.db.vault-key").exists()
