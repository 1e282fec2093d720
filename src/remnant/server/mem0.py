"""mem0-compatible routes: an app written for mem0 switches to Remnant by changing the host.

The routes are the ones the ``mem0ai`` Python client (``MemoryClient``) calls, with the shapes it
reads, plus the older v1/v2 routes of mem0's hosted API. They live beside Remnant's own ``/v1``
routes without clashing: every mem0 path ends in a slash (``/v1/memories/``) and no Remnant path
does (``/v1/memories``), and Starlette only redirects between the two when neither matches.

How mem0's model maps onto Remnant (docs/integrations/mem0.md has the full table):

- ``user_id`` → the memory's user; ``agent_id`` → agent; ``run_id`` → session; ``app_id`` → the
  ``app_id`` metadata field. Remnant scopes every memory to a user, so a call that names only an
  agent, app or run works on the pseudo-user ``agent:<id>`` / ``app:<id>`` / ``run:<id>``.
- add → :meth:`Memory.add`. With ``infer`` (mem0's default) the memories are the facts the
  server's ingestor extracts (``ADD``; ``UPDATE`` with ``previous_memory`` when a fact superseded an
  older value under its key); a message from which nothing was extracted is kept as it was said and
  is a memory itself (``ADD``). The episode of a message that yielded facts stays in Remnant as the
  facts' source but is not a mem0 memory: the mem0 listing and search leave it out. With
  ``infer=False`` every message is stored as it is and is a memory.
- search → :meth:`Memory.recall` (only what is still remembered; recalling reinforces).
- update → a new version under the same key (see :mod:`remnant.server.versions`): the memory's id
  changes, the old version is kept as history; an old id resolves to the live version.
- delete → purge (for good, audited); delete of all of a user's memories → user erasure.
"""

from __future__ import annotations

import ast
import hashlib
import json
import threading
import uuid
from collections import OrderedDict
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from remnant.core.errors import NotFoundError, ValidationError
from remnant.core.limits import MAX_CONTENT_CHARS, MAX_LIMIT, MAX_MESSAGES, MAX_QUERY_CHARS
from remnant.core.model import Kind, MemoryRecord, Status
from remnant.engine.memory import Memory
from remnant.server import versions
from remnant.server.rest import Call, erase, needs, principal_of
from remnant.server.schemas import ERROR_RESPONSES

router = APIRouter(tags=["mem0"], responses=ERROR_RESPONSES)
READ, WRITE, FORGET = needs("read"), needs("write"), needs("forget")

ENTITIES = ("user_id", "agent_id", "app_id", "run_id")
LISTING_CAP = 10_000  # the most memories one mem0 listing or bulk delete looks at
Id = Field(default=None, min_length=1, max_length=256)


class _Body(BaseModel):
    # mem0 clients send many options Remnant has no use for (custom_categories, rerank, fields...)
    model_config = ConfigDict(extra="allow")


class AddBody(_Body):
    # the one limit of core.limits (it was 1,000 messages here, five times the engine's)
    messages: (
        Annotated[list[dict[str, Any]], Field(min_length=1, max_length=MAX_MESSAGES)]
        | dict[str, Any]
        | Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]
    )
    user_id: str | None = Id
    agent_id: str | None = Id
    app_id: str | None = Id
    run_id: str | None = Id
    metadata: dict[str, Any] | None = None
    filters: dict[str, Any] | None = None
    infer: bool = True
    output_format: str | None = Field(default=None, max_length=16)
    expiration_date: str | None = Field(default=None, max_length=40)


class SearchBody(_Body):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    user_id: str | None = Id
    agent_id: str | None = Id
    app_id: str | None = Id
    run_id: str | None = Id
    metadata: dict[str, Any] | None = None
    filters: dict[str, Any] | None = None
    top_k: int | None = Field(default=None, ge=1, le=MAX_LIMIT)
    limit: int | None = Field(default=None, ge=1, le=MAX_LIMIT)
    output_format: str | None = Field(default=None, max_length=16)


