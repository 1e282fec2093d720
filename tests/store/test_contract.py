"""THE store contract: every backend (SQLite file, PostgreSQL) must pass the same tests."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from remnant.core.audit import AuditDraft, verify_chain
from remnant.core.errors import NotFoundError, SchemaTooNewError, ValidationError
from remnant.core.model import Kind, MemoryRecord, Status, new_id
from remnant.store import open_store
from remnant.store.base import MemoryFilter, Store

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "remnant.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(backend_url: str) -> Iterator[Store]:
    s = open_store(backend_url)
    yield s
    s.close()


def rec(content: str = "I like green tea", *, user: str = "ana", **kw: object) -> MemoryRecord:
    fields: dict[str, object] = {
        "id": new_id(),
        "user_id": user,
        "content": content,
        "created_at": T0,
        "strength0": 1.0,
        "stability": 3.0,
        "anchor": 20454.0,
        "fade_at": 20460.0,
    }
    fields.update(kw)
    return MemoryRecord(**fields)  # type: ignore[arg-type]


def ts(dt: datetime) -> float:
    return dt.timestamp()


# -- memories ------------------------------------------------------------------------------------
def test_insert_get_round_trips_every_field(store: Store) -> None:
    full = rec(
        "Ana's passport expires in May",
        kind=Kind.PREFERENCE,
        tenant="acme",
        agent_id="agent-1",
        session_id="s-1",
        key="passport",
        source="chat",
        confidence=0.75,
        importance=0.9,
        pinned=True,
        last_accessed_at=T0 + timedelta(hours=1, microseconds=123456),
        access_count=3,
        review_count=2,
        expires_at=T0 + timedelta(days=30),
        valid_from=T0 - timedelta(days=1),
        valid_to=T0 + timedelta(days=400),
        status=Status.HIDDEN,
        status_reason="hidden by test",
        status_changed_at=T0 + timedelta(minutes=5),
        superseded_by="mem_x",
        metadata={"tags": ["travel", "docs"], "n": 3, "flag": True, "nested": {"a": [1, 2.5]}, "zh": "护照"},
    )
    never = rec(fade_at=math.inf)
    store.insert(full)
    store.insert(never)
    assert store.get(full.id, tenant="acme") == full
    got = store.get(never.id)
    assert got == never and got is not None and math.isinf(got.fade_at)
    assert store.get(full.id) is None  # another tenant
    assert store.get("mem_missing") is None


def test_duplicate_id_is_a_validation_error(store: Store) -> None:
    r = rec()
    store.insert(r)
    with pytest.raises(ValidationError):
        store.insert(r)
    assert store.count(MemoryFilter()) == 1


def test_update_overwrites_and_missing_is_not_found(store: Store) -> None:
    r = rec()
    store.insert(r)
    r.importance, r.access_count, r.fade_at = 0.1, 7, math.inf
    r.metadata = {"k": "v"}
    store.update(r)
    assert store.get(r.id) == r
    with pytest.raises(NotFoundError):
        store.update(rec())


def test_update_many_is_update_of_each_in_one_batch(store: Store) -> None:
    rs = [rec(f"memory {i}") for i in range(4)]
    store.insert_many([(r, None) for r in rs])
    for i, r in enumerate(rs[:3]):
        r.metadata = {"contradicted_by": [f"m{i}"]}
        r.importance = 0.1 * i
    store.update_many(rs[:3])
    assert store.get_many([r.id for r in rs]) == rs
    store.update_many([])
    # a gone one fails the batch, and the transaction leaves the others as they were
    rs[0].importance = 0.9
    with pytest.raises(NotFoundError), store.transaction():
        store.update_many([rs[0], rec()])
    assert store.get(rs[0].id).importance == 0.0  # type: ignore[union-attr]


def test_locked_rows_are_get_many_under_a_lock(store: Store) -> None:
    rs = [rec(f"memory {i}") for i in range(4)]
    store.insert_many([(r, None) for r in rs])
    wanted = [rs[2].id, "mem_nope", rs[0].id, rs[3].id]
    with store.transaction():
        got = store.locked_rows(wanted)
    assert got == store.get_many(wanted) == [rs[2], rs[0], rs[3]]
    assert store.locked_rows([]) == []


def test_insert_many_writes_the_digests_with_the_rows(store: Store) -> None:
    a, b, other = rec("I live in Lisbon"), rec("I live in Porto"), rec("I live in Faro", user="bob")
    store.insert_many(
        [(a, None), (b, "porto index text"), (other, None)], digests={a.id: "d1", other.id: "d2"}
    )
    assert [r.id for r in store.by_digest("d1", tenant="default", user_id="ana")] == [a.id]
    assert [r.id for r in store.by_digest("d2", tenant="default", user_id="bob")] == [other.id]
    assert store.digests_of([a.id, b.id, other.id]) == {a.id: "d1", other.id: "d2"}
    assert [h[0] for h in store.lexical_search('"index"', MemoryFilter())] == [b.id]
    assert store.get_many([a.id, b.id, other.id]) == [a, b, other]

    # every digest's rows in one read, oldest first, as by_digest gives each
    again = rec("I live in Lisbon", created_at=T0 - timedelta(days=1))
    store.insert_many([(again, None)], digests={again.id: "d1"})
    got = store.by_digests(["d1", "d2", "nope"], tenant="default", user_id="ana")
    assert got == {"d1": store.by_digest("d1", tenant="default", user_id="ana")}
    assert [r.id for r in got["d1"]] == [again.id, a.id]


def test_get_many_keeps_the_requested_order(store: Store) -> None:
    rs = [rec(f"memory {i}") for i in range(5)]
    for r in rs:
        store.insert(r)
    wanted = [rs[3].id, "mem_nope", rs[0].id, rs[4].id]
    assert [r.id for r in store.get_many(wanted)] == [rs[3].id, rs[0].id, rs[4].id]
    assert store.get_many([]) == []


def test_filters(store: Store) -> None:
    a = rec("a", kind=Kind.FACT, key="city", source="chat", created_at=T0, fade_at=10.0)
    b = rec("b", kind=Kind.PREFERENCE, created_at=T0 + timedelta(days=1), fade_at=20.0, pinned=True)
    c = rec(
        "c", user="bob", created_at=T0 + timedelta(days=2), expires_at=T0 + timedelta(days=3), fade_at=30.0
    )
    d = rec("d", status=Status.HIDDEN, metadata={"tags": ["x", "y"], "lang": "en", "ok": True, "n": 2})
    e = rec("e", valid_from=T0, valid_to=T0 + timedelta(days=10), agent_id="ag", session_id="se")
    f = rec("f", last_accessed_at=T0 - timedelta(days=5), fade_at=math.inf)
    for r in (a, b, c, d, e, f):
        store.insert(r)

    def got(**kw: object) -> set[str]:
        return {r.content for r in store.query(MemoryFilter(**kw))}  # type: ignore[arg-type]

    assert got() == {"a", "b", "c", "e", "f"}
    assert got(statuses=None) == {"a", "b", "c", "d", "e", "f"}
    assert got(statuses=(Status.HIDDEN,)) == {"d"}
    assert got(statuses=()) == set()
    assert got(user_id="bob") == {"c"}
    assert got(ids=(a.id, d.id)) == {"a"}
    assert got(ids=()) == set()
    assert got(kinds=(Kind.PREFERENCE,)) == {"b"}
    assert got(keys=("city",)) == {"a"}
    assert got(sources=("chat",)) == {"a"}
    assert got(pinned=True) == {"b"}
    assert got(agent_id="ag", session_id="se") == {"e"}
    assert got(remembered_at=20.0) == {"c", "e", "f"}  # fade_at > 20; e has the default 20460
    assert got(faded_by=20.0) == {"a", "b"}
    assert got(now=ts(T0 + timedelta(days=4))) == {"a", "b", "e", "f"}
    assert got(expired_by=ts(T0 + timedelta(days=3))) == {"c"}
    assert got(valid_at=ts(T0 + timedelta(days=20))) == {"a", "b", "c", "f"}
    assert got(valid_at=ts(T0 + timedelta(hours=36))) == {"a", "b", "e", "f"}  # c was recorded later
    assert got(created_after=ts(T0 + timedelta(days=1)), created_before=ts(T0 + timedelta(days=2))) == {"b"}
    assert got(accessed_before=ts(T0 - timedelta(days=1))) == {"f"}
    assert got(statuses=None, tags=("x",)) == {"d"}
    assert got(statuses=None, tags=("x", "z")) == set()
    assert got(statuses=None, metadata={"lang": "en", "n": 2}) == {"d"}
    assert got(statuses=None, metadata={"ok": True}) == {"d"}
    assert got(statuses=None, metadata={"lang": "fr"}) == set()
    with pytest.raises(ValidationError):
        got(metadata={"bad key'": 1})


def test_count_many_is_count_in_one_pass(store: Store) -> None:
    a = rec("a", created_at=T0, fade_at=10.0)
    b = rec("b", created_at=T0 + timedelta(days=1), fade_at=20.0, pinned=True)
    c = rec("c", user="bob", created_at=T0 + timedelta(days=2), expires_at=T0 + timedelta(days=3))
    d = rec("d", status=Status.HIDDEN, status_changed_at=T0 + timedelta(days=1), fade_at=math.inf)
    other = rec("x", tenant="other")
    for r in (a, b, c, d, other):
        store.insert(r)
    filters = [
        MemoryFilter(statuses=None),
        MemoryFilter(),
        MemoryFilter(user_id="bob"),
        MemoryFilter(statuses=(Status.HIDDEN,), changed_before=ts(T0 + timedelta(days=1))),
        MemoryFilter(statuses=(Status.HIDDEN,), changed_before=ts(T0)),
        MemoryFilter(statuses=None, created_before=ts(T0 + timedelta(hours=30)), faded_by=20.0),
        MemoryFilter(remembered_at=10.0, faded_by=20.0),
        MemoryFilter(expired_by=ts(T0 + timedelta(days=3))),
        MemoryFilter(now=ts(T0 + timedelta(days=4)), pinned=False),
        MemoryFilter(statuses=()),
    ] * 8  # 80 filters: more than one statement's worth
    want = [store.count(f) for f in filters]
    assert want[:10] == [4, 3, 1, 1, 0, 2, 1, 1, 1, 0]
    assert store.count_many(MemoryFilter(statuses=None), filters) == want
    assert Store.count_many(store, MemoryFilter(statuses=None), filters) == want  # the generic one
    ana = [MemoryFilter(user_id="ana", statuses=None), MemoryFilter(user_id="ana")]
    assert store.count_many(MemoryFilter(user_id="ana", statuses=None), ana) == [3, 2]
    assert store.count_many(MemoryFilter(), []) == []
    with pytest.raises(ValidationError):
        store.count_many(MemoryFilter(), [MemoryFilter(tenant="other")])


def test_query_order_limit_offset_count_ids(store: Store) -> None:
    rs = [
        rec(f"m{i}", created_at=T0 + timedelta(hours=i), importance=i / 10, fade_at=float(100 - i))
        for i in range(6)
    ]
    for r in rs:
        store.insert(r)
    flt = MemoryFilter()
    assert [r.content for r in store.query(flt)] == [f"m{i}" for i in range(6)]
    assert [r.content for r in store.query(flt, order="-created_at", limit=2)] == ["m5", "m4"]
    assert [r.content for r in store.query(flt, order="fade_at", limit=2, offset=1)] == ["m4", "m3"]
    assert [r.content for r in store.query(flt, order="-importance", limit=1)] == ["m5"]
    assert store.count(flt) == 6
    assert store.ids(flt) == [r.id for r in rs]
    assert store.ids(flt, limit=2) == [rs[0].id, rs[1].id]


def test_metadata_values_are_the_distinct_strings_of_a_scope(store: Store) -> None:
    store.insert(rec("hi", metadata={"speaker": "Jon"}))
    store.insert(rec("hello", metadata={"speaker": "Gina"}))
    store.insert(rec("hello again", metadata={"speaker": "Jon"}))
    store.insert(rec("a number", metadata={"speaker": 7}))  # not a string: left out
    store.insert(rec("no speaker", metadata={"topic": "x"}))
    store.insert(rec("other user", user="bo", metadata={"speaker": "小明"}))
    ana = MemoryFilter(user_id="ana", statuses=None)
    assert sorted(store.metadata_values(ana, "speaker")) == ["Gina", "Jon"]
    assert store.metadata_values(MemoryFilter(user_id="bo"), "speaker") == ["小明"]
    assert len(store.metadata_values(ana, "speaker", limit=1)) == 1
    assert store.metadata_values(ana, "missing") == []
    with pytest.raises(ValidationError):
        store.metadata_values(ana, "speaker') OR 1=1 --")


def test_set_status_changes_only_rows_not_already_there(store: Store) -> None:
    rs = [rec(f"m{i}", valid_to=None if i else T0 + timedelta(days=1)) for i in range(3)]
    for r in rs:
        store.insert(r)
    at = ts(T0 + timedelta(days=5))
    changed = store.set_status(
        MemoryFilter(ids=(rs[0].id, rs[1].id)),
        Status.SUPERSEDED,
        reason="newer",
        at=at,
        superseded_by="mem_new",
        close_validity=True,
    )
    assert sorted(changed) == sorted([(rs[0].id, "ana"), (rs[1].id, "ana")])
    again = store.set_status(
        MemoryFilter(ids=(rs[0].id, rs[1].id), statuses=None), Status.SUPERSEDED, reason="x", at=at
    )
    assert again == []
    r0, r1, r2 = (store.get(r.id) for r in rs)
    assert r0 is not None and r1 is not None and r2 is not None
    assert r0.status == Status.SUPERSEDED and r0.superseded_by == "mem_new" and r0.status_reason == "newer"
    assert r0.valid_to == T0 + timedelta(days=1)  # an earlier end stays
    assert r1.valid_to == datetime.fromtimestamp(at, UTC)  # an open window closes at `at`
    assert r1.status_changed_at == datetime.fromtimestamp(at, UTC)
    assert r2.status == Status.ACTIVE and r2.valid_to is None
    # superseded_by is kept when the new change does not name one
    store.set_status(MemoryFilter(ids=(rs[0].id,), statuses=None), Status.HIDDEN, reason="h", at=at)
    r0b = store.get(rs[0].id)
    assert r0b is not None and r0b.superseded_by == "mem_new" and r0b.status == Status.HIDDEN
    assert store.status_counts(MemoryFilter(statuses=None)) == {"hidden": 1, "superseded": 1, "active": 1}


def test_touch_and_delete(store: Store) -> None:
    a, b = rec("a"), rec("b")
    store.insert(a)
    store.insert(b)
    store.put_embeddings([(a.id, "m", np.ones(3)), (b.id, "m", np.ones(3))])
    at = ts(T0 + timedelta(days=1))
    store.touch([a.id], at=at)
    got = store.get(a.id)
    assert (
        got is not None and got.access_count == 1 and got.last_accessed_at == datetime.fromtimestamp(at, UTC)
    )
    assert store.delete([a.id, "mem_nope"]) == 1
    assert store.get(a.id) is None
    assert store.embeddings(MemoryFilter(statuses=None), model="m")[0] == [b.id]
    assert store.lexical_search('"a"', MemoryFilter()) == []
    assert store.delete([b.id], tenant="other") == 0


def test_lexical_search(store: Store) -> None:
    tea = rec("I really like green tea in the morning")
    coffee = rec("Coffee keeps me awake at night")
    zh = rec("我喜欢喝绿茶")
    hidden = rec("green tea is hidden", status=Status.HIDDEN)
    for r in (tea, coffee, zh, hidden):
        store.insert(r)
    hits = store.lexical_search('"green" OR "tea"', MemoryFilter())
    assert [h[0] for h in hits] == [tea.id]
    assert {h[0] for h in store.lexical_search('"coffee" OR "tea"', MemoryFilter())} == {tea.id, coffee.id}
    assert [h[0] for h in store.lexical_search('"绿茶"', MemoryFilter())] == [zh.id]
    assert {h[0] for h in store.lexical_search('"tea"', MemoryFilter(statuses=None))} == {tea.id, hidden.id}
    assert store.lexical_search('"tea"', MemoryFilter(user_id="bob")) == []
    assert len(store.lexical_search('"coffee" OR "tea" OR "绿茶"', MemoryFilter(), limit=2)) == 2
    # stems: "likes" finds "like" (porter in SQLite, the english config in PostgreSQL)
    assert [h[0] for h in store.lexical_search('"likes"', MemoryFilter())] == [tea.id]
    scores = [h[1] for h in store.lexical_search('"coffee" OR "night" OR "tea"', MemoryFilter())]
    assert scores == sorted(scores, reverse=True)


def test_index_text_is_what_is_searched(store: Store) -> None:
    r = rec("[REDACTED] called")
    store.insert(r, index_text="placeholder phone called")
    assert [h[0] for h in store.lexical_search('"placeholder"', MemoryFilter())] == [r.id]


def test_embeddings_and_vector_search(store: Store) -> None:
    rs = [rec(f"m{i}", user="ana" if i < 4 else "bob") for i in range(6)]
    for r in rs:
        store.insert(r)
    rng = np.random.default_rng(7)
    vecs = rng.normal(size=(6, 8)).astype(np.float32)
    store.put_embeddings([(r.id, "mini", v) for r, v in zip(rs, vecs, strict=True)])
    store.put_embeddings([(rs[0].id, "mini", vecs[0])])  # replacing is fine
    ids, matrix = store.embeddings(MemoryFilter(user_id="ana"), model="mini")
    assert ids == [r.id for r in rs[:4]]
    assert matrix.dtype == np.float32 and matrix.shape == (4, 8)
    np.testing.assert_allclose(matrix, vecs[:4], rtol=1e-6)
    assert store.embeddings(MemoryFilter(), model="other")[0] == []
    assert store.embedding_models() == ["mini"]
    assert store.embedding_models(tenant="acme") == []
    with pytest.raises(NotFoundError):
        store.put_embeddings([("mem_nope", "mini", vecs[0])])

    q = vecs[2] + 0.01
    hits = store.vector_search(q, MemoryFilter(user_id="ana"), model="mini", limit=3)
    norm = vecs[:4] @ q / (np.linalg.norm(vecs[:4], axis=1) * np.linalg.norm(q))
    expected = [rs[i].id for i in np.argsort(-norm)[:3]]
    assert [h[0] for h in hits] == expected
    assert hits[0][1] == pytest.approx(float(norm.max()), abs=1e-5)
    store.set_status(MemoryFilter(ids=(rs[2].id,)), Status.HIDDEN, reason="x", at=0.0)
    assert rs[2].id not in [
        h[0] for h in store.vector_search(q, MemoryFilter(user_id="ana"), model="mini", limit=3)
    ]
    assert store.vector_search(q, MemoryFilter(), model="nope", limit=3) == []
    # what a retriever must still embed: memories of the scope without a vector of that model
    late = rec("no vector yet")
    store.insert(late)
    assert store.unembedded_ids(MemoryFilter(user_id="ana", statuses=None), model="mini") == [late.id]
    assert store.unembedded_ids(MemoryFilter(user_id="bob"), model="mini") == []
    assert len(store.unembedded_ids(MemoryFilter(statuses=None), model="other", limit=2)) == 2


# -- the entity index ------------------------------------------------------------------------------
def test_entity_rows_are_scoped_replaced_and_bounded(store: Store) -> None:
    a, b = rec("Oliver and Mia"), rec("Oliver in Lisbon")
    other_user, other_tenant = rec("Oliver", user="bo"), rec("Oliver", tenant="acme")
    for r in (a, b, other_user, other_tenant):
        store.insert(r)
    store.set_entities(
        [
            (a.id, "ana", [("name", "oliver"), ("name", "mia"), ("person", "oliver")]),
            (b.id, "ana", [("name", "oliver"), ("place", "lisbon")]),
            (other_user.id, "bo", [("name", "oliver")]),
            (a.id, "bo", [("name", "intruder")]),  # not bo's memory: no row
        ]
    )
    store.set_entities([(other_tenant.id, "ana", [("name", "oliver")])], tenant="acme")
    # one row per key, the first kind read wins
    assert store.entities_of([a.id, b.id]) == {
        a.id: [("name", "mia"), ("name", "oliver")],
        b.id: [("place", "lisbon"), ("name", "oliver")],  # by key
    }
    found = store.entity_memories(["oliver", "lisbon", "nobody"], tenant="default", user_id="ana", limit=10)
    assert sorted(found["oliver"]) == sorted([a.id, b.id]) and found["lisbon"] == [b.id]
    assert found["nobody"] == []
    assert len(store.entity_memories(["oliver"], tenant="default", user_id="ana", limit=1)["oliver"]) == 1
    tenant_wide = store.entity_memories(["oliver"], tenant="default", user_id=None, limit=10)["oliver"]
    assert sorted(tenant_wide) == sorted([a.id, b.id, other_user.id])  # never another tenant's
    # replaced, not added to
    store.set_entities([(a.id, "ana", [("place", "porto")])])
    assert store.entities_of([a.id]) == {a.id: [("place", "porto")]}


def test_entity_rows_go_with_their_memory(store: Store) -> None:
    a, b = rec("Oliver and Mia"), rec("Oliver in Lisbon")
    store.insert(a)
    store.insert(b)
    store.set_entities([(a.id, "ana", [("name", "oliver")]), (b.id, "ana", [("name", "oliver")])])
    assert store.delete([a.id]) == 1
    assert store.entities_of([a.id, b.id]) == {b.id: [("name", "oliver")]}
    assert store.entity_memories(["oliver"], tenant="default", user_id="ana", limit=5) == {"oliver": [b.id]}
    store.delete([b.id])
    assert store.entity_memories(["oliver"], tenant="default", user_id="ana", limit=5) == {"oliver": []}


# -- audit -----------------------------------------------------------------------------------------
def draft(
    action: str = "hide", tenant: str = "default", user: str | None = "ana", **kw: object
) -> AuditDraft:
    return AuditDraft(tenant=tenant, at=T0, actor="test", action=action, reason="because", user_id=user, **kw)  # type: ignore[arg-type]


def test_audit_chain_per_tenant(store: Store) -> None:
    e1 = store.append_audit(draft(memory_ids=("mem_a",), details={"n": 1, "when": T0}))
    e2 = store.append_audit(draft("purge", user="bob", summary="1 fact"))
    other = store.append_audit(draft(tenant="acme"))
    assert e2.prev_hash == e1.hash and e2.seq > e1.seq
    assert other.prev_hash == "0" * 64
    entries = store.audit_entries()
    assert [e.seq for e in entries] == [e1.seq, e2.seq]
    assert entries[0].details == {"n": 1, "when": str(T0)}
    assert verify_chain(entries).ok
    assert [e.seq for e in store.audit_entries(user_id="bob")] == [e2.seq]
    assert [e.seq for e in store.audit_entries(action="hide")] == [e1.seq]
    assert [e.seq for e in store.audit_entries(since_seq=e1.seq)] == [e2.seq]
    assert len(store.audit_entries(limit=1)) == 1
    assert verify_chain(store.audit_entries(tenant="acme")).ok


def test_audit_log_is_append_only(store: Store, backend_url: str) -> None:
    store.append_audit(draft())
    if backend_url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(backend_url, autocommit=True) as conn:
            for statement in (
                "UPDATE audit_log SET reason = 'x'",
                "DELETE FROM audit_log",
                "TRUNCATE audit_log",
            ):
                with pytest.raises(psycopg.Error, match="append-only"):
                    conn.execute(statement)
    else:
        import sqlite3

        conn = sqlite3.connect(backend_url)
        for statement in ("UPDATE audit_log SET reason = 'x'", "DELETE FROM audit_log"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                conn.execute(statement)
        conn.close()
    assert verify_chain(store.audit_entries()).ok


# -- activity, overview, meta, transactions ------------------------------------------------------
def test_activity_days(store: Store) -> None:
    for day in (date(2026, 1, 1), date(2026, 1, 2), date(2026, 1, 2), date(2026, 1, 5)):
        store.mark_active("default", "ana", day)
    assert store.active_day_count("default", "ana", date(2026, 1, 2)) == 2
    assert store.active_day_count("default", "ana", date(2026, 2, 1)) == 3
    assert store.active_day_count("acme", "ana", date(2026, 2, 1)) == 0


def test_users_and_meta(store: Store) -> None:
    store.insert(rec("a"))
    store.insert(rec("b", status=Status.FADED))
    store.insert(rec("c", user="bob"))
    users = store.users()
    assert [(u.user_id, u.total, u.active) for u in users] == [("ana", 2, 1), ("bob", 1, 1)]
    assert store.users(tenant="acme") == []
    assert store.get_meta("decay_clock_mode") is None
    store.set_meta("decay_clock_mode", "wall")
    store.set_meta("decay_clock_mode", "active_days")
    assert store.get_meta("decay_clock_mode") == "active_days"
    assert store.schema_version() >= 1  # each backend numbers its own migrations
    store.compact()


def test_transactions_are_atomic_and_nest(store: Store) -> None:
    a, b = rec("a"), rec("b")
    with pytest.raises(RuntimeError), store.transaction():
        store.insert(a)
        with store.transaction():
            store.insert(b)
            store.append_audit(draft())
        assert store.count(MemoryFilter()) == 2  # reads inside see the transaction's writes
        raise RuntimeError("boom")
    assert store.count(MemoryFilter()) == 0
    assert store.audit_entries() == []
    with store.transaction():
        store.insert(a)
        store.set_status(MemoryFilter(ids=(a.id,)), Status.HIDDEN, reason="x", at=0.0)
    got = store.get(a.id)
    assert got is not None and got.status == Status.HIDDEN


def test_schema_newer_than_code_is_refused(backend_url: str) -> None:
    s = open_store(backend_url)
    s.close()
    if backend_url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(backend_url, autocommit=True) as conn:
            conn.execute("INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 0)")
    else:
        import sqlite3

        conn = sqlite3.connect(backend_url)
        conn.execute("INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 0)")
        conn.commit()
        conn.close()
    with pytest.raises(SchemaTooNewError, match="newer"):
        open_store(backend_url)


def test_reopen_keeps_data(backend_url: str) -> None:
    r = rec()
    with open_store(backend_url) as s:
        s.insert(r)
    with open_store(backend_url) as s:
        assert s.get(r.id) == r
        assert s.schema_version() >= 1


# -- the two backends agree ----------------------------------------------------------------------
ALL_ORDERS = (
    "created_at",
    "-created_at",
    "fade_at",
    "-fade_at",
    "last_accessed_at",
    "-last_accessed_at",
    "importance",
    "-importance",
)


def test_every_order_is_the_same_on_both_backends(tmp_path: Path, pg_url: str) -> None:
    # ties on every sort key, NULL access times and never-fading memories: where backends differ
    records = [
        rec(
            f"memory {i}",
            created_at=T0 + timedelta(hours=i % 3),
            fade_at=math.inf if i % 5 == 0 else 20460.0 + i % 2,
            last_accessed_at=None if i % 4 == 0 else T0 + timedelta(minutes=i % 3),
            importance=(i % 3) / 2,
        )
        for i in range(24)
    ]
    orders: dict[str, dict[str, list[str]]] = {}
    for name, url in (("sqlite", str(tmp_path / "r.db")), ("postgres", pg_url)):
        with open_store(url) as s:
            for r in records:
                s.insert(r)
            flt = MemoryFilter(statuses=None)
            orders[name] = {o: [r.id for r in s.query(flt, order=o)] for o in ALL_ORDERS}  # type: ignore[arg-type]
            orders[name]["page"] = [r.id for r in s.query(flt, order="-fade_at", limit=5, offset=3)]
            orders[name]["offset"] = [r.id for r in s.query(flt, order="importance", offset=20)]
    assert orders["sqlite"] == orders["postgres"]
    assert len(orders["sqlite"]["offset"]) == 4


def test_importance_sql_matches_python_on_a_grid(store: Store) -> None:
    from itertools import product

    from remnant.core.importance import ImportanceWeights, importance_score_raw
    from remnant.store.filter_sql import importance_params, importance_sql
    from remnant.store.sql import SQLStore

    assert isinstance(store, SQLStore)
    d = store.dialect
    num = f"CAST({d.ph} AS DOUBLE PRECISION)"
    query = (
        f"SELECT {importance_sql(d)} FROM (SELECT {num} AS created_at, {num} AS last_accessed_at, "
        f"CAST({d.ph} AS INTEGER) AS access_count, {num} AS confidence, {num} AS importance) m"
    )
    now = 1_800_000_000.0
    day = 86_400.0
    grid = product(
        (0.0, 0.5, 30.0, 400.0, 200_000.0),  # age in days (the last one underflows the decay)
        (None, 0.0, 3.0),  # days between creation and last access
        (0, 1, 7),  # access count
        (0.3, 1.0),  # confidence
        (0.0, 0.9),  # the user's importance mark
        ((0.99, 4.0), (0.5, 0.0), (1.0, 2.0)),  # decay per day, mark weight
    )
    for age, since, count, conf, imp, (decay, mark) in grid:
        created = now - age * day
        accessed = None if since is None else created + since * day
        want = importance_score_raw(
            now=now,
            created_at=created,
            last_accessed_at=accessed,
            access_count=count,
            confidence=conf,
            importance=imp,
            pinned=False,
            weights=ImportanceWeights(decay, mark),
        )
        params = [*importance_params(now, decay, mark), created, accessed, count, conf, imp]
        got = float(store.fetch(query, params)[0][0])
        assert got == pytest.approx(want, rel=1e-12, abs=1e-300), (age, since, count, conf, imp, decay, mark)
