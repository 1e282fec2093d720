"""Passage recipes of conversation turns: the turn before in the vector, the lexical window, and what
a purge, a rewrite and a change of recipe do to them (real engine, real SQLite)."""

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from remnant import ManualClock
from remnant.embed import get_embedder
from remnant.embed.base import base_model_id
from remnant.engine import Memory
from remnant.retrieval import HybridRetriever
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.passages import ContextPairEmbedder, context_passage, recipe_model_id, same_family
from remnant.retrieval.retriever import IndexTextPolicy
from remnant.store.base import MemoryFilter

T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


def clock_at_t0() -> ManualClock:
    # a fresh clock per call (ManualClock is mutable); not the shared fixture: one test needs two
    return ManualClock(T0)


def stored_vectors(mem: Memory, user: str, model: str) -> dict[str, np.ndarray]:
    ids, mat = mem.store.embeddings(MemoryFilter(tenant="default", user_id=user, statuses=None), model=model)
    return dict(zip(ids, mat, strict=True))


def test_pair_vectors_score_the_mean_of_the_two_cosines() -> None:
    inner = get_embedder("static")
    pair = ContextPairEmbedder(inner, 0.5)
    assert pair.dim == 2 * inner.dim and pair.model_id == f"{inner.model_id}+mix0.5"
    own, ctx, query = (
        "the pottery class was fun",
        "what did you do on Sunday?\nthe pottery class was fun",
        "hobby",
    )
    v = pair.embed_pairs([own], [ctx])[0]
    assert np.isclose(np.linalg.norm(v), 1.0, atol=1e-5)
    q = pair.embed_query(query)
    a, b = (inner.embed_documents([t])[0] for t in (own, ctx))
    qi = inner.embed_query(query)
    cos = lambda x, y: float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))  # noqa: E731
    mean = 0.5 * cos(qi, a) + 0.5 * cos(qi, b)
    # with beta 0.5 the cosine of the concatenations is exactly the mean of the two cosines
    assert cos(q, v) == pytest.approx(mean, rel=1e-4)
    # a lone text is its own context: the same cosine as the plain model
    lone = pair.embed_documents([own])[0]
    assert cos(q, lone) == pytest.approx(cos(qi, a), rel=1e-4)
    # another weight: the weighted mean times the recipe's constant (what the floor is scaled by)
    p3 = ContextPairEmbedder(inner, 0.3)
    v3, q3 = p3.embed_pairs([own], [ctx])[0], p3.embed_query(query)
    assert p3.score_scale < 1 and pair.score_scale == pytest.approx(1.0)
    assert cos(q3, v3) == pytest.approx(p3.score_scale * (0.7 * cos(qi, a) + 0.3 * cos(qi, b)), rel=1e-4)
    # the model's similarity floor (0.3 for the static model) is scaled the same way
    scaled = HybridRetriever(inner, index_text=IndexTextPolicy(context_vector=0.3)).min_similarity
    assert scaled == pytest.approx(0.3 * p3.score_scale)
    with pytest.raises(RetrievalError):
        ContextPairEmbedder(inner, 1.0)


def test_recipe_ids_and_the_context_text() -> None:
    assert recipe_model_id("m", 0) == "m" and base_model_id(recipe_model_id("m", 0.5)) == "m"
    assert recipe_model_id("m", 0.5) == "m+mix0.5" and recipe_model_id("m", 0.5, "passage") == "m+prev0.5"
    assert same_family("m", "m+prev0.5") and not same_family("m", "n+prev0.5")
    assert same_family("m+mix0.5", "m+prev0.5")
    assert context_passage(None, "Ana: yes", 100) == "Ana: yes"
    assert context_passage("Bo: did you go?", "Ana: yes", 100) == "Bo: did you go?\nAna: yes"
    # the turn's own text is kept whole; the previous turn is cut first
    assert context_passage("x" * 50, "Ana: yes", 20) == "x" * 11 + "\nAna: yes"
    assert context_passage("Bo: hi", "y" * 30, 20) == "y" * 20


