"""The REST API under ``/v1``: memories, recall, forgetting, erasure, audit, stats, users.

Every route takes the caller's :class:`~remnant.server.auth.Principal` and works on the engine of
the principal's tenant only; no route takes a tenant from the request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from remnant.core.errors import ValidationError
from remnant.core.model import MemoryRecord, Status
from remnant.engine.memory import Memory
from remnant.server.auth import Principal, key_from_headers
from remnant.server.curve import decay_curve
from remnant.server.engines import Engines
from remnant.server.schemas import (
    ERROR_RESPONSES,
    EraseRequest,
    ForgetRequest,
    HideRequest,
    KindName,
    MemoryCreate,
    RecallRequest,
    StatusName,
    SweepRequest,
)


@dataclass(frozen=True)
class Call:
    """One authorised request: who asks, and the engine of their tenant."""

    principal: Principal
    mem: Memory


def principal_of(request: Request) -> Principal:
    """Authenticate the request (or use the local principal in --no-auth mode)."""
    keys = request.app.state.keys
    if keys is None:
        return request.app.state.local_principal  # type: ignore[no-any-return]
    return keys.authenticate(key_from_headers(request.headers))  # type: ignore[no-any-return]


def needs(scope: str) -> Callable[[Request], Call]:
    def dependency(request: Request) -> Call:
        principal = principal_of(request)
        principal.require(scope)
        request.state.tenant = principal.tenant
        return Call(principal, request.app.state.engines.get(principal.tenant))

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


router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
READ, WRITE, FORGET, ADMIN = needs("read"), needs("write"), needs("forget"), needs("admin")
VAULT = needs("vault")


@router.get("/whoami", tags=["auth"], summary="The tenant and scopes of the presented key")
def whoami(call: Call = Depends(READ)) -> dict[str, Any]:
    p = call.principal
    return {"tenant": p.tenant, "scopes": sorted(p.scopes), "key_id": p.key_id}


@router.post("/memories", status_code=201, tags=["memories"], summary="Remember something")
def create_memory(body: MemoryCreate, call: Call = Depends(WRITE)) -> dict[str, Any]:
    data = body.model_dump()
    supersede = data.pop("supersede")
    # remember() is one transaction with its vault writes, retried whole on a transient conflict
    record = call.mem.remember(**data, supersede=supersede)
    return memory_out(call.mem, record)


@router.get("/memories", tags=["memories"], summary="List memories in any status, newest first")
def list_memories(
    call: Call = Depends(READ),
    user_id: str | None = Query(default=None, min_length=1, max_length=256),
    status: list[StatusName] | None = Query(default=None),
    kind: list[KindName] | None = Query(default=None),
    key: str | None = Query(default=None, min_length=1, max_length=256),
    limit: int = Query(default=50, ge=1, le=1000),
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


@router.get("/memories/{memory_id}", tags=["memories"], summary="One memory with its strength now")
def get_memory(memory_id: str, call: Call = Depends(READ)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.get(memory_id))


@router.get(
    "/memories/{memory_id}/curve",
    tags=["memories"],
    summary="A memory's decay curve: past and projected strength, reinforcements, threshold",
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
)
def rehydrate(memory_id: str, call: Call = Depends(VAULT)) -> dict[str, Any]:
    text = call.mem.rehydrate(memory_id, actor=call.principal.actor)
    return {"id": memory_id, "content": text}


@router.post("/recall", tags=["recall"], summary="Recall what a user still remembers about a query")
def recall(body: RecallRequest, call: Call = Depends(READ)) -> dict[str, Any]:
    result = call.mem.recall(
        body.query,
        user_id=body.user_id,
        limit=body.limit,
        kinds=body.kinds,
        keys=body.keys,
        include_faded=body.include_faded,
        touch=body.touch,
        as_of=body.as_of,
    )
    return result.to_dict()


@router.post("/memories/{memory_id}/review", tags=["memories"], summary="Review (spaced repetition)")
def review(memory_id: str, call: Call = Depends(WRITE)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.review(memory_id))


@router.post("/memories/{memory_id}/pin", tags=["memories"], summary="Pin: never decays")
def pin(memory_id: str, call: Call = Depends(WRITE)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.pin(memory_id))


@router.post("/memories/{memory_id}/unpin", tags=["memories"], summary="Unpin: decays again from now")
def unpin(memory_id: str, call: Call = Depends(WRITE)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.unpin(memory_id))


@router.post("/memories/{memory_id}/hide", tags=["memories"], summary="Hide (reversible, audited)")
def hide(memory_id: str, body: HideRequest | None = None, call: Call = Depends(WRITE)) -> dict[str, Any]:
    reason = body.reason if body else "hidden on request"
    call.mem.hide(memory_id, reason=reason, actor=call.principal.actor)
    return memory_out(call.mem, call.mem.get(memory_id))


@router.post("/memories/{memory_id}/unhide", tags=["memories"], summary="Restore a hidden memory")
def unhide(memory_id: str, call: Call = Depends(WRITE)) -> dict[str, Any]:
    return memory_out(call.mem, call.mem.unhide(memory_id, actor=call.principal.actor))


@router.delete("/memories/{memory_id}", tags=["memories"], summary="Purge for good (audited)")
def purge(
    memory_id: str,
    call: Call = Depends(FORGET),
    force: bool = Query(default=False, description="Also purge a pinned memory."),
) -> dict[str, Any]:
    removed = call.mem.purge(memory_id, force=force, actor=call.principal.actor)
    return {"purged": removed, "id": memory_id}


@router.post("/forget", tags=["forgetting"], summary="Forget by id or by a natural-language request")
def forget(body: ForgetRequest, call: Call = Depends(FORGET)) -> JSONResponse:
    target = body.request.strip()
    if not target:
        raise ValidationError("request must not be blank")
    try:
        with Engines.exclusive(call.mem):
            result = call.mem.forget(
                target,
                user_id=body.user_id,
                hard=body.hard,
                dry_run=body.dry_run,
                confirm=body.confirm,
                actor=call.principal.actor,
            )
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("remnant"):
            raise
        from remnant.server.errors import error_response

        return error_response(501, "not_implemented", "natural-language forget requests are not installed")
    return JSONResponse(result.to_dict())


@router.post("/erasure", tags=["forgetting"], summary="Erase everything of a user (right to be forgotten)")
def erase_user(body: EraseRequest, call: Call = Depends(FORGET)) -> dict[str, Any]:
    with Engines.exclusive(call.mem):
        return call.mem.erase_user(body.user_id, actor=call.principal.actor).to_dict()


@router.post("/sweep", tags=["forgetting"], summary="Run the forgetting sweep for this tenant now")
def sweep(body: SweepRequest | None = None, call: Call = Depends(ADMIN)) -> dict[str, Any]:
    return call.mem.sweep(dry_run=bool(body and body.dry_run)).to_dict()


@router.get("/audit", tags=["audit"], summary="The audit log (what was forgotten, when and why)")
def audit(
    call: Call = Depends(READ),
    user_id: str | None = Query(default=None, min_length=1, max_length=256),
    action: str | None = Query(default=None, min_length=1, max_length=64),
    since_seq: int = Query(default=0, ge=0, le=2**62),
    limit: int = Query(default=100, ge=1, le=1000),
) -> dict[str, Any]:
    entries = call.mem.audit_log(user_id=user_id, since_seq=since_seq, limit=limit, action=action)
    return {
        "items": [e.to_dict() for e in entries],
        "next_since_seq": entries[-1].seq if len(entries) == limit else None,
    }


@router.get("/audit/verify", tags=["audit"], summary="Re-hash the tenant's audit chain")
def audit_verify(call: Call = Depends(READ)) -> dict[str, Any]:
    return call.mem.verify_audit().to_dict()


@router.get("/stats", tags=["stats"], summary="Counts by status, for the tenant or one user")
def stats(
    call: Call = Depends(READ), user_id: str | None = Query(default=None, min_length=1, max_length=256)
) -> dict[str, Any]:
    return call.mem.stats(user_id)


@router.get("/users", tags=["stats"], summary="Users of this tenant with their memory counts")
def users(call: Call = Depends(READ), limit: int = Query(default=1000, ge=1, le=100_000)) -> dict[str, Any]:
    found = call.mem.users(limit=limit)
    return {"items": [{"user_id": u.user_id, "total": u.total, "active": u.active} for u in found]}
