"""Forget requests in words (English and Chinese): parsing, matching, dry runs, confirmation, pins, PII."""

from __future__ import annotations

from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.errors import ConfirmationRequired, NotFoundError, ValidationError
from remnant.core.model import Status
from remnant.engine.forgetting.requests import ForgetIntent, IntentParser, forget_request, parse_intent
from remnant.engine.memory import Memory

from .conftest import VaultRedactor


@pytest.mark.parametrize(
    ("text", "hard", "topics", "lang"),
    [
        ("forget my phone number", False, ["phone_number"], "en"),
        ("Please forget my mobile", False, ["phone_number"], "en"),
        ("delete everything about my old address", True, ["address"], "en"),
        ("permanently forget my email address", True, ["email"], "en"),
        ("忘记我的电话号码", False, ["phone_number"], "zh"),
        ("删除我的地址", True, ["address"], "zh"),
        ("彻底删除我的手机号", True, ["phone_number"], "zh"),
        ("忘掉我的住址", False, ["address"], "zh"),
    ],
)
def test_parse(text: str, hard: bool, topics: list[str], lang: str) -> None:
    intent = parse_intent(text)
    assert intent.hard is hard
    assert list(intent.topics) == topics
    assert intent.lang == lang


def test_parse_kinds_free_text_and_everything() -> None:
    assert [k.value for k in parse_intent("forget my chat history").kinds] == ["episode"]
    assert parse_intent("忘记我的偏好").kinds[0].value == "preference"
    assert parse_intent("forget everything about my trip to Japan").terms == ("trip", "japan")
    assert parse_intent("忘记我在杭州的旅行").terms == ("杭州", "旅行")
    assert parse_intent("forget everything").everything
    assert parse_intent("forget it").empty


@pytest.fixture
def ana(db_path: Path, clock: ManualClock) -> Memory:
    mem = Memory(db_path, clock=clock, redactor=VaultRedactor())
    mem.remember("My phone number is +49 170 1234567", user_id="ana", key="phone_number")
    clock.advance(days=10)
    mem.remember("New mobile: +49 171 7654321", user_id="ana", key="phone_number")  # supersedes
    mem.remember("Call me on +49 172 0000000 after six", user_id="ana", kind="episode")
    mem.remember("Lives at Elm Street 1", user_id="ana", key="address")
    mem.remember("我的地址是北京市朝阳区", user_id="ana")
    mem.remember("Prefers window seats", user_id="ana", kind="preference")
    mem.remember("Trip to Japan in May was great", user_id="ana", kind="episode")
    mem.remember("Likes green tea", user_id="ana", kind="preference")
    mem.remember("Works at Acme", user_id="ana")
    mem.remember("My phone number is +1 555 0100", user_id="bo", key="phone_number")
    return mem


def test_forget_my_phone_number_hides_every_version_and_the_vault_entries(ana: Memory) -> None:
    assert ana.redactor is not None
    before = list(ana.redactor.vault[("default", "ana")])  # type: ignore[attr-defined]
    assert len(before) == 3
    dry = ana.forget("forget my phone number", user_id="ana", dry_run=True)
    assert dry.dry_run and dry.count == 3 and dry.forgotten == []
    assert all(m.content for m in dry.matches)  # a dry run shows the owner what would go
    assert {m.status for m in dry.matches} == {"active", "superseded"}
    assert "would hide 3 of 9" in dry.message
    assert len(ana.redactor.vault[("default", "ana")]) == 3  # type: ignore[attr-defined]  # untouched

    out = ana.forget("forget my phone number", user_id="ana")
    assert out.action == "hide" and len(out.forgotten) == 3
    assert out.vault_entries_forgotten == 3 and ana.redactor.vault[("default", "ana")] == []  # type: ignore[attr-defined]
    assert all(ana.get(i).status == Status.HIDDEN for i in out.forgotten)
    assert ana.recall("phone", user_id="ana").hits == []
    assert ana.current("phone_number", user_id="bo") is not None  # whose: only ana's
    entry = ana.audit_log(action="forget_request")[-1]
    assert entry.actor == "user:ana" and entry.batch_id == out.batch_id and entry.seq == out.audit_seq
    assert (
        "+49" not in str(entry.to_dict())
        and "phone number" not in entry.summary.lower().replace("_", " ")[:0]
    )
    hides = ana.audit_log(action="hide")
    assert hides[-1].batch_id == out.batch_id and hides[-1].policy == "forget_request"
    d = out.to_dict()
    assert d["matched"] == 3 and d["intent"]["topics"] == ["phone_number"]
    # hidden memories come back with unhide, each to the status it had (the first number is history)
    assert [ana.unhide(i).status for i in out.forgotten] == [Status.SUPERSEDED, Status.ACTIVE, Status.ACTIVE]


