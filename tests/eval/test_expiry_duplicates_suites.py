"""The expiry and duplicates suites run on small inline data, through the conversation path, and
each extreme adapter fails them."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from remnant.bench.eval.adapters import ForgetsEverything, RememberEverything, adapter_factory
from remnant.bench.eval.suites import SuiteContext, duplicates, expiry
from remnant.extract.expiry import expiry_in_words

ROWS: list[dict[str, Any]] = [
    {"id": "t1", "lang": "en", "text": "the wifi voucher is valid for two hours", "ttl_seconds": 7200},
    {"id": "t2", "lang": "en", "text": "I'm at my parents' place for the next 3 days", "ttl_seconds": 259200},
    {"id": "t3", "lang": "zh", "text": "验证码五分钟内有效", "ttl_seconds": 300},
    {"id": "t4", "lang": "zh", "text": "我要去北京出差四天", "ttl_seconds": 345600},
    {"id": "n1", "lang": "en", "text": "the train was forty minutes late", "ttl_seconds": None},
    {"id": "n2", "lang": "en", "text": "my nephew is six weeks old", "ttl_seconds": None},
    {"id": "n3", "lang": "zh", "text": "我昨天跑了半小时", "ttl_seconds": None},
]


def ctx(adapter: str) -> SuiteContext:
    return SuiteContext(seed=7, quick=True, timeout_s=120, adapter_name=adapter)


class StatedTTL(RememberEverything):
    """Keeps every turn, expiring it after ``factor`` x the period it states (a test double)."""

    name = "stated-ttl"

    def __init__(self, factor: float = 1.0) -> None:
        super().__init__()
        self.factor = factor
        self.expires: dict[str, float | None] = {}

    def observe(self, user_id: str, text: str) -> list[str]:
        mid = self.remember(user_id, text, kind="episode")
        ttl = expiry_in_words(text)
        self.expires[mid] = None if ttl is None else self.days + self.factor * ttl.total_seconds() / 86400
        return [mid]

    def expires_in(self, user_id: str) -> dict[str, float | None]:
        return {
            i: None if (at := self.expires.get(i)) is None else (at - self.days) * 86400
            for i in self.by_user.get(user_id, {})
        }

    def remembered_texts(self, user_id: str) -> list[str]:
        left = self.expires_in(user_id)
        return [d.text for i, d in self.by_user.get(user_id, {}).items() if (s := left[i]) is None or s > 0]


def test_expiry_suite_passes_remnant_and_fails_both_extremes() -> None:
    ours = expiry.run_rows(adapter_factory("remnant"), ctx("remnant"), ROWS)
    assert ours.passed is True, ours.metrics
    assert ours.metrics["ttl lines right"] == 1.0 and ours.metrics["null lines falsely expired"] == 0.0
    assert ours.metrics["ttl lines (zh)"] == 2 and ours.metrics["null lines (en)"] == 2
    never = expiry.run_rows(adapter_factory("never-forgets"), ctx("never-forgets"), ROWS)
    assert never.passed is False and never.metrics["ttl lines right"] == 0.0
    everything = expiry.run_rows(adapter_factory("forgets-everything"), ctx("forgets-everything"), ROWS)
    assert everything.passed is False
    assert everything.metrics["ttl lines right"] == 0.0
    assert everything.metrics["null lines falsely expired"] == 1.0


def test_expiry_suite_tolerance_is_ten_percent() -> None:
    assert expiry.run_rows(lambda: StatedTTL(1.05), ctx("x"), ROWS).passed is True
    late = expiry.run_rows(lambda: StatedTTL(1.2), ctx("x"), ROWS)
    early = expiry.run_rows(lambda: StatedTTL(0.8), ctx("x"), ROWS)
    assert late.passed is False and late.metrics["ttl lines right"] == 0.0
    assert early.passed is False and early.metrics["ttl lines right"] == 0.0


def test_expiry_suite_reads_a_data_file_from_the_cli(tmp_path: Path) -> None:
    from remnant.cli import cli

    data = tmp_path / "lines.jsonl"
    data.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in ROWS), "utf-8")
    runner = CliRunner()
    args = ["eval", "--suite", "expiry", "--adapter", "never-forgets", "--out", str(tmp_path / "r")]
    out = runner.invoke(cli, [*args, "--data", str(data)])
    assert out.exit_code == 0, out.output
    assert "expiry" in out.output and "lines from the file given with --data" in out.output
    result = json.loads((tmp_path / "r" / "results.json").read_text("utf-8"))
    assert result["results"]["expiry"]["never-forgets"]["metrics"]["ttl lines"] == 4
    wrong = runner.invoke(cli, ["eval", "--suite", "duplicates", "--data", str(data), "--out", str(tmp_path)])
    assert (
        wrong.exit_code == 2
        and "--data replaces the cases of expiry, forget_requests, supersession, timelines, chitchat only"
        in wrong.output
    )


def test_expiry_lines_must_have_the_schema(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "text": "hi", "ttl_seconds": -3}), "utf-8")
    try:
        expiry.load_rows(bad)
    except ValueError as exc:
        assert "ttl_seconds" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("a negative ttl_seconds was accepted")


class Deduplicating(RememberEverything):
    """One memory per distinct turn; saying it again reinforces it (a test double that passes)."""

    name = "dedup"

    def __init__(self, *, merge_all: bool = False) -> None:
        super().__init__()
        self.merge_all = merge_all  # one memory per user: near-misses merged too (must fail)
        self.said: dict[str, list[float]] = {}

    def observe(self, user_id: str, text: str) -> list[str]:
        for d in self.by_user.get(user_id, {}).values():
            if self.merge_all or duplicates.same_words(d.text) == duplicates.same_words(text):
                self.said[d.id].append(self.days)
                return [d.id]
        mid = self.remember(user_id, text, kind="episode")
        self.said[mid] = [self.days]
        return [mid]

    def strength(self, memory_id: str) -> float:
        times = self.said[memory_id]
        return math.exp(-(self.days - times[-1]) / (5.0 * len(times)))


def test_duplicates_suite_passes_a_deduplicating_store_and_fails_the_others() -> None:
    good = duplicates.run(Deduplicating, ctx("dedup"))
    assert good.passed is True, good.metrics
    merged = duplicates.run(lambda: Deduplicating(merge_all=True), ctx("merged"))
    assert merged.passed is False and merged.metrics["near-misses kept apart"] == 0.0
    for name in ("never-forgets", "forgets-everything", "baseline"):
        r = duplicates.run(adapter_factory(name), ctx(name))
        assert r.passed is False and r.metrics["duplicates stored once"] == 0.0, name
        assert r.metrics["near-misses kept apart"] == 1.0
    assert isinstance(ForgetsEverything().expires_in("u"), dict)


def test_duplicates_suite_runs_remnant_through_its_conversation_path() -> None:
    r = duplicates.run(adapter_factory("remnant"), ctx("remnant"))
    assert not r.failures, r.failures
    assert r.metrics["near-misses kept apart"] == 1.0
    assert {"duplicates stored once (zh)", "duplicates reinforced (en)", "duplicate cases"} <= set(r.metrics)


def test_matching_sets_case_spacing_and_punctuation_aside() -> None:
    assert duplicates.same_words("  My cat  is called   Biscuit. ") == duplicates.same_words(
        "my cat is called biscuit"
    )
    assert duplicates.same_words("我每天早上跑步。") == duplicates.same_words("我每天早上跑步！")
    assert duplicates.same_words("I run 5 km") != duplicates.same_words("I run 10 km")
