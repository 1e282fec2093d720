import pytest

from remnant.embed import get_embedder
from remnant.retrieval.errors import QueryTooLong, RetrievalError
from remnant.retrieval.inmemory import InMemoryHybridIndex
from remnant.retrieval.query import analyze, date_mentions, fts_or_query, lexical_text

DOCS = {
    "a": "Caroline went to the LGBTQ support group yesterday.",
    "b": "Melanie painted a sunrise over the lake.",
    "c": "我上周末在公园里画了一幅日出的画。",
    "d": "明天我们去北京看长城。",
}


def index(mode="lexical"):
    emb = get_embedder("static") if mode != "lexical" else None
    idx = InMemoryHybridIndex(embedder=emb, mode=mode)
    idx.add(list(DOCS), list(DOCS.values()))
    return idx


def test_fts_query_drops_stopwords_quotes_terms_and_ors():
    assert fts_or_query("What did Melanie paint?") == '"melanie" OR "paint"'
    assert fts_or_query('a "quoted" AND NOT thing') == '"quoted"'
    assert fts_or_query("what is it") == '"what" OR "is" OR "it"'  # only stop words: keep them
    assert fts_or_query("?!") == ""


def test_english_lexical_search_stems():
    hits = index().search("When did Melanie paint a sunrise?", 2)
    assert hits[0][0] == "b"


def test_chinese_query_works_lexically():
    assert "日出" in lexical_text("一幅日出的画").split()
    idx = index()
    assert idx.search("日出", 1)[0][0] == "c"
    assert idx.search("谁去长城?", 1)[0][0] == "d"
    assert idx.search("画", 1)[0][0] == "c"


def test_hybrid_and_bad_queries():
    idx = index("hybrid")
    assert idx.search("Melanie painting sunrise", 3)[0][0] == "b"
    assert idx.search("   ", 3) == []
    with pytest.raises(QueryTooLong):
        analyze("x" * 5000)
    with pytest.raises(RetrievalError):
        analyze(42)  # type: ignore[arg-type]
    with pytest.raises(RetrievalError):
        InMemoryHybridIndex(mode="vector")


def test_date_mentions():
    q = analyze("What did Caroline do in May 2023?")
    assert q.temporal is False and (2023, 5) in [(d.year, d.month) for d in q.dates]
    assert analyze("When did she go?").temporal
    assert date_mentions("you may go") == []
    assert [(d.year, d.month) for d in date_mentions("in 2022")] == [(2022, None)]
