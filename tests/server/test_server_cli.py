"""`remnant keys`, `remnant serve` as users run it (a subprocess, SIGTERM), and the background sweep."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from remnant.bench.serve import free_port, start_server, stop_server
from remnant.cli import cli
from remnant.core.clock import ManualClock
from remnant.server.auth import KeyStore

# these tests are about the process (start, stop, logs); the privacy layer has its own tests, and
# loading its PII model in every subprocess would only make them slow
FAST = {"REMNANT_PRIVACY": "off"}


# the commands are invoked through the root group, as users run them: click caches each command's
# help option the first time it is built, and a command invoked on its own would cache a bare
# "--help" (not the root's "-h, --help"), which the CLI-reference test then sees


def test_keys_create_list_revoke(tmp_path: Path) -> None:
    kdb = ["--keys-db", str(tmp_path / "r.keys.db")]
    runner = CliRunner()
    made = runner.invoke(
        cli, ["keys", *kdb, "create", "--tenant", "acme", "-s", "read,forget", "--name", "ops", "--json"]
    )
    assert made.exit_code == 0, made.output
    key = json.loads(made.output)
    assert key["key"].startswith("rk_") and key["scopes"] == ["read", "forget"] and key["tenant"] == "acme"
    keys_file = tmp_path / "r.keys.db"
    assert keys_file.exists() and oct(keys_file.stat().st_mode & 0o777) == "0o600"
    assert key["key"].encode() not in keys_file.read_bytes()  # only the hash is stored

    listed = runner.invoke(cli, ["keys", *kdb, "list", "--json"])
    assert [k["key_id"] for k in json.loads(listed.output)] == [key["key_id"]]
    assert key["key"] not in listed.output

    principal = KeyStore(keys_file).authenticate(key["key"])
    assert principal.tenant == "acme" and principal.allows("forget") and not principal.allows("write")

    bad = runner.invoke(cli, ["keys", *kdb, "create", "-s", "root"])
    assert bad.exit_code == 2 and "unknown scope" in bad.output

    revoked = runner.invoke(cli, ["keys", *kdb, "revoke", key["key_id"]])
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    assert runner.invoke(cli, ["keys", *kdb, "list", "--json"]).output.strip() == "[]"
    assert runner.invoke(cli, ["keys", *kdb, "revoke", key["key_id"]]).exit_code == 1


def test_serve_refuses_remote_without_auth(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--db", str(tmp_path / "r.db"), "--host", "0.0.0.0", "--no-auth"]
    )
    assert result.exit_code == 2 and "refusing" in result.output


@pytest.mark.slow
def test_serve_subprocess_graceful(tmp_path: Path) -> None:
    db, keys_db = str(tmp_path / "s.db"), str(tmp_path / "s.keys.db")
    ks = KeyStore(keys_db)
    key = ks.create("t1", ["read", "write"]).secret
    ks.close()
    port = free_port()
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = start_server(db, keys_db, port, extra=("--log-level", "info"), log=log, env=FAST)
        base = f"http://127.0.0.1:{port}"
        h = {"Authorization": f"Bearer {key}"}
        r = httpx.post(
            f"{base}/v1/memories", json={"content": "kept across restarts", "user_id": "u"}, headers=h
        )
        assert r.status_code == 201
        assert httpx.get(f"{base}/readyz").status_code == 200
        stop_server(proc)
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    events = [line.get("event") for line in lines]
    assert "start" in events and "ready" in events and "stop" in events and "request" in events
    assert "kept across restarts" not in log_path.read_text()
    # the data survived the shutdown
    proc = start_server(db, keys_db, port, env=FAST)
    try:
        got = httpx.get(f"http://127.0.0.1:{port}/v1/memories", headers=h, timeout=60).json()
        assert [m["content"] for m in got["items"]] == ["kept across restarts"]
    finally:
        stop_server(proc)


@pytest.mark.slow
def test_remote_without_auth_is_loud(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "loud.log"
    with open(log_path, "wb") as log:
        proc = start_server(
            str(tmp_path / "l.db"),
            str(tmp_path / "l.keys.db"),
            port,
            extra=("--host", "0.0.0.0", "--no-auth", "--allow-remote-without-auth"),
            log=log,
            env=FAST,
        )
        stop_server(proc)
    assert "WITHOUT AUTHENTICATION" in log_path.read_text()


def test_background_sweep(tmp_path: Path) -> None:
    from tests.server.conftest import start_live

    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    for live in start_live(tmp_path, clock=clock, sweep_interval=0.2):
        with live.client() as c:
            mid = c.post(
                "/v1/memories", json={"content": "parking spot B12", "user_id": "u", "ttl": "1h"}
            ).json()["id"]
            clock.advance(hours=2)
            deadline = time.monotonic() + 15
            while c.get(f"/v1/memories/{mid}").status_code != 404:  # expired, then purged
                assert time.monotonic() < deadline, "the background sweep did not expire the memory"
                time.sleep(0.1)
            actions = {e["action"] for e in c.get("/v1/audit").json()["items"]}
            assert {"expire", "purge_expired"} <= actions
