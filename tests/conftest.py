"""Shared fixtures: a real SQLite file in a temp folder, a clock we control, and a real PostgreSQL.

PostgreSQL: one real server per test session (pgserver), a database per test module, a fresh schema
per test. The server starts itself; if it cannot, the PostgreSQL tests fail (never skip).
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, settings

from remnant import ManualClock
from remnant.engine import Memory

# Hypothesis: no per-example deadline and no too-slow health check anywhere. Both measure wall
# time, so on a loaded machine (CI, parallel runs) they fail tests that are correct ("Unreliable
# test timings", "DeadlineExceeded"); a hang is still caught by pytest-timeout. Examples stay
# random (that is how Hypothesis finds bugs); a failure prints the seed to reproduce it.
settings.register_profile(
    "remnant", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "remnant"))

# Engines built from config (CLI, server) embed every write; in tests use the fast static model
# unless a test chooses otherwise (the retrieval tests pick their embedders explicitly).
os.environ.setdefault("REMNANT_EMBEDDER", "static")
# and the rule salience, so a conversation test does not load e5-small for the salience model
# (tests/engine/test_salience_model.py tests the model path explicitly)
os.environ.setdefault("REMNANT_SALIENCE", "rules")
# and the attribute rules alone, so a write does not load e5-small for the pair judge (the default:
# tests/forgetting/test_pair_model.py tests it through Memory(path) with the variable unset)
os.environ.setdefault("REMNANT_ATTRIBUTES", "rules")

_counter = itertools.count(1)


CLOCK_START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock(request: pytest.FixtureRequest) -> ManualClock:
    """A manual clock (a fresh one per test: it is mutable) at :data:`CLOCK_START`, or at the time a
    ``@pytest.mark.clock_start(datetime)`` mark on the test or its module gives."""
    mark = request.node.get_closest_marker("clock_start")
    return ManualClock(mark.args[0] if mark else CLOCK_START)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "remnant.db"


@pytest.fixture
def mem(db_path: Path, clock: ManualClock) -> Iterator[Memory]:
    with Memory(db_path, clock=clock) as m:
        yield m


class PgServer:
    """A throwaway PostgreSQL server (PostgreSQL + pgvector + pg_trgm from the pgserver wheel)."""

    def __init__(self, pgdata: Path) -> None:
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pgserver

        self.pgdata = pgdata
        self._server = pgserver.get_server(pgdata, cleanup_mode="delete")
        # test data is disposable: skip fsync for speed (a clean restart still keeps every commit)
        self.execute(
            "ALTER SYSTEM SET fsync = off",
            "ALTER SYSTEM SET synchronous_commit = off",
            "ALTER SYSTEM SET full_page_writes = off",
            "SELECT pg_reload_conf()",
        )

    def uri(self, database: str = "postgres", schema: str | None = None) -> str:
        """A connection URL; with ``schema`` its tables go there (``search_path=schema,public``)."""
        url = self._server.get_uri(database)
        if schema is not None:
            url += "&options=" + quote(f"-csearch_path={schema},public", safe="")
        return url

    def execute(self, *statements: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.uri(database), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def create_database(self) -> str:
        """A new database with the vector and pg_trgm extensions created (as a superuser)."""
        name = f"remnant_test_{os.getpid()}_{next(_counter)}"
        self.execute(f"CREATE DATABASE {name}")
        self.execute(
            "CREATE EXTENSION IF NOT EXISTS vector", "CREATE EXTENSION IF NOT EXISTS pg_trgm", database=name
        )
        return name

    def restart(self) -> None:
        """Stop and start the server (fast shutdown: every open connection is cut)."""
        from pgserver._commands import pg_ctl
        from pgserver.utils import PostmasterInfo

        pg_ctl(["-w", "-m", "fast", "restart"], pgdata=self.pgdata, user=self._server.system_user, timeout=60)
        info = PostmasterInfo.read_from_pgdata(self.pgdata)
        assert info is not None and info.is_running(), "PostgreSQL did not come back after restart"
        self._server._postmaster_info = info  # so the final cleanup stops the new postmaster

    def stop(self) -> None:
        self._server.cleanup()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the session. As root, pgserver runs it as a system user ``pgserver``.

    Its data lives in a directory of its own under the system temp dir, not under pytest's
    ``pytest-of-<user>``: pytest resets that to mode 0700, which locks the ``pgserver`` user out.
    """
    pgdata = Path(tempfile.mkdtemp(prefix="remnant-pg-")) / "data"
    try:
        server = PgServer(pgdata)
    except Exception as exc:  # fail loudly: these tests must never be skipped silently
        log = pgdata / "log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        pytest.fail(f"could not start PostgreSQL with pgserver: {exc!r}\n{detail}", pytrace=False)
    yield server
    server.stop()
    shutil.rmtree(pgdata.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def pg_database(pg_server: PgServer) -> str:
    """A fresh database for one test module."""
    return pg_server.create_database()


@pytest.fixture
def pg_url(pg_server: PgServer, pg_database: str) -> str:
    """A URL whose tables land in a fresh schema of the module's database (cheap per-test isolation)."""
    schema = f"t{next(_counter)}"
    pg_server.execute(f"CREATE SCHEMA {schema}", database=pg_database)
    return pg_server.uri(pg_database, schema)


# -- lanes and the skip report -----------------------------------------------------------------------
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses the PostgreSQL server (its fixture, or a ``postgres`` store parameter) is a
    ``pg`` test wherever it lives, so the fast lane (``scripts/test --fast``: not slow, pg, browser
    or llm) never starts one."""
    for item in items:
        if item.get_closest_marker("pg") is not None:
            continue
        callspec = getattr(item, "callspec", None)
        backends = callspec.params.values() if callspec is not None else ()
        # a store-parametrised test's PostgreSQL half asks for the server only when it runs
        if "pg_server" in getattr(item, "fixturenames", ()) or "postgres" in backends:
            item.add_marker(pytest.mark.pg)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Where ``REMNANT_SKIP_REPORT`` names a file, write the skip reasons there with their counts:
    ``scripts/test`` shows them in its closing banner, so a check skipped for a missing tool (no
    Chromium, no node) is said loudly, not left in the scroll-back."""
    target = os.environ.get("REMNANT_SKIP_REPORT")
    if not target:
        return
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    deselected = len(terminalreporter.stats.get("deselected", []))
    lines = [f"{n:5d}  {why}" for why, n in sorted(reasons.items(), key=lambda kv: -kv[1])]
    if deselected:
        lines.append(f"{deselected:5d}  deselected by the lane's -m expression (run scripts/test for all)")
    Path(target).write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
