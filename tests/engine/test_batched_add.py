"""A history imported in one ``add`` is the same as the turns added one at a time (issue 30, bulk
import): one batch of model calls before the write lock, the same memories after it, on SQLite and
PostgreSQL, with the product's defaults (e5-small, paired context vectors, salience, rule facts,
dedup, the contradiction check, privacy)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.embed.base import EmbedderUnavailable
from remnant.extract.salience import salience
from remnant.extract.salience_model import SalienceModel
from remnant.privacy import generate_key
from remnant.store.base import MemoryFilter
from remnant.store.postgres import PostgresStore

T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)

TURNS = [
    ("Ana", "Hi Bo! Guess what, I live in Porto now."),
    ("Bo", "No way, since when?"),
    ("Ana", "Since March. I work as a nurse at the city hospital."),
    ("Bo", "Thanks for telling me!"),
    ("Bo", "Thanks for telling me!"),  # a repeat by the same speaker: kept once
    ("Bo", "Did you go swimming with the kids?"),
    ("Ana", "yes, twice last week"),
    ("Ana", "Actually I moved again, I live in Lisbon now."),  # supersedes Porto within the batch
]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def two_memories(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Memory, Memory]]:
    """Two products with the same clock: one for the batch, one for the turns one at a time."""
    if request.param == "postgres":
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
        url = request.getfixturevalue("pg_url")
        pair = (
            Memory(store=PostgresStore(url), clock=ManualClock(T0), tenant="batched"),
            Memory(store=PostgresStore(url), clock=ManualClock(T0), tenant="single"),
        )
    else:
        pair = (
            Memory(tmp_path / "batched.db", clock=ManualClock(T0)),
            Memory(tmp_path / "single.db", clock=ManualClock(T0)),
        )
    yield pair
    for mem in pair:
        mem.close()


def _messages(turns: list[tuple[str, str]]) -> list[dict[str, Any]]:
    return [{"role": "user", "name": who, "content": text} for who, text in turns]


def _state(mem: Memory) -> list[tuple[Any, ...]]:
    """Every memory of the user as what it holds (not its id; one clock time: sorted by content)."""
    rows = mem.store.query(
        MemoryFilter(tenant=mem.tenant, user_id="ana", statuses=None), order="created_at", limit=1000
    )
    return sorted(
        (
            r.content,
            r.kind.value,
            r.key,
            r.status.value,
            round(r.importance, 4),
            str(r.expires_at),
            str(r.metadata.get("speaker")),
            str(r.session_id),
        )
        for r in rows
    )


def _vectors(mem: Memory) -> dict[str, np.ndarray]:
    model = mem.retriever.model_id
    assert model is not None and model.endswith("+mix0.5")  # the shipped recipe
    ids, mat = mem.store.embeddings(
        MemoryFilter(tenant=mem.tenant, user_id="ana", statuses=None), model=model
    )
    content = {r.id: r.content for r in mem.store.get_many(list(ids), tenant=mem.tenant)}
    return {content[i]: v for i, v in zip(ids, mat, strict=True)}


def test_one_add_of_a_history_stores_what_turn_by_turn_adds_store(
    two_memories: tuple[Memory, Memory],
) -> None:
    batched, single = two_memories
    out = batched.add(_messages(TURNS), user_id="ana", session_id="s1")
    for who, text in TURNS:
        single.add(_messages([(who, text)]), user_id="ana", session_id="s1")
    assert _state(batched) == _state(single)
    # the repeat comes back as the turn it repeats; the batch's episodes are in the turns' order
    assert len(out.duplicates) == 1
    assert [e.content for e in out.episodes] == [text for _, text in TURNS]
    # supersession inside the batch: the later city replaced the earlier one, and the turn that
    # stated the old value went with it
    rows = batched.store.query(MemoryFilter(tenant=batched.tenant, user_id="ana", statuses=None), limit=100)
    city = {r.content: r.status for r in rows if r.key == "city"}
    assert city == {"User lives in Porto": Status.SUPERSEDED, "User lives in Lisbon": Status.ACTIVE}
    porto = next(r for r in rows if r.content.startswith("Hi Bo!"))
    assert porto.status == Status.SUPERSEDED
    # the vectors (own text, and the turn before it for the context half) match, turn by turn
    a, b = _vectors(batched), _vectors(single)
    assert a.keys() == b.keys()
    for text in a:
        assert np.allclose(a[text], b[text], atol=1e-4), text


def test_a_batched_add_calls_the_model_before_the_write_lock_and_once_per_text(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", clock=ManualClock(T0)) as mem:
        cache = mem.retriever.text_embedder
        assert cache is not None and hasattr(cache, "inner")
        seen: list[tuple[bool, list[str]]] = []
        model = cache.inner

        class Watch:
            model_id, dim = model.model_id, model.dim

            def embed_documents(self, texts: Any) -> Any:
                seen.append((mem.store.in_transaction(), list(texts)))
                return model.embed_documents(texts)

            def embed_query(self, text: str) -> Any:
                return model.embed_query(text)

        cache.inner = Watch()
        mem.add(_messages(TURNS), user_id="ana", session_id="s1")
        assert seen and not any(locked for locked, _ in seen)  # nothing waits for the model under the lock
        texts = [t for _, batch in seen for t in batch]
        assert len(texts) == len(set(texts))  # no text reaches the model twice
        # the turns' own texts, then their facts': batches, not one call per turn; no joined
        # "previous turn + turn" text is embedded (the mix recipe)
        assert len(seen) <= 3
        assert not any("\n" in t for t in texts)


def test_the_salience_model_reads_the_turns_recall_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With e5-small and its trained salience (the shipped defaults), a named speaker's turn reaches
    the model once: recall's text ("Ana: ...") is what salience reads too."""
    monkeypatch.setenv("REMNANT_EMBEDDER", "e5-small")
    monkeypatch.setenv("REMNANT_SALIENCE", "model")
    try:
        mem = Memory(tmp_path / "m.db", clock=ManualClock(T0))
    except EmbedderUnavailable as exc:
        pytest.skip(f"e5-small not installed: {exc}")
    with mem:
        model = getattr(mem.ingestor, "model", None)
        assert isinstance(model, SalienceModel) and model.spoken is not None
        cache = mem.retriever.text_embedder
        assert cache is not None and hasattr(cache, "inner")
        seen: list[str] = []
        inner = cache.inner

        class Watch:
            model_id, dim = inner.model_id, inner.dim

            def embed_documents(self, texts: Any) -> Any:
                assert not mem.store.in_transaction()
                seen.extend(texts)
                return inner.embed_documents(texts)

            def embed_query(self, text: str) -> Any:
                return inner.embed_query(text)

        cache.inner = Watch()
        out = mem.add(_messages(TURNS), user_id="ana", session_id="s1")
        assert len(seen) == len(set(seen))
        assert {f"{who}: {text}" for who, text in TURNS} <= set(seen)
        assert not {text for _, text in TURNS} & set(seen)  # the turn without its name: never read
        # each turn's importance is the named-speaker head's judgement of that vector (a turn with a
        # fact is never under 0.5)
        for (who, text), episode in zip(TURNS, out.episodes, strict=False):
            if episode.metadata.get("facts"):
                continue
            vector = inner.embed_documents([f"{who}: {text}"])[0]
            assert episode.importance == pytest.approx(
                round(model.spoken.importance(vector, salience(text).score), 4)
            )