class ListBody(_Body):
    user_id: str | None = Id
    agent_id: str | None = Id
    app_id: str | None = Id
    run_id: str | None = Id
    filters: dict[str, Any] | None = None
    page: int | None = Field(default=None, ge=1, le=1_000_000)
    page_size: int | None = Field(default=None, ge=1, le=MAX_LIMIT)


class UpdateBody(_Body):
    text: str | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_CHARS)
    data: str | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_CHARS)  # mem0 OSS
    metadata: dict[str, Any] | None = None
    expiration_date: str | None = Field(default=None, max_length=40)


class BatchItem(_Body):
    memory_id: str = Field(min_length=1, max_length=256)
    text: str | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_CHARS)
    metadata: dict[str, Any] | None = None


class BatchBody(_Body):
    memories: list[BatchItem] = Field(min_length=1, max_length=1000)


# -- mapping ---------------------------------------------------------------------------------------
class Scope:
    """Who a mem0 call is about, in Remnant terms."""

    def __init__(self, ids: dict[str, str | None]) -> None:
        self.agent_id, self.app_id, self.run_id = ids.get("agent_id"), ids.get("app_id"), ids.get("run_id")
        user = ids.get("user_id")
        if user is None:
            for name in ("agent_id", "app_id", "run_id"):
                if ids.get(name):
                    user = f"{name[:-3]}:{ids[name]}"
                    break
        if user is None:
            raise ValidationError("a mem0 call needs one of user_id, agent_id, app_id or run_id")
        self.user_id: str = user

    def metadata_filter(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        out = dict(extra or {})
        if self.app_id:
            out["app_id"] = self.app_id
        return out

    def matches(self, r: MemoryRecord, metadata: dict[str, Any]) -> bool:
        if self.agent_id and r.agent_id != self.agent_id:
            return False
        if self.run_id and r.session_id != self.run_id:
            return False
        return all(r.metadata.get(k) == v for k, v in metadata.items())


class Filters:
    """mem0's filters (``{"AND": [{"user_id": ...}, {"created_at": {"gte": ...}}]}`` or a flat
    dict), reduced to what Remnant filters on: entity ids, metadata equality, a creation window."""

    def __init__(self, top: dict[str, Any], filters: Any = None) -> None:
        flat: dict[str, Any] = {}
        _walk(_parse_filters(filters), flat)
        ids: dict[str, str | None] = {}
        for name in ENTITIES:
            value = flat.pop(name, None)
            value = top.get(name) if value is None else value
            ids[name] = _entity(name, value)
        self.scope = Scope(ids)
        self.created_after: datetime | None = None
        self.created_before: datetime | None = None
        for name in ("created_at", "updated_at"):
            window = flat.pop(name, None)
            if window is not None:
                self._window(name, window)
        metadata = flat.pop("metadata", None) or {}
        if not isinstance(metadata, dict):
            raise ValidationError("filters.metadata must be an object")
        flat.pop("categories", None)  # Remnant has kinds, not mem0's categories: not filtered on
        flat.pop("keywords", None)
        for name, value in flat.items():
            if isinstance(value, (dict, list)):
                raise ValidationError(f"filter {name!r}: only equality is supported by Remnant")
            metadata[name] = value
        self.metadata = self.scope.metadata_filter(metadata)

    def _window(self, name: str, window: Any) -> None:
        if not isinstance(window, dict):
            window = {"gte": window, "lte": window}
        for op, value in window.items():
            at = _when(value, name)
            if op in ("gte", "gt"):
                self.created_after = at
            elif op in ("lte", "lt"):
                self.created_before = at
            else:
                raise ValidationError(f"filter {name!r}: unsupported operator {op!r} (gte, gt, lte, lt)")


def _parse_filters(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    # a dict sent as a query parameter arrives as its JSON, or as Python's repr (httpx str()s it)
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            continue
    raise ValidationError("filters is not a JSON object")


def _walk(node: Any, out: dict[str, Any]) -> None:
    if node is None:
        return
    if isinstance(node, list):
        for item in node[:100]:
            _walk(item, out)
        return
    if not isinstance(node, dict):
        raise ValidationError("filters must be an object or a list of objects")
    for k, v in node.items():
        if k.upper() == "AND":
            _walk(v, out)
        elif k.upper() in ("OR", "NOT"):
            items = v if isinstance(v, list) else [v]
            if k.upper() == "OR" and len(items) == 1:
                _walk(items, out)
            else:
                raise ValidationError(f"mem0 filter {k!r} is not supported (AND of equalities and dates)")
        else:
            out[k] = v


def _entity(name: str, value: Any) -> str | None:
    if isinstance(value, dict) and set(value) <= {"eq", "in"}:
        options = [value["eq"]] if "eq" in value else value.get("in")
        if not isinstance(options, list) or len(options) != 1:
            raise ValidationError(f"filter {name!r}: Remnant filters on one {name} at a time")
        value = options[0]
    if value is None or value == "*":
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 256:
        raise ValidationError(f"{name} must be a non-empty string of at most 256 characters")
    return value


def _when(value: Any, name: str) -> datetime:
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.fromtimestamp(float(value), tz=UTC)
        if isinstance(value, str):
            at = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return at if at.tzinfo else at.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError) as exc:
        raise ValidationError(f"filter {name!r}: {exc}") from exc
    raise ValidationError(f"filter {name!r}: expected an ISO date or a Unix timestamp")


def _expiry(value: str | None) -> datetime | None:
    """mem0's ``expiration_date`` (YYYY-MM-DD): the memory lasts through that day (UTC)."""
    if value is None:
        return None
    try:
        day = date.fromisoformat(value[:10])
    except ValueError as exc:
        raise ValidationError("expiration_date must be YYYY-MM-DD") from exc
    return datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)


