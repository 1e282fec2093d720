"""The learned ranker in the LoCoMo harness: trained inside each fold, and the training command, on
two tiny synthetic conversations in LoCoMo's format (not the real data)."""

import json

import pytest
from click.testing import CliRunner

from remnant.bench.eval.locomo import load_locomo
from remnant.embed import get_embedder
from remnant.retrieval.ranker import load_ranker

CONV = {
    "sample_id": "toy-1",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat named Miso last week."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started pottery classes on Tuesdays."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "What do you make?"},
            {"speaker": "Ben", "dia_id": "D1:4", "text": "Mostly bowls and mugs for my sister."},
        ],
        "session_2_date_time": "10:00 am on 2 June, 2023",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "Miso knocked over my coffee this morning."},
            {"speaker": "Ben", "dia_id": "D2:2", "text": "I am flying to Lisbon for a conference."},
        ],
    },
    "qa": [
        {"question": "What is the name of Ana's cat?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
        {
            "question": "What does Ben make in pottery?",
            "answer": "bowls",
            "evidence": ["D1:4"],
            "category": 1,
        },
        {"question": "When did Ana adopt a cat?", "answer": "May 2023", "evidence": ["D1:1"], "category": 2},
        {"question": "Where is Ben flying?", "answer": "Lisbon", "evidence": ["D2:2"], "category": 4},
    ],
}


@pytest.fixture()
def two(tmp_path):
    second = json.loads(json.dumps(CONV).replace("toy-1", "toy-2"))
    p = tmp_path / "two.json"
    p.write_text(json.dumps([CONV, second]))
    return p


@pytest.mark.slow
def test_ranker_folds_train_on_the_other_conversation_and_report_the_ablation(two, tmp_path):
    from remnant.bench.eval.locomo_folds import FEATURE_GROUPS, format_folds, run_folds

    report = run_folds(load_locomo(two), get_embedder("static"), tmp_path, weight_search=False)
    assert set(report) == {"ranker"}
    rk = report["ranker"]
    assert [f["held_out"] for f in rk["folds"]] == ["toy-1", "toy-2"]
    assert all(0.0 <= f["ranker"] <= 1.0 and 0.0 <= f["fixed"] <= 1.0 for f in rk["folds"])
    assert set(rk["ablation"]["per_fold"]) == {"toy-1", "toy-2"}
    # the speaker round's features are ablated only where its candidates were recorded
    assert set(rk["feature_ablation"]) == set(FEATURE_GROUPS) - {"speaker round"}
    text = format_folds(report)
    assert "learned ranker" in text and "ranker feature groups" in text
    wide = run_folds(load_locomo(two), get_embedder("static"), tmp_path, weight_search=False, speaker_round=5)
    assert set(wide["ranker"]["feature_ablation"]) == set(FEATURE_GROUPS)
    assert all(0.0 <= f["ranker"] <= 1.0 for f in wide["ranker"]["folds"])
    assert any(
        w for f in wide["ranker"]["folds"] for k, w in f["weights"].items() if k == "speaker_vector_rank"
    )


@pytest.mark.slow
def test_train_ranker_writes_a_model_the_retriever_loads(two, tmp_path):
    from remnant.bench.locomo import bench_locomo

    out = tmp_path / "ranker.json"
    res = CliRunner().invoke(
        bench_locomo,
        ["--data", str(two), "--embedder", "static", "--systems", "remnant", "--train-ranker", str(out)],
    )
    assert res.exit_code == 0, res.output
    model = load_ranker(out)
    assert model is not None and model.info and model.info["conversations"] == ["toy-1", "toy-2"]
    assert "wrote" in res.output and "in-sample" in res.output


@pytest.mark.slow
def test_the_answer_type_features_are_trained_with_answer_type(two, tmp_path):
    from remnant.bench.eval.locomo_folds import ranker_features
    from remnant.bench.locomo import bench_locomo
    from remnant.retrieval.ranker import ANSWER_FEATURES, RANKER_FEATURES

    assert ranker_features(0, False) == RANKER_FEATURES
    assert set(ranker_features(0, True)) == set(RANKER_FEATURES) | ANSWER_FEATURES
    out = tmp_path / "answer.json"
    res = CliRunner().invoke(
        bench_locomo,
        [
            *("--data", str(two), "--embedder", "static", "--systems", "remnant"),
            *("--answer-type", "--train-ranker", str(out)),
        ],
    )
    assert res.exit_code == 0, res.output
    model = load_ranker(out)
    assert model is not None and set(model.features) >= ANSWER_FEATURES
