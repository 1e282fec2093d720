"""The benchmarks run the product as shipped (issue 30).

``bench engine`` and ``bench peers`` switched dedup and the contradiction check off, so neither saw
the duplicate lookup walk the scope; ``bench peers`` timed a vector search under the plain model's
name while the vectors are stored under the paired one (0 hits). Each bench now reports the
switches of the ``remnant.Memory`` it measured; these tests compare them with ``Memory(path)``'s
defaults, so a bench that turns a default off without saying so fails here.
"""

from __future__ import annotations

from pathlib import Path

from remnant.bench.engine import default_options, product_options, run_engine_bench, switched
from remnant.bench.peers import LookupEmbedder, remnant_side
from remnant.config import Memory


def _defaults(tmp_path: Path) -> dict[str, object]:
    with Memory(tmp_path / "defaults.db") as mem:  # the product, every default
        return product_options(mem)


def test_engine_bench_runs_the_product_defaults(tmp_path: Path) -> None:
    res = run_engine_bench(
        None, [40], 10, 7, progress=False, check_writes=2, faded_scaling=False, ingest_at=20
    )
    defaults = _defaults(tmp_path)
    assert default_options() == defaults
    assert res["options"] == defaults, switched(res["options"], defaults)
    assert res["switched"] == []
    opts = res["options"]
    assert opts["dedup"] is True and opts["contradictions"] != "off" and opts["privacy"] is True
    assert opts["context_vector"] > 0 and str(opts["embedder"]).endswith("+mix0.5")


def test_engine_bench_says_each_switch_it_turns(tmp_path: Path) -> None:
    res = run_engine_bench(
        None,
        [30],
        10,
        7,
        progress=False,
        check_writes=0,
        faded_scaling=False,
        embedder="none",
        dedup=False,
        contradictions="off",
        ingest_at=0,
    )
    assert res["options"]["dedup"] is False and res["options"]["contradictions"] == "off"
    assert res["options"]["embedder"] is None
    said = " ".join(res["switched"])
    for name in ("dedup=False", "contradictions='off'", "embedder=None"):
        assert name in said, res["switched"]
    assert res["switched"] == switched(res["options"], _defaults(tmp_path))


def test_peers_searches_the_vectors_the_product_stores(tmp_path: Path) -> None:
    from remnant.bench.peers import _texts
    from remnant.embed import get_embedder

    docs, qs = _texts(120, 10, 7)
    static = get_embedder("static")
    table = dict(zip(docs, static.embed_documents(docs), strict=True))
    table |= dict(zip(qs, static.embed_documents(qs), strict=True))
    out, ids, _ = remnant_side(docs, qs, LookupEmbedder(static.model_id, table), tmp_path)
    assert len(set(ids)) == len(docs)  # distinct texts: dedup keeps every one
    assert out["vector_store_model"].endswith("+mix0.5")  # the paired name the vectors are under
    assert out["vector_store_hits_min"] == 10  # a real search, not an empty one
    assert all(len(got) == 10 for got in out["got"])
    assert out["fresh"]["hits"] == 10  # the fresh process, with the real model, finds them too
    # the lookup embedder is the static model's vectors: the product's switches are all default
    assert out["options"] == _defaults(tmp_path)


def test_ingest_bench_imports_through_add_with_the_product_defaults(tmp_path: Path) -> None:
    import json

    from remnant.bench.ingest import run_ingest_bench

    turns = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I live in Porto now."},
        {"speaker": "Bo", "dia_id": "D1:2", "text": "Since when?"},
        {"speaker": "Ana", "dia_id": "D2:1", "text": "Since March."},
    ]
    conv = {
        "sample_id": "c1",
        "qa": [],
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns[:2],
            "session_2_date_time": "2:00 pm on 9 May, 2023",
            "session_2": turns[2:],
        },
    }
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([conv]), encoding="utf-8")
    for per, calls in (("session", 2), ("conversation", 1)):
        res = run_ingest_bench(data, per=per, db_dir=tmp_path)
        assert res["turns"] == 3 and res["add_calls"] == calls
        assert res["stored"] >= 3  # the turns, and the fact the first one states
        assert res["options"] == _defaults(tmp_path) and res["switched"] == []
        assert res["model_texts"] is not None and res["model_texts"] > 0  # the real model was timed
