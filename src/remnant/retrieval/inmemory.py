"""A self-contained hybrid index: SQLite FTS5 in memory plus a vector index.

Used by the LoCoMo bench as its reference pipeline and usable on its own for small corpora.
The engine's recall uses the same query analysis and fusion over its persistent store.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from remnant.embed.base import Embedder, Vectors
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.hybrid import HybridConfig, fuse
from remnant.retrieval.index import ExactIndex, VectorIndex
from remnant.retrieval.query import fts_or_query, lexical_text


@dataclass
class Timings:
    """Seconds spent, split so embedding cost can be reported apart from search cost."""

    embed_documents: float = 0.0
    embed_queries: float = 0.0
    index: float = 0.0
    search: float = 0.0
    queries: list[float] = field(default_factory=list)  # per-query search time (no embedding)


class InMemoryHybridIndex:
    """Lexical + vector search over (id, text) documents, in one process, nothing on disk.

    ``mode`` is "hybrid", "lexical" (BM25 only) or "vector" (embeddings only).
    ``tokenizer`` is the FTS5 tokenizer spec ("porter unicode61" stems English words).
    """

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        mode: str = "hybrid",
        tokenizer: str = "porter unicode61",
        config: HybridConfig | None = None,
        keep_stopwords: bool = False,
        context_weight: float = 0.5,
    ) -> None:
        if mode not in ("hybrid", "lexical", "vector"):
            raise RetrievalError(f"mode must be hybrid, lexical or vector, not {mode!r}")
        if mode != "lexical" and embedder is None:
            raise RetrievalError(f"mode {mode!r} needs an embedder")
        self.mode = mode
        self.embedder = embedder
        self.config = config or HybridConfig()
        self.keep_stopwords = keep_stopwords
        self.context_weight = float(context_weight)
        self._db = sqlite3.connect(":memory:")
        # Two columns: the memory's own text, and surrounding context (neighbouring turns),
        # which BM25 weighs lower so context helps recall without drowning the memory itself.
        self._db.execute(f"CREATE VIRTUAL TABLE fts USING fts5(body, context, tokenize='{tokenizer}')")
        self._ids: list[str] = []
        self._rowid: dict[str, int] = {}
        self._vectors: VectorIndex | None = (
            ExactIndex(embedder.model_id, embedder.dim)
            if embedder is not None and mode != "lexical"
            else None
        )
        self.timings = Timings()

    def __len__(self) -> int:
        return len(self._rowid)

    def add(
        self,
        ids: Sequence[str],
        lexical: Sequence[str],
        semantic: Sequence[str] | None = None,
        context: Sequence[str] | None = None,
        vectors: Vectors | None = None,
    ) -> None:
        """Index documents: ``lexical`` texts (plus optional ``context``) go to FTS5,
        ``semantic`` texts (default: the lexical ones) are embedded."""
        n = len(ids)
        if any(x is not None and len(x) != n for x in (lexical, semantic, context)):
            raise RetrievalError("ids and texts must have the same length")
        semantic = list(lexical) if semantic is None else list(semantic)
        ctx = [""] * n if context is None else list(context)
        t0 = time.perf_counter()
        rows = []
        for item, text, around in zip(ids, lexical, ctx, strict=True):
            if item in self._rowid:
                raise RetrievalError(f"duplicate id {item!r}")
            self._rowid[item] = len(self._ids)
            self._ids.append(item)
            rows.append((self._rowid[item], lexical_text(text), lexical_text(around)))
        if self.mode != "vector":
            self._db.executemany("INSERT INTO fts(rowid, body, context) VALUES (?, ?, ?)", rows)
        t1 = time.perf_counter()
        self.timings.index += t1 - t0
        if self._vectors is not None and self.embedder is not None:
            vecs = self.embedder.embed_documents(semantic) if vectors is None else vectors
            t2 = time.perf_counter()
            self.timings.embed_documents += t2 - t1
            self._vectors.add(list(ids), vecs, model_id=self.embedder.model_id)
            self.timings.index += time.perf_counter() - t2

    def lexical_search(self, query: str, k: int) -> list[tuple[str, float]]:
        """BM25 over an OR of the query's content words; (id, -bm25) best first."""
        match = fts_or_query(query, keep_stopwords=self.keep_stopwords)
        if not match:
            return []
        w = self.context_weight
        rows = self._db.execute(
            "SELECT rowid, bm25(fts, 1.0, ?) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT ?",
            (w, match, k),
        ).fetchall()
        return [(self._ids[r], -float(s)) for r, s in rows]

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """Top-k (id, score) for the query in this index's mode."""
        if not query.strip():
            return []
        n = max(k, self.config.candidates)
        vec_hits: list[tuple[str, float]] = []
        if self._vectors is not None and self.embedder is not None:
            t0 = time.perf_counter()
            q = self.embedder.embed_query(query)
            self.timings.embed_queries += time.perf_counter() - t0
        t1 = time.perf_counter()
        lex_hits = self.lexical_search(query, n) if self.mode != "vector" else []
        if self._vectors is not None and self.embedder is not None:
            vec_hits = self._vectors.search(q, n, model_id=self.embedder.model_id)
        if self.mode == "lexical":
            out = lex_hits[:k]
        elif self.mode == "vector":
            out = vec_hits[:k]
        else:
            out = fuse(lex_hits, vec_hits, self.config)[:k]
        dt = time.perf_counter() - t1
        self.timings.search += dt
        self.timings.queries.append(dt)
        return out
