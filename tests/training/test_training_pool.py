"""The decaying training pool: storage, weights, reproducible sampling, export, stats, half-life."""

from __future__ import annotations

import json
import math
import sqlite3
from datetime import datetime, timedelta

import numpy as np
import pytest

from remnant.core.errors import RemnantError, ValidationError
from remnant.training import FixedClock, TrainingExample, TrainingPool, WeightPolicy
from remnant.training.errors import InvalidExampleError, TrainingDataError
from remnant.training.example import Message, example_from_dict
from remnant.training.halflife import check_half_life, estimate_half_life, ks_critical
from remnant.training.jsonl import load_jsonl


def ex(now: datetime, days: float, text: str, **kw: object) -> TrainingExample:
    return TrainingExample(
        created_at=now - timedelta(days=days), source=str(kw.pop("source", "manual")), text=text, **kw
    )  # type: ignore[arg-type]


@pytest.fixture
def pool(tmp_path, now):  # type: ignore[no-untyped-def]
    with TrainingPool(tmp_path / "pool.db", clock=FixedClock(now)) as p:
        yield p


def test_weight_halves_every_half_life(pool: TrainingPool, now: datetime) -> None:
    pool.add_many([ex(now, 0, "new"), ex(now, 182.625, "half"), ex(now, 365.25, "quarter")])
    w = {we.example.text: we.weight for we in pool.weighted()}
    assert w["new"] == pytest.approx(1.0)
    assert w["half"] == pytest.approx(0.5)
    assert w["quarter"] == pytest.approx(0.25)


def test_authority_and_importance_exponents(pool: TrainingPool, now: datetime) -> None:
    pool.add_many([ex(now, 182.625, "a", authority=0.5, importance=2.0)])
    plain = pool.weighted()[0].weight
    boosted = pool.weighted(policy=WeightPolicy(authority_exponent=1.0, importance_exponent=2.0))[0].weight
    assert plain == pytest.approx(0.5)
    assert boosted == pytest.approx(0.5 * 0.5 * 4.0)


def test_min_weight_drops_faded_examples(pool: TrainingPool, now: datetime) -> None:
    pool.add_many([ex(now, 0, "fresh"), ex(now, 2000, "ancient")])
    policy = WeightPolicy(min_weight=0.01)
    drawn = {d.example.text for d in pool.sample(200, seed=1, policy=policy)}
    assert drawn == {"fresh"}


def test_future_dated_examples_count_as_new(pool: TrainingPool, now: datetime) -> None:
    pool.add(ex(now, -30, "future"))
    assert pool.weighted()[0].weight == pytest.approx(1.0)
    assert pool.weighted()[0].age_days == 0.0


def test_duplicates_are_not_added_twice(pool: TrainingPool, now: datetime) -> None:
    assert pool.add(ex(now, 1, "same"))
    assert not pool.add(ex(now, 5, "same"))  # same content, same source
    assert pool.add(ex(now, 5, "same", source="other"))
    assert len(pool) == 2


