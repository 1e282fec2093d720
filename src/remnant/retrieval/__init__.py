"""Retrieval: hybrid recall (BM25 + vectors + fusion + memory signals), context packing, vector indexes.

``default_retriever()`` is what the product, :class:`remnant.Memory`, installs in the engine.
"""

from remnant.retrieval.answers import AnswerType, read_answer
from remnant.retrieval.context import recall_context
from remnant.retrieval.entities import (
    Entity,
    EntityReader,
    ExpansionLimits,
    LightEntityReader,
    SpacyEntityReader,
)
from remnant.retrieval.errors import QueryTooLong, RetrievalError
from remnant.retrieval.floor import RelevanceFloor
from remnant.retrieval.fusion import rrf, weighted
from remnant.retrieval.hybrid import HybridConfig, SignalWeights, fuse, rerank
from remnant.retrieval.index import HNSW_THRESHOLD, ExactIndex, HnswIndex, VectorIndex, build_index
from remnant.retrieval.packing import PackCandidate, PackedContext, pack_context
from remnant.retrieval.ranker import LearnedRanker, load_ranker, train_ranker
from remnant.retrieval.retriever import HybridRetriever, IndexTextPolicy, SearchTrace, default_retriever
from remnant.retrieval.tokens import ApproxCounter, TiktokenCounter, TokenCounter, default_counter

__all__ = [
    "HNSW_THRESHOLD",
    "AnswerType",
    "ApproxCounter",
    "Entity",
    "EntityReader",
    "ExactIndex",
    "ExpansionLimits",
    "HnswIndex",
    "HybridConfig",
    "HybridRetriever",
    "IndexTextPolicy",
    "LearnedRanker",
    "LightEntityReader",
    "PackCandidate",
    "PackedContext",
    "QueryTooLong",
    "RelevanceFloor",
    "RetrievalError",
    "SearchTrace",
    "SignalWeights",
    "SpacyEntityReader",
    "TiktokenCounter",
    "TokenCounter",
    "VectorIndex",
    "build_index",
    "default_counter",
    "default_retriever",
    "fuse",
    "load_ranker",
    "pack_context",
    "read_answer",
    "recall_context",
    "rerank",
    "rrf",
    "train_ranker",
    "weighted",
]
