"""``remnant bench peers``: the same memories, vectors and queries through Remnant and through its
peers (Chroma, LanceDB, sqlite-vec brute force), in one run, printed as ratios.

Every system gets the same 64-d vectors (the static model's, computed once up front) so embedding
cost is out of every figure; Remnant gets them through a lookup embedder. All memories are in one
scope (one user); Chroma holds them in one collection, each tagged with its ``user_id``, so its
"filtered by user" query is the same collection queried with ``where={"user_id": ...}``. LanceDB
holds them in one table with a ``user_id`` column (a scalar index on it) and its full-text index on
the text; its hybrid query (full text + vector, fused by its default reranker) is timed first with
the vector half a flat scan, then again after its ANN index (IVF-PQ, its default) is built.

The peers are an extra of the benchmark, never of the product: ``pip install 'remnant[bench-peers]'``.
"""

from __future__ import annotations

import json
import random
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import numpy as np

from remnant.bench import CONTEXT_SETTINGS, header, percentile, product_switches

INSTALL = "pip install 'remnant[bench-peers]'  (chromadb, lancedb, sqlite-vec, sqlean-py)"
USER = "ana"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


class LookupEmbedder:
    """Hands Remnant the vectors every peer gets: a text's precomputed vector, looked up."""

    def __init__(self, model_id: str, table: dict[str, np.ndarray]) -> None:
        self.model_id = model_id
        self._table = table
        self.dim = int(next(iter(table.values())).shape[0])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._table[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._table[text]


def _texts(n: int, queries: int, seed: int) -> tuple[list[str], list[str]]:
    from remnant.bench.engine import synthetic_texts

    docs, qs = synthetic_texts(random.Random(seed), n, queries)
    # distinct texts: the lookup table is keyed by text
    return [f"{d} ({i})" for i, d in enumerate(docs)], [f"{q} [{i}]" for i, q in enumerate(qs)]


def _ms(values: list[float]) -> float:
    return round(percentile(values, 0.5) * 1000, 3)


def _time_each(fn: Callable[[int], Any], count: int) -> list[float]:
    out = []
    for i in range(count):
        t0 = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t0)
    return out


def _recall_at_10(got: list[list[str]], exact: list[list[str]]) -> float:
    return round(
        float(np.mean([len(set(g) & set(e)) / max(1, len(e)) for g, e in zip(got, exact, strict=True)])), 3
    )


# what a fresh process runs for each system: open, one query, wall time and peak RSS
_FRESH_REMNANT = """
import json, sys, time
from remnant.bench import peak_rss_mib
t0 = time.perf_counter()
from datetime import UTC, datetime
from remnant.config import Memory
from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.retrieval import HybridRetriever
t1 = time.perf_counter()
# the real model embeds the query, as in a user's process: its memory counts
retriever = HybridRetriever(get_embedder(sys.argv[2]), mode="vector", min_similarity=-1.0)
mem = Memory(sys.argv[1], clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), retriever=retriever)
hits = mem.recall(sys.argv[3], user_id=sys.argv[4], limit=10, touch=False, hints=False).hits
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_query_s": t2 - t1, "hits": len(hits),
                  "peak_rss_mib": peak_rss_mib()}))
"""

_FRESH_CHROMA = """
import json, sys, time
from remnant.bench import peak_rss_mib
import numpy as np
t0 = time.perf_counter()
import chromadb
q = np.frombuffer(bytes.fromhex(sys.argv[2]), dtype=np.float32)
t1 = time.perf_counter()
client = chromadb.PersistentClient(path=sys.argv[1])
col = client.get_collection("scope")
got = col.query(query_embeddings=[q.tolist()], n_results=10)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_query_s": t2 - t1, "hits": len(got["ids"][0]),
                  "peak_rss_mib": peak_rss_mib()}))
"""


_FRESH_LANCE = """
import json, os, sys, time
os.environ.setdefault("LANCEDB_LOG", "error")
from remnant.bench import peak_rss_mib
import numpy as np
t0 = time.perf_counter()
import lancedb
q = np.frombuffer(bytes.fromhex(sys.argv[2]), dtype=np.float32)
t1 = time.perf_counter()
table = lancedb.connect(sys.argv[1]).open_table("scope")
got = (table.search(query_type="hybrid").vector(q).text(sys.argv[3]).distance_type("cosine")
       .limit(10).select(["id"]).to_arrow())
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_query_s": t2 - t1, "hits": got.num_rows,
                  "peak_rss_mib": peak_rss_mib()}))
"""


