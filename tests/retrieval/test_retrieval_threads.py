"""Writers and readers on one engine from many threads never deadlock (store lock, then retriever lock)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from remnant.config import build_memory


def test_concurrent_writes_and_recalls_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    mem = build_memory(str(tmp_path / "t.db"))
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(40):
                mem.remember(f"user note {n}-{i} about hiking and tea", user_id=f"u{i % 5}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader(n: int) -> None:
        try:
            for i in range(40):
                mem.recall("hiking tea", user_id=f"u{(i + n) % 5}", limit=3)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=f, args=(n,), daemon=True) for n in range(4) for f in (writer, reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "threads deadlocked"
    assert not errors, errors
    assert mem.stats()["total"] == 160
    mem.close()