def test_the_mix_recipe_joins_the_turns_own_vectors_without_a_model_call() -> None:
    inner = get_embedder("static")
    mix = ContextPairEmbedder(inner, 0.5)
    passage = ContextPairEmbedder(inner, 0.5, recipe="passage")
    own, prev = "Ana: yes, twice last week", "Bo: Did you go swimming with the kids?"
    e_own, e_prev = (inner.embed_documents([t])[0] for t in (own, prev))
    ctx = len(prev) * e_prev + len(own) * e_own  # mean pooling of the joined text, by length
    want = np.concatenate([0.5 * e_own, 0.5 * ctx / np.linalg.norm(ctx)])
    v = mix.embed_turns([own], [prev])[0]
    assert np.allclose(v, want / np.linalg.norm(want), atol=1e-5)
    # the model reads the two turns only (the passage recipe reads the joined text as well)
    assert set(mix.turn_texts([own], [prev])) == {own, prev}
    assert passage.turn_texts([own], [prev]) == [own, f"{prev}\n{own}"]
    p = passage.embed_turns([own], [prev])[0]
    assert np.allclose(p, passage.embed_pairs([own], [f"{prev}\n{own}"])[0], atol=1e-6)
    # no turn before it: its own text on both halves, in either recipe (the plain cosine)
    assert np.allclose(mix.embed_turns([own], [None])[0], mix.embed_documents([own])[0], atol=1e-6)
    assert np.allclose(passage.embed_turns([own], [None])[0], mix.embed_documents([own])[0], atol=1e-6)
    calls: list[list[str]] = []

    class Counting:
        model_id, dim = inner.model_id, inner.dim

        def embed_documents(self, texts):
            calls.append(list(texts))
            return inner.embed_documents(texts)

        def embed_query(self, text):
            return inner.embed_query(text)

    counted = ContextPairEmbedder(Counting(), 0.5)
    counted.embed_turns([own, "Bo: and the water?"], [prev, own])
    assert len(calls) == 1 and sorted(calls[0]) == sorted({own, prev, "Bo: and the water?"})
    with pytest.raises(RetrievalError):
        ContextPairEmbedder(inner, 0.5, recipe="joined")


def _conversation(mem: Memory, user: str, turns: list[tuple[str, str]], session: str = "s1") -> list:
    return mem.remember_many(
        [
            {
                "content": text,
                "user_id": user,
                "kind": "episode",
                "session_id": session,
                "metadata": {"speaker": who},
            }
            for who, text in turns
        ],
        supersede=False,
    )


def test_a_turn_vector_is_its_text_with_the_turn_before(tmp_path: Path) -> None:
    retriever = HybridRetriever(get_embedder("static"))
    assert retriever.vectors_hold_context and retriever.model_id == "tokenlearn-static-64d-int8+mix0.5"
    with Memory(tmp_path / "p.db", clock=clock_at_t0(), retriever=retriever) as mem:
        rows = _conversation(
            mem, "ana", [("Bo", "Did you go swimming with the kids?"), ("Ana", "yes, twice last week")]
        )
        vecs = stored_vectors(mem, "ana", retriever.model_id or "")
        pair = retriever.pairs
        assert pair is not None
        want = pair.embed_turns(["Ana: yes, twice last week"], ["Bo: Did you go swimming with the kids?"])[0]
        assert np.allclose(vecs[rows[1].id], want, atol=1e-5)
        # the first turn of a session has no turn before it: its own text on both halves
        alone = pair.embed_documents(["Bo: Did you go swimming with the kids?"])[0]
        assert np.allclose(vecs[rows[0].id], alone, atol=1e-5)
        # a turn written later, alone, still finds the turn before it in the store
        later = _conversation(mem, "ana", [("Bo", "Was the water cold?")])[0]
        vecs = stored_vectors(mem, "ana", retriever.model_id or "")
        want = pair.embed_turns(["Bo: Was the water cold?"], ["Ana: yes, twice last week"])[0]
        assert np.allclose(vecs[later.id], want, atol=1e-5)


def test_a_purge_re_embeds_the_next_turn_without_the_purged_text(tmp_path: Path) -> None:
    retriever = HybridRetriever(get_embedder("static"))
    c = clock_at_t0()
    with Memory(tmp_path / "p.db", clock=c, retriever=retriever) as mem:
        rows = []
        for who, text in [
            ("Ana", "my locker code is quetzal 4471"),
            ("Bo", "noted, thanks"),
            ("Ana", "see you"),
        ]:
            rows += _conversation(mem, "ana", [(who, text)])  # live: one turn at a time
            c.advance(minutes=1)
        pair = retriever.pairs
        assert pair is not None
        mem.purge(rows[0].id)
        vecs = stored_vectors(mem, "ana", retriever.model_id or "")
        assert set(vecs) == {rows[1].id, rows[2].id}
        # the next turn is now the first of the session: its own text only
        assert np.allclose(vecs[rows[1].id], pair.embed_documents(["Bo: noted, thanks"])[0], atol=1e-5)
        # a rewrite re-embeds the turn after it too
        mem.ledger.rewrite(rows[1].id, "noted", reason="forget request")
        vecs = stored_vectors(mem, "ana", retriever.model_id or "")
        want = pair.embed_turns(["Ana: see you"], ["Bo: noted"])[0]
        assert np.allclose(vecs[rows[2].id], want, atol=1e-5)