# -- answers (mem0's shapes; extra fields pass through) ----------------------------------------------
class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class RemnantView(_Out):
    kind: str
    key: str | None
    status: str
    strength: float
    pinned: bool
    superseded_by: str | None


class Mem0Memory(_Out):
    id: str
    memory: str
    user_id: str
    agent_id: str | None
    run_id: str | None
    app_id: Any = None
    metadata: dict[str, Any]
    categories: list[str]
    immutable: bool
    expiration_date: str | None
    hash: str
    created_at: str | None
    updated_at: str | None
    remnant: RemnantView
    score: float | None = None


class Mem0EventData(_Out):
    memory: str


class Mem0Event(_Out):
    id: str
    memory: str
    event: str
    data: Mem0EventData
    previous_memory: str | None = None


class Mem0AddResults(_Out):
    results: list[Mem0Event]


class Mem0AddV3(_Out):
    event_id: str
    status: str
    message: str
    results: list[Mem0Event]


class Mem0EventRecord(_Out):
    id: str
    event_type: str
    status: str
    payload: dict[str, Any]
    metadata: dict[str, Any]
    results: list[Mem0Event]
    created_at: str | None
    updated_at: str | None
    started_at: str | None
    completed_at: str | None
    latency: float


class Mem0Search(_Out):
    results: list[Mem0Memory]
    faded: list[dict[str, Any]]


class Mem0Page(_Out):
    count: int
    next: str | None
    previous: str | None
    results: list[Mem0Memory]


class Mem0Updated(Mem0Memory):
    event: str
    previous_id: str
    message: str


class Mem0Deleted(_Out):
    message: str
    deleted: list[str] | int | None = None


class Mem0Updates(_Out):
    message: str
    ids: list[str]


class Mem0HistoryItem(_Out):
    id: str
    memory_id: str
    version_id: str
    input: list[Any]
    old_memory: str | None
    new_memory: str | None
    event: str
    user_id: str
    metadata: dict[str, Any]
    is_deleted: bool
    created_at: str | None
    updated_at: str | None


class Mem0Entity(_Out):
    id: str
    name: str
    type: str
    total_memories: int


