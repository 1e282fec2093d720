"""The scenario generator is deterministic and well-formed; the adapters do what the suites assume."""

from __future__ import annotations

import pytest

from remnant.bench.eval import scenarios as sc
from remnant.bench.eval.adapters import (
    ADAPTERS,
    MemoryAdapter,
    RememberEverything,
    RemnantAdapter,
    VectorRememberEverything,
)


def test_scenarios_are_deterministic_per_seed() -> None:
    a = sc.dialogue(1, "u", turns=200, probe_every=30)
    b = sc.dialogue(1, "u", turns=200, probe_every=30)
    assert a == b
    assert sc.dialogue(2, "u", turns=200).turns != a.turns
    assert sc.conflict(5, "u", versions=4, days=50) == sc.conflict(5, "u", versions=4, days=50)


def test_values_are_unique_so_substring_checks_are_sound() -> None:
    s = sc.retention(3, "u", n_used=18, n_unused=6, days=30, chatter_per_day=3)
    values = [f.fact.value for f in s.facts if f.fact.value]
    assert len(values) == len(set(values))
    for f in s.facts:
        assert not f.fact.value or f.fact.value in f.fact.text
    c = sc.conflict(3, "u", versions=5, days=100)
    for h in c.histories:
        vals = [f.value for _, f in h.versions]
        assert len(set(vals)) == len(vals)
        for v in vals:  # no value is a substring of another version's text
            assert sum(v in f.text for _, f in h.versions) == 1


def test_dialogue_states_the_early_facts_first() -> None:
    d = sc.dialogue(4, "u", turns=1000, probe_every=50)
    assert len(d.turns) == 1000
    assert d.early_turns == [0, 1, 2, 3, 4]
    assert d.early[0].topic == "name"
    assert all(d.turns[i] == f.text for i, f in zip(d.early_turns, d.early, strict=True))
    assert d.probes and all(d.turns[i] == f.query for i, f in d.probes)


def test_interference_ratio_and_near_duplicates() -> None:
    s = sc.interference(1, "u", n_relevant=10, ratio=20, days=30)
    assert len(s.distractors) == 200
    assert any("told me their" in t for t in s.distractors)
    assert not {f.text for f in s.relevant} & set(s.distractors)


def test_deletion_markers_are_unique_and_every_way_is_used() -> None:
    d = sc.deletion(9, "u", n_secrets=8)
    markers = [s.marker for s in d.secrets]
    assert len(set(markers)) == 8
    assert {s.how for s in d.secrets} == {"id", "key", "request", "erasure"}


def test_every_shipped_adapter_speaks_the_protocol() -> None:
    for name, factory in ADAPTERS.items():
        if name in ("vector-baseline",):
            continue  # loads an embedding model: covered below
        a = factory()
        try:
            assert isinstance(a, MemoryAdapter), name
        finally:
            a.close()


def test_remnant_adapter_supersedes_forgets_by_key_and_exposes_raw_bytes() -> None:
    a = RemnantAdapter()
    try:
        a.remember("u", "My home address is 1 Maple Lane.", key="address")
        a.remember("u", "My home address is 9 Quarry Road.", key="address")
        hits = a.recall("u", "home address", 5)
        assert [h.text for h in hits] == ["My home address is 9 Quarry Road."]
        assert len(a.history("u", "address")) == 2
        assert b"Quarry" in a.raw_bytes()
        assert a.forget("u", key="address") == 2
        assert a.recall("u", "home address", 5) == []
        assert a.history("u", "address") == []
        assert "Quarry" not in a.export("u")
    finally:
        a.close()


def test_remnant_adapter_forgets_unused_episodes_as_time_passes() -> None:
    a = RemnantAdapter()
    try:
        mid = a.remember("u", "Today I baked bread.", kind="episode", importance=0.2)
        assert a.is_remembered(mid)
        a.advance_time(30)
        assert not a.is_remembered(mid)
        assert a.recall("u", "baked bread", 5) == []
    finally:
        a.close()


def test_remnant_context_puts_pinned_core_facts_first() -> None:
    a = RemnantAdapter()
    try:
        a.remember("u", "Hi, my name is Ana Novak.", key="name", importance=0.95, pinned=True)
        for i in range(20):
            a.remember("u", f"Today I walked along the river, number {i}.", kind="episode")
        text = a.context("u", "what did I do today?", 200)
        assert text.splitlines()[0] == "- Hi, my name is Ana Novak."
    finally:
        a.close()


def test_baseline_never_supersedes_but_deletes_on_request() -> None:
    b = RememberEverything()
    b.remember("u", "My home address is 1 Maple Lane.", key="address")
    b.remember("u", "My home address is 9 Quarry Road.", key="address")
    texts = [h.text for h in b.recall("u", "home address", 5)]
    assert len(texts) == 2 and texts[0].endswith("Quarry Road.")  # ties go to the newest
    b.advance_time(3650)
    assert len(b.recall("u", "home address", 5)) == 2
    assert b.forget("u", key="address") == 2
    assert b"Maple" not in b.raw_bytes()
    with pytest.raises(NotImplementedError):
        b.forget("u", request="forget my address")


def test_vector_baseline_ranks_by_embedding() -> None:
    pytest.importorskip("static_model")
    v = VectorRememberEverything()
    v.remember("u", "I play the cello in a band.")
    v.remember("u", "The weather was rainy in Porto.")
    assert v.recall("u", "Which instrument do I play?", 1)[0].text.startswith("I play the cello")
    v.close()


@pytest.mark.slow
def test_private_adapter_rehydrates_and_exposes_the_vault() -> None:
    pytest.importorskip("presidio_analyzer")
    a = RemnantAdapter(privacy=True)
    try:
        mid = a.remember("u", "My private email address is qxyz123@example.org.", key="email")
        assert "qxyz123@example.org" not in a.mem.get(mid).content  # stored redacted
        assert a.recall("u", "private email address", 5)[0].text.endswith("qxyz123@example.org.")
        assert "qxyz123@example.org" in (a.vault_plaintext("u") or "")
        a.erase_user("u")
        assert "qxyz123" not in (a.vault_plaintext("u") or "")
    finally:
        a.close()
    plain = RemnantAdapter()
    try:
        assert plain.vault_plaintext("u") is None
    finally:
        plain.close()
