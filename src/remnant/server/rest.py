"""The REST API under ``/v1``: memories, recall, ingest, forgetting, erasure, audit, stats, users.

Every route takes the caller's :class:`~remnant.server.auth.Principal` and works on the engine of
the principal's tenant only; no route takes a tenant from the request. Every route declares its
response model (:mod:`remnant.server.schemas`), so the OpenAPI document types every answer. The
writes that create or change memories (create, batch, ingest, update, review, used) honour an
``Idempotency-Key`` header (:mod:`remnant.server.idempotency`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

import anyio
from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from remnant.core.audit import ChainVerification
from remnant.core.errors import ServiceError, ValidationError
from remnant.core.limits import MAX_IDEMPOTENCY_KEY_CHARS, MAX_IDENTIFIER_CHARS, MAX_LIMIT
from remnant.core.model import MemoryRecord, Status, is_memory_id
from remnant.engine.memory import Memory
from remnant.engine.options import RecallFilters, UpdateOptions, WriteItem
from remnant.engine.results import ErasureReport
from remnant.server.auth import Principal, key_from_headers
from remnant.server.curve import decay_curve
from remnant.server.engines import Engines
from remnant.server.idempotency import Answer, check_key, owned
from remnant.server.schemas import (
    ERROR_RESPONSES,
    AddOut,
    AuditAnchorOut,
    AuditPage,
    ChainVerificationOut,
    CurveOut,
    EraseRequest,
    ErasureOut,
    ForgetOut,
    ForgetRequest,
    HideRequest,
    IngestRequest,
    KindName,
    MemoryBatchCreate,
    MemoryCreate,
    MemoryList,
    MemoryOut,
    MemoryPage,
    MemoryPatch,
    PurgeOut,
    RecallOut,
    RecallRequest,
    RehydrateOut,
    StatsOut,
    StatusName,
    SweepOut,
    SweepRequest,
    UsedRequest,
    UsersOut,
    WhoAmI,
)


@dataclass(frozen=True)
class Call:
    """One authorised request: who asks, and the engine of their tenant."""

    principal: Principal
    mem: Memory
    request: Request


def principal_of(request: Request) -> Principal:
    """Authenticate the request (or use the local principal in --no-auth mode)."""
    keys = request.app.state.keys
    if keys is None:
        return request.app.state.local_principal  # type: ignore[no-any-return]
    return keys.authenticate(key_from_headers(request.headers))  # type: ignore[no-any-return]


def _call_of(request: Request, scope: str) -> Call:
    principal = principal_of(request)
    principal.require(scope)
    request.state.tenant = principal.tenant
    return Call(principal, request.app.state.engines.get(principal.tenant), request)


def needs(scope: str) -> Callable[[Request], Awaitable[Call]]:
    async def dependency(request: Request) -> Call:
        # A key checked a moment ago and an open engine: answered on the event loop, so the request
        # makes one thread hop (its endpoint), not two. Anything else (the key store's database,
        # opening a tenant's engine) runs on a worker thread.
        state = request.app.state
        keys = state.keys
        principal = state.local_principal if keys is None else keys.cached(key_from_headers(request.headers))
        mem = state.engines.peek(principal.tenant) if principal is not None else None
        if principal is None or mem is None:
            return await anyio.to_thread.run_sync(_call_of, request, scope)
        principal.require(scope)
        request.state.tenant = principal.tenant
        return Call(principal, mem, request)

    return dependency


def memory_out(mem: Memory, r: MemoryRecord) -> dict[str, Any]:
    out = r.to_dict()
    out["strength"] = round(mem.strength_of(r), 6)
    expired = r.expires_at is not None and r.expires_at <= mem.now()
    out["remembered"] = (
        r.status == Status.ACTIVE
        and not expired
        and (r.pinned or out["strength"] >= mem.decay.recall_threshold)
    )
    return out


IdempotencyKey = Header(
    default=None,
    alias="Idempotency-Key",
    max_length=MAX_IDEMPOTENCY_KEY_CHARS,
    description="Do this write once: the same key and body again get the first answer (24 h).",
)


def once(
    call: Call,
    key: str | None,
    body: BaseModel | None,
    status: int,
    model: type[BaseModel],
    write: Callable[[], Any],
) -> JSONResponse:
    """Run a write under its Idempotency-Key (when given) and answer with ``model``'s JSON."""

    def answer() -> Answer:
        return Answer(status, model.model_validate(write()).model_dump(mode="json"))

    if key is None:
        done = answer()
        return JSONResponse(done.body, status_code=done.status)
    check_key(key)
    request = call.request
    keys = request.app.state.idempotency
    print_ = keys.fingerprint(
        request.method, request.url.path, body.model_dump(mode="json", exclude_unset=True) if body else None
    )
    # bound to the API key: another key's replay is its own write, not the first one's answer
    done = keys.run(call.principal.tenant, owned(key, call.principal.key_id), print_, answer)
    headers = {"Idempotent-Replayed": "true"} if done.replayed else None
    return JSONResponse(done.body, status_code=done.status, headers=headers)


