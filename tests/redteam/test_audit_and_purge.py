"""Red team, issue 16 findings 2, 3, 4 and 6: personal data outside ``content``, purged text in a
neighbour's index row, the vault across export/import/migrate, and an audit chain that could be cut
or rewritten undetected. Each test names the finding it covers; each failed on the code before the
fix. Real SQLite files, a real PostgreSQL (``pg_url``), loopback only."""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from fastapi.testclient import TestClient

from remnant.cli import cli
from remnant.config import build_memory
from remnant.core.audit import GENESIS, entry_hash
from remnant.core.clock import ManualClock
from remnant.core.errors import ValidationError
from remnant.engine import Memory
from remnant.privacy import generate_key
from remnant.retrieval import HybridRetriever
from remnant.store import open_store
from remnant.store.transfer import export_lines, import_lines

PHONE = "+1 415 555 0134"
EMAIL = "ana.silva@example.com"


@pytest.fixture
def privacy_env(monkeypatch: pytest.MonkeyPatch) -> str:
    key = generate_key()
    monkeypatch.setenv("REMNANT_VAULT_KEY", key)
    monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
    monkeypatch.delenv("REMNANT_PRIVACY", raising=False)
    monkeypatch.delenv("REMNANT_AUDIT_KEY", raising=False)
    monkeypatch.delenv("REMNANT_AUDIT_KEY_FILE", raising=False)
    return key


def _raw_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "remnant.db")
    else:
        yield request.getfixturevalue("pg_url")


# -- finding 2: personal data outside content ------------------------------------------------------
def test_free_text_fields_are_redacted_at_the_write_seam(
    db_path: Path, clock: ManualClock, privacy_env: str
) -> None:
    """Finding 2: metadata values, key and source go through the redactor, like content."""
    with build_memory(str(db_path), clock=clock) as mem:
        r = mem.remember(
            "Ana changed her contact details",
            user_id="ana",
            key=f"contact {EMAIL}",
            source=f"call from {PHONE}",
            metadata={"note": f"reach her at {EMAIL}", "nested": {"alt": [f"or {PHONE}"]}},
        )
        stored = json.dumps([r.key, r.source, r.metadata])
        assert EMAIL not in stored and PHONE not in stored and "[EMAIL_1]" in stored
        mem.store.compact()
    raw = _raw_bytes(db_path)
    assert EMAIL.encode() not in raw and PHONE.encode() not in raw


def test_identifiers_holding_personal_data_are_refused(
    db_path: Path, clock: ManualClock, privacy_env: str
) -> None:
    """Finding 2: user, agent and session ids are identifiers (stored and audited as given), so one
    that is an e-mail or a phone number is refused with a clear error, before anything is written."""
    with build_memory(str(db_path), clock=clock) as mem:
        for field in ("user_id", "agent_id", "session_id"):
            kwargs = {"user_id": "u1", field: EMAIL}
            with pytest.raises(ValidationError, match="personal data"):
                mem.remember("hello", **kwargs)  # type: ignore[arg-type]
        assert mem.store.count(mem.ledger.filter(statuses=None)) == 0


def test_hide_reasons_and_keys_never_reach_the_audit_log(
    db_path: Path, clock: ManualClock, privacy_env: str
) -> None:
    """Finding 2: a hide reason is redacted before it enters the append-only log (and the status
    reason); audit summaries name keys by hash, never verbatim."""
    with build_memory(str(db_path), clock=clock) as mem:
        a = mem.remember("I like tea", user_id="ana", key="favourite drink of ana")
        mem.remember("I like coffee", user_id="ana", key="favourite drink of ana")
        mem.hide(a.id, reason=f"she asked by mail from {EMAIL}, call {PHONE}")
        log = json.dumps([e.to_dict() for e in mem.audit_log()], ensure_ascii=False)
        assert EMAIL not in log and PHONE not in log
        assert "favourite drink of ana" not in log
        assert EMAIL not in (mem.get(a.id).status_reason or "")
        assert mem.verify_audit().ok


