"""The command line: sweep --dry-run shows the eviction steps, forget in words, the bench command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.cli import cli


def run(db: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    return res.exit_code, res.output


def test_sweep_dry_run_lists_every_step_including_eviction(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    assert run(db, "remember", "a remark", "-u", "ana")[0] == 0
    code, out = run(db, "sweep", "--dry-run")
    assert code == 0
    for action in ("expire", "fade", "purge_expired", "evict"):
        assert action in out
    assert "(dry run)" in out
    code, out = run(db, "sweep", "--dry-run", "--json")
    assert [s["action"] for s in json.loads(out)["steps"]][-1] == "evict"


def test_forget_in_words_from_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    run(db, "remember", "My phone number is 0170 1234567", "-u", "ana", "--key", "phone_number")
    run(db, "remember", "Likes tea", "-u", "ana")
    run(db, "remember", "Likes coffee", "-u", "ana")
    code, out = run(db, "forget", "忘记我的电话号码", "-u", "ana", "--dry-run", "--json")
    data = json.loads(out)
    assert code == 0 and data["matched"] == 1 and data["dry_run"] and data["forgotten"] == []
    code, out = run(db, "forget", "forget my phone number", "-u", "ana", "--json")
    # personal data asked to be forgotten is purged, not hidden
    assert json.loads(out)["action"] == "purge" and len(json.loads(out)["forgotten"]) == 1
    res = CliRunner().invoke(cli, ["--db", str(db), "forget", "forget everything", "-u", "ana"])
    assert res.exit_code == 1 and "confirm" in res.output
    code, out = run(db, "audit", "--action", "forget_request")
    assert code == 0 and "forget_request" in out


def test_bench_forgetting_small(tmp_path: Path) -> None:
    code, out = run(
        tmp_path / "unused.db",
        "bench",
        "forgetting",
        "--sizes",
        "400",
        "--users",
        "4",
        "--pairs",
        "10",
        "--db",
        str(tmp_path / "bench"),
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    sweep = data["sweeps"][0]
    assert sweep["memories"] == 400 and sweep["audit_ok"] is True
    assert sweep["repeat_sweep_total"] == 0
    assert "evict" not in sweep["daily_sweep_steps"] and "evict" in sweep["weekly_sweep_steps"]
    assert {"expire", "fade", "evict", "evict_capacity"} <= set(sweep["sweep_steps"])
    assert 0.0 <= data["contradictions"]["precision"] <= 1.0 and data["contradictions"]["n"] == 30
    assert not list((tmp_path / "bench").glob("*.db"))  # removed unless --keep


def test_bench_load_only_then_reuse(tmp_path: Path) -> None:
    folder = tmp_path / "bench"
    args = ["bench", "forgetting", "--sizes", "300", "--users", "3", "--pairs", "10", "--db", str(folder)]
    code, out = run(tmp_path / "unused.db", *args, "--load-only")
    assert code == 0 and "loaded" in out and (folder / "forgetting-300.db").exists()
    code, out = run(tmp_path / "unused.db", *args, "--reuse", "--json")
    assert code == 0 and json.loads(out)["sweeps"][0]["load_s"] is None
    res = CliRunner().invoke(cli, ["bench", "forgetting", "--sizes", "300", "--reuse"])
    assert res.exit_code != 0 and "--db" in res.output


def test_bench_rows_are_searchable_like_remembered_ones(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from remnant.bench.forgetting import _bulk_load
    from remnant.core.clock import ManualClock, from_epoch
    from remnant.engine.memory import Memory

    now = datetime(2027, 1, 1, tzinfo=UTC).timestamp()
    db = tmp_path / "b.db"
    _bulk_load(db, 200, 2, 1, now, settled=True)
    start = from_epoch(now)
    assert start is not None
    with Memory(db, clock=ManualClock(start)) as mem:
        assert mem.store.count(mem.ledger.filter(None, statuses=None)) == 200
        hits = mem.recall(
            "note about tea", user_id="user00000", include_faded=True, touch=False, limit=50
        ).hits
        assert hits and all(h.memory.user_id == "user00000" for h in hits)
        # the numpy decay state equals the engine's: the stored fade time matches strength 0.52
        r = next(h.memory for h in hits if not h.memory.pinned and h.memory.strength0 > 0.52)
        assert mem.ledger.strength_of(r, axis=r.fade_at) == pytest.approx(mem.decay.recall_threshold)