def _fresh(code: str, *args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise click.ClickException(f"a fresh process failed: {out.stderr.strip()[-2000:]}")
    got: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return {k: round(v, 3) for k, v in got.items()}


def remnant_side(
    docs: Sequence[str],
    qs: Sequence[str],
    emb: LookupEmbedder,
    folder: Path,
    *,
    dedup: bool = True,
    contradictions: str | None = None,
    fresh_model: str | None = "static",
    say: Callable[[str], None] = lambda msg: None,
) -> tuple[dict[str, Any], list[str], float]:
    """Remnant's half of the run: ``remnant.Memory`` as shipped (dedup, the contradiction check,
    the paired context vectors), with the peers' vectors through ``emb``; its figures, the memory
    ids in document order, and the ingest time. ``fresh_model``: the model a fresh process embeds
    its query with (the one ``emb`` looks vectors up for; None: no fresh process)."""
    from remnant.bench.engine import product_options
    from remnant.config import Memory
    from remnant.core.clock import ManualClock
    from remnant.engine.forgetting.contradictions import ContradictionPolicy
    from remnant.retrieval import HybridRetriever
    from remnant.retrieval.retriever import IndexTextPolicy, context_vector_from_env

    db = folder / "remnant.db"
    policy = IndexTextPolicy(context_vector=context_vector_from_env())  # the product's recipe

    def memory(mode: str) -> Any:
        extra: dict[str, Any] = {} if dedup else {"dedup": False}
        if contradictions is not None:
            extra["contradictions"] = ContradictionPolicy(mode=contradictions)  # type: ignore[arg-type]
        retriever = HybridRetriever(emb, mode=mode, min_similarity=-1.0, index_text=policy)
        return Memory(db, clock=ManualClock(T0), retriever=retriever, **extra)

    say("Remnant: ingest")
    mem = memory("hybrid")
    options = product_options(mem)
    t0 = time.perf_counter()
    ids: list[str] = []
    for s in range(0, len(docs), 2000):
        recs = mem.remember_many({"content": d, "user_id": USER} for d in docs[s : s + 2000])
        ids.extend(r.id for r in recs)
    ingest = time.perf_counter() - t0
    # the SQLite store's keyword index is built at the first search that can use it, on a thread of
    # its own (FTS5 answers meanwhile): started and waited for before the timed recalls, as
    # LanceDB's full-text index is built before its queries; its time is a row of its own
    t0 = time.perf_counter()
    mem.recall(qs[0], user_id=USER, limit=10, touch=False, hints=False)
    index = getattr(mem.store, "keyword_index", None)
    keyword_ready = bool(index.wait(600)) if index is not None else False
    keyword_index_s = time.perf_counter() - t0
    hybrid = _time_each(
        lambda i: mem.recall(qs[i], user_id=USER, limit=10, touch=False, hints=False), len(qs)
    )
    mem.close()
    vmem = memory("vector")
    vmem.recall(qs[0], user_id=USER, limit=10, touch=False, hints=False)  # map the file once
    got_r: list[list[str]] = []
    vector = _time_each(
        lambda i: got_r.append(
            [h.memory.id for h in vmem.recall(qs[i], user_id=USER, limit=10, touch=False, hints=False).hits]
        ),
        len(qs),
    )
    # the store's own search, under the name the vectors are stored by (the paired model's) and
    # with the query as the retriever embeds it (both halves): the plain model's name has no vectors
    model = vmem.retriever.model_id
    paired = np.stack([vmem.retriever.embedder.embed_query(q) for q in qs])
    flt = vmem.recall_filter(USER)
    store_hits: list[int] = []
    store_only = _time_each(
        lambda i: store_hits.append(len(vmem.store.vector_search(paired[i], flt, model=model, limit=10))),
        len(qs),
    )
    vmem.close()
    fresh = None
    if fresh_model is not None:
        say("Remnant: a fresh process")
        fresh = _fresh(_FRESH_REMNANT, str(db), fresh_model, qs[0], USER)
    out = {
        "options": options,
        "hybrid_p50_ms": _ms(hybrid),
        "keyword_index_s": keyword_index_s if keyword_ready else None,
        "vector_p50_ms": _ms(vector),
        "vector_store_p50_ms": _ms(store_only),
        "vector_store_model": model,
        "vector_store_hits_min": min(store_hits),
        "filtered_p50_ms": _ms(vector),  # Remnant's every query is scoped to a user: the same query
        "got": got_r,
        "fresh": fresh,
    }
    return out, ids, ingest


def lancedb_side(
    docs: Sequence[str],
    qs: Sequence[str],
    dvec: np.ndarray,
    qvec: np.ndarray,
    ids: Sequence[str],
    exact: list[list[str]],
    folder: Path,
    say: Callable[[str], None] = lambda msg: None,
) -> dict[str, Any] | None:
    """LanceDB's half: one table (id, user_id, text, vector), its full-text index on the text and a
    scalar index on ``user_id``; the vector and hybrid queries timed with a flat vector scan, then
    again with its ANN index (IVF-PQ with its default settings). None when LanceDB is missing."""
    import os

    os.environ.setdefault("LANCEDB_LOG", "error")  # its scanner warns on every projected query
    try:
        import lancedb  # type: ignore[import-not-found,unused-ignore]
        import pyarrow as pa  # type: ignore[import-not-found,unused-ignore]
        from lancedb.index import FTS, BTree, IvfPq  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        say(f"LanceDB skipped ({INSTALL})")
        return None
    say("LanceDB: ingest")
    dim = int(dvec.shape[1])
    path = folder / "lance"
    schema = pa.schema(
        [
            ("id", pa.string()),
            ("user_id", pa.string()),
            ("text", pa.string()),
            ("vector", pa.list_(pa.float32(), dim)),
        ]
    )
    table = lancedb.connect(str(path)).create_table("scope", schema=schema)
    size = len(docs)
    t0 = time.perf_counter()
    for s in range(0, size, 2000):
        e = min(size, s + 2000)
        flat = pa.array(np.ascontiguousarray(dvec[s:e], dtype=np.float32).ravel())
        table.add(
            pa.table(
                {
                    "id": list(ids[s:e]),
                    "user_id": [USER] * (e - s),
                    "text": list(docs[s:e]),
                    "vector": pa.FixedSizeListArray.from_arrays(flat, dim),
                },
                schema=schema,
            )
        )
    ingest = time.perf_counter() - t0
    t0 = time.perf_counter()
    table.create_index("text", config=FTS())
    table.create_index("user_id", config=BTree())
    text_index = time.perf_counter() - t0

    def vector(i: int, where: str | None = None) -> list[str]:
        # the builder's type depends on the query (vector, hybrid): typed loosely on purpose
        query: Any = table.search(qvec[i])
        query = query.distance_type("cosine").limit(10)
        if where is not None:
            query = query.where(where, prefilter=True)
        return [str(x) for x in query.select(["id", "_distance"]).to_arrow()["id"].to_pylist()]

    def hybrid(i: int) -> int:
        query: Any = table.search(query_type="hybrid")
        query = query.vector(qvec[i]).text(qs[i]).distance_type("cosine")
        return int(query.limit(10).select(["id"]).to_arrow().num_rows)

    queries = len(qs)
    got_flat: list[list[str]] = []
    flat_vector = _time_each(lambda i: got_flat.append(vector(i)), queries)
    hyb_hits: list[int] = []
    flat_hybrid = _time_each(lambda i: hyb_hits.append(hybrid(i)), queries)
    filtered = _time_each(lambda i: vector(i, f"user_id = '{USER}'"), queries)
    say("LanceDB: its ANN index")
    t0 = time.perf_counter()
    table.create_index("vector", config=IvfPq(distance_type="cosine"))
    ann_index = time.perf_counter() - t0
    got_ann: list[list[str]] = []
    ann_vector = _time_each(lambda i: got_ann.append(vector(i)), queries)
    ann_hybrid = _time_each(lambda i: hyb_hits.append(hybrid(i)), queries)
    ann_filtered = _time_each(lambda i: vector(i, f"user_id = '{USER}'"), queries)
    say("LanceDB: a fresh process")
    fresh = _fresh(_FRESH_LANCE, str(path), qvec[0].tobytes().hex(), qs[0])
    return {
        "ingest_s": ingest,
        "text_index_s": round(text_index, 3),
        "ann_index_s": round(ann_index, 3),
        "vector_p50_ms": _ms(flat_vector),
        "hybrid_p50_ms": _ms(flat_hybrid),
        "filtered_p50_ms": _ms(filtered),
        "recall_at_10": _recall_at_10(got_flat, exact),
        "ann_vector_p50_ms": _ms(ann_vector),
        "ann_hybrid_p50_ms": _ms(ann_hybrid),
        "ann_filtered_p50_ms": _ms(ann_filtered),
        "ann_recall_at_10": _recall_at_10(got_ann, exact),
        "hybrid_hits_min": min(hyb_hits),
        "fresh": fresh,
    }


def run_peers(
    size: int,
    queries: int,
    seed: int,
    folder: Path,
    progress: bool = True,
    *,
    dedup: bool = True,
    contradictions: str | None = None,
) -> dict[str, Any]:
    try:
        import chromadb
    except ImportError:
        raise click.ClickException(f"bench peers needs Chroma: {INSTALL}") from None
    from remnant.bench.engine import default_options, switched
    from remnant.embed import get_embedder

    def say(msg: str) -> None:
        if progress:
            click.echo(f"  [{size:,}] {msg}", err=True)

    docs, qs = _texts(size, queries, seed)
    static = get_embedder("static")
    say("embedding once (shared by every system)")
    dvec = np.concatenate([static.embed_documents(docs[s : s + 4096]) for s in range(0, size, 4096)])
    qvec = static.embed_documents(qs)
    table = dict(zip(docs, dvec, strict=True)) | dict(zip(qs, qvec, strict=True))
    emb = LookupEmbedder(static.model_id, table)
    # exact top-10 by cosine (unit vectors): the reference for recall@10
    exact_rows = np.argsort(-(qvec @ dvec.T), axis=1)[:, :10]
    res: dict[str, Any] = {"size": size, "queries": queries, "dim": int(dvec.shape[1])}

    # -- Remnant -----------------------------------------------------------------------------------
    remnant, ids, remnant_ingest = remnant_side(
        docs, qs, emb, folder, dedup=dedup, contradictions=contradictions, say=say
    )
    ingest = {"remnant": remnant_ingest}
    exact = [[ids[j] for j in row] for row in exact_rows]
    got_r = remnant.pop("got")
    remnant["recall_at_10"] = _recall_at_10(got_r, exact)
    # the lookup embedder stands in for the static model (the same vectors); the rest is the product
    remnant["switched"] = switched(remnant["options"], default_options())
    res["remnant"] = remnant

    # -- Chroma --------------------------------------------------------------------------------------
    say("Chroma: ingest")
    cpath = folder / "chroma"
    client = chromadb.PersistentClient(path=str(cpath))
    col = client.create_collection("scope", metadata={"hnsw:space": "cosine"}, embedding_function=None)
    t0 = time.perf_counter()
    for s in range(0, size, 2000):
        col.add(
            ids=ids[s : s + 2000],
            embeddings=dvec[s : s + 2000],
            documents=docs[s : s + 2000],
            metadatas=[{"user_id": USER}] * len(docs[s : s + 2000]),
        )
    ingest["chroma"] = time.perf_counter() - t0
    got_c: list[list[str]] = []
    cvector = _time_each(
        lambda i: got_c.append(col.query(query_embeddings=[qvec[i]], n_results=10, include=[])["ids"][0]),
        queries,
    )
    cfiltered = _time_each(
        lambda i: col.query(
            query_embeddings=[qvec[i]], n_results=10, where={"user_id": USER}, include=["distances"]
        ),
        queries,
    )
    client.clear_system_cache() if hasattr(client, "clear_system_cache") else None
    say("Chroma: a fresh process")
    fresh_c = _fresh(_FRESH_CHROMA, str(cpath), qvec[0].tobytes().hex())
    res["chroma"] = {
        "vector_p50_ms": _ms(cvector),
        "filtered_p50_ms": _ms(cfiltered),
        "recall_at_10": _recall_at_10(got_c, exact),
        "fresh": fresh_c,
    }

    # -- LanceDB ------------------------------------------------------------------------------------
    lance = lancedb_side(docs, qs, dvec, qvec, ids, exact, folder, say)
    if lance is not None:
        ingest["lancedb"] = lance.pop("ingest_s")
    res["lancedb"] = lance

    # -- sqlite-vec brute force ---------------------------------------------------------------------
    try:
        import sqlean  # type: ignore[import-not-found,unused-ignore]
        import sqlite_vec  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        res["sqlite_vec"] = None
        say(f"sqlite-vec skipped ({INSTALL})")
    else:
        say("sqlite-vec: ingest")
        conn = sqlean.connect(str(folder / "vec.db"), isolation_level=None)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute("PRAGMA journal_mode = WAL")
        dim = int(dvec.shape[1])
        conn.execute(
            f"CREATE VIRTUAL TABLE v USING vec0(user_id TEXT PARTITION KEY, embedding float[{dim}] "
            "distance_metric=cosine)"
        )
        t0 = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO v (rowid, user_id, embedding) VALUES (?, ?, ?)",
            ((i + 1, USER, dvec[i].tobytes()) for i in range(size)),
        )
        conn.execute("COMMIT")
        ingest["sqlite_vec"] = time.perf_counter() - t0
        got_v: list[list[str]] = []
        knn = "SELECT rowid FROM v WHERE embedding MATCH ? AND k = 10"
        vvector = _time_each(
            lambda i: got_v.append(
                [ids[r[0] - 1] for r in conn.execute(knn, (qvec[i].tobytes(),)).fetchall()]
            ),
            queries,
        )
        vfiltered = _time_each(
            lambda i: conn.execute(knn + " AND user_id = ?", (qvec[i].tobytes(), USER)).fetchall(), queries
        )
        conn.close()
        res["sqlite_vec"] = {
            "vector_p50_ms": _ms(vvector),
            "filtered_p50_ms": _ms(vfiltered),
            "recall_at_10": _recall_at_10(got_v, exact),
        }
    res["ingest_s"] = {k: round(v, 3) for k, v in ingest.items()}
    return res


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}x"


