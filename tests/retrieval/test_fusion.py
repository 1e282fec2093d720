import pytest

from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.fusion import minmax, rrf, weighted
from remnant.retrieval.hybrid import HybridConfig, SignalWeights, fuse, rerank


def test_rrf_scores_are_sums_of_reciprocal_ranks():
    out = dict(rrf([["a", "b", "c"], ["b", "d"]], k=60))
    assert out["a"] == pytest.approx(1 / 61)
    assert out["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert out["c"] == pytest.approx(1 / 63)
    assert out["d"] == pytest.approx(1 / 62)
    assert next(i for i, _ in rrf([["a", "b", "c"], ["b", "d"]])) == "b"


def test_rrf_weights_and_duplicates():
    out = dict(rrf([["a", "a", "b"], ["b"]], k=0, weights=[1.0, 3.0]))
    assert out["a"] == pytest.approx(1.0)  # duplicate keeps its best rank only
    assert out["b"] == pytest.approx(1 / 2 + 3.0)
    with pytest.raises(RetrievalError):
        rrf([["a"]], weights=[1.0, 2.0])
    with pytest.raises(RetrievalError):
        rrf([["a"]], weights=[-1.0])


def test_rrf_ties_are_deterministic():
    assert rrf([["b"], ["a"]]) == rrf([["b"], ["a"]])
    assert [i for i, _ in rrf([["b"], ["a"]])] == ["a", "b"]


def test_minmax_and_weighted():
    assert minmax({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert minmax({"a": 5.0, "b": 5.0}) == {"a": 1.0, "b": 1.0}
    assert minmax({}) == {}
    out = dict(weighted([{"a": 10.0, "b": 0.0}, {"a": 0.0, "b": 1.0}], weights=[0.25, 0.75]))
    assert out == {"a": pytest.approx(0.25), "b": pytest.approx(0.75)}


def test_fuse_normalises_best_possible_to_one():
    fused = fuse([("a", 9.0), ("b", 1.0)], [("a", 0.9), ("c", 0.5)], HybridConfig(rrf_k=60))
    assert fused[0] == ("a", pytest.approx(1.0))
    assert {i for i, _ in fused} == {"a", "b", "c"}
    w = fuse([("a", 9.0), ("b", 1.0)], [("a", 0.9), ("c", 0.5)], HybridConfig(fusion="weighted"))
    assert w[0] == ("a", pytest.approx(1.0))
    assert fuse([], [], HybridConfig()) == []
    with pytest.raises(RetrievalError):
        HybridConfig(fusion="max")


def test_equal_signals_never_reorder_and_weak_memories_sink():
    fused = [("a", 0.9), ("b", 0.8), ("c", 0.7)]
    same = {k: (0.6, 0.8, 3.0) for k in "abc"}
    assert [i for i, _ in rerank(fused, same)] == ["a", "b", "c"]
    signals = {"a": (0.1, 0.2, 0.0), "b": (1.0, 1.0, 0.0), "c": (1.0, 1.0, 0.0)}
    assert next(i for i, _ in rerank(fused, signals, SignalWeights(strength=0.5, confidence=0.5))) == "b"
    assert SignalWeights().factor(1.0, 1.0, None) == 1.0
    old = SignalWeights(strength=0, confidence=0, recency=0.5, recency_half_life_days=10).factor(1, 1, 10.0)
    assert old == pytest.approx(0.75)


def test_zscores_and_zscore_fusion():
    from remnant.retrieval.fusion import weighted_z, zscores

    z = zscores({"a": 3.0, "b": 1.0, "c": 2.0})
    assert z["b"] == 0.0 and z["a"] > z["c"] > 0  # the weakest at 0, spread-scaled
    assert zscores({"a": 1.0, "b": 1.0}) == {"a": 1.0, "b": 1.0} and zscores({}) == {}
    # an outlier at the top does not squash the rest together as min-max does
    skewed = {"top": 100.0, "x": 2.0, "y": 1.0}
    assert zscores(skewed)["x"] - zscores(skewed)["y"] > minmax(skewed)["x"] - minmax(skewed)["y"]
    out = dict(weighted_z([{"a": 2.0, "b": 0.0}, {"a": 0.0, "b": 1.0}], weights=[0.8, 0.2]))
    assert out["a"] > out["b"] > 0
    fused = fuse([("a", 9.0), ("b", 1.0)], [("a", 0.9), ("c", 0.8)], HybridConfig(fusion="zscore"))
    assert fused[0] == ("a", pytest.approx(1.0))  # best of both lists is the best possible score
    with pytest.raises(RetrievalError):
        HybridConfig(fusion="nope")
