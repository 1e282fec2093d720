"""The LoCoMo harness on a tiny synthetic conversation in LoCoMo's format (not the real data)."""

import json

import pytest
from click.testing import CliRunner

from remnant.bench.eval.locomo import (
    InMemoryBackend,
    LocomoFormatError,
    answer_hit,
    engine_backends,
    evaluate,
    load_locomo,
    normalise_evidence,
    parse_session_date,
    turn_docs,
)
from remnant.embed import get_embedder

CONV = {
    "sample_id": "toy-1",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat named Miso last week."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started pottery classes on Tuesdays."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "What do you make?", "blip_caption": "a clay bowl"},
            {"speaker": "Ben", "dia_id": "D1:4", "text": "Mostly bowls and mugs for my sister."},
        ],
        "session_2_date_time": "10:00 am on 2 June, 2023",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "Miso knocked over my coffee this morning."},
            {"speaker": "Ben", "dia_id": "D2:2", "text": "I am flying to Lisbon for a conference."},
            {"speaker": "Ana", "dia_id": "D2:3", "text": "", "blip_caption": "a cat on a suitcase"},
        ],
    },
    "qa": [
        {"question": "What is the name of Ana's cat?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
        {
            "question": "What does Ben make in pottery?",
            "answer": "bowls and mugs",
            "evidence": ["D1:2; D1:4"],
            "category": 1,
        },
        {"question": "Where is Ben flying?", "answer": "Lisbon", "evidence": ["D:2:2"], "category": 2},
        {
            "question": "What did Ana's dog break?",
            "adversarial_answer": "coffee",
            "evidence": ["D2:1"],
            "category": 5,
        },
        {"question": "Unanswerable", "answer": "x", "evidence": ["D9:9"], "category": 4},
    ],
    "session_summary": {
        "session_1_summary": "Ana adopted a cat named Miso. Ben makes bowls and mugs in pottery class.",
        "session_2_summary": "Ben is flying to Lisbon for a conference; Miso spilled coffee.",
    },
}


@pytest.fixture()
def data_file(tmp_path):
    p = tmp_path / "toy.json"
    p.write_text(json.dumps([CONV]))
    return p


def test_loading_normalises_evidence_and_dates(data_file):
    (conv,) = load_locomo(data_file)
    assert len(conv.turns) == 7 and conv.turns[2].caption == "a clay bowl"
    assert [q.evidence for q in conv.questions] == [("D1:1",), ("D1:2", "D1:4"), ("D2:2",), ("D2:1",)]
    assert parse_session_date("1:56 pm on 8 May, 2023")[0] == "8 May 2023"
    assert normalise_evidence(["D30:05", "D1:1"], {"D30:5"}) == ("D30:5",)
    assert conv.summaries[2].startswith("Ben is flying")


def test_bad_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"nope": 1}]')
    with pytest.raises(LocomoFormatError, match="malformed"):
        load_locomo(bad)
    with pytest.raises(LocomoFormatError):
        load_locomo(tmp_path / "missing.json")


def test_answer_hit_rule():
    assert answer_hit("Miso", "ana adopted a cat named miso")
    assert answer_hit("bowls and mugs for sister", "he makes bowls and some mugs")  # 2 of 3 long words
    assert not answer_hit("Lisbon conference travel", "he went to lisbon")  # 1 of 3
    assert not answer_hit("", "anything")


def test_evaluate_in_memory_and_engine_agree_on_shape(data_file, tmp_path):
    convs = load_locomo(data_file)
    lex = evaluate(convs, InMemoryBackend("bm25", mode="lexical"))
    assert lex["turn"]["recall@5"]["1-4"] == pytest.approx(1.0)  # tiny corpus: all in top 5
    assert set(lex["turn"]["recall@5"]) >= {"1-4", "multi-hop", "temporal", "single-hop", "adversarial"}
    assert 0 <= lex["answer_hit@5"]["1-4"] <= 1 and lex["tokens"]["reduction"] < 1
    static = get_embedder("static")
    for b in engine_backends(convs, tmp_path, embedder=static, baseline_embedder=static):
        r = evaluate(convs, b)
        b.close()
        assert 0.5 <= r["turn"]["recall@10"]["1-4"] <= 1.0 or b.name == "vector", b.name
        assert r["timing"]["queries"] == 4


