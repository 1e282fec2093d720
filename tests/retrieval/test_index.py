import numpy as np
import pytest

from remnant.embed import EmbeddingModelMismatch
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.index import ExactIndex, HnswIndex, build_index


def data(n=400, d=24, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    return [f"m{i}" for i in range(n)], x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("kind", [ExactIndex, HnswIndex])
def test_search_finds_self_and_deleted_never_return(kind):
    ids, x = data()
    idx = kind("model-a", 24)
    idx.add(ids, x, model_id="model-a")
    assert len(idx) == 400
    assert idx.search(x[7], 1, model_id="model-a")[0][0] == "m7"
    gone = [f"m{i}" for i in range(0, 400, 3)]
    assert idx.remove(gone) == len(gone)
    assert idx.remove(["m0", "nope"]) == 0
    assert len(idx) == 400 - len(gone)
    for i in range(0, 400, 3):
        hits = [h for h, _ in idx.search(x[i], 20, model_id="model-a")]
        assert not set(hits) & set(gone)
        assert f"m{i}" not in idx
    every = [h for h, _ in idx.search(x[1], 400, model_id="model-a")]
    assert len(every) == len(idx) and not set(every) & set(gone)


@pytest.mark.parametrize("kind", [ExactIndex, HnswIndex])
def test_replace_allowed_filter_and_consistency_with_exact(kind):
    ids, x = data(200)
    idx = kind("m", 24)
    idx.add(ids, x, model_id="m")
    idx.add(["m3"], x[[50]], model_id="m")  # replace m3's vector
    assert len(idx) == 200
    top = [h for h, _ in idx.search(x[50], 2, model_id="m")]
    assert set(top) == {"m3", "m50"}
    allowed = {"m10", "m11", "m12"}
    res = idx.search(x[11], 5, model_id="m", allowed=allowed)
    assert next(h for h, _ in res) == "m11" and {h for h, _ in res} <= allowed
    assert idx.search(x[0], 5, model_id="m", allowed=set()) == []
    assert idx.search(x[0], 0, model_id="m") == []


def test_model_mismatch_and_shape_errors():
    ids, x = data(10)
    idx = ExactIndex("minilm", 24)
    with pytest.raises(EmbeddingModelMismatch, match="expected vectors from 'minilm'"):
        idx.add(ids, x, model_id="e5")
    idx.add(ids, x, model_id="minilm")
    with pytest.raises(EmbeddingModelMismatch):
        idx.search(x[0], 3, model_id="e5")
    with pytest.raises(RetrievalError):
        idx.add(["a"], x[:2], model_id="minilm")


def test_build_index_switches_to_hnsw_above_threshold_and_rebuild_drops_purged():
    ids, x = data(300)
    rows = list(zip(ids, x, strict=True))
    assert isinstance(build_index("m", 24, rows, threshold=1000), ExactIndex)
    hnsw = build_index("m", 24, rows, threshold=100)
    assert isinstance(hnsw, HnswIndex) and len(hnsw) == 300
    purged = {"m5", "m6"}
    rebuilt = build_index("m", 24, [r for r in rows if r[0] not in purged], threshold=100)
    assert "m5" not in rebuilt and len(rebuilt) == 298
    assert rebuilt.search(x[5], 1, model_id="m")[0][0] != "m5"