class Mem0Entities(_Out):
    count: int
    results: list[Mem0Entity]


class Mem0Ping(_Out):
    status: str
    message: str
    org_id: str
    project_id: str
    user_email: str | None
    server: str


def _iso(at: datetime | None) -> str | None:
    return at.isoformat() if at else None


def memory_item(mem: Memory, r: MemoryRecord, *, score: float | None = None) -> dict[str, Any]:
    """A memory as mem0 shows one, with Remnant's view of it under ``remnant``."""
    meta = {k: v for k, v in r.metadata.items() if not k.startswith("_")}
    out: dict[str, Any] = {
        "id": r.id,
        "memory": r.content,
        "user_id": r.user_id,
        "agent_id": r.agent_id,
        "run_id": r.session_id,
        "app_id": meta.get("app_id"),
        "metadata": meta,
        "categories": [],
        "immutable": False,
        "expiration_date": r.expires_at.date().isoformat() if r.expires_at else None,
        "hash": hashlib.md5(r.content.encode("utf-8"), usedforsecurity=False).hexdigest(),
        "created_at": _iso(r.created_at),
        "updated_at": _iso(r.status_changed_at or r.created_at),
        "remnant": {
            "kind": r.kind.value,
            "key": r.key,
            "status": r.status.value,
            "strength": round(mem.strength_of(r), 6),
            "pinned": r.pinned,
            "superseded_by": r.superseded_by,
        },
    }
    if score is not None:
        out["score"] = round(score, 6)
    return out