router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
READ, WRITE, FORGET, ADMIN = needs("read"), needs("write"), needs("forget"), needs("admin")
VAULT = needs("vault")


@router.get(
    "/whoami", tags=["auth"], summary="The tenant and scopes of the presented key", response_model=WhoAmI
)
def whoami(call: Call = Depends(READ)) -> dict[str, Any]:
    p = call.principal
    return {"tenant": p.tenant, "scopes": sorted(p.scopes), "key_id": p.key_id}


def _write_item(body: MemoryCreate) -> WriteItem:
    data = body.model_dump(exclude={"supersede", "tags"})
    if body.tags is not None:
        data["metadata"] = {**(body.metadata or {}), "tags": list(dict.fromkeys(body.tags))}
    return cast(WriteItem, data)


@router.post(
    "/memories",
    status_code=201,
    tags=["memories"],
    summary="Remember something",
    response_model=MemoryOut,
)
def create_memory(
    body: MemoryCreate, call: Call = Depends(WRITE), idempotency_key: str | None = IdempotencyKey
) -> JSONResponse:
    def write() -> dict[str, Any]:
        # one transaction with its vault writes, retried whole on a transient conflict
        record = call.mem.remember_many([_write_item(body)], supersede=body.supersede)[0]
        return memory_out(call.mem, record)

    return once(call, idempotency_key, body, 201, MemoryOut, write)


@router.post(
    "/memories/batch",
    status_code=201,
    tags=["memories"],
    summary="Remember many memories at once: all of them, or none (one transaction)",
    response_model=MemoryList,
)
def create_memories(
    body: MemoryBatchCreate, call: Call = Depends(WRITE), idempotency_key: str | None = IdempotencyKey
) -> JSONResponse:
    def write() -> dict[str, Any]:
        records = call.mem.remember_many([_write_item(i) for i in body.items], supersede=body.supersede)
        return {"items": [memory_out(call.mem, r) for r in records]}

    return once(call, idempotency_key, body, 201, MemoryList, write)


@router.post(
    "/ingest",
    status_code=201,
    tags=["memories"],
    summary="Remember a conversation: chat messages in, the episodes and facts stored out",
    response_model=AddOut,
)
def ingest(
    body: IngestRequest, call: Call = Depends(WRITE), idempotency_key: str | None = IdempotencyKey
) -> JSONResponse:
    def write() -> dict[str, Any]:
        result = call.mem.add(
            [m if isinstance(m, str) else m.model_dump(exclude_none=True) for m in body.messages],
            user_id=body.user_id,
            session_id=body.session_id,
            agent_id=body.agent_id,
            infer=body.infer,
            occurred_at=body.occurred_at,
            metadata=body.metadata,
        )
        return result.to_dict()

    return once(call, idempotency_key, body, 201, AddOut, write)