def test_the_lexical_window_and_a_purge_two_turns_back(tmp_path: Path) -> None:
    retriever = HybridRetriever(None, index_text=IndexTextPolicy(window=2))
    assert retriever.neighbour_window == 2
    with Memory(tmp_path / "w.db", clock=clock_at_t0(), retriever=retriever) as mem:
        rows = _conversation(
            mem,
            "ana",
            [("Ana", "my secret word is xylophone"), ("Bo", "ok"), ("Ana", "and the dog?"), ("Bo", "fine")],
        )
        texts = mem.store.index_texts([r.id for r in rows], tenant="default")  # type: ignore[attr-defined]
        assert "xylophone" in texts[rows[2].id]  # two turns back
        assert "xylophone" not in texts[rows[3].id]  # three turns back: out of the window
        assert "dog" in texts[rows[0].id]  # two turns ahead
        mem.purge(rows[0].id)
        texts = mem.store.index_texts([r.id for r in rows[1:]], tenant="default")  # type: ignore[attr-defined]
        assert not any("xylophone" in t for t in texts.values())
        assert mem.recall("xylophone", user_id="ana").hits == []


def test_a_store_written_with_another_recipe_is_re_embedded_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    plain = HybridRetriever(get_embedder("static"), index_text=IndexTextPolicy(context_vector=0.0))
    with Memory(path, clock=clock_at_t0(), retriever=plain) as mem:
        rows = _conversation(
            mem, "ana", [("Bo", "Where did you move?"), ("Ana", "to a flat near the harbour")]
        )
        assert set(stored_vectors(mem, "ana", plain.model_id or "")) == {r.id for r in rows}
    paired = HybridRetriever(get_embedder("static"))
    with Memory(path, clock=clock_at_t0(), retriever=paired) as mem:
        hits = mem.recall("harbour flat", user_id="ana", touch=False).hits
        assert hits and hits[0].memory.id == rows[1].id
        # every vector is now the new recipe's (one per memory: the old ones were replaced)
        assert set(stored_vectors(mem, "ana", paired.model_id or "")) == {r.id for r in rows}
        assert stored_vectors(mem, "ana", plain.model_id or "") == {}
    with Memory(path, clock=clock_at_t0(), retriever=plain) as mem:  # and back
        assert mem.recall("harbour flat", user_id="ana", touch=False).hits
        assert set(stored_vectors(mem, "ana", plain.model_id or "")) == {r.id for r in rows}


def test_the_product_shares_the_plain_model_with_its_other_models(tmp_path: Path) -> None:
    retriever = HybridRetriever(get_embedder("static"))
    text = retriever.text_embedder
    assert text is not None and text.model_id == "tokenlearn-static-64d-int8" and text.dim == 64


@pytest.fixture(scope="module")
def e5():
    try:
        return get_embedder("e5-small", threads=1)
    except Exception as exc:  # the model is an optional extra
        pytest.skip(f"e5-small not installed: {exc}")


@pytest.mark.slow
@pytest.mark.parametrize(
    "turns,question,answer",
    [
        (
            [
                ("Mia", "Have you and the kids tried the new swimming pool downtown?"),
                ("Leo", "Yes, twice last week, they loved it."),
                ("Mia", "My sister is moving to Lisbon in June."),
                ("Leo", "Oh nice, is she excited?"),
                ("Mia", "Very. She already found a flat."),
                ("Leo", "I finally fixed the bike chain yesterday."),
            ],
            "How often did Leo go swimming with his children?",
            1,
        ),
        (
            [
                ("小美", "你和孩子们去过新开的游泳馆吗？"),
                ("小李", "嗯，上周两回，他们玩疯了。"),
                ("小美", "我姐姐六月要搬去上海。"),
                ("小李", "真好，她开心吗？"),
                ("小美", "很开心，房子都找好了。"),
                ("小李", "我昨天终于把自行车链条修好了。"),
            ],
            "小李带孩子去游泳了吗？",
            1,
        ),
    ],
)
def test_an_elliptical_answer_is_found_through_the_turn_it_answers(
    tmp_path: Path, e5, turns, question, answer
):
    """ "Yes, twice last week" says nothing about swimming; its vector carries the question it
    answers, so the dense half alone ranks it first (invented sentences, English and Chinese; the
    turn's own vector alone ranks it third)."""
    retriever = HybridRetriever(e5, mode="vector", min_similarity=-1.0)
    with Memory(tmp_path / "e.db", clock=clock_at_t0(), retriever=retriever) as mem:
        rows = _conversation(mem, "u", turns)
        # first; with the turn's own text only, third in both languages
        top = mem.recall(question, user_id="u", limit=1, touch=False).hits
        assert top and top[0].memory.id == rows[answer].id


class LockWatchingEmbedder:
    """The static model, recording for each document text whether the store's write lock was held."""

    def __init__(self) -> None:
        self.inner = get_embedder("static")
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.store: object | None = None
        self.under_lock: list[str] = []

    def embed_documents(self, texts):
        if self.store is not None and self.store.in_transaction():  # type: ignore[attr-defined]
            self.under_lock.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


