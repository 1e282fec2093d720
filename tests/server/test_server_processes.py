"""Several `remnant serve` processes on one database (a SQLite file, a PostgreSQL database) under
concurrent clients: every acknowledged write is stored once, none fails, every server stops cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

from remnant.bench.serve import run_bench


@pytest.fixture(autouse=True)
def _light_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    # the servers' start-up is what matters here, not the English NER model
    monkeypatch.setenv("REMNANT_REDACT_PRESIDIO", "off")


def _check(result: dict) -> None:  # type: ignore[type-arg]
    assert result["errors"] == 0, result["error_kinds"]
    assert result["writes_acked"] > 0 and result["lost_writes"] == 0
    assert result["memories_stored"] == result["writes_acked"]
    assert result["server_exit_code"] in (0, -15)


@pytest.mark.slow
def test_two_servers_on_one_sqlite_file(tmp_path: Path) -> None:
    _check(run_bench(clients=6, duration=3, db=str(tmp_path / "shared.db"), processes=2))


@pytest.mark.pg
def test_two_servers_on_one_postgres_database(pg_url: str) -> None:
    result = run_bench(clients=6, duration=3, db=pg_url, processes=2)
    assert result["store"] == "postgresql"
    _check(result)