def test_erasure_report_checks_the_audit_log_index_and_vault(
    any_db: str, clock: ManualClock, privacy_env: str
) -> None:
    """Finding 2, both backends: after erase-user no audit entry holds the user's phone or e-mail,
    and the report lists the audit log, the index text and the vault among its checks."""
    with build_memory(any_db, clock=clock) as mem:
        r = mem.remember(f"my number is {PHONE}, mail {EMAIL}", user_id="ana", key="contact")
        mem.hide(r.id, reason=f"wrong number {PHONE}")
        mem.remember("Bob likes chess", user_id="bob")
        report = mem.erase_user("ana")
        assert {"audit_log", "index_text", "vault", "other_memories"} <= set(report.checks)
        assert report.verified, report.checks
        log = json.dumps([e.to_dict() for e in mem.audit_log()], ensure_ascii=False)
        assert PHONE not in log and EMAIL not in log


def test_erasure_is_not_verified_while_the_audit_log_holds_a_value(any_db: str, clock: ManualClock) -> None:
    """Finding 2, both backends: without a redactor a reason is stored as given; the erasure report
    then finds the user's key text in the audit log and says verified=False instead of success."""
    with Memory(any_db, clock=clock) as mem:
        r = mem.remember("contact details", user_id="ana", key=f"contact {EMAIL}")
        mem.hide(r.id, reason=f"contact {EMAIL}")
        report = mem.erase_user("ana")
        assert report.checks.get("audit_log", 0) > 0
        assert not report.verified


def test_erasure_scans_log_files_handed_to_it(db_path: Path, clock: ManualClock, tmp_path: Path) -> None:
    """Finding 2: a log file a layer above writes is part of the erasure report."""
    log_file = tmp_path / "server.log"
    log_file.write_text(json.dumps({"msg": f"note for ana: The violet umbrella stays at {EMAIL}"}) + "\n")
    with Memory(db_path, clock=clock) as mem:
        mem.remember(f"The violet umbrella stays at {EMAIL}", user_id="ana")
        mem.log_files.append(log_file)
        report = mem.erase_user("ana")
        assert report.checks["log_files"] >= 1 and not report.verified