def render(res: dict[str, Any]) -> str:
    r, c, v = res["remnant"], res["chroma"], res["sqlite_vec"]
    ln = res.get("lancedb") or {}
    ing = res["ingest_s"]

    def lance(key: str) -> float | None:
        return ln.get(key)

    lance_ingest = ann_ingest = None
    lance_fresh: dict[str, float] = {}
    if ln:
        lance_ingest = round(ing["lancedb"] + ln["text_index_s"], 3)
        ann_ingest = round(lance_ingest + ln["ann_index_s"], 3)
        lance_fresh = ln["fresh"]
    # columns: remnant, chroma, lancedb (flat vector scan), lancedb with its ANN index, sqlite-vec
    rows: list[tuple[str, Any, Any, Any, Any, Any]] = [
        (
            "ingest (s; lancedb: + its indexes)",
            ing["remnant"],
            ing["chroma"],
            lance_ingest,
            ann_ingest,
            ing.get("sqlite_vec"),
        ),
        (
            "keyword index (s; remnant: 1st search)",
            r.get("keyword_index_s"),
            None,
            lance("text_index_s"),
            lance("text_index_s"),
            None,
        ),
        (
            "vector search, store p50 (ms)",
            r["vector_store_p50_ms"],
            c["vector_p50_ms"],
            lance("vector_p50_ms"),
            lance("ann_vector_p50_ms"),
            v and v["vector_p50_ms"],
        ),
        (
            "vector recall p50 (ms)",
            r["vector_p50_ms"],
            c["vector_p50_ms"],
            lance("vector_p50_ms"),
            lance("ann_vector_p50_ms"),
            v and v["vector_p50_ms"],
        ),
        (
            "hybrid recall p50 (ms)",
            r["hybrid_p50_ms"],
            c["vector_p50_ms"],
            lance("hybrid_p50_ms"),
            lance("ann_hybrid_p50_ms"),
            v and v["vector_p50_ms"],
        ),
        (
            "filtered by user p50 (ms)",
            r["filtered_p50_ms"],
            c["filtered_p50_ms"],
            lance("filtered_p50_ms"),
            lance("ann_filtered_p50_ms"),
            v and v["filtered_p50_ms"],
        ),
        (
            "fresh process: first query (s)",
            r["fresh"]["first_query_s"],
            c["fresh"]["first_query_s"],
            None,
            lance_fresh.get("first_query_s"),
            None,
        ),
        (
            "fresh process: peak RSS (MiB)",
            r["fresh"]["peak_rss_mib"],
            c["fresh"]["peak_rss_mib"],
            None,
            lance_fresh.get("peak_rss_mib"),
            None,
        ),
        (
            "recall@10 vs exact",
            r["recall_at_10"],
            c["recall_at_10"],
            lance("recall_at_10"),
            lance("ann_recall_at_10"),
            v and v["recall_at_10"],
        ),
    ]
    from remnant.bench.engine import render_options

    names = ("remnant", "chroma", "lancedb", "lance+ANN", "sqlite-vec")
    out = [
        f"\n{res['size']:,} memories, one scope, {res['dim']}-d vectors, {res['queries']} queries "
        "(Remnant's recalls run the whole engine; its hybrid recall is compared with LanceDB's hybrid "
        "query and with Chroma's and sqlite-vec's vector query, which have no full-text half)",
        render_options(r["options"], r["switched"]),
        f"Remnant's store search: {r['vector_store_model']} (the paired vectors as stored), at least "
        f"{r['vector_store_hits_min']} hits a query; its fresh process loads the embedder and runs a "
        "vector recall (the peers' get the query vector; LanceDB's runs its hybrid query)",
        f"{'':36} "
        + " ".join(f"{n:>10}" for n in names)
        + " "
        + " ".join(f"{'r/' + n:>12}" for n in names[1:]),
    ]
    for name, a, *peers in rows:
        cells = [f"{x:>10.3f}" if isinstance(x, float | int) else f"{'-':>10}" for x in (a, *peers)]
        ratios = ["-"] * len(peers) if name.startswith("recall@10") else [_ratio(a, p) for p in peers]
        out.append(f"{name:36} {' '.join(cells)} " + " ".join(f"{x:>12}" for x in ratios))
    return "\n".join(out)