@pytest.mark.parametrize("recipe", ["mix", "passage"])
def test_a_conversation_batch_is_embedded_before_the_write_lock(tmp_path: Path, recipe: str) -> None:
    model = LockWatchingEmbedder()
    retriever = HybridRetriever(model, index_text=IndexTextPolicy(context_recipe=recipe))
    with Memory(tmp_path / "l.db", clock=clock_at_t0(), retriever=retriever) as mem:
        model.store = mem.store
        _conversation(mem, "ana", [("Ana", "we adopted a puppy"), ("Bo", "what breed?"), ("Ana", "a beagle")])
        assert model.under_lock == []  # both halves of every turn were ready before the lock
        # the first turn of a later batch needs the stored turn before it: with the mix recipe its
        # own vector (in the cache); with the passage recipe the joined text waits for the lock
        _conversation(mem, "ana", [("Bo", "so cute"), ("Ana", "he chews everything")])
        assert model.under_lock == ([] if recipe == "mix" else ["Ana: a beagle\nBo: so cute"])


def test_the_context_vector_is_switched_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from remnant.core.errors import ValidationError
    from remnant.retrieval.retriever import context_vector_from_env

    monkeypatch.delenv("REMNANT_CONTEXT_VECTOR", raising=False)
    assert context_vector_from_env() == 0.5
    for off in ("0", "off", "OFF"):
        monkeypatch.setenv("REMNANT_CONTEXT_VECTOR", off)
        assert context_vector_from_env() == 0.0
    monkeypatch.setenv("REMNANT_CONTEXT_VECTOR", "0.3")
    assert context_vector_from_env() == 0.3
    for bad in ("1", "-0.1", "half"):
        monkeypatch.setenv("REMNANT_CONTEXT_VECTOR", bad)
        with pytest.raises(ValidationError, match="REMNANT_CONTEXT_VECTOR"):
            context_vector_from_env()


class CountingEmbedder:
    """The static model, counting the document texts it embeds."""

    def __init__(self) -> None:
        self.inner = get_embedder("static")
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.documents: list[str] = []

    def embed_documents(self, texts):
        self.documents.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


@pytest.mark.parametrize("old", ["passage", "plain"])
def test_a_store_of_another_recipe_moves_to_the_mix_recipe_without_a_model_call(
    tmp_path: Path, old: str
) -> None:
    turns = [("Bo", "Did you go swimming with the kids?"), ("Ana", "yes, twice last week"), ("Bo", "nice!")]
    policy = (
        IndexTextPolicy(context_recipe="passage") if old == "passage" else IndexTextPolicy(context_vector=0.0)
    )
    with Memory(
        tmp_path / "old.db",
        clock=clock_at_t0(),
        retriever=HybridRetriever(get_embedder("static"), index_text=policy),
    ) as mem:
        rows = _conversation(mem, "ana", turns)
    model = CountingEmbedder()
    mixed = HybridRetriever(model)
    with Memory(tmp_path / "old.db", clock=clock_at_t0(), retriever=mixed) as mem:
        assert mem.recall("swimming", user_id="ana", touch=False).hits  # the scope's first use migrates it
        assert model.documents == []  # every own vector came out of the stored ones
        moved = stored_vectors(mem, "ana", mixed.model_id or "")
    fresh = HybridRetriever(get_embedder("static"))
    with Memory(tmp_path / "new.db", clock=clock_at_t0(), retriever=fresh) as mem:
        again = _conversation(mem, "ana", turns)
        want = stored_vectors(mem, "ana", fresh.model_id or "")
    for a, b in zip(rows, again, strict=True):
        assert np.allclose(moved[a.id], want[b.id], atol=1e-5)


def test_prepare_documents_hands_out_each_items_own_vector_with_its_speaker() -> None:
    """What the ingestor's salience model may read instead of embedding a turn again: the vector of
    the text recall stores (with the speaker's name), under the plain model's id; none when the
    texts leave the name out (the model's spoken head would then read the wrong form)."""
    embedder = get_embedder("static")
    retriever = HybridRetriever(embedder)
    items = [("I live in Porto now", {"speaker": "Ana"}), ("since when?", {"speaker": "Bo"}), ("noted", {})]
    out = retriever.prepare_documents(items)
    assert out is not None and out[0] == embedder.model_id
    expected = embedder.embed_documents(["Ana: I live in Porto now", "Bo: since when?", "noted"])
    assert np.allclose(np.asarray(out[1]), expected, atol=1e-6)
    nameless = HybridRetriever(embedder, index_text=IndexTextPolicy(speaker=False))
    assert nameless.prepare_documents(items) is None
    assert HybridRetriever(None).prepare_documents(items) is None
