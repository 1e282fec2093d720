"""The CrewAI integration, through CrewAI's own unified ``Memory`` with ``RemnantStorage`` as its
storage backend (an offline embedder; explicit scope, categories and importance, so CrewAI needs no
LLM to encode)."""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TESTING", "true")  # CrewAI's trace collector off: it stalls each save 5 s
pytest.importorskip("crewai")

from crewai import Memory as CrewMemory
from crewai.memory.storage.backend import StorageBackend
from crewai.memory.types import MemoryRecord as CrewRecord

from remnant import ManualClock, NotFoundError, Status
from remnant.engine import Memory
from remnant.integrations.crewai import RemnantStorage, normalise_scope

DIM = 64


def embed(texts: list[str]) -> list[list[float]]:
    """A bag-of-words embedder: each word hashed to one of 64 dimensions, unit length."""
    out = []
    for text in texts:
        vec = [0.0] * DIM
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vec[int(hashlib.sha1(word.encode()).hexdigest(), 16) % DIM] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        out.append([v / norm for v in vec])
    return out


@pytest.fixture
def memory(tmp_path: Path, clock: ManualClock) -> Iterator[Memory]:
    with Memory(tmp_path / "crew.db", clock=clock) as m:
        yield m


@pytest.fixture
def storage(memory: Memory) -> RemnantStorage:
    return RemnantStorage(memory, user_id="crew")


@pytest.fixture
def crew_memory(storage: RemnantStorage) -> Iterator[CrewMemory]:
    m = CrewMemory(storage=storage, embedder=embed, consolidation_threshold=1.0)
    yield m
    m.close()


def recall(crew_memory: CrewMemory, query: str, scope: str | None = None) -> list[str]:
    return [m.record.content for m in crew_memory.recall(query, scope=scope, depth="shallow", limit=5)]


def test_it_is_a_storage_backend(storage: RemnantStorage) -> None:
    assert isinstance(storage, StorageBackend)
    assert normalise_scope("project/x/") == "/project/x" and normalise_scope(None) == "/"


def test_a_crew_remembers_updates_and_forgets(
    crew_memory: CrewMemory, memory: Memory, storage: RemnantStorage, clock: ManualClock
) -> None:
    """Through CrewAI's Memory: a keyed fact is superseded by its new value, a forgotten category
    stays gone, scopes keep customers apart, and delete-by-age purges the old."""
    ana = "/customers/ana"
    crew_memory.remember("Ana lives in Berlin", scope=ana, categories=["profile"], importance=0.7, metadata={"key": "city"})  # fmt: skip
    crew_memory.remember("Ana's phone number is 555-0100", scope=ana, categories=["contact"], importance=0.6)
    crew_memory.remember("Bo lives in Oslo", scope="/customers/bo", categories=["profile"], importance=0.7)
    clock.advance(days=2)
    crew_memory.remember("Ana lives in Paris now", scope=ana, categories=["profile"], importance=0.7, metadata={"key": "city"})  # fmt: skip

    found = recall(crew_memory, "where does Ana live", scope=ana)
    assert found[0] == "Ana lives in Paris now" and "Ana lives in Berlin" not in found
    assert [(m.content, m.status) for m in memory.history("city", user_id="crew")] == [
        ("Ana lives in Berlin", Status.SUPERSEDED),
        ("Ana lives in Paris now", Status.ACTIVE),
    ]
    assert "Bo lives in Oslo" not in recall(crew_memory, "who lives where", scope=ana)
    assert crew_memory.list_scopes("/customers") == ["/customers/ana", "/customers/bo"]
    assert crew_memory.info(ana).record_count == 2
    assert crew_memory.list_categories(ana) == {"contact": 1, "profile": 1}

    # forget Ana's contact details: purged in Remnant, audited, gone from every read
    phone_id = next(r.id for r in memory.list_memories("crew") if "555" in r.content)
    assert crew_memory.forget(scope=ana, categories=["contact"]) == 1
    with pytest.raises(NotFoundError):
        memory.get(phone_id)
    assert all("555" not in c for c in recall(crew_memory, "Ana phone number 555-0100", scope=ana))
    assert all("555" not in r.content for r in crew_memory.list_records())
    assert memory.audit_log(user_id="crew", action="purge")

    # delete by age: everything created before the move goes, superseded history included
    cutoff = clock.now().replace(tzinfo=None) - timedelta(days=1)
    assert crew_memory.forget(older_than=cutoff) == 2  # Berlin (superseded) and Bo
    assert [r.content for r in crew_memory.list_records()] == ["Ana lives in Paris now"]

    crew_memory.reset()
    assert storage.count() == 0 and memory.list_memories("crew") == []


def test_records_round_trip_and_update(storage: RemnantStorage, memory: Memory) -> None:
    record = CrewRecord(
        content="The launch is on Friday",
        scope="/project/launch",
        categories=["plan"],
        metadata={"owner": "ana"},
        importance=0.8,
        source="planner",
        embedding=embed(["The launch is on Friday"])[0],
    )
    storage.save([record])
    got = storage.get_record(record.id)
    assert got is not None
    assert (got.id, got.content, got.scope, got.categories, got.metadata, got.importance, got.source) == (
        record.id, record.content, "/project/launch", ["plan"], {"owner": "ana"}, 0.8, "planner",
    )  # fmt: skip
    hits = storage.search(
        embed(["launch friday"])[0], scope_prefix="/project", metadata_filter={"owner": "ana"}
    )
    assert [r.id for r, _ in hits] == [record.id]
    assert storage.search(embed(["launch friday"])[0], scope_prefix="/other") == []

    moved = record.model_copy(update={"content": "The launch moved to Monday", "embedding": embed(["launch monday"])[0]})  # fmt: skip
    storage.update(moved)
    got = storage.get_record(record.id)
    assert got is not None and got.content == "The launch moved to Monday"
    assert storage.count("/project") == 1
    statuses = sorted(r.status.value for r in memory.list_memories("crew"))
    assert statuses == ["active", "hidden"]  # the old version is hidden, audited, not lost

    assert storage.delete(record_ids=[record.id]) == 2
    assert storage.get_record(record.id) is None


def test_decay_applies(crew_memory: CrewMemory, memory: Memory, clock: ManualClock) -> None:
    """A trivial memory left alone fades out of CrewAI's recall; an important one stays."""
    crew_memory.remember(
        "The office plant was watered", scope="/office", categories=["chores"], importance=0.05
    )
    crew_memory.remember("The office alarm code is kept by Ana", scope="/office", categories=["security"], importance=1.0)  # fmt: skip
    assert len(recall(crew_memory, "office", scope="/office")) == 2
    clock.advance(days=120)
    assert recall(crew_memory, "office plant alarm", scope="/office") == [
        "The office alarm code is kept by Ana"
    ]


def test_reset_a_scope_only(crew_memory: CrewMemory, storage: RemnantStorage) -> None:
    crew_memory.remember("Old plan", scope="/project/old", categories=["plan"], importance=0.5)
    crew_memory.remember("New plan", scope="/project/new", categories=["plan"], importance=0.5)
    crew_memory.reset("/project/old")
    assert [r.content for r in crew_memory.list_records()] == ["New plan"]
    assert storage.list_scopes("/project") == ["/project/new"]