@click.command("peers", context_settings=CONTEXT_SETTINGS)
@click.option("--sizes", default="10000,100000", show_default=True, help="Comma-separated memory counts.")
@click.option("--queries", type=click.IntRange(10), default=200, show_default=True)
@click.option("--seed", type=int, default=7, show_default=True)
@product_switches
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
def bench_peers(
    sizes: str, queries: int, seed: int, dedup: bool, contradictions: str | None, json_path: str | None
) -> None:
    """Remnant against Chroma, LanceDB and sqlite-vec (brute force) in one run, with the same memories, the
    same 64-d vectors and the same queries: ingest, vector query p50, hybrid recall p50 (against
    LanceDB's hybrid query, with and without its ANN index, and the others' vector query), a query filtered by user, the first query of a fresh process (and its
    memory), recall@10 against exact search. Ratios are Remnant / peer (under 1: Remnant faster).
    Remnant is ``remnant.Memory`` as shipped (dedup, the contradiction check, paired context
    vectors); each switch that differs from its defaults is printed.

    The peers are not dependencies of Remnant: pip install 'remnant[bench-peers]'."""
    try:
        size_list = [int(s.replace("_", "")) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise click.BadParameter("sizes must be comma-separated integers", param_hint="--sizes") from None
    try:
        import chromadb  # noqa: F401
    except ImportError:
        raise click.ClickException(f"bench peers needs Chroma: {INSTALL}") from None
    click.echo(header("remnant bench peers " + shlex.join(sys.argv[3:])))
    results = []
    for size in size_list:
        with tempfile.TemporaryDirectory(prefix="remnant-peers-") as tmp:
            res = run_peers(size, queries, seed, Path(tmp), dedup=dedup, contradictions=contradictions)
        results.append(res)
        click.echo(render(res))
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=2))