def test_delete_in_chinese_purges(ana: Memory) -> None:
    out = ana.forget("删除我的地址", user_id="ana")
    assert out.action == "purge" and len(out.forgotten) == 2  # keyed address + the Chinese address
    for mid in out.forgotten:
        with pytest.raises(NotFoundError):
            ana.get(mid)
    assert ana.audit_log(action="purge")[-1].policy == "forget_request"


def test_free_text_and_kind_requests(ana: Memory) -> None:
    trip = ana.forget("forget everything about my trip to Japan", user_id="ana")
    assert [m.why for m in trip.matches] == ["text: trip japan"]
    prefs = ana.forget("忘记我的偏好", user_id="ana", dry_run=True)
    assert prefs.count == 2 and {m.kind for m in prefs.matches} == {"preference"}


def test_nothing_matched_and_unparseable(ana: Memory) -> None:
    out = ana.forget("forget my passport number", user_id="ana")
    assert out.count == 0 and out.forgotten == [] and "nothing matched" in out.message
    vague = ana.forget("forget it", user_id="ana")
    assert vague.count == 0 and "could not tell" in vague.message
    with pytest.raises(ValidationError):
        ana.forget("forget my phone number")  # a request in words needs user_id
    with pytest.raises(ValidationError):
        forget_request(ana.ledger, "  ", user_id="ana")


def test_large_share_needs_confirmation(ana: Memory) -> None:
    with pytest.raises(ConfirmationRequired) as exc:
        ana.forget("forget everything", user_id="ana")
    assert exc.value.matched == 9 and exc.value.total == 9
    assert ana.stats("ana")["by_status"].get("hidden") is None  # nothing happened
    dry = ana.forget("forget everything", user_id="ana", dry_run=True)  # a dry run never asks
    assert dry.count == 9
    done = ana.forget("forget everything", user_id="ana", confirm=True)
    assert len(done.forgotten) == 9
    # the share is configurable
    with pytest.raises(ConfirmationRequired):
        forget_request(ana.ledger, "delete my preferences", user_id="ana", confirm_share=0.1)


def test_pinned_memories_are_not_purged_unless_forced(ana: Memory) -> None:
    pinned = ana.remember(
        "Emergency phone number: +49 160 999999", user_id="ana", pinned=True, key="phone_number"
    )
    out = ana.forget("permanently delete my phone number", user_id="ana")
    assert out.skipped_pinned == [pinned.id] and ana.get(pinned.id)
    assert "pinned" in out.message
    with pytest.raises(Exception):  # noqa: B017 - ConflictError from the engine
        ana.purge(pinned.id)
    forced = forget_request(ana.ledger, "permanently delete my phone number", user_id="ana", force=True)
    assert forced.forgotten == [pinned.id]
    with pytest.raises(NotFoundError):
        ana.get(pinned.id)


class FixedParser:
    def parse(self, text: str) -> ForgetIntent | None:
        return ForgetIntent(topics=("address",), pii_types=("ADDRESS",)) if "where I live" in text else None


def test_an_intent_parser_can_replace_the_rules(ana: Memory) -> None:
    parser = FixedParser()
    assert isinstance(parser, IntentParser)
    out = forget_request(ana.ledger, "stop knowing where I live", user_id="ana", parser=parser, dry_run=True)
    assert out.count == 2
    fallback = forget_request(
        ana.ledger, "forget my phone number", user_id="ana", parser=parser, dry_run=True
    )
    assert fallback.intent.topics == ("phone_number",)
