"""The README's Python example runs as written, in a fresh interpreter with only the package on the
path (as from a fresh clone), and prints what its comments claim. Every other claim in the docs is
checked by tests/test_doc_snippets.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_the_first_python_example_prints_what_it_claims(tmp_path: Path) -> None:
    block = _python_blocks()[0]
    # printed claims: "# → …" after a print, or on a comment line of its own (a further line)
    claimed = re.findall(r"^(?:.*print\(.*\)|\s*)\s*#\s*→\s*(.+)$", block, re.M)
    assert claimed, "the example claims an output in a comment after its print"
    run = subprocess.run(
        [sys.executable, "-c", block],
        cwd=tmp_path,  # memories.db lands in a scratch folder
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert run.stdout.splitlines()[: len(claimed)] == [c.strip() for c in claimed]


def test_the_conversation_example_runs(tmp_path: Path) -> None:
    block = _python_blocks()[1]
    subprocess.run(
        [sys.executable, "-c", block],
        cwd=tmp_path,
        env={
            "PYTHONPATH": str(ROOT / "src"),
            "PATH": "/usr/bin:/bin",
            "HF_HUB_OFFLINE": "1",
            "REMNANT_EMBEDDER": "static",
            "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "",
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
