"""Right to be forgotten: nothing of the user survives, in any recall path or in the file's bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tests.leaks import assert_no_leak

from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.forgetting.erasure import scan_files
from remnant.engine.memory import Memory
from remnant.store.base import MemoryFilter

from .conftest import VaultRedactor

SECRET = "Zanzibarquokka"  # a distinctive word only the erased user ever said
SECRET_ZH = "紫禁城秘密花园"


def raw_bytes(paths: list[Path]) -> bytes:
    return b"".join(p.read_bytes() for p in paths if p.exists())


def test_erased_user_leaves_no_trace(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock, redactor=VaultRedactor())
    ids = [
        mem.remember(f"My cat is called {SECRET} and she is nine", user_id="eve").id,
        mem.remember(f"我最喜欢的地方是{SECRET_ZH}", user_id="eve", kind="preference").id,
        mem.remember(f"Old note: {SECRET} hates the vet", user_id="eve", key="pet").id,
        mem.remember(f"New note: {SECRET} loves the vet", user_id="eve", key="pet").id,  # supersedes
        mem.remember(f"Call {SECRET}'s vet at +49 170 5555555", user_id="eve", kind="episode").id,
    ]
    hidden = mem.remember(f"hidden thought about {SECRET}", user_id="eve").id
    mem.hide(hidden)
    ids.append(hidden)
    # a summary written for the household, derived from eve's memories
    summary = mem.remember(
        f"Household summary: the cat {SECRET} lives with Eve",
        user_id="household",
        kind="summary",
        metadata={"derived_from": [ids[0], "mem_other"]},
    )
    keep = mem.remember("Frank likes the Zanzibar archipelago", user_id="frank")
    mem.store.put_embeddings(
        [(i, "test-model", np.ones(4, dtype=np.float32)) for i in [*ids, keep.id]], tenant=mem.tenant
    )
    clock.advance(days=1)
    mem.recall(SECRET, user_id="eve")  # touched, reinforced: rows rewritten, old versions in the WAL
    assert SECRET.encode() in raw_bytes(mem.files())

    from datetime import date

    for user in ("eve", "frank"):  # the active-days clock's rows (written in that clock mode)
        mem.store.mark_active(mem.tenant, user, date(2026, 1, 2))
    report = mem.erase_user("eve")
    assert report.verified, report.checks
    assert report.checks["activity_days"] == 0
    assert mem.store.active_day_count(mem.tenant, "eve", date.max) == 0
    assert mem.store.active_day_count(mem.tenant, "frank", date.max) == 1  # another user's days stay
    assert sum(report.removed.values()) == len(ids) + 1
    assert report.removed["summary_derived"] == 1
    assert report.vault_entries_removed == 1
    assert report.checks["file_bytes"] == 0
    # every recall path, re-queried by the test itself
    flt = MemoryFilter(tenant=mem.tenant, user_id="eve", statuses=None)
    assert mem.store.count(flt) == 0
    assert mem.recall(SECRET, user_id="eve", include_faded=True).hits == []
    assert mem.recall(SECRET, user_id="eve").faded == []
    assert mem.recall(SECRET_ZH, user_id="eve").hits == []
    assert mem.recall(SECRET, user_id="household").hits == []
    assert mem.list_memories("eve") == [] and mem.history("pet", user_id="eve") == []
    assert mem.store.get(summary.id, tenant=mem.tenant) is None
    assert mem.store.embeddings(flt, model="test-model")[0] == []
    assert (
        mem.store.lexical_search(f'"{SECRET.lower()}"', MemoryFilter(tenant=mem.tenant, statuses=None)) == []
    )
    # the raw bytes of the database file and its WAL no longer hold the text
    data = raw_bytes([db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")])
    # the phone in each form it could be stored in; a bare "5555555" is short enough for the
    # random hex of an audit hash to hold it (tests/leaks.py)
    phone = ("+49 170 5555555", "170 5555555", "170-5555555", "1705555555")
    assert_no_leak(data, (SECRET, SECRET.lower(), SECRET_ZH, "紫禁城", "hates the vet", *phone), "the files")
    # the other user is untouched; the audit log records the erasure without content
    assert [h.memory.id for h in mem.recall("Zanzibar archipelago", user_id="frank").hits] == [keep.id]
    entry = mem.audit_log(action="erase_user")[-1]
    assert entry.seq == report.audit_seq and SECRET not in str(entry.to_dict())
    assert mem.verify_audit().ok
    assert report.to_dict()["verified"] is True
    mem.close()


def test_scan_files_finds_only_what_is_there(tmp_path: Path) -> None:
    f = tmp_path / "blob"
    f.write_bytes(b"abc secret-thing xyz")
    assert scan_files([f, tmp_path / "missing"], ["secret-thing", "absent"]) == ["secret-thing"]


def test_erasing_an_unknown_user_is_a_verified_no_op(mem: Memory) -> None:
    mem.remember("someone else", user_id="frank")
    report = mem.erase_user("nobody")
    assert report.verified and report.removed == {}
    assert mem.stats()["by_status"] == {Status.ACTIVE.value: 1}
