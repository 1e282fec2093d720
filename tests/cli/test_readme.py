"""The README's Python example runs as written, in a fresh interpreter with only the package on the
path (as from a fresh clone), and prints what its comments claim. Every other claim in the docs is
checked by tests/test_doc_snippets.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.slow
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


@pytest.mark.slow
def test_scripts_run_starts_the_service_the_readme_names(tmp_path: Path) -> None:
    """The README's first command, as written (with a free port and a scratch database): it answers
    /readyz, stores a memory over REST and recalls it."""
    import os
    import socket
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "REMNANT_DB": str(tmp_path / "remnant.db"), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [str(ROOT / "scripts" / "run"), "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else "scripts/run exited"
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "scripts/run did not become ready in 120 s"
            time.sleep(0.1)  # a refused connection is answered at once: polling often costs nothing
        wrote = httpx.post(
            f"{base}/v1/memories",
            json={"content": "I prefer green tea", "user_id": "ana", "key": "drink"},
            timeout=60,
        )
        assert wrote.status_code == 201, wrote.text
        hits = httpx.post(
            f"{base}/v1/recall", json={"query": "green tea", "user_id": "ana"}, timeout=60
        ).json()
        assert any("green tea" in h["memory"]["content"] for h in hits["hits"]), hits
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
