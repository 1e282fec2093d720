"""The inspector's own read-only routes, under ``/v1/inspector``: an explained recall and the tenant
overview. Typed responses (pydantic), the ``read`` scope, nothing reinforced or written.

They live apart from the REST API (:mod:`remnant.server.rest`) because they answer the web page's
questions ("why was this recalled?", "how is this tenant's memory doing?"), not an application's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from remnant.core.model import MAX_LIMIT
from remnant.retrieval.explain import explain_recall
from remnant.retrieval.query import MAX_QUERY_CHARS
from remnant.server import overview as ov
from remnant.server.rest import Call, needs
from remnant.server.schemas import ERROR_RESPONSES, KindName, StatusName

router = APIRouter(prefix="/v1/inspector", tags=["inspector"], responses=ERROR_RESPONSES)
READ = needs("read")


class ExplainRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(max_length=MAX_QUERY_CHARS)
    user_id: str = Field(min_length=1, max_length=256)
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)
    kinds: list[KindName] | None = Field(default=None, max_length=10)
    keys: list[str] | None = Field(default=None, max_length=100)
    agent_id: str | None = Field(default=None, min_length=1, max_length=256)
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    include_faded: bool = False


class ExplainedMemory(BaseModel):
    """The memory as stored (the main fields typed; every other stored field passes through)."""

    model_config = ConfigDict(extra="allow")

    id: str
    user_id: str
    content: str
    kind: KindName
    key: str | None = None
    status: StatusName
    pinned: bool
    importance: float
    confidence: float
    created_at: datetime | None = None
    expires_at: datetime | None = None


class RankerParts(BaseModel):
    score: float = Field(description="The learned ranker's relevance, 0..1 (before the signal factor)")
    bias: float | None
    contributions: dict[str, float] = Field(
        description="Each feature's share of the linear score (sigmoid(bias + their sum) = score)"
    )


class ExplainedHit(BaseModel):
    rank: int = Field(description="1 = first")
    memory: ExplainedMemory
    score: float = Field(description="What recall ranks by")
    strength: float = Field(description="Strength now, 0..1")
    lexical_rank: int | None = Field(description="Rank on the BM25 side; null: not found there")
    lexical_score: float | None = Field(description="BM25 (higher is better)")
    vector_rank: int | None = Field(description="Rank on the vector side; null: not found there")
    vector_similarity: float | None = Field(description="Cosine similarity to the query")
    fused: float | None = Field(description="Fused relevance, 1.0 the best possible")
    speaker_boost: float = Field(description="Added share when the question names the speaker")
    signal_factor: float | None = Field(description="Multiplier from strength, confidence and age")
    confidence: float
    age_days: float | None = Field(description="Days since last use (or creation)")
    matched_terms: list[str] = Field(description="Query terms the full-text index matched in it")
    reinforces: bool = Field(description="A recall with touch on would reinforce it")
    above_threshold: bool = Field(description="Pinned, or strength at or above the recall threshold")
    ranker: RankerParts | None = Field(
        default=None, description="The learned ranker's parts, when it ranked (null: the fixed weights)"
    )


class FadedHintOut(BaseModel):
    id: str
    kind: str
    key: str | None
    reason: Literal["faded", "expired"]
    since: datetime | None
    strength: float


class SignalWeightsOut(BaseModel):
    strength: float
    confidence: float
    recency: float


class Explanation(BaseModel):
    """What a recall would return now, with the parts of each score. Nothing was reinforced."""

    query: str
    user_id: str
    terms: list[str] = Field(description="The query's content terms, as searched")
    retriever: str = Field(description="hybrid, lexical or vector (or the retriever's class name)")
    fusion: str | None
    lexical_weight: float | None
    vector_weight: float | None
    model_id: str | None = Field(description="The embedding model; null: no vectors")
    min_similarity: float | None = Field(description="Vector candidates under this cosine are dropped")
    signal_weights: SignalWeightsOut | None
    threshold: float = Field(description="The recall threshold on strength")
    candidates: int = Field(description="Memories either side found before the cut to limit")
    hits: list[ExplainedHit]
    faded: list[FadedHintOut]


@router.post("/recall", summary="Explain a recall: what would be recalled and why (reinforces nothing)")
def explain(body: ExplainRequest, call: Call = Depends(READ)) -> Explanation:
    filters: dict[str, Any] = {
        "kinds": body.kinds,
        "keys": body.keys,
        "agent_id": body.agent_id,
        "session_id": body.session_id,
        "include_faded": body.include_faded,
    }
    found = explain_recall(call.mem, body.query, user_id=body.user_id, limit=body.limit, **filters)
    return Explanation.model_validate(found.to_dict())


class StatusPointOut(BaseModel):
    at: datetime
    active: int = Field(description="Recalled, and not fading within fading_days")
    fading: int = Field(description="Still recalled, but falls under the threshold within fading_days")
    faded: int = Field(description="Strength under the threshold (swept to faded or not yet)")
    expired: int
    superseded: int
    hidden: int


class RetentionPointOut(BaseModel):
    day: float = Field(description="Days from now (active days in active_days clock mode)")
    remembered: int
    share: float = Field(description="Of what is remembered now")


class Overview(BaseModel):
    tenant: str
    user_id: str | None = Field(description="null: the whole tenant")
    now: datetime
    clock_mode: Literal["wall", "active_days"]
    threshold: float
    fading_days: float
    by_status: dict[str, int] = Field(description="Stored statuses now")
    remembered_now: int
    pinned: int
    history: list[StatusPointOut] = Field(description="Oldest first; the last point is now")
    retention: list[RetentionPointOut]
    half_life_days: float | None = Field(
        description="When under half of today's memories remain; null: not within the span"
    )
    users_counted: int
    truncated: bool = Field(description="active_days mode over more users than are counted")


@router.get("/overview", summary="Memories by status over time, and the retention curve")
def overview(
    call: Call = Depends(READ),
    user_id: str | None = Query(default=None, min_length=1, max_length=256),
    days: float = Query(default=30.0, gt=0.0, le=3650.0, description="How far back the history goes"),
    points: int = Query(default=24, ge=2, le=120, description="Samples in the history"),
    ahead: float = Query(default=60.0, gt=0.0, le=3650.0, description="How far ahead retention is projected"),
    ahead_points: int = Query(default=31, ge=2, le=200),
    fading_days: float = Query(default=7.0, gt=0.0, le=365.0, description="'fading': fades within this"),
) -> Overview:
    mem = call.mem
    scope = ov.scope_of(mem, user_id)
    history = ov.status_history(mem, scope, days=days, points=points, fading_days=fading_days)
    curve = ov.retention(mem, scope, days=ahead, points=ahead_points)
    stats = mem.stats(user_id)
    return Overview(
        tenant=mem.tenant,
        user_id=user_id,
        now=mem.now(),
        clock_mode=mem.decay.clock_mode,
        threshold=mem.decay.recall_threshold,
        fading_days=fading_days,
        by_status=stats["by_status"],
        remembered_now=curve[0].remembered,
        pinned=ov.pinned_count(mem, scope),
        history=[
            StatusPointOut(**{"at": p.at, **{c: getattr(p, c) for c in ov.CATEGORIES}}) for p in history
        ],
        retention=[RetentionPointOut(day=p.day, remembered=p.remembered, share=p.share) for p in curve],
        half_life_days=ov.half_life(curve),
        users_counted=len(scope.users),
        truncated=scope.truncated,
    )