def _event(mem: Memory, r: MemoryRecord, event: str, previous: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": r.id, "memory": r.content, "event": event, "data": {"memory": r.content}}
    if previous is not None:
        out["previous_memory"] = previous
    return out


def _source_only(r: MemoryRecord) -> bool:
    """An episode whose message yielded facts: the facts are its mem0 memories, not the episode."""
    return r.kind == Kind.EPISODE and bool(r.metadata.get("facts"))


def _remembered(mem: Memory, r: MemoryRecord) -> bool:
    if r.status != Status.ACTIVE:
        return False
    if r.expires_at is not None and r.expires_at <= mem.now():
        return False
    return r.pinned or mem.strength_of(r) >= mem.decay.recall_threshold


def _live(mem: Memory, memory_id: str) -> MemoryRecord:
    record = versions.current(mem, mem.get(memory_id))
    if record.status != Status.ACTIVE:
        raise NotFoundError(f"memory {memory_id} was forgotten ({record.status.value})")
    return record


def _actor(call: Call) -> str:
    return f"mem0:{call.principal.actor}"


# -- construction ----------------------------------------------------------------------------------
@router.get(
    "/v1/ping/", summary="mem0: the key check MemoryClient makes on construction", response_model=Mem0Ping
)
def ping(request: Request) -> dict[str, Any]:
    p = principal_of(request)
    return {
        "status": "ok",
        "message": "pong",
        "org_id": p.tenant,
        "project_id": p.tenant,
        "user_email": None,
        "server": "remnant",
    }


# -- add -------------------------------------------------------------------------------------------
_EVENTS_LOCK = threading.Lock()


def _events(request: Request, tenant: str) -> OrderedDict[str, dict[str, Any]]:
    with _EVENTS_LOCK:
        store = getattr(request.app.state, "mem0_events", None)
        if store is None:
            store = request.app.state.mem0_events = {}
        return store.setdefault(tenant, OrderedDict())  # type: ignore[no-any-return]


def _add(body: AddBody, call: Call) -> list[dict[str, Any]]:
    if body.expiration_date is not None:
        raise ValidationError("expiration_date is not supported on add; set it with an update (PUT)")
    flt = Filters(body.model_dump(include=set(ENTITIES)), body.filters)
    mem = call.mem
    messages = body.messages
    result = mem.add(
        messages if not isinstance(messages, list) else list(messages),
        user_id=flt.scope.user_id,
        agent_id=flt.scope.agent_id,
        session_id=flt.scope.run_id,
        infer=body.infer,
        metadata=flt.scope.metadata_filter(body.metadata),
    )
    by_episode: dict[str, list[MemoryRecord]] = {}
    for fact in result.facts:
        by_episode.setdefault(str(fact.metadata.get("from_episode")), []).append(fact)
    out: list[dict[str, Any]] = []
    for episode in result.episodes:  # in the order of the messages
        facts = by_episode.get(episode.id)
        if not facts:  # nothing extracted (or infer=False): the message is the memory
            # a repeat reinforced the memory it repeats: mem0's "no change" event, with that id
            out.append(_event(mem, episode, "NONE" if episode.deduplicated else "ADD"))
            continue
        for fact in facts:
            if fact.deduplicated:
                out.append(_event(mem, fact, "NONE"))
                continue
            older = [
                r
                for r in (mem.history(fact.key, user_id=fact.user_id) if fact.key else [])
                if r.superseded_by == fact.id
            ]
            if older:
                out.append(_event(mem, fact, "UPDATE", older[-1].content))
            else:
                out.append(_event(mem, fact, "ADD"))
    return out


@router.post(
    "/v1/memories/", summary="mem0: add memories (v1)", response_model=list[Mem0Event] | Mem0AddResults
)
def add_v1(body: AddBody, call: Call = Depends(WRITE)) -> Any:
    results = _add(body, call)
    return results if body.output_format == "v1.0" else {"results": results}


@router.post(
    "/v3/memories/add/", summary="mem0: add memories (v3; done before it answers)", response_model=Mem0AddV3
)
def add_v3(body: AddBody, request: Request, call: Call = Depends(WRITE)) -> dict[str, Any]:
    results = _add(body, call)
    event_id = str(uuid.uuid4())
    now = _iso(call.mem.now())
    event: dict[str, Any] = {
        "id": event_id,
        "event_type": "ADD",
        "status": "SUCCEEDED",
        "payload": {},
        "metadata": {},
        "results": results,
        "created_at": now,
        "updated_at": now,
        "started_at": now,
        "completed_at": now,
        "latency": 0,
    }
    events = _events(request, call.principal.tenant)
    with _EVENTS_LOCK:
        events[event_id] = event
        while len(events) > 1000:
            events.popitem(last=False)
    return {"event_id": event_id, "status": "SUCCEEDED", "message": "memories added", "results": results}


@router.get(
    "/v1/event/{event_id}/",
    summary="mem0: an add's event (always SUCCEEDED: adds are synchronous)",
    response_model=Mem0EventRecord,
)
def get_event(event_id: str, request: Request, call: Call = Depends(READ)) -> dict[str, Any]:
    event = _events(request, call.principal.tenant).get(event_id)
    if event is None:
        raise NotFoundError(f"no event {event_id!r} (events are kept for the last 1000 adds)")
    return event


# -- search ----------------------------------------------------------------------------------------
def _search(body: SearchBody, call: Call) -> dict[str, Any]:
    flt = Filters(body.model_dump(include=set(ENTITIES)), body.filters)
    mem = call.mem
    metadata = {**(body.metadata or {}), **flt.metadata}
    limit = body.top_k or body.limit or 10
    # the episodes that only sourced facts are no mem0 memories: asked for beyond the limit so they
    # do not take its places, then left out (recall treats them as any hit: it may reinforce them)
    res = mem.recall(
        body.query,
        user_id=flt.scope.user_id,
        limit=min(MAX_LIMIT, 2 * limit + 10),
        agent_id=flt.scope.agent_id,
        session_id=flt.scope.run_id,
        metadata=metadata,
        created_after=flt.created_after,
        created_before=flt.created_before,
    )
    hits = [h for h in res.hits if not _source_only(h.memory)][:limit]
    return {
        "results": [memory_item(mem, h.memory, score=h.score) for h in hits],
        "faded": [f.to_dict() for f in res.faded],
    }


@router.post(
    "/v1/memories/search/", summary="mem0: search (v1)", response_model=list[Mem0Memory] | Mem0Search
)
def search_v1(body: SearchBody, call: Call = Depends(READ)) -> Any:
    out = _search(body, call)
    return out["results"] if body.output_format == "v1.0" else out


@router.post("/v2/memories/search/", summary="mem0: search (v2)", response_model=Mem0Search)
def search_v2(body: SearchBody, call: Call = Depends(READ)) -> dict[str, Any]:
    return _search(body, call)


@router.post(
    "/v3/memories/search/",
    summary="mem0: search (v3, what MemoryClient.search calls)",
    response_model=Mem0Search,
)
def search_v3(body: SearchBody, call: Call = Depends(READ)) -> dict[str, Any]:
    return _search(body, call)


# -- listing ---------------------------------------------------------------------------------------
def _matching(mem: Memory, flt: Filters, *, remembered: bool = True) -> list[MemoryRecord]:
    found = mem.list_memories(
        flt.scope.user_id, statuses=[Status.ACTIVE] if remembered else None, limit=LISTING_CAP
    )
    out = []
    for r in found:
        if not flt.scope.matches(r, flt.metadata):
            continue
        if flt.created_after and r.created_at and r.created_at < flt.created_after:
            continue
        if flt.created_before and r.created_at and r.created_at > flt.created_before:
            continue
        if remembered and (not _remembered(mem, r) or _source_only(r)):
            continue
        out.append(r)
    return out


def _page(request: Request, mem: Memory, flt: Filters, page: int | None, size: int | None) -> dict[str, Any]:
    found = _matching(mem, flt)
    page, size = page or 1, size or 100
    start = (page - 1) * size
    items = found[start : start + size]

    def link(n: int) -> str:
        return str(request.url.include_query_params(page=n, page_size=size))

    return {
        "count": len(found),
        "next": link(page + 1) if start + size < len(found) else None,
        "previous": link(page - 1) if page > 1 else None,
        "results": [memory_item(mem, r) for r in items],
    }


@router.get(
    "/v1/memories/", summary="mem0: list a user's (agent's, run's) memories (v1)", response_model=Mem0Page
)
def list_v1(
    request: Request,
    call: Call = Depends(READ),
    user_id: str | None = Query(default=None, min_length=1, max_length=256),
    agent_id: str | None = Query(default=None, min_length=1, max_length=256),
    app_id: str | None = Query(default=None, min_length=1, max_length=256),
    run_id: str | None = Query(default=None, min_length=1, max_length=256),
    page: int | None = Query(default=None, ge=1, le=1_000_000),
    page_size: int | None = Query(default=None, ge=1, le=MAX_LIMIT),
    limit: int | None = Query(default=None, ge=1, le=MAX_LIMIT),
) -> dict[str, Any]:
    flt = Filters({"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id})
    return _page(request, call.mem, flt, page, page_size or limit)


def _list_post(body: ListBody, request: Request, call: Call, page: int | None, size: int | None) -> Any:
    flt = Filters(body.model_dump(include=set(ENTITIES)), body.filters)
    return _page(request, call.mem, flt, page or body.page, size or body.page_size)


@router.post("/v2/memories/", summary="mem0: list memories by filters (v2)", response_model=Mem0Page)
def list_v2(
    body: ListBody,
    request: Request,
    call: Call = Depends(READ),
    page: int | None = Query(default=None, ge=1, le=1_000_000),
    page_size: int | None = Query(default=None, ge=1, le=MAX_LIMIT),
) -> Any:
    return _list_post(body, request, call, page, page_size)


@router.post(
    "/v3/memories/",
    summary="mem0: list memories by filters (v3, what MemoryClient.get_all calls)",
    response_model=Mem0Page,
)
def list_v3(
    body: ListBody,
    request: Request,
    call: Call = Depends(READ),
    page: int | None = Query(default=None, ge=1, le=1_000_000),
    page_size: int | None = Query(default=None, ge=1, le=MAX_LIMIT),
) -> Any:
    return _list_post(body, request, call, page, page_size)


# -- one memory ------------------------------------------------------------------------------------
@router.get(
    "/v1/memories/{memory_id}/",
    summary="mem0: one memory (an updated id resolves to its live version)",
    response_model=Mem0Memory,
)
def get_one(memory_id: str, call: Call = Depends(READ)) -> dict[str, Any]:
    return memory_item(call.mem, _live(call.mem, memory_id))


def _update(
    mem: Memory, memory_id: str, text: str | None, metadata: Any, call: Call, **kw: Any
) -> MemoryRecord:
    if text is None and metadata is None and "expires_at" not in kw:
        raise ValidationError("an update needs text, metadata or expiration_date")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValidationError("metadata must be an object")
    record = _live(mem, memory_id)
    if metadata is not None and record.metadata.get("app_id") and "app_id" not in metadata:
        metadata = {**metadata, "app_id": record.metadata["app_id"]}
    return versions.update(
        mem, record, content=text, metadata=metadata, actor=_actor(call), source="mem0", **kw
    )


@router.put(
    "/v1/memories/{memory_id}/",
    summary="mem0: update (Remnant writes a new version under the same key; the old one is history)",
    response_model=Mem0Updated,
)
def update_one(memory_id: str, body: UpdateBody, call: Call = Depends(WRITE)) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if "expiration_date" in body.model_fields_set:
        kw["expires_at"] = _expiry(body.expiration_date)
    new = _update(call.mem, memory_id, body.text or body.data, body.metadata, call, **kw)
    out = memory_item(call.mem, new)
    out.update({"event": "UPDATE", "previous_id": memory_id, "message": "Memory updated successfully!"})
    return out


@router.delete(
    "/v1/memories/{memory_id}/",
    summary="mem0: delete one memory (purged for good, audited)",
    response_model=Mem0Deleted,
)
def delete_one(
    memory_id: str,
    call: Call = Depends(FORGET),
    delete_linked: bool = Query(default=False, description="Also purge the versions it superseded."),
) -> dict[str, Any]:
    mem = call.mem
    record = mem.get(memory_id)
    target = versions.current(mem, record)
    ids = [r.id for r in versions.versions(mem, target)] if delete_linked else [target.id]
    mem.purge(ids, force=True, reason="deleted through the mem0 API", actor=_actor(call))
    return {"message": "Memory deleted successfully!", "deleted": ids}


@router.get(
    "/v1/memories/{memory_id}/history/",
    summary="mem0: a memory's versions, oldest first",
    response_model=list[Mem0HistoryItem],
)
def history(memory_id: str, call: Call = Depends(READ)) -> list[dict[str, Any]]:
    mem = call.mem
    chain = versions.versions(mem, mem.get(memory_id))
    out: list[dict[str, Any]] = []
    for i, v in enumerate(chain):
        event = "ADD" if i == 0 else "UPDATE"
        out.append(
            {
                "id": f"{v.id}:{event.lower()}",
                "memory_id": memory_id,
                "version_id": v.id,
                "input": [],
                "old_memory": chain[i - 1].content if i else None,
                "new_memory": v.content,
                "event": event,
                "user_id": v.user_id,
                "metadata": {k: val for k, val in v.metadata.items() if not k.startswith("_")},
                "is_deleted": False,
                "created_at": _iso(v.created_at),
                "updated_at": _iso(v.created_at),
            }
        )
    last = chain[-1]
    if last.status != Status.ACTIVE and last.status != Status.SUPERSEDED:
        out.append(
            {
                "id": f"{last.id}:delete",
                "memory_id": memory_id,
                "version_id": last.id,
                "input": [],
                "old_memory": last.content,
                "new_memory": None,
                "event": "DELETE",
                "user_id": last.user_id,
                "metadata": {"status": last.status.value, "reason": last.status_reason},
                "is_deleted": True,
                "created_at": _iso(last.status_changed_at),
                "updated_at": _iso(last.status_changed_at),
            }
        )
    return out


# -- bulk ------------------------------------------------------------------------------------------
def _purge_all(mem: Memory, records: list[MemoryRecord], call: Call) -> int:
    if not records:
        return 0
    return mem.purge(
        [r.id for r in records], force=True, reason="deleted through the mem0 API", actor=_actor(call)
    )


@router.delete(
    "/v1/memories/",
    summary="mem0: delete all memories of a user (erasure), agent or run",
    response_model=Mem0Deleted,
)
def delete_all(
    call: Call = Depends(FORGET),
    user_id: str | None = Query(default=None, min_length=1, max_length=256),
    agent_id: str | None = Query(default=None, min_length=1, max_length=256),
    app_id: str | None = Query(default=None, min_length=1, max_length=256),
    run_id: str | None = Query(default=None, min_length=1, max_length=256),
    filters: str | None = Query(default=None, max_length=10_000),
) -> dict[str, Any]:
    flt = Filters({"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id}, filters)
    mem, scope = call.mem, flt.scope
    if not (scope.agent_id or scope.run_id or flt.metadata or flt.created_after or flt.created_before):
        report = erase(call, scope.user_id, _actor(call))
        return {"message": "Memories deleted successfully!", "deleted": sum(report.removed.values())}
    n = _purge_all(mem, _matching(mem, flt, remembered=False), call)
    return {"message": "Memories deleted successfully!", "deleted": n}


@router.get(
    "/v1/entities/",
    summary="mem0: the users (and agents, apps, runs) that have memories",
    response_model=Mem0Entities,
)
def entities(call: Call = Depends(READ)) -> dict[str, Any]:
    out = []
    for u in call.mem.users(limit=LISTING_CAP):
        kind, _, name = u.user_id.partition(":")
        if kind in ("agent", "app", "run") and name:
            out.append({"id": u.user_id, "name": name, "type": kind, "total_memories": u.active})
        else:
            out.append({"id": u.user_id, "name": u.user_id, "type": "user", "total_memories": u.active})
    return {"count": len(out), "results": out}


@router.delete(
    "/v2/entities/{entity_type}/{entity_id}/",
    summary="mem0: delete a user (erasure), agent, app or run",
    response_model=Mem0Deleted,
)
def delete_entity(entity_type: str, entity_id: str, call: Call = Depends(FORGET)) -> dict[str, Any]:
    if entity_type not in ("user", "agent", "app", "run"):
        raise ValidationError("entity type must be user, agent, app or run")
    mem = call.mem
    user = entity_id if entity_type == "user" else f"{entity_type}:{entity_id}"
    removed = sum(erase(call, user, _actor(call)).removed.values())
    if entity_type != "user":
        # memories of that agent/app/run under real users too
        field = {"agent": "agent_id", "run": "session_id"}.get(entity_type)
        found = mem.list_memories(None, statuses=None, limit=LISTING_CAP)
        if field is None:
            hit = [r for r in found if r.metadata.get("app_id") == entity_id]
        else:
            hit = [r for r in found if getattr(r, field) == entity_id]
        removed += _purge_all(mem, hit, call)
    return {"message": "Entity deleted successfully.", "deleted": removed}


@router.put("/v1/batch/", summary="mem0: update many memories", response_model=Mem0Updates)
def batch_update(body: BatchBody, call: Call = Depends(WRITE)) -> dict[str, Any]:
    done = [_update(call.mem, m.memory_id, m.text, m.metadata, call).id for m in body.memories]
    return {"message": f"Successfully updated {len(done)} memories", "ids": done}


@router.delete("/v1/batch/", summary="mem0: delete many memories", response_model=Mem0Deleted)
def batch_delete(body: BatchBody, call: Call = Depends(FORGET)) -> dict[str, Any]:
    mem = call.mem
    targets = {r.id: r for r in (versions.current(mem, mem.get(m.memory_id)) for m in body.memories)}
    n = _purge_all(mem, list(targets.values()), call)
    return {"message": f"Successfully deleted {n} memories"}
