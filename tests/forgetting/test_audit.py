"""The audit trail of forgetting: tamper evidence, restore after hide, no restore after purge, hints."""

from __future__ import annotations

import itertools
import json
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.cli import cli
from remnant.core.clock import ManualClock
from remnant.core.errors import ConflictError, NotFoundError
from remnant.core.model import Status
from remnant.engine.forgetting.sweep import SweepPolicy
from remnant.engine.memory import Memory


def _history(mem: Memory, clock: ManualClock) -> list[str]:
    a = mem.remember("Lives at Elm Street 1", user_id="ana", key="address")
    clock.advance(days=1)
    mem.remember("Lives at Oak Road 9", user_id="ana", key="address")
    b = mem.remember("cart: oat milk", user_id="ana", ttl="1h")
    c = mem.remember("a passing remark", user_id="ana")
    mem.hide(c.id)
    mem.unhide(c.id)
    clock.advance(days=1)
    mem.sweep()
    mem.purge(c.id)
    return [a.id, b.id, c.id]


def test_every_forgetting_act_is_audited_and_the_chain_verifies(mem: Memory, clock: ManualClock) -> None:
    _history(mem, clock)
    actions = [e.action for e in mem.audit_log()]
    assert {"supersede", "hide", "unhide", "expire", "purge"} <= set(actions)
    log = mem.audit_log()
    assert [e.seq for e in log] == sorted(e.seq for e in log)
    assert all(e.prev_hash == p.hash for p, e in itertools.pairwise(log))
    assert mem.verify_audit().ok and mem.verify_audit().checked == len(log)
    # never the content, only counts, kinds and keys
    assert not any("Elm" in json.dumps(e.to_dict()) or "oat milk" in json.dumps(e.to_dict()) for e in log)


def test_tampering_is_detected_at_the_edited_entry(db_path: Path, mem: Memory, clock: ManualClock) -> None:
    _history(mem, clock)
    target = mem.audit_log(action="hide")[0].seq
    raw = sqlite3.connect(db_path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("UPDATE audit_log SET reason = 'nothing happened' WHERE seq = ?", (target,))
    raw.execute("DROP TRIGGER audit_log_no_update")
    raw.execute("UPDATE audit_log SET reason = 'nothing happened' WHERE seq = ?", (target,))
    raw.commit()
    raw.close()
    result = mem.verify_audit()
    assert not result.ok and result.first_bad_seq == target and "edited" in (result.problem or "")
    out = CliRunner().invoke(cli, ["--db", str(db_path), "audit", "verify"])
    assert out.exit_code == 1 and f"#{target}" in out.output


def test_deleting_an_entry_breaks_the_link(db_path: Path, mem: Memory, clock: ManualClock) -> None:
    _history(mem, clock)
    log = mem.audit_log()
    victim = log[2].seq
    raw = sqlite3.connect(db_path)
    raw.execute("DROP TRIGGER audit_log_no_delete")
    raw.execute("DELETE FROM audit_log WHERE seq = ?", (victim,))
    raw.commit()
    raw.close()
    result = mem.verify_audit()
    assert not result.ok and result.first_bad_seq == log[3].seq and "link" in (result.problem or "")


def test_hidden_can_be_restored_purged_cannot(mem: Memory) -> None:
    r = mem.remember("I keep a spare key under the mat", user_id="ana")
    mem.hide(r.id, reason="user asked")
    assert mem.recall("spare key", user_id="ana").hits == []
    assert mem.get(r.id).status == Status.HIDDEN
    restored = mem.unhide(r.id)
    assert restored.status == Status.ACTIVE
    assert [h.memory.id for h in mem.recall("spare key", user_id="ana").hits] == [r.id]
    with pytest.raises(ConflictError):
        mem.unhide(r.id)  # not hidden any more
    mem.purge(r.id)
    with pytest.raises(NotFoundError):
        mem.unhide(r.id)
    with pytest.raises(NotFoundError):
        mem.purge("mem_does_not_exist")
    assert mem.recall("spare key", user_id="ana", include_faded=True).hits == []
    purge = mem.audit_log(action="purge")[-1]
    assert purge.memory_ids == (r.id,) and "spare" not in purge.summary


def test_recall_says_when_something_faded_or_expired(mem: Memory, clock: ManualClock) -> None:
    faded = mem.remember("Her dog is called Biscuit", user_id="ana", kind="episode", importance=0.1)
    expired = mem.remember("Parking code for the garage is 4711", user_id="ana", ttl="1d")
    clock.advance(days=3)  # inside a 7-day grace: the expired one is still there to hint at
    mem.sweep(policy=SweepPolicy(expired_grace=timedelta(days=7)))
    result = mem.recall("dog called Biscuit", user_id="ana")
    assert result.hits == []
    assert [(f.id, f.reason) for f in result.faded] == [(faded.id, "faded")]
    garage = mem.recall("garage parking code", user_id="ana")
    assert garage.hits == [] and [(f.id, f.reason) for f in garage.faded] == [(expired.id, "expired")]
    assert garage.to_dict()["faded"][0]["reason"] == "expired"
    assert "Biscuit" not in json.dumps(result.to_dict()["faded"])  # a hint, not the content
    mem.sweep()  # by default what expired is purged: nothing left to hint at
    assert mem.recall("garage parking code", user_id="ana").faded == []


def test_unhide_restores_history_as_history(mem: Memory, clock: ManualClock) -> None:
    old = mem.remember("Lives at Elm Street 1", user_id="ana", key="address")
    clock.advance(days=1)
    new = mem.remember("Lives at Oak Road 9", user_id="ana", key="address")
    # a forget request for an address purges it (personal data); hiding is the reversible way
    assert mem.hide(old.id) + mem.hide(new.id) == [old.id, new.id]
    assert mem.unhide(old.id).status == Status.SUPERSEDED  # back as history, not a second address
    back = mem.unhide(new.id)
    assert back.status == Status.ACTIVE and "status_before_hide" not in back.metadata
    assert mem.current("address", user_id="ana").id == new.id  # type: ignore[union-attr]
    assert "status_before_hide" not in mem.get(old.id).metadata
    assert mem.audit_log(action="unhide")[0].reason == "restored to superseded"
