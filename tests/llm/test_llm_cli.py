"""`remnant chat`, `remnant kb` and `remnant bench assistant` as real subprocesses on a real file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def invoke(args: list[str], db: Path, input: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "REMNANT_LLM": "none"}
    return subprocess.run(
        [sys.executable, "-m", "remnant", "--db", str(db), *args],
        capture_output=True,
        text=True,
        env=env,
        input=input,
        timeout=120,
    )


def run(args: list[str], db: Path, input: str | None = None) -> str:
    proc = invoke(args, db, input)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_kb_import_list_search(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    docs = tmp_path / "kb.jsonl"
    docs.write_text(
        "\n".join(
            json.dumps(d)
            for d in (
                {"id": "x200", "content": "X200 battery 10 hours", "version": "1", "valid_to": "2000-01-01"},
                {
                    "id": "x200",
                    "content": "X200 battery 12 hours",
                    "version": "2",
                    "valid_from": "2000-01-01",
                },
            )
        )
    )
    assert "imported 2 document version(s), 0 unchanged" in run(["kb", "import", str(docs)], db)
    assert "imported 0 document version(s), 2 unchanged" in run(["kb", "import", str(docs)], db)
    listing = run(["kb", "list"], db)
    assert "kb:x200@1" in listing and "kb:x200@2" in listing
    found = run(["kb", "search", "X200 battery"], db)
    assert "12 hours" in found and "10 hours" not in found


@pytest.mark.slow
def test_kb_import_bad_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "no id"}\n')
    proc = invoke(["kb", "import", str(bad)], tmp_path / "r.db")
    assert proc.returncode == 2 and "'id' is required" in proc.stderr


@pytest.mark.slow
def test_chat_remembers_across_sessions(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = run(["chat", "--user", "ana"], db, input="I moved to Berlin.\n/memories\n/quit\n")
    assert "Noted: User lives in Berlin." in out and "city" in out
    out = run(["chat", "--user", "ana", "--show-context"], db, input="Which city do you have on file?\n")
    assert "User lives in Berlin" in out  # from the SQLite file, in a new process-level session


@pytest.mark.slow
def test_bench_assistant_short(tmp_path: Path) -> None:
    out_json = tmp_path / "b.json"
    out = run(["bench", "assistant", "--turns", "40", "--json", str(out_json)], tmp_path / "unused.db")
    assert "remnant bench assistant" in out and "prompt tokens per turn" in out
    data = json.loads(out_json.read_text())
    assert data["turns"] == 40 and data["tokens"]["remnant_total"] > 0
