"""`remnant bench engine --reuse`: a database that already holds the size is measured as it is (no
second bulk write, no sweep), so a 1M-memory database is built once and measured many times."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remnant.bench.engine import run_engine_bench
from remnant.engine import Memory


def _count(db: Path) -> int:
    with Memory(db) as mem:
        return mem.count_memories("bench-60-7")


def test_reuse_builds_once_then_measures_the_same_database(tmp_path: Path) -> None:
    db = tmp_path / "reuse.db"

    def run() -> dict[str, Any]:
        res = run_engine_bench(
            str(db), [60], 10, 7, progress=False, check_writes=0, faded_scaling=False, reuse=True, ingest_at=0
        )
        return dict(res["sizes"]["60"])

    first = run()
    assert first["reused"] is False and first["bulk_writes_per_s"] is not None
    assert first["sweep_s_after_45_days"] is None  # never swept: the database stays as built
    built = _count(db)
    assert built == 60 + 200  # the bulk write and the 200 timed single writes

    again = run()
    assert again["reused"] is True and again["bulk_writes_per_s"] is None
    assert again["recall_ms_p50"] > 0
    assert _count(db) == built + 200  # no second bulk write: only the timed single writes
