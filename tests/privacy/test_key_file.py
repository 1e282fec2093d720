"""The vault key generated beside a SQLite database: several servers opening a fresh database at
once must end up with one key, never a half-written file or a second key that orphans the vault."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from remnant.config import _create_key_file, build_memory
from remnant.privacy.keys import generate_key
from remnant.store.base import MemoryFilter

ROOT = Path(__file__).resolve().parents[2]


def test_racing_creators_leave_one_complete_key(tmp_path: Path) -> None:
    key_file = tmp_path / "r.db.vault-key"
    keys = [generate_key() for _ in range(8)]
    barrier = threading.Barrier(len(keys))
    errors: list[BaseException] = []

    def create(key: str) -> None:
        try:
            barrier.wait()
            _create_key_file(key_file, key)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=create, args=(k,)) for k in keys]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    written = [line for line in key_file.read_text().splitlines() if not line.startswith("#")]
    assert len(written) == 1 and written[0] in keys
    assert key_file.stat().st_mode & 0o077 == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db.vault-key"]  # no temporary files left


_WRITER = """
import sys
from remnant.config import build_memory
mem = build_memory(sys.argv[1])
mem.remember(f"write to worker{sys.argv[2]}@example.com", user_id="ana")
mem.close()
"""


@pytest.mark.slow
def test_servers_opening_a_fresh_database_together_share_one_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REMNANT_VAULT_KEY", raising=False)
    monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
    monkeypatch.setenv("REMNANT_EMBEDDER", "none")
    monkeypatch.setenv("REMNANT_REDACT_PRESIDIO", "off")
    db = tmp_path / "fresh.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(db), str(i)], env=env, stderr=subprocess.PIPE)
        for i in range(3)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()[-2000:]
    mem = build_memory(str(db))
    try:
        ids = mem.store.ids(MemoryFilter(user_id="ana"))
        # every process encrypted with the one key that won: all values can be read back
        assert sorted(mem.rehydrate(i) for i in ids) == [f"write to worker{i}@example.com" for i in range(3)]
    finally:
        mem.close()