@router.get(
    "/memories",
    tags=["memories"],
    summary="List memories in any status, newest first",
    response_model=MemoryPage,
)
def list_memories(
    call: Call = Depends(READ),
    user_id: str | None = Query(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS),
    status: list[StatusName] | None = Query(default=None),
    kind: list[KindName] | None = Query(default=None),
    key: str | None = Query(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS),
    limit: int = Query(default=50, ge=1, le=MAX_LIMIT),
    offset: int = Query(default=0, ge=0, le=10_000_000),
) -> dict[str, Any]:
    mem = call.mem
    items = mem.list_memories(user_id, statuses=status, kinds=kind, key=key, limit=limit, offset=offset)
    total = mem.count_memories(user_id, statuses=status, kinds=kind, key=key)
    nxt = offset + len(items)
    return {
        "items": [memory_out(mem, r) for r in items],
        "total": total,
        "limit": limit,
        "offset": offset,
        "next_offset": nxt if nxt < total else None,
    }


@router.get(
    "/history",
    tags=["memories"],
    summary="Every memory a user had under a key, oldest first (superseded ones included)",
    response_model=MemoryList,
)
def history(
    call: Call = Depends(READ),
    user_id: str = Query(min_length=1, max_length=MAX_IDENTIFIER_CHARS),
    key: str = Query(min_length=1, max_length=MAX_IDENTIFIER_CHARS),
    turns: bool = Query(default=False, description="Also the turns that stated an earlier value."),
) -> dict[str, Any]:
    found = call.mem.history(key, user_id=user_id, turns=turns)
    return {"items": [memory_out(call.mem, r) for r in found]}


@router.get(
    "/memories/{memory_id}",
    tags=["memories"],
    summary="One memory with its strength now",
    response_model=MemoryOut,
)
def get_memory(memory_id: str, call: Call = Depends(READ)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.get(memory_id))


@router.patch(
    "/memories/{memory_id}",
    tags=["memories"],
    summary="Change a memory in place: text, importance, tags, metadata, validity (audited)",
    response_model=MemoryOut,
)
def update_memory(
    memory_id: str,
    body: MemoryPatch,
    call: Call = Depends(WRITE),
    idempotency_key: str | None = IdempotencyKey,
) -> JSONResponse:
    given = body.model_fields_set
    if not given:
        raise ValidationError("the update names no field to change")
    for name in ("content", "importance", "confidence"):
        if name in given and getattr(body, name) is None:
            raise ValidationError(f"{name} cannot be null")
    if "ttl" in given and body.ttl is None:
        raise ValidationError("ttl cannot be null (clear the expiry with expires_at: null)")
    changes = cast(UpdateOptions, {name: getattr(body, name) for name in given})

    def write() -> dict[str, Any]:
        record = call.mem.update(memory_id, actor=call.principal.actor, **changes)
        return memory_out(call.mem, record)

    return once(call, idempotency_key, body, 200, MemoryOut, write)


@router.get(
    "/memories/{memory_id}/curve",
    tags=["memories"],
    summary="A memory's decay curve: past and projected strength, reinforcements, threshold",
    response_model=CurveOut,
)
def memory_curve(
    memory_id: str,
    call: Call = Depends(READ),
    days_ahead: float | None = Query(
        default=None, ge=0.0, le=3650.0, description="How far to project; default: past the fade point."
    ),
    points: int = Query(default=60, ge=2, le=500),
) -> dict[str, Any]:
    record = call.mem.get(memory_id)
    return decay_curve(call.mem, record, days_ahead=days_ahead, points=points)


@router.post(
    "/memories/{memory_id}/rehydrate",
    tags=["privacy"],
    summary="Privileged: the memory with its redacted personal data restored from the vault (audited)",
    response_model=RehydrateOut,
)
def rehydrate(memory_id: str, call: Call = Depends(VAULT)) -> dict[str, Any]:
    text = call.mem.rehydrate(memory_id, actor=call.principal.actor)
    return {"id": memory_id, "content": text}


