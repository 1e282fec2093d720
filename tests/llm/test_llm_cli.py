"""`remnant chat`, `remnant kb` and `remnant bench assistant` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from remnant.cli import cli


def run(args: list[str], db: Path, input: str | None = None) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], input=input, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


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


def test_kb_import_bad_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "no id"}\n')
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "r.db"), "kb", "import", str(bad)])
    assert result.exit_code == 2 and "'id' is required" in result.output


def test_chat_remembers_across_sessions(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = run(["chat", "--user", "ana"], db, input="I moved to Berlin.\n/memories\n/quit\n")
    assert "Noted: User lives in Berlin." in out and "city" in out
    out = run(["chat", "--user", "ana", "--show-context"], db, input="Which city do you have on file?\n")
    assert "User lives in Berlin" in out  # from the SQLite file, in a new process-level session


def test_bench_assistant_short(tmp_path: Path) -> None:
    out_json = tmp_path / "b.json"
    out = run(["bench", "assistant", "--turns", "40", "--json", str(out_json)], tmp_path / "unused.db")
    assert "remnant bench assistant" in out and "prompt tokens per turn" in out
    data = json.loads(out_json.read_text())
    assert data["turns"] == 40 and data["tokens"]["remnant_total"] > 0