def test_pool_file_survives_reopen_and_keeps_policy(tmp_path, now: datetime) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.db"
    with TrainingPool(path, clock=FixedClock(now), policy=WeightPolicy(half_life_days=30)) as p:
        p.add_many(
            [
                ex(now, 30, "x"),
                TrainingExample(
                    created_at=now,
                    source="chat",
                    messages=(Message("user", "hi"), Message("assistant", "hello")),
                ),
            ]
        )
    with TrainingPool(path, clock=FixedClock(now)) as p:
        assert p.policy.half_life_days == 30
        assert len(p) == 2
        by_text = {e.example_id: e for e in p.examples()}
        chat = next(e for e in by_text.values() if e.messages)
        assert chat.chat() == [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
        assert next(w.weight for w in p.weighted() if w.example.text == "x") == pytest.approx(0.5)
    versions = (
        sqlite3.connect(path).execute("SELECT version FROM pool_schema_version ORDER BY version").fetchall()
    )
    assert [v for (v,) in versions] == [1, 2, 3]


def test_sampling_is_reproducible_per_seed(pool: TrainingPool, now: datetime) -> None:
    pool.add_many([ex(now, d, f"e{d}") for d in range(0, 400, 4)])
    a = [d.example.example_id for d in pool.sample(50, seed=7)]
    b = [d.example.example_id for d in pool.sample(50, seed=7)]
    c = [d.example.example_id for d in pool.sample(50, seed=8)]
    assert a == b
    assert a != c
    batches1 = [[d.example.example_id for d in batch] for batch in pool.batches(8, 3, seed=3)]
    batches2 = [[d.example.example_id for d in batch] for batch in pool.batches(8, 3, seed=3)]
    assert batches1 == batches2 and len(batches1) == 3 and all(len(b) == 8 for b in batches1)


def test_distinct_sampling(pool: TrainingPool, now: datetime) -> None:
    pool.add_many([ex(now, d, f"e{d}") for d in range(10)])
    drawn = pool.sample(10, seed=0, replace_draws=False)
    assert len({d.example.example_id for d in drawn}) == 10
    with pytest.raises(TrainingDataError):
        pool.sample(11, replace_draws=False)


def test_empty_pool_cannot_be_sampled(pool: TrainingPool) -> None:
    with pytest.raises(TrainingDataError, match="nothing to sample"):
        pool.sample(1)
    assert pool.sample(0) == []
    assert pool.stats().count == 0


def test_explicit_now_overrides_clock(pool: TrainingPool, now: datetime) -> None:
    pool.add(ex(now, 0, "x"))
    later = now + timedelta(days=182.625)
    assert pool.weighted(now=later)[0].weight == pytest.approx(0.5)


def test_weighted_export_is_chat_jsonl(pool: TrainingPool, now: datetime, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pool.add_many([ex(now, 0, "new"), ex(now, 182.625, "old")])
    out = tmp_path / "train.jsonl"
    assert pool.export(out) == 2
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["messages"][0]["content"]: r["weight"] for r in rows} == {"new": 1.0, "old": 0.5}
    assert all(r["messages"][0]["role"] == "assistant" for r in rows)
    pool.export(out, normalize=True)
    weights = [json.loads(line)["weight"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert sum(weights) / len(weights) == pytest.approx(1.0, abs=1e-5)
    assert pool.export(out, mode="sampled", n=30, seed=1) == 30
    with pytest.raises(ValueError):
        pool.export(out, mode="sampled")
    with pytest.raises(ValueError):
        pool.export(out, mode="bogus")


def test_stats(pool: TrainingPool, now: datetime) -> None:
    pool.add_many(
        [ex(now, d, f"e{d}", source="a" if i % 2 else "b") for i, d in enumerate(range(0, 100, 10))]
    )
    s = pool.stats()
    assert s.count == 10 and s.by_source == {"b": 5, "a": 5}
    assert s.age_quantiles_days["max"] == pytest.approx(90)
    assert 1 < s.effective_size <= 10
    assert sum(s.weight_share_by_age.values()) == pytest.approx(1.0, abs=1e-3)


def test_bad_policy_values() -> None:
    for kwargs in (
        {"half_life_days": 0},
        {"half_life_days": float("inf")},
        {"authority_exponent": -1},
        {"min_weight": 1.0},
    ):
        with pytest.raises(ValueError):
            WeightPolicy(**kwargs)  # type: ignore[arg-type]


def test_example_validation(now: datetime) -> None:
    with pytest.raises(InvalidExampleError):
        TrainingExample(created_at=now, source="s")  # neither text nor messages
    with pytest.raises(InvalidExampleError):
        TrainingExample(created_at=now, source="s", text="x", authority=1.5)
    with pytest.raises(InvalidExampleError):
        TrainingExample(created_at=now, source="s", messages=(Message("robot", "x"),))
    with pytest.raises(ValidationError):  # a core RemnantError too
        TrainingExample(created_at=now, source=" ", text="x")
    assert issubclass(InvalidExampleError, RemnantError)


def test_bad_lines_are_reported_and_the_rest_load() -> None:
    lines = [
        '{"text": "ok 1", "time": "2024-01-01", "source": "a"}',
        "{not json",
        '["a", "list"]',
        '{"text": "undated", "source": "a"}',
        '{"text": "unsourced", "time": "2024-01-01"}',
        "",
        '{"text": "bad date", "time": "yesterday", "source": "a"}',
        '{"text": "ok 2", "time": "2024-02-01T10:00:00Z", "source": "a", "authority": 0.7}',
    ]
    report = load_jsonl(lines, example_from_dict)
    assert [e.text for e in report.items] == ["ok 1", "ok 2"]
    assert [p.line for p in report.errors] == [2, 3, 4, 5, 7]
    assert "malformed JSON" in report.errors[0].message
    assert "no 'time'" in report.errors[2].message


def test_defaults_for_missing_time_and_source_are_noted(
    now: datetime, caplog: pytest.LogCaptureFixture
) -> None:
    lines = ['{"text": "undated", "source": "a"}', '{"text": "unsourced", "time": "2024-01-01"}']
    report = load_jsonl(
        lines, lambda o, n, notes: example_from_dict(o, n, notes, default_time=now, default_source="unknown")
    )
    assert len(report.items) == 2 and not report.errors
    assert [p.line for p in report.notes] == [1, 2]
    assert "used default" in report.notes[0].message
    assert report.items[0].created_at == now and report.items[1].source == "unknown"


@pytest.mark.slow
@pytest.mark.parametrize("half_life", [30.0, 182.625, 365.0])
def test_sampled_ages_follow_the_half_life(tmp_path, now: datetime, half_life: float) -> None:  # type: ignore[no-untyped-def]
    horizon = 6 * half_life
    ages = np.linspace(0.0, horizon, 2000)
    with TrainingPool(":memory:", clock=FixedClock(now), policy=WeightPolicy(half_life_days=half_life)) as p:
        p.add_many(ex(now, float(a), f"e{i}") for i, a in enumerate(ages))
        drawn = [d.age_days for d in p.sample(30_000, seed=123)]
        pool_ages = [w.age_days for w in p.weighted()]
    check = check_half_life(drawn, pool_ages, half_life)
    assert check.relative_error < 0.03  # fitted half-life within 3 %
    assert check.ks < 1.5 * ks_critical(len(drawn))
    assert check.ks_pool < 1.5 * ks_critical(len(drawn))
    # about half of all draws are younger than one half-life (truncation: 0.5 / (1 - 2^-6))
    younger = np.mean(np.asarray(drawn) < half_life)
    assert younger == pytest.approx(0.5 / (1 - 2**-6), abs=0.015)


def test_estimated_half_life_tracks_the_setting(now: datetime) -> None:
    ages = np.linspace(0.0, 1000.0, 1000)
    rng = np.random.default_rng(0)
    for half_life in (50.0, 200.0):
        w = 0.5 ** (ages / half_life)
        drawn = rng.choice(ages, size=20_000, p=w / w.sum())
        assert estimate_half_life(drawn, ages) == pytest.approx(half_life, rel=0.05)
    assert math.isinf(estimate_half_life(ages, ages))  # uniform draws: no decay at all


def test_superseded_examples_are_kept_but_not_drawn(pool: TrainingPool, now: datetime) -> None:
    pool.add_many([ex(now, 10, "old value 10", superseded=True), ex(now, 300, "current value 15")])
    assert {d.example.text for d in pool.sample(100, seed=0)} == {"current value 15"}
    half = WeightPolicy(superseded_factor=0.5)
    w = {we.example.text: we.weight for we in pool.weighted(policy=half)}
    assert w["old value 10"] == pytest.approx(0.5 * 0.5 ** (10 / 182.625))
    assert pool.stats().superseded == 1
    current = next(e for e in pool.examples() if not e.superseded)
    assert pool.mark_superseded([current.example_id]) == 1
    assert pool.mark_superseded([current.example_id]) == 0
    with pytest.raises(TrainingDataError):
        pool.sample(1)  # everything is superseded now
    with pytest.raises(ValueError):
        WeightPolicy(superseded_factor=2.0)


def test_resolved_claims_go_into_the_pool_with_their_status(tmp_path, now: datetime, manuals) -> None:  # type: ignore[no-untyped-def]
    from remnant.training.claims import load_claims
    from remnant.training.conflicts import find_conflicts
    from remnant.training.rules import RuleSet, mark_superseded
    from remnant.training.statements import claim_statement, load_claim_examples

    claims = load_claims([json.dumps(c) for c in manuals.claims]).items
    rows = mark_superseded(claims, RuleSet().resolve_all(find_conflicts(claims)))
    report = load_claim_examples([json.dumps(r) for r in rows])
    assert len(report.items) == len(claims) and not report.errors
    superseded = {e.example_id for e in report.items if e.superseded}
    assert superseded == {r["id"] for r in rows if r["status"] == "superseded"}
    with TrainingPool(tmp_path / "claims.db", clock=FixedClock(now)) as p:
        p.add_many(report.items)
        drawn = p.sample(2000, seed=0)
    assert not {d.example.example_id for d in drawn} & superseded
    assert claim_statement(claims[0]).startswith(f"The {claims[0].attribute} of {claims[0].entity} is ")
