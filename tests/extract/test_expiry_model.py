"""The learned expiry reader (:mod:`remnant.extract.expiry_model`): its shipped weights, where a
length comes from, the ingestor's one embedder call per add, and the behaviour through the
product (``Memory(path)``, the reader on by default) on SQLite and PostgreSQL: a
temporary value said in words the rules do not read expires, a look-alike does not, and a turn's
lasting half outlives its temporary half."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.embed.base import Embedder, Vectors
from remnant.embed.registry import get_embedder
from remnant.engine.options import Message
from remnant.extract.expiry import CUES, cues, end_point_said, period_said, units
from remnant.extract.expiry_model import ExpiryWeights, length_of, load_weights, weights_path
from remnant.extract.ingest import RuleIngestor
from remnant.privacy import generate_key
from remnant.store.postgres import PostgresStore

# a Wednesday morning
T0 = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)


class Counting(Embedder):
    """The real e5-small, counting its calls (what a write costs the model)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.calls: list[int] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(len(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def e5() -> Embedder:
    return get_embedder("e5-small")


def test_the_weights_ship_for_the_product_embedder(e5: Embedder) -> None:
    weights = load_weights(e5.model_id)
    assert weights is not None, weights_path(e5.model_id)
    assert weights.w.shape[0] == e5.dim + len(CUES)
    assert 0.0 <= weights.veto < weights.threshold <= 1.0
    assert timedelta(hours=1) <= weights.horizon <= timedelta(days=30)
    again = ExpiryWeights.from_json(weights.to_json())
    v = e5.embed_documents(["the gate code is 4471 for now"])[0]
    assert again.read(v, "the gate code is 4471 for now", T0) == pytest.approx(
        weights.read(v, "the gate code is 4471 for now", T0), abs=1e-4
    )


def test_a_length_comes_from_the_rules_then_the_text_then_the_horizon() -> None:
    horizon = timedelta(hours=12)
    assert length_of("the code is good for 10 minutes", T0, horizon) == (timedelta(minutes=10), "rules")
    assert length_of("gate code 4471, 20 minutes tops", T0, horizon)[0] == timedelta(minutes=20)
    # an end point the rules do not read: "parking till 6" is 6 pm today
    assert length_of("parking till 6", T0, horizon) == (timedelta(hours=8), "end_point")
    assert length_of("这周在外地出差", T0, horizon)[1] in ("rules", "end_point")
    assert length_of("the wifi is acting up, use my hotspot for now", T0, horizon) == (horizon, "horizon")


def test_the_exact_parts_read_periods_and_end_points() -> None:
    assert period_said("good for an hour and a half") == timedelta(minutes=90)
    assert period_said("有效期三天") == timedelta(days=3)
    assert period_said("every other day") is None
    assert end_point_said("im at my mums till sunday", T0) == datetime(2026, 3, 9, tzinfo=UTC) - T0
    assert end_point_said("到六点为止", T0) == timedelta(hours=8)
    assert end_point_said("no end here", T0) is None
    assert len(cues("the pin is 4471 till friday", T0)) == len(CUES)
    assert units("hi. the code is 4471! 我在北京。好的") == ["hi.", "the code is 4471!", "我在北京。", "好的"]
    assert units("parked on level 3, bay 212") == ["parked on level 3", "bay 212"]


def test_a_split_turn_costs_one_embedder_call_beyond_the_turn(e5: Embedder) -> None:
    """What is left of a split turn (here several filler clauses the rules cannot judge) is read by
    the salience model in one batch, not one call per clause."""
    counting = Counting(e5)
    ingestor = RuleIngestor(embedder=counting, clock=ManualClock(T0), expiry_reader=True)
    turn = "the door code is 4471, good for 15 minutes, lol, ok ok, haha, whatever, bye"
    ingestor.observe(Message(role="user", content=turn))
    assert len(counting.calls) <= 2, counting.calls


def test_the_reader_is_bounded_on_the_documented_maximum(e5: Embedder) -> None:
    """100,000 characters of sentences with periods, end points and codes. What the reader adds to
    an observation (the parts, the cues of the head, a length, one embedder call for at most 32
    parts of 500 characters) stays within 5 s each; the whole observation, whose rules read the
    whole turn and extract its facts, within 120 s (a ceiling for a stall on the shared 2-core
    machine under the suite's load, not a speed claim: it takes seconds alone)."""
    ingestor = RuleIngestor(embedder=e5, clock=ManualClock(T0), expiry_reader=True)
    for unit in ("parking till 6. ", "code 4471 for now! ", "只在今天有效。", "1 " * 40 + ". "):
        text = (unit * (100_000 // len(unit) + 1))[:100_000]
        for step in (
            lambda t=text: units(t),
            lambda t=text: cues(t[:2000], T0),
            lambda t=text: length_of(t[:2000], T0, timedelta(days=1)),
            lambda t=text: e5.embed_documents([c[:500] for c in units(t)]),
        ):
            started = time.perf_counter()
            step()
            assert time.perf_counter() - started < 5.0
        assert len(units(text)) <= 32
        started = time.perf_counter()
        ingestor.observe(Message(role="user", content=text))
        assert time.perf_counter() - started < 120.0


Open = Callable[[ManualClock], Memory]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def open_mem(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Open]:
    """The product (lexical recall: the salience and expiry readers still use e5-small) on either backend."""
    opened: list[Memory] = []
    if request.param == "postgres":
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)

    monkeypatch.setenv("REMNANT_SALIENCE", "model")  # the product's default (tests default to the rules)
    monkeypatch.delenv("REMNANT_EXPIRY_READER", raising=False)  # the reader: the product's default

    def make(clock: ManualClock) -> Memory:
        if request.param == "sqlite":
            mem = Memory(tmp_path / "m.db", clock=clock, embedder=None)  # type: ignore[arg-type]
        else:
            mem = Memory(store=PostgresStore(request.getfixturevalue("pg_url")), clock=clock, embedder=None)  # type: ignore[arg-type]
        opened.append(mem)
        return mem

    yield make
    for mem in opened:
        mem.close()


def _texts(mem: Memory, user: str) -> str:
    return " | ".join(r.content for r, _ in mem.active(user))


def _said(mem: Memory, user: str, text: str) -> list[object]:
    out = mem.add([{"role": "user", "content": text}], user_id=user)
    return [*out.episodes, *out.facts]


@pytest.mark.parametrize(
    "turn",
    [
        "parking till 6",  # an end point the rules do not read: 6 pm
        "wifi at the airbnb is CasaLuna_5G pw sol2024, we're here till thursday",
        "这周在外地出差，住在成都的汉庭",
        "临时密码 Abc@8812，只在今天有效",
    ],
)
def test_a_temporary_value_said_in_words_expires(open_mem: Open, turn: str) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock)
    made = _said(mem, "ana", turn)
    turn_memory = next(m for m in made if m.content == turn)  # type: ignore[attr-defined]
    assert turn_memory.expires_at is not None  # type: ignore[attr-defined]
    assert turn_memory.expires_at <= T0 + timedelta(days=7)  # type: ignore[attr-defined]
    clock.advance(timedelta(days=8))
    mem.sweep()
    assert turn not in _texts(mem, "ana")


@pytest.mark.parametrize(
    "turn",
    [
        "i work 10 hour shifts at the depot",
        "my son is 3 weeks old",
        "ran for an hour this morning",
        "my visa expires in march",
        "我儿子三周大了",
        "I was in hospital for a week after the surgery",
    ],
)
def test_a_look_alike_sets_no_expiry(open_mem: Open, turn: str) -> None:
    mem = open_mem(ManualClock(T0))
    made = _said(mem, "bo", turn)
    turn_memory = next(m for m in made if m.content == turn)  # type: ignore[attr-defined]
    assert turn_memory.expires_at is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("turn", "gone", "kept"),
    [
        (
            "borrowing my friend Tasha's car this week while mine is in the shop. my own car is a white BYD Dolphin",
            "Tasha",
            "BYD Dolphin",
        ),
        ("临时密码是 Abc@8812，只在今天有效。我的工作邮箱是 li@example.com", "Abc@8812", "工作邮箱"),
        # a habit in another clause or sentence (天天, usually, 每个周末) is that clause's: the while
        # the first names still sets the turn's expiry, and the habit holds on
        ("这周在杭州出差，住在西湖边的亚朵酒店。我是做销售的，天天跑客户", "亚朵", "做销售"),
        (
            "this week the kids are staying with my parents while we redecorate. "
            "i usually run at Endcliffe park on tuesdays",
            "staying with my parents",
            "Endcliffe",
        ),
        ("电影票取票码 MV5521，只在今天有效，我每个周末都去万达看电影", "MV5521", "万达"),
        # another sentence that names no while holds on, whatever the reader makes of it
        ("这周在成都出差，住在春熙路附近的酒店，到周五回去。我是做外贸的，公司在温州", "春熙路", "温州"),
        (
            "gate code for the depot tonight is 5512, changes tmrw. the depot is at 14 Mill Road",
            "5512",
            "the depot is at",
        ),
    ],
)
def test_only_the_temporary_part_of_a_turn_expires(open_mem: Open, turn: str, gone: str, kept: str) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock)
    _said(mem, "cy", turn)
    clock.advance(timedelta(days=10))
    mem.sweep()
    remembered = _texts(mem, "cy")
    assert kept in remembered
    assert gone not in remembered


def test_the_length_is_the_one_the_while_is_said_in(open_mem: Open) -> None:
    """When only a clause names the while, the length is that clause's: "只在今天有效" ends today,
    not with the weekend of the habit beside it (每个周末)."""
    mem = open_mem(ManualClock(T0))
    turn = "电影票取票码 MV5521，只在今天有效，我每个周末都去万达看电影"
    made = _said(mem, "dee", turn)
    turn_memory = next(m for m in made if m.content == turn)  # type: ignore[attr-defined]
    assert turn_memory.expires_at == datetime(2026, 3, 5, tzinfo=UTC)  # type: ignore[attr-defined]
