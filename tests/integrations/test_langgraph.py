"""RemnantStore against LangGraph's real BaseStore interface (langgraph installed; no mocks).

LangGraph ships no conformance suite for stores (``langgraph-checkpoint-conformance`` covers
checkpointers only), so the documented semantics are tested here, and a differential test runs the
same random operations on LangGraph's own ``InMemoryStore`` and compares what both return.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.store.base")

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from remnant import ManualClock
from remnant.core.model import Status
from remnant.engine import Memory
from remnant.integrations.langgraph import RemnantStore, value_matches

ANA = ("memories", "ana")


@pytest.fixture
def store(mem: Memory) -> Iterator[RemnantStore]:
    yield RemnantStore(mem)


# -- a conversation over weeks: an update supersedes, a deleted memory stays gone ------------------
def test_multi_turn_update_supersedes_and_forgotten_stays_gone(
    store: RemnantStore, mem: Memory, clock: ManualClock
) -> None:
    store.put(ANA, "city", {"text": "Ana lives in Lisbon", "city": "Lisbon"})
    store.put(ANA, "phone", {"text": "Ana's phone number is 555 0101"})
    store.put(ANA, "drink", {"text": "Ana prefers green tea"})
    clock.advance(days=3)

    store.put(ANA, "city", {"text": "Ana moved to Porto", "city": "Porto"})  # the update
    store.delete(ANA, "phone")  # the forget request
    clock.advance(days=10)

    city = store.get(ANA, "city")
    assert city is not None and city.value["city"] == "Porto"
    assert city.created_at < city.updated_at  # created with the first version, updated by the move
    assert store.get(ANA, "phone") is None
    found = store.search(ANA, query="Lisbon or Porto?")
    assert [i.value.get("city") for i in found] == ["Porto"]  # the old value is not recalled
    assert not any("phone" in i.key for i in store.search(("memories",), query="phone number 555 0101"))
    assert {i.key for i in store.search(ANA)} == {"city", "drink"}

    # Remnant kept the old value as history and audited the delete
    assert [i.value["city"] for i in store.history(ANA, "city")] == ["Lisbon", "Porto"]
    key = RemnantStore.memory_key(ANA, "city")
    assert [r.status for r in mem.history(key, user_id="ana")] == [Status.SUPERSEDED, Status.ACTIVE]
    phone = mem.history(RemnantStore.memory_key(ANA, "phone"), user_id="ana")
    assert [r.status for r in phone] == [Status.HIDDEN]
    assert any(e.action == "hide" for e in mem.audit_log(user_id="ana"))

    # later turns do not bring it back: recalls, sweeps, a put elsewhere
    clock.advance(days=30)
    mem.sweep()
    store.put(ANA, "drink", {"text": "Ana prefers black coffee now"})
    assert store.get(ANA, "phone") is None
    assert [h.memory.content for h in mem.recall("phone 555", user_id="ana")] == []


def test_purge_mode_deletes_every_version(mem: Memory) -> None:
    store = RemnantStore(mem, delete="purge")
    store.put(ANA, "phone", {"n": "555 0101"})
    store.put(ANA, "phone", {"n": "555 0202"})
    store.delete(ANA, "phone")
    assert store.get(ANA, "phone") is None
    assert store.history(ANA, "phone") == []
    assert mem.list_memories("ana", statuses=None) == []


def test_delete_then_put_starts_a_new_item(store: RemnantStore, clock: ManualClock) -> None:
    store.put(ANA, "k", {"v": 1})
    clock.advance(minutes=5)
    store.delete(ANA, "k")
    store.delete(ANA, "never-there")  # no error
    clock.advance(minutes=5)
    store.put(ANA, "k", {"v": 2})
    item = store.get(ANA, "k")
    assert item is not None and item.value == {"v": 2} and item.created_at == item.updated_at


# -- a real graph with the store injected ---------------------------------------------------------
class Turn(TypedDict, total=False):
    user: str
    message: str
    reply: str


def remember_or_answer(state: Turn, runtime: Runtime[Any]) -> Turn:
    """A node with no LLM: "my X is Y" writes a memory, "forget my X" deletes it, "what is my X" reads."""
    store = runtime.store
    assert store is not None
    namespace = ("memories", state["user"])
    words = state["message"].rstrip("?.!").split()
    if words[:2] == ["forget", "my"]:
        store.delete(namespace, words[2])
        return {"reply": f"forgot your {words[2]}"}
    if words[:3] == ["what", "is", "my"]:
        item = store.get(namespace, words[3])
        return {"reply": item.value["value"] if item else "I don't know"}
    if words[0] == "my" and words[2] == "is":
        store.put(namespace, words[1], {"value": " ".join(words[3:]), "said": state["message"]})
        return {"reply": "noted"}
    hits = store.search(namespace, query=state["message"], limit=1)
    return {"reply": hits[0].value["value"] if hits else "I don't know"}


def build_graph(store: RemnantStore) -> Any:
    graph = StateGraph(Turn)
    graph.add_node("memory", remember_or_answer)
    graph.add_edge(START, "memory")
    graph.add_edge("memory", END)
    return graph.compile(store=store)


def test_state_graph_reads_and_writes_through_the_injected_store(store: RemnantStore, mem: Memory) -> None:
    app = build_graph(store)

    def say(user: str, message: str) -> str:
        reply: str = app.invoke({"user": user, "message": message})["reply"]
        return reply

    assert say("ana", "my city is Lisbon") == "noted"
    assert say("ana", "my pin is 4242") == "noted"
    assert say("ana", "what is my city?") == "Lisbon"
    assert say("ana", "my city is Porto") == "noted"
    assert say("ana", "what is my city?") == "Porto"
    assert say("ana", "forget my pin") == "forgot your pin"
    assert say("ana", "what is my pin?") == "I don't know"
    assert say("ana", "pin 4242") == "I don't know"  # a search does not find it either
    assert say("bob", "what is my city?") == "I don't know"  # another user's namespace
    # what the graph wrote is ordinary Remnant memory
    assert [r.content for r in mem.list_memories("ana", statuses=["superseded"])] == [
        "value: Lisbon\nsaid: my city is Lisbon"
    ]


def test_state_graph_async(store: RemnantStore) -> None:
    app = build_graph(store)

    async def run() -> list[str]:
        replies = []
        for message in ("my team is red", "my team is blue", "what is my team?"):
            out = await app.ainvoke({"user": "cleo", "message": message})
            replies.append(out["reply"])
        return replies

    assert asyncio.run(run()) == ["noted", "noted", "blue"]


# -- namespaces ------------------------------------------------------------------------------------
def test_namespace_scope_mapping(store: RemnantStore, mem: Memory) -> None:
    store.put(("docs",), "a", {"t": "shared doc"})
    store.put(("memories", "ana"), "k", {"t": "ana"})
    store.put(("memories", "ana", "planner"), "k", {"t": "ana planner"})
    store.put(("memories", "ana", "writer"), "k", {"t": "ana writer"})
    assert store.scope(("docs",)) == ("langgraph", None)
    assert store.scope(("memories", "ana", "planner", "x")) == ("ana", "planner")
    assert {r.agent_id for r in mem.list_memories("ana")} == {None, "planner", "writer"}
    assert [r.metadata["langgraph"]["value"] for r in mem.list_memories("langgraph")] == [{"t": "shared doc"}]
    # the same key in three namespaces of one user: three items, none supersedes another
    assert {i.value["t"] for i in store.search(("memories", "ana"))} == {"ana", "ana planner", "ana writer"}
    assert [i.value["t"] for i in store.search(("memories", "ana", "planner"))] == ["ana planner"]
    custom = RemnantStore(mem, user_label=0, agent_label=None)
    assert custom.scope(("ana", "memories")) == ("ana", None)


def test_prefix_matches_whole_labels(store: RemnantStore) -> None:
    store.put(("a", "b"), "k", {"v": 1})
    store.put(("a", "bc"), "k", {"v": 2})
    store.put(("ab",), "k", {"v": 3})
    assert [i.value["v"] for i in store.search(("a", "b"))] == [1]
    assert sorted(i.value["v"] for i in store.search(("a",))) == [1, 2]
    assert sorted(i.value["v"] for i in store.search(())) == [1, 2, 3]


def test_list_namespaces(store: RemnantStore) -> None:
    for ns in [
        ("a", "b", "c"),
        ("a", "b", "d", "e"),
        ("a", "b", "d", "i"),
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
        ("users", "123"),
        ("users", "456", "settings"),
        ("admin", "users", "789"),
    ]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces(prefix=("a", "b")) == [
        ("a", "b", "c"),
        ("a", "b", "d", "e"),
        ("a", "b", "d", "i"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("*", "users")) == [("admin", "users", "789")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    everything = store.list_namespaces(limit=1000)
    assert len(everything) == 9 and everything == sorted(everything)
    assert store.list_namespaces(limit=3, offset=2) == everything[2:5]
    assert store.list_namespaces(prefix=("users",), max_depth=1) == [("users",)]
    store.delete(("users", "123"), "k")
    assert store.list_namespaces(prefix=("users",)) == [("users", "456", "settings")]
    got = store.batch(
        [ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("*", "f")),), max_depth=2, limit=2)]
    )
    assert got == [[("a", "b"), ("a", "c")]]


def test_invalid_namespaces(store: RemnantStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b",), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("a", ""), "k")])  # ops given straight to batch are checked too
    with pytest.raises(InvalidNamespaceError):
        store.search(("a", "b.c"))
    with pytest.raises(InvalidNamespaceError):
        store.put(("memories", "line\nbreak"), "k", {"v": 1})  # a user id Remnant refuses


def test_keys_that_are_not_clean_identifiers(store: RemnantStore) -> None:
    long_key = "x" * 400
    for key in (long_key, " padded ", "tab\there", "a.b:c/d", "ключ"):
        store.put(ANA, key, {"key": key})
    for key in (long_key, " padded ", "tab\there", "a.b:c/d", "ключ"):
        item = store.get(ANA, key)
        assert item is not None and item.key == key and item.value == {"key": key}
    assert store.get(ANA, "padded") is None
    assert RemnantStore.memory_key(("a", "b"), "c.d") != RemnantStore.memory_key(("a",), "b.c.d")


# -- search: query, filter, pagination -----------------------------------------------------------------
def test_search_query_ranks_and_filters(store: RemnantStore) -> None:
    store.put(ANA, "1", {"text": "Ana loves hiking in the mountains", "year": 2020, "tag": "outdoor"})
    store.put(ANA, "2", {"text": "Ana plays chess on Sundays", "year": 2022, "tag": "indoor"})
    store.put(ANA, "3", {"text": "Ana went hiking in Madeira", "year": 2024, "tag": "outdoor"})
    store.put(("memories", "bob"), "1", {"text": "Bob loves hiking too", "year": 2021})
    hits = store.search(ANA, query="hiking")
    assert {h.key for h in hits} == {"1", "3"}
    assert all(isinstance(h, SearchItem) and h.score is not None and h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)  # type: ignore[misc]
    assert {h.key for h in store.search(ANA, query="hiking", filter={"year": {"$gte": 2021}})} == {"3"}
    assert {(h.namespace, h.key) for h in store.search(("memories",), query="hiking")} == {
        (ANA, "1"),
        (ANA, "3"),
        (("memories", "bob"), "1"),
    }
    assert store.search(ANA, query="hiking", limit=1, offset=1)[0].key in {"1", "3"}
    assert store.search(ANA, query="quantum chromodynamics") == []


def test_search_without_query_is_newest_first_with_pagination(
    store: RemnantStore, clock: ManualClock
) -> None:
    for n in range(12):
        store.put(ANA, f"k{n}", {"n": n})
        clock.advance(seconds=1)
    assert [i.value["n"] for i in store.search(ANA)] == list(range(11, 1, -1))  # default limit 10
    assert [i.value["n"] for i in store.search(ANA, limit=3, offset=4)] == [7, 6, 5]
    assert [i.value["n"] for i in store.search(ANA, filter={"n": {"$lt": 3}}, limit=2, offset=1)] == [1, 0]
    assert all(i.score is None for i in store.search(ANA))
    assert store.search(ANA, limit=0) == []


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"color": "red"}, {"a", "c"}),
        ({"color": {"$eq": "red"}}, {"a", "c"}),
        ({"color": {"$ne": "red"}}, {"b", "d"}),
        ({"score": {"$gt": 4.99}}, {"b"}),
        ({"score": {"$gte": 3}}, {"a", "b"}),
        ({"score": {"$lt": 3}}, {"c"}),
        ({"score": {"$lte": 3}}, {"a", "c"}),
        ({"score": {"$gt": 1, "$lt": 5}}, {"a", "c"}),
        ({"color": "red", "score": {"$gte": 3}}, {"a"}),
        ({"meta": {"lang": "pt"}}, {"a"}),
        ({"tags": ["x", "y"]}, {"b"}),
        ({"missing": "x"}, set()),
        ({"score": {"$gt": "a"}}, set()),  # a number never compares with a string
    ],
)
def test_filter_operators(store: RemnantStore, flt: dict[str, Any], expected: set[str]) -> None:
    store.put(ANA, "a", {"color": "red", "score": 3, "meta": {"lang": "pt", "v": 1}})
    store.put(ANA, "b", {"color": "blue", "score": 5.5, "tags": ["x", "y"]})
    store.put(ANA, "c", {"color": "red", "score": 1.5})
    store.put(ANA, "d", {"color": "green"})
    assert {i.key for i in store.search(ANA, filter=flt)} == expected


def test_unknown_filter_operator_is_an_error() -> None:
    with pytest.raises(ValueError, match="unsupported filter operator"):
        value_matches(1, {"$in": [1]})


def test_index_fields_and_index_false(mem: Memory) -> None:
    store = RemnantStore(mem, index={"dims": 1, "embed": "unused", "fields": ["title"]})
    store.put(ANA, "doc", {"title": "Volcano trip", "body": "We saw lava in Iceland"})
    store.put(ANA, "body", {"title": "Notes", "body": "volcano"}, index=["body"])
    store.put(ANA, "hidden", {"title": "volcano secrets"}, index=False)
    assert {i.key for i in store.search(ANA, query="volcano")} == {"doc", "body"}
    assert store.search(ANA, query="lava") == []  # body is not indexed for "doc"
    assert {i.key for i in store.search(ANA, query="hidden")} == {"hidden"}  # only by key
    item = store.get(ANA, "hidden")
    assert item is not None and item.value == {"title": "volcano secrets"}  # still readable


# -- TTL and decay ---------------------------------------------------------------------------------
def test_ttl_expires_and_reads_refresh_it(store: RemnantStore, mem: Memory, clock: ManualClock) -> None:
    store.put(ANA, "otp", {"code": "1234"}, ttl=10)  # minutes
    store.put(ANA, "quiet", {"code": "5678"}, ttl=10)
    rec = mem.current(RemnantStore.memory_key(ANA, "otp"), user_id="ana")
    assert rec is not None and rec.expires_at == clock.now() + timedelta(minutes=10)
    clock.advance(minutes=8)
    assert store.get(ANA, "otp") is not None  # refreshes: now expires 10 min from here
    assert store.get(ANA, "quiet", refresh_ttl=False) is not None  # does not
    clock.advance(minutes=8)
    assert store.get(ANA, "otp", refresh_ttl=False) is not None
    assert store.get(ANA, "quiet") is None  # 16 minutes after its last refresh
    assert store.search(ANA, refresh_ttl=True)[0].key == "otp"  # a search refreshes too
    clock.advance(minutes=9)
    assert [i.key for i in store.search(ANA, refresh_ttl=False)] == ["otp"]
    clock.advance(minutes=2)
    assert store.get(ANA, "otp") is None and store.search(ANA) == []
    assert store.list_namespaces() == []
    assert store.sweep_ttl() == 2
    assert mem.list_memories("ana", statuses=None) == []  # expired, then purged: stored nowhere


def test_ttl_config_defaults(mem: Memory, clock: ManualClock) -> None:
    store = RemnantStore(mem, ttl={"default_ttl": 5, "refresh_on_read": False})
    assert store.supports_ttl
    store.put(ANA, "a", {"v": 1})  # default_ttl applies
    store.put(ANA, "b", {"v": 2}, ttl=None)  # explicitly none
    clock.advance(minutes=4)
    assert store.get(ANA, "a") is not None  # no refresh by default
    clock.advance(minutes=2)
    assert store.get(ANA, "a") is None
    assert store.get(ANA, "b") is not None
    with pytest.raises(ValueError):
        store.put(ANA, "c", {"v": 3}, ttl=-1)


def test_reads_reinforce_and_unused_items_fade(mem: Memory, clock: ManualClock) -> None:
    store = RemnantStore(mem)
    store.put(ANA, "used", {"text": "used often"})
    store.put(ANA, "unused", {"text": "never read"})
    for _ in range(6):
        clock.advance(days=60)
        assert store.get(ANA, "used") is not None
    assert store.get(ANA, "unused") is None  # faded: no longer remembered
    used = mem.current(RemnantStore.memory_key(ANA, "used"), user_id="ana")
    assert used is not None and used.access_count == 6
    store.get(ANA, "used", refresh_ttl=False)
    used = mem.current(RemnantStore.memory_key(ANA, "used"), user_id="ana")
    assert used is not None and used.access_count == 6  # a non-refreshing read has no side effects
    # pinned: a plain key-value store that never fades
    pinned = RemnantStore(mem, pinned=True)
    pinned.put(("kv",), "k", {"v": 1})
    clock.advance(days=3650)
    assert pinned.get(("kv",), "k") is not None


# -- the rest of the interface -------------------------------------------------------------------------
def test_batch_runs_ops_in_order(store: RemnantStore) -> None:
    results = store.batch(
        [
            PutOp(ANA, "a", {"v": 1}),
            GetOp(ANA, "a"),
            PutOp(ANA, "a", {"v": 2}),
            SearchOp(ANA),
            PutOp(ANA, "a", None),
            GetOp(ANA, "a"),
            ListNamespacesOp(),
        ]
    )
    assert results[0] is None and results[2] is None and results[4] is None
    assert isinstance(results[1], Item) and results[1].value == {"v": 1}
    assert [i.value for i in results[3]] == [{"v": 2}]  # type: ignore[union-attr]
    assert results[5] is None
    assert results[6] == []


def test_async_methods(store: RemnantStore) -> None:
    async def run() -> None:
        await store.aput(ANA, "a", {"text": "async tea"})
        await store.aput(ANA, "a", {"text": "async coffee"})
        item = await store.aget(ANA, "a")
        assert item is not None and item.value == {"text": "async coffee"}
        assert [i.key for i in await store.asearch(ANA, query="coffee")] == ["a"]
        assert await store.alist_namespaces() == [ANA]
        await store.adelete(ANA, "a")
        assert await store.aget(ANA, "a") is None
        both = await asyncio.gather(store.aput(ANA, "x", {"v": 1}), store.aput(ANA, "y", {"v": 2}))
        assert both == [None, None]
        assert {i.key for i in await store.asearch(ANA)} == {"x", "y"}

    asyncio.run(run())


def test_values_round_trip_and_bad_values(store: RemnantStore) -> None:
    value = {
        "s": "é 中文",
        "n": 1,
        "f": 1.5,
        "b": True,
        "none": None,
        "list": [1, {"a": [2]}],
        "d": {"x": {}},
    }
    store.put(ANA, "v", value)
    item = store.get(ANA, "v")
    assert item is not None and item.value == value
    assert item.dict()["namespace"] == list(ANA)
    with pytest.raises(ValueError):
        store.put(ANA, "bad", {"obj": object()})


def test_reopening_the_database_keeps_items(db_path: Path, clock: ManualClock) -> None:
    with RemnantStore(Memory(db_path, clock=clock), owns_memory=True) as first:
        first.put(ANA, "k", {"v": "kept"})
    with RemnantStore(Memory(db_path, clock=clock), owns_memory=True) as second:
        item = second.get(ANA, "k")
        assert item is not None and item.value == {"v": "kept"}


def test_open_builds_the_product_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    with RemnantStore.open(str(tmp_path / "lg.db")) as store:
        store.put(ANA, "k", {"text": "built from the environment"})
        assert [i.key for i in store.search(ANA, query="environment")] == ["k"]


# -- differential: the same operations on LangGraph's InMemoryStore ------------------------------------
def _snapshot(store: Any, prefix: tuple[str, ...], flt: dict[str, Any] | None) -> set[tuple[Any, ...]]:
    return {
        (i.namespace, i.key, repr(sorted(i.value.items())))
        for i in store.search(prefix, filter=flt, limit=1000)
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_behaves_like_in_memory_store(store: RemnantStore, clock: ManualClock, seed: int) -> None:
    rng = random.Random(seed)
    reference = InMemoryStore()
    namespaces = [("memories", u, *rest) for u in ("ana", "bob") for rest in [(), ("a1",), ("a1", "x")]]
    namespaces += [("docs",), ("docs", "ana")]
    keys = ["k1", "k2", "k3"]
    for step in range(150):
        clock.advance(seconds=1)
        ns, key = rng.choice(namespaces), rng.choice(keys)
        roll = rng.random()
        if roll < 0.55:
            value = {"n": rng.randint(0, 5), "color": rng.choice(["red", "blue"]), "step": step}
            for s in (store, reference):
                s.put(ns, key, value)
        elif roll < 0.7:
            for s in (store, reference):
                s.delete(ns, key)
        elif roll < 0.8:
            a, b = store.get(ns, key), reference.get(ns, key)
            assert (a.value if a else None) == (b.value if b else None)
        elif roll < 0.9:
            prefix = ns[: rng.randint(0, len(ns))]
            flt = rng.choice([None, {"color": "red"}, {"n": {"$gte": 3}}, {"n": {"$ne": 2}, "color": "blue"}])
            assert _snapshot(store, prefix, flt) == _snapshot(reference, prefix, flt)
        else:
            prefix = ns[: rng.randint(0, 2)]
            depth = rng.choice([None, 1, 2, 3])
            assert store.list_namespaces(prefix=prefix, max_depth=depth, limit=1000) == _listed(
                reference, prefix=prefix, max_depth=depth
            )
    assert _snapshot(store, (), None) == _snapshot(reference, (), None)
    assert store.list_namespaces(limit=1000) == _listed(reference)


def _listed(reference: InMemoryStore, **kw: Any) -> list[tuple[str, ...]]:
    """InMemoryStore keeps listing a namespace whose last item was deleted; stores on a database
    (PostgresStore, this one) list the namespaces that hold items."""
    return [ns for ns in reference.list_namespaces(limit=1000, **kw) if reference.search(ns, limit=1)]
