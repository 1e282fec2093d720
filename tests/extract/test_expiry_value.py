"""Expiry at the level of the value (issue 27): what expires is what was said to expire (a code, a
room, a stay), not the turn around it; the lasting half is found and stored after the period. End
points come from the data files (extract/data/expiry.*.json). The clock fixture stands on Thursday
1 January 2026, 09:00 UTC."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ManualClock, Memory, Status
from remnant.extract.expiry import expiry_in_words, expiry_of, expiry_until, split_expiry

THU = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
END_THU, END_FRI, END_SUN = (datetime(2026, 1, d, tzinfo=UTC) for d in (2, 3, 5))
END_JAN = datetime(2026, 2, 1, tzinfo=UTC)
ALL = [Status.ACTIVE, Status.FADED, Status.EXPIRED, Status.SUPERSEDED]


@pytest.fixture
def product(db_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    monkeypatch.setenv("REMNANT_EMBEDDER", "none")
    with Memory(db_path, clock=clock) as m:
        yield m


def _stored(mem: Memory) -> str:
    """Every memory of the user in plain text (personal data is kept in the vault)."""
    return " | ".join(mem.rehydrate(r.id) for r in mem.list_memories("ana", statuses=ALL, limit=1000))


@pytest.mark.parametrize(
    ("turn", "value", "lasting", "question", "period"),
    [
        (  # a state: its sentence expires (the room with it), the next sentence holds
            "staying at the Premier Inn in Leeds for the next 2 nights, room 118 if you need me. "
            "my mobile is 07700 900 123",
            "118",
            "07700 900 123",
            "what is my mobile number?",
            timedelta(days=2),
        ),
        (  # an end point in one clause, a habit in another: the code expires, the address holds
            "the key safe code is 5521, they change it every week so it's only good till the weekend. "
            "my dad lives at 4 Mill Lane, Skipton",
            "5521",
            "Mill Lane",
            "where does my dad live?",
            END_SUN - THU,
        ),
        (  # a stay that ends on a day
            "im at the Hanting hotel till sunday for a course, room 1512. i work at Swiftline Logistics",
            "1512",
            "Swiftline",
            "where do I work?",
            END_SUN - THU,
        ),
        (  # a Chinese sentence holding a habit does not cancel the period said in the one before
            "取件码是 8841，10分钟内有效。我一般把快递寄到公司前台",
            "8841",
            "公司前台",
            "我的快递寄到哪里",
            timedelta(minutes=10),
        ),
        (
            "快递取件码是 5-2-1108，今天之内要取，不然就退回了。我住在学院宿舍C栋",
            "5-2-1108",
            "C栋",
            "我住在哪里",
            END_THU - THU,
        ),
        (
            "店里的临时wifi密码是kk77tmp，今晚过后就改。我们店的收银系统一直用客如云",
            "kk77tmp",
            "客如云",
            "收银系统用的什么",
            END_THU - THU,
        ),
        (
            "这个礼拜我住在我妹家，地址是 Bathurst 3120号，礼拜日就回去了。我自己住在列治文山",
            "3120",
            "列治文山",
            "我住在哪里",
            END_SUN - THU,
        ),
        (  # Chinese typed with spaces for punctuation: a space before a Chinese character ends a clause
            "取件码7730 十分钟内有效 帮我记下 顺便说下我家地址是朝阳区望京西路12号",
            "7730",
            "望京西路",
            "我家地址是什么",
            timedelta(minutes=10),
        ),
        (  # the code said after the validity words is the voucher's: it expires with it
            "药房给了我一张代金券，只在今天有效，满200减40，券码是DJ5521。我住在南山区桃园路",
            "DJ5521",
            "桃园路",
            "我住在哪里",
            END_THU - THU,
        ),
        (  # a habit said in a later clause ("every week") does not void "valid today only"
            "the gym guest pass is GP-3390, valid today only, and please note my locker number is "
            "L118 because i use it every week",
            "GP-3390",
            "L118",
            "what is my locker number?",
            END_THU - THU,
        ),
    ],
)
def test_the_value_expires_and_the_lasting_half_stays(
    product: Memory,
    clock: ManualClock,
    turn: str,
    value: str,
    lasting: str,
    question: str,
    period: timedelta,
) -> None:
    assert clock.now() == THU
    out = product.add(turn, user_id="ana")
    assert out.episodes[0].expires_at == THU + period
    kept = [f for f in out.facts if f.source == "extract:expiry_split"]
    assert kept and all(f.expires_at is None for f in kept)
    plain = product.rehydrate(kept[0].id)
    assert lasting in plain and value not in plain
    clock.advance(period + timedelta(minutes=1))
    product.sweep()  # what was said to expire is purged at its end: stored nowhere
    assert value not in _stored(product)
    assert lasting in _stored(product)
    hits = product.recall(question, user_id="ana").hits
    assert hits and any(lasting in product.rehydrate(h.memory.id) for h in hits)


def test_the_salience_model_keeps_a_sentence_the_rules_call_filler(
    db_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What is left of a split turn is kept when the salience model judges it worth keeping, though
    the rule cues score it as filler; without the model the whole turn expires with the value."""
    turn = "店里的临时wifi密码是kk77tmp，今晚过后就改。长期用的收银系统是客如云"
    assert split_expiry(turn, THU) is None  # the rules alone: filler beside the value
    monkeypatch.setenv("REMNANT_EMBEDDER", "none")
    monkeypatch.setenv("REMNANT_SALIENCE", "model")
    with Memory(db_path, clock=clock) as mem:
        ingestor = mem.ingestor
        if getattr(ingestor, "model", None) is None:
            pytest.skip("no salience model installed")
        out = mem.add(turn, user_id="ana")
        assert out.episodes[0].expires_at == END_THU
        kept = [f for f in out.facts if f.source == "extract:expiry_split"]
        assert kept and "客如云" in kept[0].content and "kk77tmp" not in kept[0].content
        clock.advance(END_THU - THU + timedelta(minutes=1))
        mem.sweep()
        assert "kk77tmp" not in _stored(mem) and "客如云" in _stored(mem)


