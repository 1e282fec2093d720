"""Knowledge partitions: routing, isolated replace/rebuild/drop, audit; own storage and engine-backed."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from remnant.core.clock import ManualClock
from remnant.core.model import Kind, Status
from remnant.engine import Memory
from remnant.partitions import (
    HashingEmbedder,
    InvalidPartitionError,
    KnowledgeItem,
    Partition,
    PartitionExistsError,
    PartitionManager,
    PartitionNotFoundError,
    Router,
)
from remnant.partitions.engine_backend import EngineAudit, EngineBackend, PartitionRetriever
from remnant.store.base import MemoryFilter
from remnant.training.synthetic import manual_dataset

pytestmark = pytest.mark.clock_start(
    datetime(2025, 1, 1, tzinfo=UTC)
)  # the shared clock fixture, started here

BASIC = [
    "Water boils at 100 degrees Celsius at sea level.",
    "Paris is the capital of France.",
    "A week has seven days.",
    "Photosynthesis turns light, water and carbon dioxide into sugar.",
]
PREFS = [
    "User A prefers a minimalist design style.",
    "User A likes blue as an accent colour.",
    "User A wants answers in short bullet points.",
]
QUERIES = [
    "capital of France",
    "boiling point of water",
    "minimalist design style",
    "accent colour blue",
    "short bullet points answers",
    "how many days in a week",
    "max concurrency of Atlas DB",
]


def dynamic_items(seed: int) -> list[KnowledgeItem]:
    data = manual_dataset(6, seed=seed)
    return [
        KnowledgeItem(
            f"In {c['date'][:4]} the {c['attribute']} of {c['entity']} is {c['value']}.",
            {"source": c["source"]},
        )
        for c in data.claims
        if c["source"] == "manual-2024"
    ]


def build(m: PartitionManager) -> None:
    m.seed_defaults()
    m.add("basic", [KnowledgeItem(t) for t in BASIC])
    m.add("dynamic-2024", dynamic_items(1))
    m.add("user-a-preferences", [KnowledgeItem(t) for t in PREFS])


def snapshot(
    m: PartitionManager, partitions: list[str]
) -> dict[tuple[str, str], list[tuple[str, str, float]]]:
    return {
        (q, p): [(h.item_id, h.text, h.score) for h in m.recall(q, partitions=[p], limit=5)]
        for q in QUERIES
        for p in partitions
    }


@pytest.fixture
def manager(tmp_path: Path, clock: ManualClock) -> Iterator[PartitionManager]:
    with PartitionManager(tmp_path / "partitions.db", clock=clock) as m:
        build(m)
        yield m


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    e = HashingEmbedder(64)
    a = e(["max concurrency of X", "最大并发数"])
    assert np.allclose(a, e(["max concurrency of X", "最大并发数"]))
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert e([""]).sum() == 0.0
    assert float(e(["design style"])[0] @ e(["minimalist design style"])[0]) > 0.5


def test_router_rules_and_similarity(manager: PartitionManager) -> None:
    d = manager.route("What is the latest max concurrency of Atlas DB?")
    assert d.partitions[0] == "dynamic-2024" and "keyword 'latest'" in d.reasons["dynamic-2024"]
    assert (
        manager.route("Which release notes mention the new version?").partitions[0] == "dynamic-2024"
    )  # regex
    assert manager.route("Which design style do I prefer?").partitions[0] == "user-a-preferences"
    assert manager.route("我喜欢什么风格？").partitions == ("user-a-preferences",)
    assert manager.route("anything", kind="preference").partitions[0] == "user-a-preferences"
    # no rule matches: falls back to basic knowledge
    assert manager.route("How does photosynthesis work?").partitions == ("basic",)
    # similarity to the description alone can choose a partition
    r = Router(
        [
            Partition("cooking", "recipes, cooking, baking bread and cakes"),
            Partition("cars", "engines, tyres, car repair"),
        ]
    )
    assert r.route("baking bread at home").partitions == ("cooking",)
    assert r.route("replace the tyres").partitions == ("cars",)


def test_content_similarity_routes_when_descriptions_lack_the_words(
    tmp_path: Path, clock: ManualClock
) -> None:
    with PartitionManager(tmp_path / "p.db", clock=clock) as m:
        build(m)
        d = m.route("max concurrency of Atlas DB")  # no rule, no description word in common
        assert d.partitions[0] == "dynamic-2024" and d.reasons["dynamic-2024"][0].startswith(
            "content similarity"
        )
        assert m.recall("max concurrency of Atlas DB")[0].partition == "dynamic-2024"
    with PartitionManager(tmp_path / "q.db", clock=clock, route_by_content=False) as m:
        build(m)
        assert m.route("max concurrency of Atlas DB").partitions == ("basic",)  # fallback


def test_router_follows_description_changes(manager: PartitionManager) -> None:
    assert manager.route("quantum chromodynamics lecture").reasons.get("basic") == ["fallback"]
    manager.replace(
        "user-a-preferences", [KnowledgeItem("x")], description="quantum chromodynamics lecture notes"
    )
    assert manager.route("quantum chromodynamics lecture").partitions[0] == "user-a-preferences"


def test_router_errors() -> None:
    with pytest.raises(InvalidPartitionError, match="bad pattern"):
        Router([Partition("x", "d", patterns=("(unclosed",))])
    with pytest.raises(ValueError):
        Router([], max_partitions=0)
    assert Router([]).route("q").partitions == ()


def test_recall_stays_inside_the_chosen_partitions(manager: PartitionManager) -> None:
    hits = manager.recall("capital of France", partitions=["basic"])
    assert hits[0].text == "Paris is the capital of France."
    assert all(h.partition == "basic" for h in hits)
    assert manager.recall("capital of France", partitions=["user-a-preferences"]) == []
    routed = manager.recall("Which design style do I prefer?")
    assert routed and all(h.partition == "user-a-preferences" for h in routed)


def test_replacing_a_partition_leaves_the_others_recall_unchanged(manager: PartitionManager) -> None:
    others = ["basic", "user-a-preferences"]
    before = snapshot(manager, others)
    before_items = {p: manager.items(p) for p in others}
    old = {i.text for i in manager.items("dynamic-2024")}
    p = manager.replace("dynamic-2024", dynamic_items(2), description="Dynamic knowledge, 2025 edition.")
    assert p.version == 2 and p.description == "Dynamic knowledge, 2025 edition."
    assert {i.text for i in manager.items("dynamic-2024")} != old
    assert snapshot(manager, others) == before
    assert {p: manager.items(p) for p in others} == before_items
    manager.rebuild("basic")
    manager.drop("dynamic-2024")
    assert snapshot(manager, ["user-a-preferences"]) == {
        k: v for k, v in before.items() if k[1] == "user-a-preferences"
    }
    assert snapshot(manager, ["basic"]) == {k: v for k, v in before.items() if k[1] == "basic"}


def test_rebuild_keeps_content_and_bumps_version(manager: PartitionManager) -> None:
    before = manager.items("basic")
    before_hits = snapshot(manager, ["basic"])
    p = manager.rebuild("basic")
    assert p.version == 2
    assert manager.items("basic") == before
    assert snapshot(manager, ["basic"]) == before_hits
    p = manager.rebuild("basic", [KnowledgeItem("Only this now.")])
    assert p.version == 3 and [i.text for i in manager.items("basic")] == ["Only this now."]


def test_drop_removes_only_that_partition(manager: PartitionManager, tmp_path: Path) -> None:
    assert manager.drop("user-a-preferences") == len(PREFS)
    assert [p.name for p in manager.list()] == ["basic", "dynamic-2024"]
    with pytest.raises(PartitionNotFoundError):
        manager.items("user-a-preferences")
    with pytest.raises(PartitionNotFoundError):
        manager.recall("x", partitions=["user-a-preferences"])
    rows = (
        sqlite3.connect(tmp_path / "partitions.db")
        .execute("SELECT partition, COUNT(*) FROM part_item GROUP BY partition")
        .fetchall()
    )
    assert dict(rows) == {"basic": len(BASIC), "dynamic-2024": len(dynamic_items(1))}


def test_every_operation_is_audited_in_a_verifiable_chain(
    manager: PartitionManager, tmp_path: Path, clock: ManualClock
) -> None:
    clock.advance(days=1)
    manager.replace("dynamic-2024", dynamic_items(3))
    manager.rebuild("basic")
    manager.drop("user-a-preferences")
    log = manager.audit_log()
    assert [(r.action, r.partition) for r in log] == [
        ("create", "basic"),
        ("create", "dynamic-2024"),
        ("create", "user-a-preferences"),
        ("replace", "dynamic-2024"),
        ("rebuild", "basic"),
        ("drop", "user-a-preferences"),
    ]
    replace = log[3]
    assert replace.detail["items_removed"] == len(dynamic_items(1)) and replace.detail["version_after"] == 2
    assert replace.at.startswith("2025-01-02")
    assert [r.action for r in manager.audit_log("basic")] == ["create", "rebuild"]
    assert manager.verify_audit()
    manager.conn.execute("UPDATE part_audit SET detail = '{}' WHERE seq = 4")
    manager.conn.commit()
    assert not manager.verify_audit()


def test_registry_errors(manager: PartitionManager) -> None:
    with pytest.raises(PartitionExistsError):
        manager.create("basic", "again")
    with pytest.raises(InvalidPartitionError):
        manager.create("bad name!", "x")
    with pytest.raises(InvalidPartitionError):
        manager.create("empty", "  ")
    with pytest.raises(InvalidPartitionError):
        manager.create("regex", "x", patterns=("[",))
    assert "regex" not in {p.name for p in manager.list()}
    with pytest.raises(PartitionNotFoundError):
        manager.replace("nope", [])
    with pytest.raises(PartitionNotFoundError):
        manager.drop("nope")


# -- engine-backed ------------------------------------------------------------------------------
@pytest.fixture
def engine_manager(tmp_path: Path, clock: ManualClock) -> Iterator[tuple[PartitionManager, Memory]]:
    mem = Memory(tmp_path / "remnant.db", clock=clock, retriever=PartitionRetriever())
    m = PartitionManager(
        tmp_path / "partitions.db", backend=EngineBackend(mem), audit=EngineAudit(mem), clock=clock
    )
    build(m)
    yield m, mem
    m.close()
    mem.close()


def test_engine_backed_items_are_knowledge_memories(engine_manager: tuple[PartitionManager, Memory]) -> None:
    m, mem = engine_manager
    records = mem.store.query(
        MemoryFilter(tenant=mem.tenant, user_id="partitions", metadata={"partition": "basic"})
    )
    assert sorted(r.content for r in records) == sorted(BASIC)
    assert all(r.kind == Kind.KNOWLEDGE and r.pinned and r.metadata["partition"] == "basic" for r in records)
    assert [i.text for i in m.items("basic")] == BASIC


def test_engine_backed_replace_leaves_other_partitions_recall_unchanged(
    engine_manager: tuple[PartitionManager, Memory], clock: ManualClock
) -> None:
    m, mem = engine_manager
    others = ["basic", "user-a-preferences"]
    mem.remember(
        "I prefer green tea", user_id="ana", kind="preference", pinned=True
    )  # an ordinary user memory
    before = snapshot(m, others)
    assert before[("capital of France", "basic")][0][1] == "Paris is the capital of France."
    clock.advance(days=400)  # pinned partition knowledge does not fade
    m.replace("dynamic-2024", dynamic_items(2))
    assert snapshot(m, others) == before
    m.drop("dynamic-2024")
    assert snapshot(m, others) == before
    assert [h.memory.content for h in mem.recall("green tea", user_id="ana")] == ["I prefer green tea"]
    assert (
        mem.store.count(
            MemoryFilter(
                tenant=mem.tenant, user_id="partitions", metadata={"partition": "dynamic-2024"}, statuses=None
            )
        )
        == 0
    )


def test_engine_backed_operations_go_to_the_core_audit_chain(
    engine_manager: tuple[PartitionManager, Memory],
) -> None:
    m, mem = engine_manager
    m.replace("dynamic-2024", dynamic_items(2))
    actions = [e.action for e in mem.audit_log()]
    assert actions.count("partition_create") == 3
    assert "purge" in actions and actions[-1] == "partition_replace"
    entry = mem.audit_log(action="partition_replace")[0]
    assert entry.details["partition"] == "dynamic-2024" and entry.policy == "partitions"
    assert mem.verify_audit().ok
    assert m.verify_audit()


def test_engine_backed_with_the_default_lexical_retriever(tmp_path: Path, clock: ManualClock) -> None:
    with Memory(tmp_path / "lex.db", clock=clock) as mem:
        m = PartitionManager(tmp_path / "reg.db", backend=EngineBackend(mem), clock=clock)
        build(m)
        order = {k: [h[0] for h in v] for k, v in snapshot(m, ["basic", "user-a-preferences"]).items()}
        assert order[("capital of France", "basic")]
        m.replace("dynamic-2024", dynamic_items(2))
        # BM25 statistics span the whole index, so scores may shift; which items and their order do not
        after = {k: [h[0] for h in v] for k, v in snapshot(m, ["basic", "user-a-preferences"]).items()}
        assert after == order
        assert mem.store.count(MemoryFilter(tenant=mem.tenant, statuses=(Status.ACTIVE,))) == len(
            BASIC
        ) + len(PREFS) + len(dynamic_items(2))
        m.close()
