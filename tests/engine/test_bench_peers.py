"""``bench peers`` runs every peer on the same memories and measures what its rows claim (issue 30):
LanceDB's hybrid query finds results with and without its ANN index, its flat vector scan is exact,
and the rendered table carries the LanceDB columns beside Chroma and sqlite-vec."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from remnant.bench.peers import _texts, lancedb_side, render, run_peers

pytest.importorskip("lancedb")
pytestmark = pytest.mark.slow  # fresh processes and three databases


def test_lancedb_side_searches_what_it_times(tmp_path: Path) -> None:
    from remnant.embed import get_embedder

    docs, qs = _texts(600, 12, 7)
    static = get_embedder("static")
    dvec, qvec = static.embed_documents(docs), static.embed_documents(qs)
    ids = [f"m{i}" for i in range(len(docs))]
    exact = [[ids[j] for j in row] for row in np.argsort(-(qvec @ dvec.T), axis=1)[:, :10]]
    out = lancedb_side(docs, qs, dvec, qvec, ids, exact, tmp_path)
    assert out is not None
    assert out["recall_at_10"] == 1.0  # without its index the vector half is an exact scan
    assert 0.0 < out["ann_recall_at_10"] <= 1.0
    assert out["hybrid_hits_min"] == 10  # every hybrid query, before and after the index, found 10
    assert out["fresh"]["hits"] == 10
    for key in ("vector_p50_ms", "hybrid_p50_ms", "filtered_p50_ms", "ann_hybrid_p50_ms"):
        assert out[key] > 0


def test_bench_peers_renders_every_peer(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    res = run_peers(300, 10, 7, tmp_path, progress=False)
    assert res["remnant"]["vector_store_hits_min"] == 10
    assert res["lancedb"]["hybrid_hits_min"] == 10
    assert set(res["ingest_s"]) >= {"remnant", "chroma", "lancedb"}
    table = render(res)
    assert "lance+ANN" in table and "r/lancedb" in table
    assert "hybrid recall p50 (ms)" in table
