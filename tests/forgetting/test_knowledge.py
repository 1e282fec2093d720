"""Validity windows: the seed's 2022/2023/2024 manuals, recall as of a time, the daily sync job."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.errors import ValidationError
from remnant.core.model import Status
from remnant.engine.forgetting.knowledge import KnowledgeDoc, sync_knowledge
from remnant.engine.memory import Memory

KEY = "product_x/max_concurrency"


def edition(year: int, limit: int, until: int | None = None) -> KnowledgeDoc:
    return KnowledgeDoc(
        key=KEY,
        content=f"Product X manual {year}: maximum concurrency is {limit} connections",
        version=str(year),
        valid_from=datetime(year, 1, 1, tzinfo=UTC),
        valid_to=datetime(until, 1, 1, tzinfo=UTC) if until else None,
        source=f"manual-{year}",
    )


def answer(mem: Memory, at: datetime | None = None) -> list[str]:
    res = mem.recall("Product X maximum concurrency", user_id="knowledge", as_of=at, touch=False)
    return [h.memory.metadata["version"] for h in res.hits]


def test_three_editions_synced_over_three_years(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2022, 1, 2, tzinfo=UTC))
    mem = Memory(tmp_path / "kb.db", clock=clock)
    first = sync_knowledge(mem.ledger, [edition(2022, 500)])
    assert len(first.imported) == 1
    assert answer(mem) == ["2022"]

    clock.set(datetime(2023, 1, 2, tzinfo=UTC))
    second = sync_knowledge(mem.ledger, [edition(2022, 500), edition(2023, 800)])
    assert second.unchanged == 1 and len(second.imported) == 1
    assert len(second.windows_closed) == 1 and len(second.replaced) == 1
    assert answer(mem) == ["2023"]

    clock.set(datetime(2024, 3, 1, tzinfo=UTC))
    third = sync_knowledge(mem.ledger, [edition(2022, 500), edition(2023, 800), edition(2024, 1200)])
    assert third.unchanged == 2 and len(third.imported) == 1
    # now: only the edition in force; as of a date: the edition valid then
    assert answer(mem) == ["2024"]
    assert answer(mem, datetime(2022, 6, 1, tzinfo=UTC)) == ["2022"]
    assert answer(mem, datetime(2023, 6, 1, tzinfo=UTC)) == ["2023"]
    assert answer(mem, datetime(2021, 6, 1, tzinfo=UTC)) == []
    hist = mem.history(KEY, user_id="knowledge")
    assert [r.status for r in hist] == [Status.SUPERSEDED, Status.SUPERSEDED, Status.ACTIVE]
    assert hist[0].valid_to == datetime(2023, 1, 1, tzinfo=UTC) and hist[0].superseded_by == hist[1].id
    # re-running the same sync changes nothing
    again = sync_knowledge(mem.ledger, [edition(2022, 500), edition(2023, 800), edition(2024, 1200)])
    assert (again.imported, again.replaced, again.expired, again.unchanged) == ([], [], [], 3)
    actions = [(e.action, e.policy) for e in mem.audit_log(user_id="knowledge")]
    assert ("import", "knowledge_sync") in actions and ("supersede", "knowledge_sync") in actions
    assert mem.verify_audit().ok
    mem.close()


def test_knowledge_without_successor_is_soft_expired_when_its_window_ends(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2024, 1, 2, tzinfo=UTC))
    mem = Memory(tmp_path / "kb.db", clock=clock)
    promo = KnowledgeDoc(
        key="promo/spring",
        content="Spring promotion: 20 percent off all bikes",
        version="1",
        valid_from=datetime(2024, 1, 1, tzinfo=UTC),
        valid_to=datetime(2024, 4, 1, tzinfo=UTC),
    )
    sync_knowledge(mem.ledger, [promo])
    assert mem.recall("promotion bikes", user_id="knowledge").hits
    clock.set(datetime(2024, 4, 2, tzinfo=UTC))
    # recall already hides it (validity is checked at query time)...
    assert mem.recall("promotion bikes", user_id="knowledge").hits == []
    # ...and the daily sync soft-expires it, audited; it stays visible to a past-dated recall
    report = sync_knowledge(mem.ledger, [promo])
    assert len(report.expired) == 1
    assert mem.get(report.expired[0]).status == Status.EXPIRED
    assert mem.audit_log(action="expire")[-1].policy == "validity"
    past = mem.recall(
        "promotion bikes", user_id="knowledge", as_of=datetime(2024, 2, 1, tzinfo=UTC), touch=False
    )
    assert [h.memory.id for h in past.hits] == report.expired
    mem.close()


def test_bad_documents_are_refused() -> None:
    with pytest.raises(ValidationError):
        KnowledgeDoc(key=KEY, content="x", version="1", valid_from=datetime(2024, 1, 1))  # naive
    with pytest.raises(ValidationError):
        KnowledgeDoc(
            key=KEY,
            content="x",
            version="1",
            valid_from=datetime(2024, 1, 1, tzinfo=UTC),
            valid_to=datetime(2023, 1, 1, tzinfo=UTC),
        )
    with pytest.raises(ValidationError):
        KnowledgeDoc(key=KEY, content=" ", version="1", valid_from=datetime(2024, 1, 1, tzinfo=UTC))