@router.post(
    "/recall",
    tags=["recall"],
    summary="Recall what a user still remembers about a query",
    response_model=RecallOut,
)
def recall(body: RecallRequest, call: Call = Depends(READ)) -> dict[str, Any]:
    filters = cast(
        RecallFilters,
        body.model_dump(exclude={"query", "user_id", "limit", "touch", "hints"}, exclude_none=True),
    )
    result = call.mem.recall(
        body.query, user_id=body.user_id, limit=body.limit, touch=body.touch, hints=body.hints, **filters
    )
    return result.to_dict()


@router.post(
    "/used",
    tags=["recall"],
    summary="Report memories the application used (the strongest reinforcement short of a review)",
    response_model=MemoryList,
)
def used(
    body: UsedRequest, call: Call = Depends(WRITE), idempotency_key: str | None = IdempotencyKey
) -> JSONResponse:
    def write() -> dict[str, Any]:
        return {"items": [memory_out(call.mem, r) for r in call.mem.used(body.ids)]}

    return once(call, idempotency_key, body, 200, MemoryList, write)


@router.post(
    "/memories/{memory_id}/review",
    tags=["memories"],
    summary="Review (spaced repetition)",
    response_model=MemoryOut,
)
def review(
    memory_id: str, call: Call = Depends(WRITE), idempotency_key: str | None = IdempotencyKey
) -> JSONResponse:
    return once(
        call,
        idempotency_key,
        None,
        200,
        MemoryOut,
        lambda: memory_out(call.mem, call.mem.review(memory_id)),
    )


@router.post(
    "/memories/{memory_id}/pin", tags=["memories"], summary="Pin: never decays", response_model=MemoryOut
)
def pin(memory_id: str, call: Call = Depends(WRITE)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.pin(memory_id))


@router.post(
    "/memories/{memory_id}/unpin",
    tags=["memories"],
    summary="Unpin: decays again from now",
    response_model=MemoryOut,
)
def unpin(memory_id: str, call: Call = Depends(WRITE)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.unpin(memory_id))


@router.post(
    "/memories/{memory_id}/hide",
    tags=["memories"],
    summary="Hide (reversible, audited)",
    response_model=MemoryOut,
)
def hide(memory_id: str, body: HideRequest | None = None, call: Call = Depends(WRITE)) -> dict[str, Any]:
    reason = body.reason if body else "hidden on request"
    call.mem.hide(memory_id, reason=reason, actor=call.principal.actor)
    return memory_out(call.mem, call.mem.get(memory_id))


@router.post(
    "/memories/{memory_id}/unhide",
    tags=["memories"],
    summary="Restore a hidden memory",
    response_model=MemoryOut,
)
def unhide(memory_id: str, call: Call = Depends(WRITE)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.unhide(memory_id, actor=call.principal.actor))


@router.delete(
    "/memories/{memory_id}",
    tags=["memories"],
    summary="Purge for good (audited)",
    response_model=PurgeOut,
)
def purge(
    memory_id: str,
    call: Call = Depends(FORGET),
    force: bool = Query(default=False, description="Also purge a pinned memory."),
) -> dict[str, Any]:
    removed = call.mem.purge(memory_id, force=force, actor=call.principal.actor)
    return {"purged": removed, "id": memory_id}


@router.post(
    "/forget",
    tags=["forgetting"],
    summary="Forget by a natural-language request, or memories by id",
    response_model=ForgetOut,
    responses={501: {"description": "Natural-language forget requests are not installed"}},
)
def forget(body: ForgetRequest, call: Call = Depends(FORGET)) -> JSONResponse:
    target = (body.request or "").strip()
    if body.request is not None and not target:
        raise ValidationError("request must not be blank")
    ids = body.ids if body.ids is not None else ([target] if is_memory_id(target) else None)
    actor = call.principal.actor
    try:
        if ids is not None:
            with Engines.exclusive(call.mem):
                result = call.mem.forget_ids(
                    ids, hard=body.hard, dry_run=body.dry_run, confirm=bool(body.confirm), actor=actor
                )
        else:
            # parsing and matching run without the store's hold; the engine takes it for the
            # changes only, so one long request does not hold every tenant (issue 29)
            result = call.mem.forget(
                target,
                user_id=body.user_id,
                hard=body.hard,
                dry_run=body.dry_run,
                confirm=body.confirm,
                actor=actor,
            )
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("remnant"):
            raise
        from remnant.server.errors import error_response

        return error_response(501, "not_implemented", "natural-language forget requests are not installed")
    return JSONResponse(ForgetOut.model_validate(result.to_dict()).model_dump(mode="json"))