@pytest.mark.parametrize(
    ("turn", "lasting"),
    [
        # another owner's value after the validity ("my", 另外) is something else: it holds on
        ("the wifi code is K8812, valid till friday, my account number is 55123", "55123"),
        ("停车券码 TC4471 只在今天有效 另外我的车牌是粤B·77213", "77213"),
    ],
)
def test_a_value_of_its_own_after_the_validity_holds_on(turn: str, lasting: str) -> None:
    got = split_expiry(turn, THU)
    assert got is not None and lasting in got.lasting and lasting not in got.temporary


@pytest.mark.parametrize(
    ("turn", "until"),
    [
        ("the locker code is 5521, only good till the weekend", END_SUN),
        ("the pin is 3318 till friday", END_FRI),
        ("my neighbour lent me her laundry room pin for today, 3318", END_THU),
        ("parked in bay C17, just for this afternoon", END_THU),
        ("covering the early shift this week only", END_SUN),
        ("im at my sister's till sunday", END_SUN),
        ("my badge pin is 7721, just temporary till IT fixes the system on friday", END_FRI),
        ("the voucher is valid till the end of the month", END_JAN),
        ("优惠码今晚十二点前用有效", END_THU),
        ("我代课只到这周五为止", END_FRI),
        ("这张券到月底有效", END_JAN),
        ("im at a craft fair in Hangzhou till the 15th, orders ship late", datetime(2026, 1, 16, tzinfo=UTC)),
        ("优惠券到15号有效", datetime(2026, 1, 16, tzinfo=UTC)),
    ],
)
def test_an_end_point_from_the_data(turn: str, until: datetime) -> None:
    assert expiry_of(turn, THU) == until - THU


@pytest.mark.parametrize(
    ("turn", "period"),
    [
        ("收银台的临时密码是8826，明天就换", timedelta(days=1)),  # as "changes tomorrow"
        ("我手机坏咗，呢三日有事打我同事电话 647-555-0364", timedelta(days=3)),  # 呢 is 这 in Cantonese
    ],
)
def test_a_period_read_from_the_data(turn: str, period: timedelta) -> None:
    assert expiry_of(turn, THU) == period


@pytest.mark.parametrize(
    "turn",
    [
        "i can't wait till friday",
        "3 more days till the weekend!",
        "I was at my sister's till sunday",
        "we stayed at the hilton till sunday",
        "that's all for today, thanks",
        "the store is open till the end of the month",
        "I worked 9 to 5 till friday",
        "is the pin 3318 till friday?",
        "我周五回家",  # a plan, no end said
        "valid till march 15th",  # a date with its month: not placed by this reader
        "有效期到3月15号",
        "我15号回来",
        "这个码到月底还能用吗",
    ],
)
def test_what_is_no_end_point_sets_nothing(turn: str) -> None:
    assert expiry_of(turn, THU) is None


@pytest.mark.parametrize(
    "turn",
    [
        "付款码五分钟内有效，超时要重新生成",  # what follows from the period expires with it
        "the code is 4471, valid 10 min. if it fails call the front desk",
        "I'm in Osaka for 10 days. Any tips?",  # the other sentence asks
        "I'm in Osaka for 10 days. Weather is nice lol.",  # the other sentence is filler
        "I'm in Osaka for 10 days, so suggest stuff near Namba",  # one sentence: the turn is a state
    ],
)
def test_what_follows_from_the_period_is_not_kept_apart(turn: str) -> None:
    assert split_expiry(turn, THU) is None


def test_each_chinese_sentence_is_read_alone() -> None:
    assert expiry_in_words("验证码是738205，5分钟内有效。顺便说下我的快递一般寄到公司前台") == timedelta(
        minutes=5
    )
    assert expiry_in_words("我一般五分钟就到。验证码收到了") is None


def test_the_new_end_point_shapes_are_linear() -> None:
    """100,000 characters against each new shape (a stay's where, a value before "till", the day
    and week spans, the Chinese end words, Chinese read sentence by sentence) stay within a
    generous budget (2 s each on a shared 2-core machine; the end points take milliseconds)."""
    for text in (
        "im at " + "x " * 50_000 + "till friday",
        "1a2 " * 25_000 + "till friday",
        "only for " * 11_000 + "today",
        "just " * 20_000 + "this week",
        "今天" * 25_000 + "之内要取",
        "今晚" + "十二点" * 30_000 + "前用有效",
        "呢" * 50_000 + "三日",
        "礼拜日就" * 25_000,
        "月底" * 50_000,
        "验证码五分钟内有效。" * 10_000,
    ):
        started = time.perf_counter()
        expiry_until(text[:100_000], THU)
        assert time.perf_counter() - started < 2.0
        if not text.isascii():
            started = time.perf_counter()
            expiry_in_words(text[:100_000])
            assert time.perf_counter() - started < 2.0
