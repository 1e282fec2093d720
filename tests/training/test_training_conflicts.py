"""Conflict detection and resolution on a generated multi-version product-manual dataset."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from remnant.core.errors import ValidationError
from remnant.training.claims import Claim, load_claims
from remnant.training.conflicts import AttributeAliases, find_conflicts
from remnant.training.errors import RuleCycleError, RuleError
from remnant.training.extract import RuleBasedExtractor, Triple, claims_from_documents, claims_from_text
from remnant.training.normalize import normalize_key, normalize_value, same_value
from remnant.training.rules import BeatRule, Resolution, RuleSet, Unresolved, mark_superseded
from remnant.training.synthetic import ManualDataset, base_value
from remnant.training.updates import SourceLabels, all_update_samples, update_samples


def claim(
    entity: str, attribute: str, value: object, year: int, source: str, authority: float = 0.9
) -> Claim:
    return Claim(entity, attribute, value, datetime(year, 3, 1, tzinfo=UTC), source, authority)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("15", "１５"),
        ("15", "15 connections"),
        ("1,000", "1000"),
        ("1 s", "1000 ms"),
        ("2 GB", "2048 MB"),
        ("100 req/s", "6000 req/min"),
        ("15 次/秒", "15 req/s"),
        ("Blue", "  blue "),
        ("10万", "100000"),
        (15, "15.0"),
    ],
)
def test_equivalent_values_normalise_equal(a: object, b: object) -> None:
    assert same_value(a, b)


@pytest.mark.parametrize(
    ("a", "b"), [("15", "16"), ("1 s", "1 ms"), ("2 GB", "2 MB"), ("15 req/s", "15 req/min"), ("red", "blue")]
)
def test_different_values_differ(a: object, b: object) -> None:
    assert not same_value(a, b)


def test_key_normalisation() -> None:
    assert normalize_key("Max_Concurrency") == normalize_key("  max   concurrency ") == "max concurrency"
    assert normalize_value("Ａｔｌａｓ").text == "atlas"


def test_every_conflict_is_found_and_resolved_to_the_current_value(manuals: ManualDataset) -> None:
    report = load_claims([json.dumps(c) for c in manuals.claims])
    assert not report.problems
    found = find_conflicts(report.items)
    assert {(c.entity, c.attribute) for c in found} == manuals.conflicts
    assert len(manuals.conflicts) >= 15  # the generator produced a meaningful number
    outcome = RuleSet().resolve_all(found)
    assert not outcome.unresolved
    for res in outcome.resolved:
        key = (res.winner.entity, res.winner.attribute)
        assert res.winner.source == "manual-2024"
        assert res.winner.normalized.number is not None
        assert base_value(res.winner.attribute, res.winner.normalized.number) == pytest.approx(
            manuals.current[key]
        )
        assert all(c.normalized.key != res.winner.normalized.key for c in res.superseded)
        # the stale blog post is newer than the 2024 manual but loses on authority
        assert all(c.source != "community-blog" or c in res.superseded for c in res.conflict.claims)


def test_unit_variants_alone_are_not_conflicts() -> None:
    claims = [
        claim("X", "timeout", "30 s", 2022, "m"),
        claim("X", "timeout", "30000 ms", 2023, "m"),
        claim("X", "memory", "1 GB", 2022, "m"),
        claim("X", "memory", "1024 MB", 2024, "m"),
    ]
    assert find_conflicts(claims) == []


def test_superseded_values_are_marked(manuals: ManualDataset) -> None:
    report = load_claims([json.dumps(c) for c in manuals.claims])
    outcome = RuleSet().resolve_all(find_conflicts(report.items))
    rows = mark_superseded(report.items, outcome)
    assert len(rows) == len(report.items)
    by_id = {r["id"]: r for r in rows}
    for res in outcome.resolved:
        assert by_id[res.winner.claim_id]["status"] == "current"
        for old in res.superseded:
            assert by_id[old.claim_id]["status"] == "superseded"
            assert by_id[old.claim_id]["superseded_by"] == res.winner.claim_id
    statuses = {r["status"] for r in rows}
    assert statuses <= {"current", "superseded", "agrees", "uncontested"}
    uncontested = [r for r in rows if r["status"] == "uncontested"]
    assert {(r["entity"], r["attribute"]) for r in uncontested}.isdisjoint(manuals.conflicts)


def test_update_samples_cover_every_superseded_value(manuals: ManualDataset) -> None:
    report = load_claims([json.dumps(c) for c in manuals.claims])
    outcome = RuleSet().resolve_all(find_conflicts(report.items))
    rows = all_update_samples(outcome.resolved, with_meta=True)
    expected = sum(len({c.normalized.key for c in r.superseded}) for r in outcome.resolved) * 3 * 2
    assert len(rows) == expected
    for row in rows:
        user, assistant = row["messages"]
        assert user["role"] == "user" and assistant["role"] == "assistant"
        assert str(row["meta"]["current"]) in assistant["content"]
        assert str(row["meta"]["superseded"]) in assistant["content"]
    assert {r["meta"]["lang"] for r in rows} == {"en", "zh"}
    keys = {(r["meta"]["entity"], r["meta"]["attribute"]) for r in rows}
    assert keys == manuals.conflicts


def test_update_sample_wording_matches_the_seed() -> None:
    res = RuleSet().resolve(
        find_conflicts(
            [
                claim("Product X", "max concurrency", "10", 2023, "manual-2023"),
                claim("Product X", "max concurrency", "15", 2024, "manual-2024"),
            ]
        )[0]
    )
    assert isinstance(res, Resolution)
    labels = SourceLabels(attributes={"max concurrency": {"zh": "最大并发数"}})
    en = update_samples(res, langs=["en"], labels=labels)
    assert (
        en[0]["messages"][0]["content"]
        == "According to the 2023 manual, what is the max concurrency of Product X?"
    )
    assert (
        en[0]["messages"][1]["content"]
        == "According to the 2023 manual it was 10; since the 2024 update it is 15."
    )
    zh = update_samples(res, langs=["zh"], labels=labels)
    assert zh[0]["messages"][0]["content"] == "根据2023年的手册，Product X的最大并发数是多少？"
    assert (
        zh[0]["messages"][1]["content"]
        == "2023年的手册中为10，但根据2024年最新更新，Product X的最大并发数已变更为15。"
    )
    assert "meta" not in zh[0]
    with pytest.raises(ValueError):
        update_samples(res, langs=["fr"])


def test_source_precedence_beats_authority_and_recency() -> None:
    claims = [
        claim("X", "timeout", "30 s", 2024, "blog", 0.9),
        claim("X", "timeout", "20 s", 2022, "api-docs", 0.5),
    ]
    conflict = find_conflicts(claims)[0]
    assert isinstance(RuleSet().resolve(conflict), Resolution)
    assert RuleSet().resolve(conflict).winner.source == "blog"  # type: ignore[union-attr]
    rules = RuleSet.from_dict({"beats": [["api-docs", "blog"]]})
    res = rules.resolve(conflict)
    assert isinstance(res, Resolution) and res.winner.source == "api-docs"
    assert res.reason.startswith("source precedence")


def test_transitive_precedence_and_attribute_scope() -> None:
    claims = [claim("X", "timeout", "1 s", 2024, "c"), claim("X", "timeout", "2 s", 2020, "a")]
    conflict = find_conflicts(claims)[0]
    rules = RuleSet([BeatRule("a", "b"), BeatRule("b", "c")])
    assert rules.resolve(conflict).winner.source == "a"  # type: ignore[union-attr]
    scoped = RuleSet([BeatRule("a", "c", attribute="price")])
    assert scoped.resolve(conflict).winner.source == "c"  # type: ignore[union-attr]  # rule does not apply


def test_per_attribute_strategy() -> None:
    claims = [claim("X", "price", "10", 2024, "shop", 0.2), claim("X", "price", "12", 2022, "catalogue", 0.9)]
    conflict = find_conflicts(claims)[0]
    assert RuleSet().resolve(conflict).winner.source == "catalogue"  # type: ignore[union-attr]
    rules = RuleSet.from_dict({"attributes": {"price": "recency"}})
    assert rules.resolve(conflict).winner.source == "shop"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("data", "cycle"),
    [
        ({"beats": [["a", "b"], ["b", "c"], ["c", "a"]]}, ["a", "b", "c", "a"]),
        ({"beats": [["a", "a"]]}, ["a", "a"]),
        ({"beats": [["a", "b"], {"winner": "b", "loser": "a", "attribute": "timeout"}]}, ["a", "b", "a"]),
    ],
)
def test_cyclic_rules_are_a_clear_error(data: dict[str, object], cycle: list[str]) -> None:
    with pytest.raises(RuleCycleError) as info:
        RuleSet.from_dict(data)
    assert info.value.cycle == cycle
    assert "contradict" in str(info.value) and " beats ".join(cycle) in str(info.value)
    assert isinstance(info.value, ValidationError)


@pytest.mark.parametrize(
    "data",
    [
        {"attributes": {"price": "recency", "Price": "authority"}},
        {"attributes": {"price": "loudest"}},
        {"beats": [["only-one"]]},
        {"bogus": 1},
        {"default_strategy": "coin flip"},
    ],
)
def test_malformed_or_self_contradicting_rules(data: dict[str, object]) -> None:
    with pytest.raises(RuleError):
        RuleSet.from_dict(data)


def test_rules_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "rules.json"
    good.write_text(
        json.dumps({"beats": [["manual", "blog"]], "aliases": {"max concurrency": ["最大并发数"]}}),
        encoding="utf-8",
    )
    assert RuleSet.load(good).beaten("x")("manual", "blog")
    bad = tmp_path / "bad.json"
    bad.write_text("{oops", encoding="utf-8")
    with pytest.raises(RuleError, match="malformed JSON"):
        RuleSet.load(bad)


def test_ties_are_unresolved_not_guessed() -> None:
    claims = [claim("X", "limit", "5", 2024, "a"), claim("X", "limit", "6", 2024, "b")]
    outcome = RuleSet().resolve(find_conflicts(claims)[0])
    assert isinstance(outcome, Unresolved)
    assert len(outcome.tied) == 2 and "tie" in outcome.reason


def test_aliases_merge_attribute_spellings() -> None:
    claims = [claim("X", "max concurrency", "10", 2023, "m"), claim("X", "最大并发数", "15", 2024, "m")]
    assert find_conflicts(claims) == []
    rules = RuleSet.from_dict({"aliases": {"max concurrency": ["最大并发数"]}})
    found = find_conflicts(claims, rules.aliases)
    assert len(found) == 1
    assert rules.resolve(found[0]).winner.value == "15"  # type: ignore[union-attr]
    assert AttributeAliases({"a": ["b"]})("B") == "a"


def test_claim_loading_reports_lines_and_defaults() -> None:
    lines = [
        '{"entity": "X", "attribute": "a", "value": 1, "date": "2024-01-01", "source": "m", "authority": 0.9}',
        '{"entity": "X", "attribute": "a", "value": 2, "source": "m"}',
        '{"entity": "X", "attribute": "a", "value": 3, "date": "2024-01-01"}',
        "{broken",
        '{"entity": "X", "value": 3, "date": "2024-01-01", "source": "m"}',
        '{"entity": "X", "attribute": "a", "value": 4, "date": "2024-01-01", "source": "m"}',
    ]
    report = load_claims(lines)
    assert [c.value for c in report.items] == [1, 4]
    assert [p.line for p in report.errors] == [2, 3, 4, 5]
    assert [p.line for p in report.notes] == [6]  # no authority: default used and noted
    lenient = load_claims(lines, default_date=datetime(2020, 1, 1, tzinfo=UTC), default_source="unknown")
    assert [c.value for c in lenient.items] == [1, 2, 3, 4]


def test_rule_based_extractor_english_and_chinese() -> None:
    ex = RuleBasedExtractor()
    assert ex.extract("The max concurrency of X is 15.") == [Triple("X", "max concurrency", "15")]
    assert ex.extract("X 的最大并发数为 15") == [Triple("X", "最大并发数", "15")]
    assert ex.extract("The memory limit of Atlas DB is 1.5 GB. Atlas DB's timeout is 30 s.") == [
        Triple("Atlas DB", "memory limit", "1.5 GB"),
        Triple("Atlas DB", "timeout", "30 s"),
    ]
    assert ex.extract("Y的超时时间是30秒。") == [Triple("Y", "超时时间", "30秒")]
    assert ex.extract("Nothing to see here.") == []


def test_extracting_the_manuals_from_prose_finds_the_same_conflicts(manuals: ManualDataset) -> None:
    claims = claims_from_documents(manuals.documents)
    assert len(claims) == len(manuals.claims)
    found = {(c.entity, c.attribute) for c in find_conflicts(claims)}
    assert found == manuals.conflicts
    outcome = RuleSet().resolve_all(find_conflicts(claims))
    assert all(r.winner.source == "manual-2024" for r in outcome.resolved)


def test_custom_extractor_seam() -> None:
    class Fixed:
        def extract(self, text: str) -> list[Triple]:
            return [Triple("X", "colour", text)]

    claims = claims_from_text("blue", date=datetime(2024, 1, 1, tzinfo=UTC), source="s", extractor=Fixed())
    assert claims[0].value == "blue" and claims[0].source == "s"