@router.post(
    "/erasure",
    tags=["forgetting"],
    summary="Erase everything of a user (right to be forgotten)",
    response_model=ErasureOut,
)
def erase_user(body: EraseRequest, call: Call = Depends(FORGET)) -> dict[str, Any]:
    return erase(call, body.user_id, call.principal.actor).to_dict()


def erase(call: Call, user_id: str, actor: str) -> ErasureReport:
    """Erase a user for every route that does (REST, mem0): the recorded idempotent answers that
    mention the user hold its memories, so they go first; then the engine's verified erasure."""
    call.request.app.state.idempotency.forget_user(call.principal.tenant, user_id)
    with Engines.exclusive(call.mem):
        return call.mem.erase_user(user_id, actor=actor)


@router.post(
    "/sweep",
    tags=["forgetting"],
    summary="Run the forgetting sweep for this tenant now",
    response_model=SweepOut,
)
def sweep(body: SweepRequest | None = None, call: Call = Depends(ADMIN)) -> dict[str, Any]:
    return call.mem.sweep(dry_run=bool(body and body.dry_run)).to_dict()


@router.get(
    "/audit",
    tags=["audit"],
    summary="The audit log (what was forgotten, when and why)",
    response_model=AuditPage,
)
def audit(
    call: Call = Depends(READ),
    user_id: str | None = Query(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS),
    action: str | None = Query(default=None, min_length=1, max_length=64),
    since_seq: int = Query(default=0, ge=0, le=2**62),
    limit: int = Query(default=100, ge=1, le=MAX_LIMIT),
) -> dict[str, Any]:
    entries = call.mem.audit_log(user_id=user_id, since_seq=since_seq, limit=limit, action=action)
    return {
        "items": [e.to_dict() for e in entries],
        "next_since_seq": entries[-1].seq if len(entries) == limit else None,
    }


@router.get(
    "/audit/verify",
    tags=["audit"],
    summary="Re-hash the tenant's audit chain",
    response_model=ChainVerificationOut,
)
def audit_verify(call: Call = Depends(READ)) -> dict[str, Any]:
    return _signed_audit(call.mem.verify_audit()).to_dict()


def _signed_audit(result: ChainVerification) -> ChainVerification:
    # fail closed: a signed log whose key is missing or wrong is the server's fault, not a verdict
    if result.code in ("audit_key_missing", "audit_key_wrong"):
        raise ServiceError(result.problem or "audit key problem", code=result.code or "", status=503)
    return result


@router.get(
    "/audit/anchor",
    tags=["audit"],
    summary="The tenant's audit head as a (signed) anchor to keep outside the server",
    response_model=AuditAnchorOut,
)
def audit_anchor(call: Call = Depends(READ)) -> dict[str, Any]:
    _signed_audit(call.mem.verify_audit())  # an anchor made without the key would be unsigned
    return call.mem.audit_anchor()


@router.get(
    "/stats",
    tags=["stats"],
    summary="Counts by status, for the tenant or one user",
    response_model=StatsOut,
)
def stats(
    call: Call = Depends(READ),
    user_id: str | None = Query(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS),
) -> dict[str, Any]:
    return call.mem.stats(user_id)


@router.get(
    "/users",
    tags=["stats"],
    summary="Users of this tenant with their memory counts",
    response_model=UsersOut,
)
def users(call: Call = Depends(READ), limit: int = Query(default=1000, ge=1, le=100_000)) -> dict[str, Any]:
    found = call.mem.users(limit=limit)
    return {"items": [{"user_id": u.user_id, "total": u.total, "active": u.active} for u in found]}
