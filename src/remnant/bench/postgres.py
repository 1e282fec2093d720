"""Vector search on PostgreSQL (pgvector HNSW) against SQLite (exact numpy), at one size.

``python -m remnant.bench.postgres --db postgresql://… --n 100000 --dim 384`` loads ``n`` memories
spread over ``users`` users with clustered unit vectors into a fresh PostgreSQL schema and a temp
SQLite file, then times ``vector_search`` across a tenant and within one user, and measures the
HNSW recall@10 against exact search. ``remnant bench engine --db postgresql://…`` covers the rest
(writes, lexical recall, sweeps).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from remnant.core.model import MemoryRecord, new_id
from remnant.store.base import MemoryFilter, Store


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q * 100))


def _data(n: int, dim: int, users: int, seed: int) -> tuple[list[MemoryRecord], np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(max(1, n // 100), dim)).astype(np.float32)
    vecs = centers[rng.integers(0, len(centers), n)] + 0.35 * rng.normal(size=(n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    now = datetime.now(UTC)
    recs = [
        MemoryRecord(id=new_id(), user_id=f"u{i % users}", content=f"memory {i}", created_at=now)
        for i in range(n)
    ]
    return recs, vecs


def _load(store: Store, recs: list[MemoryRecord], vecs: np.ndarray, model: str) -> dict[str, float]:
    t0 = time.perf_counter()
    for start in range(0, len(recs), 5000):
        batch = recs[start : start + 5000]
        if hasattr(store, "insert_many"):
            store.insert_many([(r, None) for r in batch])
        else:
            with store.transaction():
                for r in batch:
                    store.insert(r)
    t1 = time.perf_counter()
    bulk = store.bulk_load() if hasattr(store, "bulk_load") else None
    if bulk is not None:
        bulk.__enter__()
    for start in range(0, len(recs), 5000):
        store.put_embeddings(
            [
                (r.id, model, v)
                for r, v in zip(recs[start : start + 5000], vecs[start : start + 5000], strict=True)
            ]
        )
    t2 = time.perf_counter()
    if bulk is not None:
        bulk.__exit__(None, None, None)  # builds the HNSW index
    t3 = time.perf_counter()
    return {"memories_s": t1 - t0, "vectors_s": t2 - t1, "index_build_s": t3 - t2}


def _search(
    store: Store, recs: list[MemoryRecord], vecs: np.ndarray, model: str, queries: int, seed: int
) -> dict[str, float]:
    rng = np.random.default_rng(seed + 1)
    picks = rng.integers(0, len(recs), queries)
    wide, per_user, recall = [], [], []
    for i in picks:
        q = vecs[i] + 0.05 * np.asarray(rng.normal(size=vecs.shape[1]), dtype=np.float32)
        t0 = time.perf_counter()
        hits = store.vector_search(q, MemoryFilter(), model=model, limit=10)
        wide.append(time.perf_counter() - t0)
        exact = np.argsort(-(vecs @ q))[:10]
        recall.append(len({recs[j].id for j in exact} & {h[0] for h in hits}) / 10)
        t0 = time.perf_counter()
        store.vector_search(q, MemoryFilter(user_id=recs[i].user_id), model=model, limit=10)
        per_user.append(time.perf_counter() - t0)
    return {
        "tenant_wide_ms_p50": round(_pct(wide, 0.5), 2),
        "tenant_wide_ms_p95": round(_pct(wide, 0.95), 2),
        "one_user_ms_p50": round(_pct(per_user, 0.5), 2),
        "recall_at_10": round(float(np.mean(recall)), 3),
    }


def run(
    pg_url: str, n: int, dim: int, users: int, queries: int, seed: int, sqlite: bool = True
) -> dict[str, Any]:
    import psycopg

    from remnant.store.postgres import PostgresStore
    from remnant.store.sqlite import SQLiteStore

    recs, vecs = _data(n, dim, users, seed)
    schema = f"bench_vec_{n}_{dim}_{int(time.time())}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in pg_url else "?"
    url = pg_url + sep + "options=" + quote(f"-csearch_path={schema},public", safe="")
    out: dict[str, Any] = {"n": n, "dim": dim, "users": users, "queries": queries}
    with PostgresStore(url) as pg:
        out["postgres"] = {
            **_load(pg, recs, vecs, "bench"),
            **_search(pg, recs, vecs, "bench", queries, seed),
        }
    if sqlite:
        with (
            tempfile.TemporaryDirectory(prefix="remnant-bench-") as tmp,
            SQLiteStore(Path(tmp) / "v.db") as sq,
        ):
            out["sqlite"] = {
                **_load(sq, recs, vecs, "bench"),
                **_search(sq, recs, vecs, "bench", queries, seed),
            }
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", required=True, help="postgresql:// URL of a database with pgvector")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-sqlite", action="store_true", help="only measure PostgreSQL")
    args = parser.parse_args()
    res = run(args.db, args.n, args.dim, args.users, args.queries, args.seed, sqlite=not args.no_sqlite)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
