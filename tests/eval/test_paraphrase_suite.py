"""The paraphrase suite's scoring, on cases written here (never the held-out file)."""

from __future__ import annotations

import json
from pathlib import Path

from remnant.bench.eval.adapters import adapter_factory
from remnant.bench.eval.suites import SUITE_NAMES, SuiteContext, suite_module

CASES = [
    {
        "id": "t1",
        "lang": "en",
        "user": "ana",
        "memories": [{"mid": "m1", "text": "Ana lives in Berlin"}, {"mid": "m2", "text": "Ana likes tea"}],
        "question": "Where does Ana live?",
        "expect": ["m1"],
    },
    {
        "id": "t2",
        "lang": "zh",
        "user": "li",
        "memories": [{"mid": "m1", "text": "我养了一只猫"}, {"mid": "m2", "text": "我喜欢喝咖啡"}],
        "question": "宠物",
        "expect": ["m1"],
    },
]


def test_suite_loads_a_file_and_scores_per_language(tmp_path: Path) -> None:
    assert "paraphrase" in SUITE_NAMES
    mod = suite_module("paraphrase")
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in CASES), encoding="utf-8")
    cases = mod.load_cases(path)
    assert [c["id"] for c in cases] == ["t1", "t2"]
    r = mod.run(adapter_factory("bm25"), SuiteContext(adapter_name="bm25"), cases=cases)
    # BM25 finds the memory that shares a word ("Ana ... live"), not the one that shares none
    assert r.metrics["recall@5 en"] == 1.0 and r.metrics["recall@5 zh"] == 0.0
    assert r.score == 0.5 and not r.passed and r.metrics["cases"] == 2
