"""``remnant --url …``: every verb that changes or reads memories goes to the server (through
:class:`remnant.Client`), and a verb that cannot refuses with a clear message; none of them ever
opens or creates the local database. Against a real server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

pytest.importorskip("fastapi")

from tests.server.conftest import LiveServer, start_live

from remnant.cli import cli


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from start_live(tmp_path / "server", clock=None)


def run(live: LiveServer, local: Path, *args: str) -> Result:
    env = {"REMNANT_API_KEY": live.keys["a_all"], "REMNANT_URL": None}
    return CliRunner().invoke(cli, ["--url", live.base, "--db", str(local), *args], env=env)


def test_writing_verbs_go_to_the_server_and_never_to_the_local_database(
    live: LiveServer, tmp_path: Path
) -> None:
    local = tmp_path / "local.db"
    res = run(live, local, "add", "-u", "ana", "-c", "My phone number is 0170 1234567", "--json")
    assert res.exit_code == 0, res.output
    added = json.loads(res.output)
    assert added["episodes"], added
    res = run(live, local, "remember", "I like green tea", "-u", "ana", "--key", "drink", "--json")
    tea = json.loads(res.output)["id"]
    for verb in ("review", "pin", "unpin"):
        res = run(live, local, verb, tea)
        assert res.exit_code == 0 and res.output.startswith(f"{verb}: {tea}"), res.output
    res = run(live, local, "update", tea, "--importance", "0.9", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["importance"] == pytest.approx(0.9), res.output
    res = run(live, local, "history", "-u", "ana", "drink")
    assert res.exit_code == 0 and "I like green tea" in res.output, res.output

    # forget: a short summary by default, the whole answer with --json
    res = run(live, local, "forget", "forget my phone number", "-u", "ana", "--dry-run")
    assert res.exit_code == 0, res.output
    assert len(res.output.splitlines()) < 8 and "nothing changed" in res.output, res.output
    res = run(live, local, "forget", "forget my phone number", "-u", "ana", "--confirm", "--json")
    data = json.loads(res.output)
    assert res.exit_code == 0 and data["forgotten"] and data["action"] == "purge", data

    res = run(live, local, "hide", tea, "--json")
    assert json.loads(res.output) == {"hidden": [tea]}, res.output
    res = run(live, local, "sweep", "--dry-run", "--json")
    assert res.exit_code == 0 and "steps" in json.loads(res.output), res.output
    res = run(live, local, "purge", tea, "--force", "--yes", "--json")
    assert json.loads(res.output) == {"purged": 1}, res.output
    res = run(live, local, "erase-user", "-u", "ana", "--yes", "--json")
    assert res.exit_code == 0, res.output
    res = run(live, local, "audit", "verify", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["ok"], res.output

    # the server holds what was done; nothing was written here
    assert not local.exists() and not list(tmp_path.glob("local.db*"))
    with live.client() as http:
        actions = {e["action"] for e in http.get("/v1/audit", params={"limit": 1000}).json()["items"]}
    assert {"forget_request", "purge", "hide"} <= actions, actions


def test_a_verb_that_cannot_go_through_the_server_refuses(live: LiveServer, tmp_path: Path) -> None:
    local = tmp_path / "local.db"
    for args in (
        ["reembed"],
        ["audit", "head"],
        ["kb", "list"],
        ["export", "--out", str(tmp_path / "x.jsonl")],
        ["import", "-"],
    ):
        res = run(live, local, *args)
        assert res.exit_code == 2 and "unset --url / REMNANT_URL" in res.output, (args, res.output)
    assert not local.exists()


def test_an_unreachable_server_is_an_error_not_a_local_write(tmp_path: Path) -> None:
    local = tmp_path / "local.db"
    for args in (
        ["add", "-u", "ana", "-c", "hello there"],
        ["forget", "forget my phone number", "-u", "ana"],
        ["sweep"],
    ):
        res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "--db", str(local), *args])
        assert res.exit_code == 1 and "cannot reach" in res.output, (args, res.output)
    assert not local.exists()