@pytest.mark.slow
def test_cli_runs_through_the_engine(data_file, tmp_path):
    from remnant.bench.locomo import bench_locomo

    out = tmp_path / "res.json"
    chart = tmp_path / "chart.png"
    res = CliRunner().invoke(
        bench_locomo,
        [
            "--data",
            str(data_file),
            "--json",
            str(out),
            "--chart",
            str(chart),
            "--embedder",
            "static",
            "--baseline-embedder",
            "static",
            "--scale",
            "50",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert set(data) >= {"remnant", "bm25", "vector"}
    assert 0 <= data["remnant"]["turn"]["recall@5"]["1-4"] <= 1
    assert data["remnant"]["session"]["recall@5"]["1-4"] == pytest.approx(1.0)
    assert data["remnant"]["scale"]["memories"] == 50
    assert chart.stat().st_size > 1000
    assert "turn recall@5" in res.output


@pytest.mark.slow
def test_real_clock_dump_and_answer_hit_on_retrieved_turns(data_file, tmp_path):
    """The default clock learns the turns now (nothing faded), each said at its session date; the
    dump has one line per question and system; answer-hit reads the turns retrieved, not summaries."""
    from datetime import UTC, datetime, timedelta

    from remnant.bench.locomo import bench_locomo

    convs = load_locomo(data_file)
    (b,) = engine_backends(convs, tmp_path, embedder=None, baseline_embedder=None, systems=["bm25"])
    b.ingest("toy-1", turn_docs(convs[0]))
    rec = b.memory.list_memories(user_id="toy-1")[0]
    assert rec.occurred_at is not None and rec.occurred_at.year == 2023
    assert rec.created_at is not None and datetime.now(UTC) - rec.created_at < timedelta(hours=1)
    b.close()
    dump = tmp_path / "dump.jsonl"
    res = CliRunner().invoke(
        bench_locomo,
        ["--data", str(data_file), "--embedder", "static", "--systems", "bm25,vector", "--dump", str(dump)],
    )
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(rows) == 2 * 4 and {r["system"] for r in rows} == {"bm25", "vector"}
    cat = next(r for r in rows if r["question"] == "What is the name of Ana's cat?" and r["system"] == "bm25")
    assert cat["top"][0] == "D1:1" and cat["answer_hit@5"] is True and cat["recall@5"] == 1.0
    replay = CliRunner().invoke(
        bench_locomo,
        ["--data", str(data_file), "--embedder", "static", "--systems", "bm25", "--clock", "replay"],
    )
    assert replay.exit_code == 0, replay.output


@pytest.mark.slow
def test_folds_report_every_component_and_the_category_spread(tmp_path):
    from remnant.bench.eval.locomo_folds import GRID, format_folds, run_folds
    from remnant.embed import get_embedder

    second = json.loads(json.dumps(CONV).replace("toy-1", "toy-2"))
    p = tmp_path / "two.json"
    p.write_text(json.dumps([CONV, second]))
    report = run_folds(load_locomo(p), get_embedder("static"), tmp_path)
    assert [f["held_out"] for f in report["folds"]] == ["toy-1", "toy-2"]
    # every setting of the grid has an ablation row, shipped or not
    assert {a["setting"] for a in report["ablation"]} == {name for _, name, _ in GRID}
    assert set(report["held_out_category_spread"]["categories"]) <= {
        "multi-hop",
        "temporal",
        "open-domain",
        "single-hop",
    }
    text = format_folds(report)
    assert "per category over folds (tuned)" in text and "names out of the vector query" in text
    assert "speakers out of the vector query" in text


def test_a_repeated_turn_maps_to_every_turn_id_it_holds(tmp_path):
    """A turn said again ("Thanks!") is kept once; the bench maps both dia_ids to that memory."""
    from remnant.bench.eval.locomo import BenchDoc, EngineBackend
    from remnant.retrieval.retriever import HybridRetriever

    backend = EngineBackend("remnant", lambda e: HybridRetriever(None), None, tmp_path)
    try:
        backend.ingest(
            "c1",
            [
                BenchDoc("D1:1", "Thanks so much for the lasagne recipe!", speaker="Ana"),
                BenchDoc("D1:2", "Any time.", speaker="Bo"),
                BenchDoc("D2:1", "Thanks so much for the lasagne recipe!", speaker="Ana"),
            ],
        )
        assert backend.memory.count_memories(user_id="c1") == 2
        assert backend.search("c1", "lasagne recipe", 10)[:2] == ["D1:1", "D2:1"]
        assert backend.search("c1", "lasagne recipe", 1) == ["D1:1"]  # k turns at most
    finally:
        backend.close()


def test_the_product_rows_feed_each_turn_through_add_and_map_facts_to_their_turn(
    data_file, tmp_path, monkeypatch
):
    """remnant-add: Memory.add per turn (speaker as the message's name, session id, session date);
    remnant-add-text: the speaker inside the text. Every hit stands for a turn of the conversation."""
    from remnant.bench.eval.locomo import ProductBackend

    monkeypatch.setenv("REMNANT_SALIENCE", "rules")  # the model's weights are for e5-small, not static
    convs = load_locomo(data_file)
    known = {t.dia_id for t in convs[0].turns}
    static = get_embedder("static")
    backends = engine_backends(
        convs,
        tmp_path,
        embedder=static,
        baseline_embedder=static,
        systems=["remnant-add", "remnant-add-text"],
    )
    assert [type(b) for b in backends] == [ProductBackend, ProductBackend]
    for b in backends:
        b.ingest("toy-1", turn_docs(convs[0]))
        episodes = b.memory.list_memories(user_id="toy-1", kinds=["episode"], limit=100)
        named = b.name == "remnant-add"
        assert all((e.metadata.get("speaker") is not None) == named for e in episodes)
        assert all((e.session_id is not None) == named for e in episodes)
        assert {e.occurred_at.year for e in episodes if e.occurred_at} == {2023}
        top = b.search("toy-1", "What is the name of Ana's cat?", 10)
        assert top[0] == "D1:1" and set(top) <= known
        for row in b.explain():
            assert row["turn"] and set(row["turn"]) <= known
        facts = [
            m for m in b.memory.list_memories(user_id="toy-1", limit=100) if "from_episode" in m.metadata
        ]
        assert all(b.turn_of(f) for f in facts)
        b.close()
    (b,) = engine_backends(
        convs, tmp_path, embedder=static, baseline_embedder=static, systems=["remnant-add"]
    )
    r = evaluate(convs, b)
    b.close()
    assert r["timing"]["queries"] == 4 and 0.5 <= r["turn"]["recall@10"]["1-4"] <= 1.0