def test_erasure_checks_the_training_pool(
    db_path: Path, clock: ManualClock, privacy_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 2: the product's erasure report checks the training pool (``REMNANT_POOL``) for the
    user's values, read from the vault before it is purged; one left there is not verified."""
    from datetime import UTC, datetime

    from remnant.training.example import TrainingExample
    from remnant.training.pool import TrainingPool

    pool_path = tmp_path / "pool.db"
    with TrainingPool(pool_path) as pool:
        pool.add(TrainingExample(datetime(2026, 1, 1, tzinfo=UTC), "chat export", text=f"Ana: call {PHONE}"))
    monkeypatch.setenv("REMNANT_POOL", str(pool_path))
    with build_memory(str(db_path), clock=clock) as mem:
        mem.remember(f"my number is {PHONE}", user_id="ana")
        report = mem.erase_user("ana")
        assert report.checks["training_pool"] == 1 and not report.verified


def test_access_log_records_the_route_not_the_values_in_the_path(caplog: pytest.LogCaptureFixture) -> None:
    """Finding 2: the access log line carries the route template; a user id in the URL stays out."""
    from remnant.server.logs import AccessLog

    app = FastAPI()

    @app.get("/v1/users/{user_id}/memories")
    def listing(user_id: str) -> dict[str, str]:
        return {"ok": user_id[:0]}

    with TestClient(AccessLog(app)) as client, caplog.at_level("INFO", logger="remnant.server.access"):
        assert client.get(f"/v1/users/{EMAIL}/memories").status_code == 200
        assert client.get(f"/nowhere/{PHONE}").status_code == 404
    paths = [getattr(r, "path", None) for r in caplog.records if r.name == "remnant.server.access"]
    assert paths == ["/v1/users/{user_id}/memories", "(no route)"]


# -- finding 3: a purged turn's text in its neighbour's index row -----------------------------------
def test_purge_rebuilds_the_index_text_of_neighbouring_turns(any_db: str, clock: ManualClock) -> None:
    """Finding 3, both backends: turns are indexed with the previous turn's text; purging a turn
    rebuilds its neighbours' index rows in the same transaction, so recall and export no longer
    find the purged words."""
    with Memory(any_db, clock=clock, retriever=HybridRetriever(None)) as mem:
        turns = [
            mem.remember(text, user_id="ana", kind="episode", session_id="s1")
            for text in ("my secret word is quetzalcoatl", "noted, anything else", "the weather is fine")
        ]
        clock.advance(minutes=1)
        texts = mem.store.index_texts([t.id for t in turns], tenant="default")  # type: ignore[attr-defined]
        assert "quetzalcoatl" in texts[turns[1].id]  # the neighbour embedded it
        mem.purge(turns[0].id)
        texts = mem.store.index_texts([t.id for t in turns[1:]], tenant="default")  # type: ignore[attr-defined]
        assert not any("quetzalcoatl" in t for t in texts.values())
        assert mem.recall("quetzalcoatl", user_id="ana").hits == []
        assert not any("quetzalcoatl" in line for line in export_lines(mem.store))
        # a purge in the middle: the next turn now takes the earlier one as its context
        mem.purge(turns[1].id)
        texts = mem.store.index_texts([turns[2].id], tenant="default")  # type: ignore[attr-defined]
        assert "noted" not in texts[turns[2].id] and "weather" in texts[turns[2].id]


def test_rewrite_rebuilds_the_next_turns_index_text(db_path: Path, clock: ManualClock) -> None:
    """Finding 3: removing part of a turn (forget my …) also leaves the next turn's index row."""
    with Memory(db_path, clock=clock, retriever=HybridRetriever(None)) as mem:
        a = mem.remember("call me on zzyzx-line please", user_id="ana", kind="episode", session_id="s")
        b = mem.remember("sure thing", user_id="ana", kind="episode", session_id="s")
        mem.ledger.rewrite(a.id, "call me please", reason="forget request")
        texts = mem.store.index_texts([a.id, b.id], tenant="default")  # type: ignore[attr-defined]
        assert "zzyzx" not in texts[a.id] and "zzyzx" not in texts[b.id]
        assert "call me please" in texts[b.id]


# -- finding 4: the vault across export / import / migrate -----------------------------------------
def _vaulted(url: str, clock: ManualClock) -> str:
    with build_memory(url, clock=clock) as mem:
        r = mem.remember(f"my phone is {PHONE}", user_id="ana")
        assert "[PHONE_1]" in r.content
        return r.id


@pytest.mark.pg
@pytest.mark.parametrize("direction", ["sqlite_to_pg", "pg_to_sqlite"])
def test_export_import_round_trip_keeps_the_vault(
    direction: str, tmp_path: Path, pg_url: str, clock: ManualClock, privacy_env: str
) -> None:
    """Finding 4: export carries the vault (encrypted, with its key id) and the placeholder
    counters; import restores them, in both directions between SQLite and PostgreSQL, so an old
    [PHONE_1] rehydrates to its original and a new number becomes [PHONE_2]."""
    sqlite_url = str(tmp_path / "remnant.db")
    source, target = (sqlite_url, pg_url) if direction == "sqlite_to_pg" else (pg_url, sqlite_url)
    mid = _vaulted(source, clock)
    with open_store(source) as src:
        lines = list(export_lines(src))
    header = json.loads(lines[0])
    assert header["counts"]["vault"] == 1 and header["counts"]["vault_counters"] == 1
    assert len(header["vault_key_ids"]) == 1
    assert not any(PHONE in line for line in lines)  # still encrypted
    with build_memory(target, clock=clock) as mem:
        keys = set(mem.redactor.vault.keyring.keys)  # type: ignore[union-attr]
        report = import_lines(mem.store, lines, vault_key_ids=keys)
        assert report.vault == 1 and report.vault_counters == 1
        assert mem.rehydrate(mid) == f"my phone is {PHONE}"
        newer = mem.remember("my other phone is +1 212 555 0199", user_id="ana")
        assert "[PHONE_2]" in newer.content
        assert mem.rehydrate(mid) == f"my phone is {PHONE}"


def test_import_without_the_right_key_refuses(
    tmp_path: Path, clock: ManualClock, privacy_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4: an import whose vault key is not configured says so and writes nothing."""
    source = tmp_path / "source.db"
    _vaulted(str(source), clock)
    dump = tmp_path / "dump.jsonl"
    runner = CliRunner()
    out = runner.invoke(cli, ["export", "--db", str(source), "--out", str(dump)])
    assert out.exit_code == 0, out.output
    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())  # another key
    target = tmp_path / "target.db"
    out = runner.invoke(cli, ["import", "--db", str(target), str(dump)])
    assert out.exit_code != 0 and "vault" in out.output and "key" in out.output
    with open_store(str(target)) as store:
        assert store.count(replace(store_filter(), tenant="default")) == 0
        assert store.audit_entries(tenant="default") == []


def test_migrate_carries_the_vault_and_its_key_file(
    tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4: ``remnant migrate`` between SQLite files (generated key beside the database) moves
    the vault and the key file, so the target rehydrates the old placeholders."""
    for name in ("REMNANT_VAULT_KEY", "REMNANT_VAULT_KEY_FILE", "REMNANT_PRIVACY", "REMNANT_AUDIT_KEY"):
        monkeypatch.delenv(name, raising=False)
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    mid = _vaulted(str(source), clock)
    out = CliRunner().invoke(cli, ["migrate", "--from", str(source), "--to", str(target)])
    assert out.exit_code == 0, out.output
    with build_memory(str(target), clock=clock) as mem:
        assert mem.rehydrate(mid) == f"my phone is {PHONE}"
        assert mem.verify_audit().ok and mem.verify_audit().signed


def store_filter():  # type: ignore[no-untyped-def]
    from remnant.store.base import MemoryFilter

    return MemoryFilter(tenant="default", statuses=None)


# -- finding 6: a chain that can't be cut or rewritten undetected ----------------------------------
def _history(db: Path, clock: ManualClock) -> None:
    with build_memory(str(db), clock=clock) as mem:
        ids = []
        for i in range(8):
            ids.append(mem.remember(f"note number {i}", user_id="ana", key=f"k{i % 3}").id)
            clock.advance(minutes=1)
        for mid in ids[:6]:
            mem.hide(mid)
        mem.purge(ids[6])
        assert len(mem.audit_log()) >= 12


def _tamper(db: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER IF EXISTS audit_log_no_update")
    raw.execute("DROP TRIGGER IF EXISTS audit_log_no_delete")
    for sql, params in statements:
        raw.execute(sql, params)
    raw.commit()
    raw.close()


def _verify(db: Path, anchor: Path | None = None) -> tuple[int, str]:
    args = ["--db", str(db), "audit", "verify", "--json"] + (["--anchor", str(anchor)] if anchor else [])
    out = CliRunner().invoke(cli, args)
    return out.exit_code, out.output


@pytest.fixture
def signed_log(tmp_path: Path, clock: ManualClock, privacy_env: str) -> tuple[Path, Path]:
    db = tmp_path / "remnant.db"
    _history(db, clock)
    anchor = tmp_path / "anchor.json"
    out = CliRunner().invoke(cli, ["--db", str(db), "audit", "head", "--out", str(anchor)])
    assert out.exit_code == 0, out.output
    assert json.loads(anchor.read_text())["tenants"]["default"]["seq"] >= 12
    assert _verify(db)[0] == 0 and _verify(db, anchor)[0] == 0
    assert (tmp_path / "remnant.db.audit-key").exists()  # the key lives outside the database
    return db, anchor


@pytest.mark.parametrize("cut", [1, 10])
def test_cutting_the_newest_entries_is_detected(signed_log: tuple[Path, Path], cut: int) -> None:
    """Finding 6: deleting the newest 1 or 10 entries no longer verifies (the signed head names the
    newest entry; the anchor too)."""
    db, anchor = signed_log
    _tamper(
        db,
        (f"DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log ORDER BY seq DESC LIMIT {cut})", ()),
    )
    code, output = _verify(db)
    assert code == 1 and "truncated" in output
    code, output = _verify(db, anchor)
    assert code == 1 and "truncated" in output


def test_deleting_a_tenants_whole_log_is_detected(signed_log: tuple[Path, Path]) -> None:
    """Finding 6: deleting every entry of the tenant (and its signed head) fails against the anchor;
    deleting only the entries fails against the signed head alone."""
    db, anchor = signed_log
    _tamper(db, ("DELETE FROM audit_log WHERE tenant = ?", ("default",)))
    code, output = _verify(db)
    assert code == 1 and "gone" in output
    _tamper(db, ("DELETE FROM audit_heads WHERE tenant = ?", ("default",)))
    code, output = _verify(db, anchor)
    assert code == 1 and "gone" in output


def test_rehashing_the_whole_chain_is_detected(signed_log: tuple[Path, Path]) -> None:
    """Finding 6: an attacker rewrites an entry and re-hashes every link after it (the chain links
    again); without the key the signatures do not match, and the anchor's hash differs."""
    db, anchor = signed_log
    raw = sqlite3.connect(db)
    rows = raw.execute("SELECT seq FROM audit_log ORDER BY seq").fetchall()
    raw.close()
    with open_store(str(db)) as store:
        entries = store.audit_entries(tenant="default")
    prev, statements = GENESIS, []
    for e in entries:
        e = replace(e, reason="nothing to see") if e.seq == rows[2][0] else e
        digest = entry_hash(prev, e, e.at.timestamp())
        statements.append(
            (
                "UPDATE audit_log SET reason = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                (e.reason, prev, digest, e.seq),
            )
        )
        prev = digest
    statements.append(("UPDATE audit_heads SET hash = ? WHERE tenant = 'default'", (prev,)))
    _tamper(db, *statements)
    code, output = _verify(db)
    assert code == 1 and ("signature" in output)
    code, output = _verify(db, anchor)
    assert code == 1


def test_a_forged_appended_erase_user_entry_is_detected(
    signed_log: tuple[Path, Path], clock: ManualClock
) -> None:
    """Finding 6: appending a well-linked ``erase_user`` entry (correct prev_hash and hash) without
    the key is found: it carries no valid signature and the signed head does not name it."""
    db, _ = signed_log
    with open_store(str(db)) as store:
        last = store.audit_entries(tenant="default")[-1]
    forged = replace(
        last,
        seq=last.seq + 1,
        action="erase_user",
        reason="right to be forgotten",
        summary="0 memories erased",
        memory_ids=(),
        details={},
        prev_hash=last.hash,
        mac=None,
        user_id="ana",
        policy="erasure",
        actor="system",
        batch_id=None,
    )
    digest = entry_hash(last.hash, forged, forged.at.timestamp())
    _tamper(
        db,
        (
            "INSERT INTO audit_log (seq, tenant, at, actor, action, reason, user_id, policy, batch_id, memory_ids, "
            "summary, details, prev_hash, hash, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, '{}', ?, ?, ?)",
            (
                forged.seq,
                "default",
                forged.at.timestamp(),
                "system",
                "erase_user",
                forged.reason,
                "ana",
                "erasure",
                None,
                forged.summary,
                last.hash,
                digest,
                "0" * 64,
            ),
        ),
    )
    code, output = _verify(db)
    assert code == 1 and "signature" in output


def test_an_edited_anchor_is_refused(signed_log: tuple[Path, Path]) -> None:
    """Finding 6: the anchor is signed too; moving its seq back (to hide a later cut) is refused."""
    db, anchor = signed_log
    data = json.loads(anchor.read_text())
    data["tenants"]["default"]["seq"] -= 5
    anchor.write_text(json.dumps(data))
    code, output = _verify(db, anchor)
    assert code != 0 and "anchor" in output


@pytest.mark.pg
def test_signed_head_on_postgres_detects_truncation(
    pg_url: str, clock: ManualClock, privacy_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 6 on PostgreSQL: with REMNANT_AUDIT_KEY set the log is signed; a cut tail fails."""
    import psycopg

    monkeypatch.setenv("REMNANT_AUDIT_KEY", "a secret kept outside the database")
    with build_memory(pg_url, clock=clock) as mem:
        for i in range(3):
            mem.hide(mem.remember(f"note {i}", user_id="ana").id)
        assert mem.verify_audit().ok and mem.verify_audit().signed
        anchor = mem.audit_anchor()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE audit_log DISABLE TRIGGER USER")
        conn.execute("DELETE FROM audit_log WHERE seq = (SELECT MAX(seq) FROM audit_log)")
    with build_memory(pg_url, clock=clock) as mem:
        result = mem.verify_audit()
        assert not result.ok and "truncated" in (result.problem or "")
        assert not mem.verify_audit(anchor=anchor).ok


def test_export_keeps_signatures_verifiable(tmp_path: Path, clock: ManualClock, privacy_env: str) -> None:
    """Finding 6 with finding 4: an export carries the signatures and signed head, so the imported
    log (same audit key) still verifies as signed."""
    db = tmp_path / "a.db"
    _history(db, clock)
    buf = io.StringIO()
    with open_store(str(db)) as store:
        for line in export_lines(store):
            buf.write(line + "\n")
    target = tmp_path / "b.db"
    (tmp_path / "b.db.audit-key").write_text((tmp_path / "a.db.audit-key").read_text())
    with build_memory(str(target), clock=clock) as mem:
        import_lines(
            mem.store, buf.getvalue().splitlines(), vault_key_ids=set(mem.redactor.vault.keyring.keys)
        )  # type: ignore[union-attr]
        result = mem.verify_audit()
        assert result.ok and result.signed, result
