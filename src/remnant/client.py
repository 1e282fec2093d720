"""Clients for a Remnant server: :class:`Client` and :class:`AsyncClient` (httpx).

They mirror :class:`remnant.engine.Memory`'s verbs over the REST API (``/v1``), return the same
result types (:class:`~remnant.core.model.MemoryRecord`, :class:`~remnant.engine.results.RecallResult`,
…) and raise the same errors (:mod:`remnant.core.errors`), mapped from the server's error codes::

    from remnant import Client

    with Client("http://127.0.0.1:8420", api_key="rk_…") as mem:
        mem.remember("I moved to Berlin", user_id="ana", key="city")
        for hit in mem.recall("where does Ana live?", user_id="ana"):
            print(hit.memory.content, round(hit.strength, 2))

The server's API key comes from ``api_key`` or ``REMNANT_API_KEY``; a server in ``--no-auth`` mode
needs none. Writes that create or change memories take ``idempotency_key``: sent again with the
same arguments, the server answers as the first time and writes nothing.

Transient failures are retried (``retries``, default 2, with exponential back-off or the server's
``Retry-After``): a request that never reached the server (connection refused), and a 429, 502, 503
or 504 answer or a lost answer to a request that is safe to send again: a read (GET) or a write that
carries an ``idempotency_key``. A write without a key is never sent twice, since its first attempt
may have been applied; give it a key to make it retryable.

This module speaks HTTP only: it imports no server code.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar, Unpack

from remnant.core.audit import AuditEntry, ChainVerification
from remnant.core.errors import (
    AuthenticationError,
    ConfirmationRequired,
    ConflictError,
    DecayModeMismatch,
    NotFoundError,
    PermissionDeniedError,
    RemnantError,
    ServiceError,
    StoreError,
    TransientConflict,
    ValidationError,
)
from remnant.core.extras import needs
from remnant.core.limits import DEFAULT_RECALL_LIMIT
from remnant.core.model import Kind, MemoryRecord, Status, record_from_fields
from remnant.core.settings import read
from remnant.engine.options import Message, RecallFilters, UpdateOptions, WriteItem, WriteOptions
from remnant.engine.results import (
    AddResult,
    ErasureReport,
    FadedHint,
    ForgetIntent,
    ForgetMatch,
    ForgetResult,
    Hit,
    RecallResult,
    SweepReport,
    SweepStep,
)
from remnant.store.base import UserSummary

with needs("remnant.Client", "client"):
    import httpx

__all__ = ["DEFAULT_URL", "AsyncClient", "Client"]

DEFAULT_URL = "http://127.0.0.1:8420"
T = TypeVar("T")
Messages = str | Message | Mapping[str, Any] | Sequence[Message | Mapping[str, Any] | str]


# -- parsing the server's JSON into the engine's types ----------------------------------------------
def _time(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


_RECORD_FIELDS = frozenset(MemoryRecord.__slots__)  # type: ignore[attr-defined]


def record_from(data: Mapping[str, Any]) -> MemoryRecord:
    """A :class:`MemoryRecord` from the server's JSON (a memory, or a hit's memory)."""
    return record_from_fields({k: v for k, v in data.items() if k in _RECORD_FIELDS}, _time)


def _recall_from(data: Mapping[str, Any]) -> RecallResult:
    hits = [
        Hit(record_from(h["memory"]), float(h["score"]), float(h["strength"]), bool(h.get("earlier", False)))
        for h in data["hits"]
    ]
    faded = [
        FadedHint(f["id"], f["kind"], f["key"], f["reason"], _time(f["since"]), float(f["strength"]))
        for f in data["faded"]
    ]
    return RecallResult(data["query"], hits, faded)


def _add_from(data: Mapping[str, Any]) -> AddResult:
    return AddResult(
        episodes=[record_from(r) for r in data["episodes"]],
        facts=[record_from(r) for r in data["facts"]],
        reasons={k: list(v) for k, v in data["reasons"].items()},
        duplicates=[str(i) for i in data.get("duplicates") or []],
    )


def _forget_from(data: Mapping[str, Any]) -> ForgetResult:
    i = data["intent"]
    intent = ForgetIntent(
        hard=i["hard"],
        topics=tuple(i["topics"]),
        kinds=tuple(Kind(k) for k in i["kinds"]),
        pii_types=tuple(i["pii_types"]),
        terms=tuple(i["terms"]),
        everything=i["everything"],
        lang=i["lang"],
        scopes=tuple(i["scopes"]),
        when=i["when"],
        qualifiers=tuple(i["qualifiers"]),
        keep_terms=tuple(i.get("keep_terms", ())),
        keep_qualifiers=tuple(i.get("keep_qualifiers", ())),
        version=i.get("version"),
        facet=bool(i.get("facet", False)),
        about_self=bool(i.get("about_self", False)),
        values=tuple(i.get("values", ())),
        value_kind=i.get("value_kind"),
        exact=bool(i.get("exact", False)),
        any_of=tuple(tuple(g) for g in i.get("any_of", ())),
        measures=tuple(i.get("measures", ())),
        keep_measures=tuple(i.get("keep_measures", ())),
        keep_topics=tuple(i.get("keep_topics", ())),
    )
    matches = [
        ForgetMatch(
            m["id"],
            m["kind"],
            m["key"],
            m["status"],
            m["pinned"],
            m["why"],
            m.get("content"),
            bool(m.get("part", False)),
            m.get("new_content"),
            bool(m.get("tentative", False)),
        )
        for m in data["matches"]
    ]
    return ForgetResult(
        data["user_id"],
        intent,
        data["action"],
        data["dry_run"],
        matches=matches,
        forgotten=list(data["forgotten"]),
        rewritten=list(data["rewritten"]),
        skipped_pinned=list(data["skipped_pinned"]),
        vault_entries_forgotten=data["vault_entries_forgotten"],
        total_memories=data["total_memories"],
        message=data["message"],
        batch_id=data["batch_id"],
        audit_seq=data["audit_seq"],
    )


def _sweep_from(data: Mapping[str, Any]) -> SweepReport:
    steps = [SweepStep(s["action"], s["policy"], s["count"], list(s["ids"])) for s in data["steps"]]
    at = _time(data["at"])
    assert at is not None
    return SweepReport(data["batch_id"], at, data["dry_run"], steps, data["skipped"])


def _erasure_from(data: Mapping[str, Any]) -> ErasureReport:
    at = _time(data["at"])
    assert at is not None
    return ErasureReport(
        data["tenant"],
        data["user_id"],
        at,
        dict(data["removed"]),
        data["vault_entries_removed"],
        dict(data["checks"]),
        data["audit_seq"],
    )


def _audit_from(e: Mapping[str, Any]) -> AuditEntry:
    at = _time(e["at"])
    assert at is not None
    return AuditEntry(
        e["seq"],
        e["tenant"],
        at,
        e["actor"],
        e["action"],
        e["reason"],
        e["user_id"],
        e["policy"],
        e["batch_id"],
        tuple(e["memory_ids"]),
        e["summary"],
        dict(e["details"]),
        e["prev_hash"],
        e["hash"],
    )


def _current(history: list[MemoryRecord]) -> MemoryRecord | None:
    live = [r for r in history if r.status == Status.ACTIVE]
    return live[-1] if live else None


def _records(data: Mapping[str, Any]) -> list[MemoryRecord]:
    return [record_from(r) for r in data["items"]]


# -- errors ------------------------------------------------------------------------------------------
def error_from(status: int, body: Any) -> RemnantError:
    """The :mod:`remnant.core.errors` exception for a server's error answer."""
    err = body.get("error") if isinstance(body, Mapping) else None
    code = str(err.get("code", "")) if isinstance(err, Mapping) else ""
    message = str(err.get("message", "")) if isinstance(err, Mapping) else f"HTTP {status}"
    message = message or f"HTTP {status} {code}".strip()
    details = err.get("details") if isinstance(err, Mapping) else None
    if status == 401:
        return AuthenticationError(message)
    if status == 403:
        return PermissionDeniedError(message)
    if status == 404:
        return NotFoundError(message)
    if status == 409:
        if code == "confirmation_required":
            d = details if isinstance(details, Mapping) else {}
            return ConfirmationRequired(
                message, matched=int(d.get("matched", 0)), total=int(d.get("total", 0))
            )
        if code == "decay_mode_mismatch":
            return DecayModeMismatch(message)
        return ConflictError(message)
    if status in (400, 413, 422) or 400 <= status < 500:
        return ValidationError(message)
    if code == "transient_conflict":
        return TransientConflict(message)
    if code == "store_unavailable":
        return StoreError(message)
    return ServiceError(message, code=code or "internal", status=status)


# -- requests ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Req(Generic[T]):
    """One REST call and how to read its answer."""

    method: str
    path: str
    parse: Callable[[Any], T]
    json: Any = None
    params: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (Kind, Status)):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


def _idem(key: str | None) -> dict[str, str]:
    return {"Idempotency-Key": key} if key is not None else {}


def _item(content: str, user_id: str, options: Mapping[str, Any]) -> dict[str, Any]:
    body = {"content": content, "user_id": user_id}
    for k, v in options.items():
        if k == "redact":
            raise ValidationError("the server always redacts; redact is not an option over REST")
        if k == "ttl" and v is not None and not isinstance(v, str):
            raise ValidationError("over REST a ttl is a string such as '7d' (or give expires_at)")
        body[k] = v
    return _jsonable(body)  # type: ignore[no-any-return]


def _message(m: Message | Mapping[str, Any] | str) -> dict[str, Any]:
    parsed = Message.parse(m)
    out: dict[str, Any] = {"role": parsed.role, "content": parsed.content}
    if parsed.name is not None:
        out["name"] = parsed.name
    return out


class _Calls:
    """The verbs as requests, shared by :class:`Client` and :class:`AsyncClient`."""

    @staticmethod
    def remember(
        content: str, user_id: str, supersede: bool, key_: str | None, options: Mapping[str, Any]
    ) -> _Req[MemoryRecord]:
        body = {**_item(content, user_id, options), "supersede": supersede}
        return _Req("POST", "/v1/memories", record_from, body, headers=_idem(key_))

    @staticmethod
    def remember_many(
        items: Sequence[WriteItem | Mapping[str, Any]], supersede: bool, key_: str | None
    ) -> _Req[list[MemoryRecord]]:
        batch = []
        for it in items:
            opts = dict(it)
            content, user = opts.pop("content", None), opts.pop("user_id", None)
            if not isinstance(content, str) or not isinstance(user, str):
                raise ValidationError("each item needs a content and a user_id string")
            batch.append(_item(content, user, opts))
        body = {"items": batch, "supersede": supersede}
        return _Req("POST", "/v1/memories/batch", _records, body, headers=_idem(key_))

    @staticmethod
    def add(
        messages: Messages,
        user_id: str,
        session_id: str | None,
        agent_id: str | None,
        infer: bool,
        metadata: Mapping[str, Any] | None,
        key_: str | None,
        occurred_at: datetime | None = None,
    ) -> _Req[AddResult]:
        if isinstance(messages, (str, Message, Mapping)):
            messages = [messages]
        body: dict[str, Any] = {
            "messages": [_message(m) for m in messages],
            "user_id": user_id,
            "infer": infer,
        }
        for name, value in (
            ("session_id", session_id),
            ("agent_id", agent_id),
            ("metadata", metadata),
            ("occurred_at", occurred_at),
        ):
            if value is not None:
                body[name] = _jsonable(value)
        return _Req("POST", "/v1/ingest", _add_from, body, headers=_idem(key_))

    @staticmethod
    def recall(
        query: str, user_id: str, limit: int, touch: bool, hints: bool, filters: Mapping[str, Any]
    ) -> _Req[RecallResult]:
        body = {"query": query, "user_id": user_id, "limit": limit, "touch": touch, "hints": hints}
        body.update({k: _jsonable(v) for k, v in filters.items() if v is not None})
        return _Req("POST", "/v1/recall", _recall_from, body)

    @staticmethod
    def update(memory_id: str, changes: Mapping[str, Any], key_: str | None) -> _Req[MemoryRecord]:
        if "redact" in changes:
            raise ValidationError("the server always redacts; redact is not an option over REST")
        ttl = changes.get("ttl")
        if ttl is not None and not isinstance(ttl, str):
            raise ValidationError("over REST a ttl is a string such as '7d' (or give expires_at)")
        return _Req(
            "PATCH",
            f"/v1/memories/{_seg(memory_id)}",
            record_from,
            _jsonable(dict(changes)),
            headers=_idem(key_),
        )

    @staticmethod
    def get(memory_id: str) -> _Req[MemoryRecord]:
        return _Req("GET", f"/v1/memories/{_seg(memory_id)}", record_from)

    @staticmethod
    def strength(memory_id: str) -> _Req[float]:
        return _Req("GET", f"/v1/memories/{_seg(memory_id)}", lambda d: float(d["strength"]))

    @staticmethod
    def verb(memory_id: str, verb: str, body: Any = None, key_: str | None = None) -> _Req[MemoryRecord]:
        return _Req("POST", f"/v1/memories/{_seg(memory_id)}/{verb}", record_from, body, headers=_idem(key_))

    @staticmethod
    def purge(memory_id: str, force: bool) -> _Req[int]:
        params = {"force": "true"} if force else None
        return _Req("DELETE", f"/v1/memories/{_seg(memory_id)}", lambda d: int(d["purged"]), params=params)

    @staticmethod
    def list_memories(
        user_id: str | None,
        statuses: Sequence[Status | str] | None,
        kinds: Sequence[Kind | str] | None,
        key: str | None,
        limit: int,
        offset: int,
    ) -> _Req[list[MemoryRecord]]:
        params: dict[str, Any] = {"limit": limit, "offset": offset}
        if user_id is not None:
            params["user_id"] = user_id
        if statuses:
            params["status"] = [str(s) for s in statuses]
        if kinds:
            params["kind"] = [str(k) for k in kinds]
        if key is not None:
            params["key"] = key
        return _Req("GET", "/v1/memories", _records, params=params)

    @staticmethod
    def count_memories(
        user_id: str | None,
        statuses: Sequence[Status | str] | None,
        kinds: Sequence[Kind | str] | None,
        key: str | None,
    ) -> _Req[int]:
        req = _Calls.list_memories(user_id, statuses, kinds, key, 1, 0)
        return _Req("GET", req.path, lambda d: int(d["total"]), params=req.params)

    @staticmethod
    def history(key: str, user_id: str, turns: bool = False) -> _Req[list[MemoryRecord]]:
        params: dict[str, Any] = {"key": key, "user_id": user_id}
        if turns:
            params["turns"] = "true"
        return _Req("GET", "/v1/history", _records, params=params)

    @staticmethod
    def used(ids: str | Sequence[str], key_: str | None) -> _Req[list[MemoryRecord]]:
        body = {"ids": [ids] if isinstance(ids, str) else list(ids)}
        return _Req("POST", "/v1/used", _records, body, headers=_idem(key_))

    @staticmethod
    def forget(
        target: str, user_id: str | None, hard: bool, dry_run: bool, confirm: bool
    ) -> _Req[ForgetResult]:
        body: dict[str, Any] = {"request": target, "hard": hard, "dry_run": dry_run, "confirm": confirm}
        if user_id is not None:
            body["user_id"] = user_id
        return _Req("POST", "/v1/forget", _forget_from, body)

    @staticmethod
    def sweep(dry_run: bool) -> _Req[SweepReport]:
        return _Req("POST", "/v1/sweep", _sweep_from, {"dry_run": dry_run})

    @staticmethod
    def erase_user(user_id: str) -> _Req[ErasureReport]:
        return _Req("POST", "/v1/erasure", _erasure_from, {"user_id": user_id, "confirm": True})

    @staticmethod
    def audit_log(
        user_id: str | None, since_seq: int, limit: int | None, action: str | None
    ) -> _Req[list[AuditEntry]]:
        params: dict[str, Any] = {"since_seq": since_seq, "limit": limit or 1000}
        if user_id is not None:
            params["user_id"] = user_id
        if action is not None:
            params["action"] = action
        return _Req("GET", "/v1/audit", lambda d: [_audit_from(e) for e in d["items"]], params=params)

    @staticmethod
    def verify_audit() -> _Req[ChainVerification]:
        return _Req(
            "GET",
            "/v1/audit/verify",
            lambda d: ChainVerification(d["ok"], d["checked"], d["first_bad_seq"], d["problem"]),
        )

    @staticmethod
    def audit_anchor() -> _Req[dict[str, Any]]:
        return _Req("GET", "/v1/audit/anchor", lambda d: dict(d))

    @staticmethod
    def stats(user_id: str | None) -> _Req[dict[str, Any]]:
        params = {"user_id": user_id} if user_id is not None else None
        return _Req(
            "GET",
            "/v1/stats",
            lambda d: {k: v for k, v in d.items() if v is not None or k == "user_id"},
            params=params,
        )

    @staticmethod
    def users(limit: int) -> _Req[list[UserSummary]]:
        return _Req(
            "GET",
            "/v1/users",
            lambda d: [UserSummary(u["user_id"], u["total"], u["active"]) for u in d["items"]],
            params={"limit": limit},
        )

    @staticmethod
    def rehydrate(memory_id: str) -> _Req[str]:
        return _Req("POST", f"/v1/memories/{_seg(memory_id)}/rehydrate", lambda d: str(d["content"]))

    @staticmethod
    def plain(method: str, path: str) -> _Req[dict[str, Any]]:
        return _Req(method, path, dict)


def _seg(memory_id: str) -> str:
    """A memory id as one path segment (an id with a slash must not reach another route)."""
    if not isinstance(memory_id, str) or not memory_id:
        raise ValidationError("memory id must be a non-empty string")
    from urllib.parse import quote

    return quote(memory_id, safe="")


def _headers(api_key: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    key = api_key if api_key is not None else read("REMNANT_API_KEY")
    headers = {"Accept": "application/json", "User-Agent": "remnant-python-client"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    headers.update(extra or {})
    return headers


def _answer(req: _Req[T], response: httpx.Response) -> T:
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = None
    if response.status_code >= 400:
        raise error_from(response.status_code, body)
    return req.parse(body)


RETRY_STATUSES = frozenset({429, 502, 503, 504})
MAX_RETRY_DELAY_S = 5.0


def _resendable(req: _Req[Any]) -> bool:
    """Whether sending ``req`` twice does what sending it once does."""
    return req.method in ("GET", "HEAD") or "Idempotency-Key" in req.headers


def _retry_after(
    req: _Req[Any], attempt: int, retries: int, response: httpx.Response | None, exc: Exception | None
) -> float | None:
    """Seconds to wait before sending ``req`` again, or None to give up now."""
    if attempt >= retries:
        return None
    if exc is not None:  # never sent: always safe; sent and lost: only if resendable
        if not (isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)) or _resendable(req)):
            return None
    elif response is None or response.status_code not in RETRY_STATUSES or not _resendable(req):
        return None
    hinted = response.headers.get("Retry-After") if response is not None else None
    if hinted is not None:
        try:
            return min(MAX_RETRY_DELAY_S, max(0.0, float(hinted)))
        except ValueError:
            pass
    # full jitter, so many clients failed at once do not come back at once
    return min(MAX_RETRY_DELAY_S, 0.2 * 2**attempt) * random.uniform(0.5, 1.0)


def _check_retries(retries: int) -> int:
    if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
        raise ValidationError("retries must be an integer from 0 to 10")
    return retries


def _unreachable(base: str, exc: httpx.HTTPError) -> ServiceError:
    return ServiceError(f"cannot reach the Remnant server at {base}: {exc}", code="unreachable", status=0)


class Client:
    """A Remnant server's memory, with :class:`~remnant.engine.Memory`'s verbs (synchronous)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        retries: int = 2,
    ) -> None:
        self.base_url = (base_url or read("REMNANT_URL") or DEFAULT_URL).rstrip("/")
        self.retries = _check_retries(retries)
        self._http = httpx.Client(
            base_url=self.base_url, headers=_headers(api_key, headers), timeout=timeout, transport=transport
        )

    def _run(self, req: _Req[T]) -> T:
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    req.method, req.path, json=req.json, params=req.params, headers=dict(req.headers)
                )
            except httpx.HTTPError as exc:
                delay = _retry_after(req, attempt, self.retries, None, exc)
                if delay is None:
                    raise _unreachable(self.base_url, exc) from exc
            else:
                delay = _retry_after(req, attempt, self.retries, response, None)
                if delay is None:
                    return _answer(req, response)
            time.sleep(delay)
            attempt += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------------
    def remember(
        self,
        content: str,
        *,
        user_id: str,
        supersede: bool = True,
        idempotency_key: str | None = None,
        tags: Sequence[str] | None = None,
        **options: Unpack[WriteOptions],
    ) -> MemoryRecord:
        """Store a memory (see :meth:`Memory.remember`); ``tags`` go to ``metadata["tags"]``."""
        opts: dict[str, Any] = {**options, **({"tags": list(tags)} if tags is not None else {})}
        return self._run(_Calls.remember(content, user_id, supersede, idempotency_key, opts))

    def remember_many(
        self,
        items: Sequence[WriteItem | Mapping[str, Any]],
        *,
        supersede: bool = True,
        idempotency_key: str | None = None,
    ) -> list[MemoryRecord]:
        """Store many memories in one transaction: all of them or none."""
        return self._run(_Calls.remember_many(items, supersede, idempotency_key))

    def add(
        self,
        messages: Messages,
        *,
        user_id: str,
        session_id: str | None = None,
        agent_id: str | None = None,
        infer: bool = True,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        occurred_at: datetime | None = None,
    ) -> AddResult:
        """Remember a conversation (see :meth:`Memory.add`)."""
        return self._run(
            _Calls.add(messages, user_id, session_id, agent_id, infer, metadata, idempotency_key, occurred_at)
        )

    def update(
        self, memory_id: str, *, idempotency_key: str | None = None, **changes: Unpack[UpdateOptions]
    ) -> MemoryRecord:
        """Change a memory in place (see :meth:`Memory.update`)."""
        return self._run(_Calls.update(memory_id, changes, idempotency_key))

    # -- reading -------------------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        user_id: str,
        limit: int = DEFAULT_RECALL_LIMIT,
        touch: bool = True,
        hints: bool = True,
        **filters: Unpack[RecallFilters],
    ) -> RecallResult:
        """What the user still remembers about ``query`` (see :meth:`Memory.recall`)."""
        return self._run(_Calls.recall(query, user_id, limit, touch, hints, filters))

    def get(self, memory_id: str) -> MemoryRecord:
        return self._run(_Calls.get(memory_id))

    def strength(self, memory_id: str) -> float:
        """The memory's strength now."""
        return self._run(_Calls.strength(memory_id))

    def list_memories(
        self,
        user_id: str | None = None,
        *,
        statuses: Sequence[Status | str] | None = None,
        kinds: Sequence[Kind | str] | None = None,
        key: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        """Memories in any status, newest first, for inspection."""
        return self._run(_Calls.list_memories(user_id, statuses, kinds, key, limit, offset))

    def count_memories(
        self,
        user_id: str | None = None,
        *,
        statuses: Sequence[Status | str] | None = None,
        kinds: Sequence[Kind | str] | None = None,
        key: str | None = None,
    ) -> int:
        return self._run(_Calls.count_memories(user_id, statuses, kinds, key))

    def history(self, key: str, *, user_id: str, turns: bool = False) -> list[MemoryRecord]:
        return self._run(_Calls.history(key, user_id, turns))

    def current(self, key: str, *, user_id: str) -> MemoryRecord | None:
        """The user's active memory under ``key``, if any."""
        return _current(self._run(_Calls.history(key, user_id)))

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        return self._run(_Calls.stats(user_id))

    def users(self, *, limit: int = 1000) -> list[UserSummary]:
        return self._run(_Calls.users(limit))

    def rehydrate(self, memory_id: str) -> str:
        """Privileged (the key needs the vault scope): the text with its personal data restored."""
        return self._run(_Calls.rehydrate(memory_id))

    def curve(self, memory_id: str) -> dict[str, Any]:
        """The memory's decay curve (past, projected, events), as the inspector draws it."""
        return self._run(_Calls.plain("GET", f"/v1/memories/{_seg(memory_id)}/curve"))

    def whoami(self) -> dict[str, Any]:
        return self._run(_Calls.plain("GET", "/v1/whoami"))

    def ready(self) -> bool:
        """Whether the server is ready (its store answers and its vault key opens the vault)."""
        try:
            return self._http.get("/readyz").status_code == 200
        except httpx.HTTPError:
            return False

    # -- reinforcing ---------------------------------------------------------------------------------
    def review(self, memory_id: str, *, idempotency_key: str | None = None) -> MemoryRecord:
        return self._run(_Calls.verb(memory_id, "review", key_=idempotency_key))

    def used(
        self, memory_ids: str | Sequence[str], *, idempotency_key: str | None = None
    ) -> list[MemoryRecord]:
        return self._run(_Calls.used(memory_ids, idempotency_key))

    def pin(self, memory_id: str) -> MemoryRecord:
        return self._run(_Calls.verb(memory_id, "pin"))

    def unpin(self, memory_id: str) -> MemoryRecord:
        return self._run(_Calls.verb(memory_id, "unpin"))

    # -- forgetting ----------------------------------------------------------------------------------
    def hide(self, memory_ids: str | Sequence[str], *, reason: str = "hidden on request") -> list[str]:
        """Hide memories (reversible); returns the ids hidden."""
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        return [
            r.id
            for r in (self._run(_Calls.verb(i, "hide", {"reason": reason})) for i in ids)
            if r.status == Status.HIDDEN
        ]

    def unhide(self, memory_id: str) -> MemoryRecord:
        return self._run(_Calls.verb(memory_id, "unhide"))

    def purge(self, memory_ids: str | Sequence[str], *, force: bool = False) -> int:
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        return sum(self._run(_Calls.purge(i, force)) for i in ids)

    def forget(
        self,
        target: str,
        *,
        user_id: str | None = None,
        hard: bool = False,
        dry_run: bool = False,
        confirm: bool = False,
    ) -> ForgetResult:
        """Forget by id or by a request in words (see :meth:`Memory.forget`)."""
        return self._run(_Calls.forget(target, user_id, hard, dry_run, confirm))

    def sweep(self, *, dry_run: bool = False) -> SweepReport:
        return self._run(_Calls.sweep(dry_run))

    def erase_user(self, user_id: str) -> ErasureReport:
        """Right to be forgotten: everything of the user, for good."""
        return self._run(_Calls.erase_user(user_id))

    # -- audit ---------------------------------------------------------------------------------------
    def audit_log(
        self,
        *,
        user_id: str | None = None,
        since_seq: int = 0,
        limit: int | None = None,
        action: str | None = None,
    ) -> list[AuditEntry]:
        return self._run(_Calls.audit_log(user_id, since_seq, limit, action))

    def verify_audit(self) -> ChainVerification:
        return self._run(_Calls.verify_audit())

    def audit_anchor(self) -> dict[str, Any]:
        """The tenant's audit head (see :meth:`remnant.engine.Memory.audit_anchor`)."""
        return self._run(_Calls.audit_anchor())


class AsyncClient:
    """A Remnant server's memory, with :class:`~remnant.engine.Memory`'s verbs (``async``)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retries: int = 2,
    ) -> None:
        self.base_url = (base_url or read("REMNANT_URL") or DEFAULT_URL).rstrip("/")
        self.retries = _check_retries(retries)
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=_headers(api_key, headers), timeout=timeout, transport=transport
        )

    async def _run(self, req: _Req[T]) -> T:
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    req.method, req.path, json=req.json, params=req.params, headers=dict(req.headers)
                )
            except httpx.HTTPError as exc:
                delay = _retry_after(req, attempt, self.retries, None, exc)
                if delay is None:
                    raise _unreachable(self.base_url, exc) from exc
            else:
                delay = _retry_after(req, attempt, self.retries, response, None)
                if delay is None:
                    return _answer(req, response)
            await asyncio.sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def remember(
        self,
        content: str,
        *,
        user_id: str,
        supersede: bool = True,
        idempotency_key: str | None = None,
        tags: Sequence[str] | None = None,
        **options: Unpack[WriteOptions],
    ) -> MemoryRecord:
        opts: dict[str, Any] = {**options, **({"tags": list(tags)} if tags is not None else {})}
        return await self._run(_Calls.remember(content, user_id, supersede, idempotency_key, opts))

    async def remember_many(
        self,
        items: Sequence[WriteItem | Mapping[str, Any]],
        *,
        supersede: bool = True,
        idempotency_key: str | None = None,
    ) -> list[MemoryRecord]:
        return await self._run(_Calls.remember_many(items, supersede, idempotency_key))

    async def add(
        self,
        messages: Messages,
        *,
        user_id: str,
        session_id: str | None = None,
        agent_id: str | None = None,
        infer: bool = True,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        occurred_at: datetime | None = None,
    ) -> AddResult:
        return await self._run(
            _Calls.add(messages, user_id, session_id, agent_id, infer, metadata, idempotency_key, occurred_at)
        )

    async def update(
        self, memory_id: str, *, idempotency_key: str | None = None, **changes: Unpack[UpdateOptions]
    ) -> MemoryRecord:
        return await self._run(_Calls.update(memory_id, changes, idempotency_key))

    async def recall(
        self,
        query: str,
        *,
        user_id: str,
        limit: int = DEFAULT_RECALL_LIMIT,
        touch: bool = True,
        hints: bool = True,
        **filters: Unpack[RecallFilters],
    ) -> RecallResult:
        return await self._run(_Calls.recall(query, user_id, limit, touch, hints, filters))

    async def get(self, memory_id: str) -> MemoryRecord:
        return await self._run(_Calls.get(memory_id))

    async def strength(self, memory_id: str) -> float:
        return await self._run(_Calls.strength(memory_id))

    async def list_memories(
        self,
        user_id: str | None = None,
        *,
        statuses: Sequence[Status | str] | None = None,
        kinds: Sequence[Kind | str] | None = None,
        key: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        return await self._run(_Calls.list_memories(user_id, statuses, kinds, key, limit, offset))

    async def count_memories(
        self,
        user_id: str | None = None,
        *,
        statuses: Sequence[Status | str] | None = None,
        kinds: Sequence[Kind | str] | None = None,
        key: str | None = None,
    ) -> int:
        return await self._run(_Calls.count_memories(user_id, statuses, kinds, key))

    async def history(self, key: str, *, user_id: str, turns: bool = False) -> list[MemoryRecord]:
        return await self._run(_Calls.history(key, user_id, turns))

    async def current(self, key: str, *, user_id: str) -> MemoryRecord | None:
        return _current(await self._run(_Calls.history(key, user_id)))

    async def stats(self, user_id: str | None = None) -> dict[str, Any]:
        return await self._run(_Calls.stats(user_id))

    async def users(self, *, limit: int = 1000) -> list[UserSummary]:
        return await self._run(_Calls.users(limit))

    async def rehydrate(self, memory_id: str) -> str:
        return await self._run(_Calls.rehydrate(memory_id))

    async def curve(self, memory_id: str) -> dict[str, Any]:
        return await self._run(_Calls.plain("GET", f"/v1/memories/{_seg(memory_id)}/curve"))

    async def whoami(self) -> dict[str, Any]:
        return await self._run(_Calls.plain("GET", "/v1/whoami"))

    async def ready(self) -> bool:
        try:
            return (await self._http.get("/readyz")).status_code == 200
        except httpx.HTTPError:
            return False

    async def review(self, memory_id: str, *, idempotency_key: str | None = None) -> MemoryRecord:
        return await self._run(_Calls.verb(memory_id, "review", key_=idempotency_key))

    async def used(
        self, memory_ids: str | Sequence[str], *, idempotency_key: str | None = None
    ) -> list[MemoryRecord]:
        return await self._run(_Calls.used(memory_ids, idempotency_key))

    async def pin(self, memory_id: str) -> MemoryRecord:
        return await self._run(_Calls.verb(memory_id, "pin"))

    async def unpin(self, memory_id: str) -> MemoryRecord:
        return await self._run(_Calls.verb(memory_id, "unpin"))

    async def hide(self, memory_ids: str | Sequence[str], *, reason: str = "hidden on request") -> list[str]:
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        out = []
        for i in ids:
            r = await self._run(_Calls.verb(i, "hide", {"reason": reason}))
            if r.status == Status.HIDDEN:
                out.append(r.id)
        return out

    async def unhide(self, memory_id: str) -> MemoryRecord:
        return await self._run(_Calls.verb(memory_id, "unhide"))

    async def purge(self, memory_ids: str | Sequence[str], *, force: bool = False) -> int:
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        total = 0
        for i in ids:
            total += await self._run(_Calls.purge(i, force))
        return total

    async def forget(
        self,
        target: str,
        *,
        user_id: str | None = None,
        hard: bool = False,
        dry_run: bool = False,
        confirm: bool = False,
    ) -> ForgetResult:
        return await self._run(_Calls.forget(target, user_id, hard, dry_run, confirm))

    async def sweep(self, *, dry_run: bool = False) -> SweepReport:
        return await self._run(_Calls.sweep(dry_run))

    async def erase_user(self, user_id: str) -> ErasureReport:
        return await self._run(_Calls.erase_user(user_id))

    async def audit_log(
        self,
        *,
        user_id: str | None = None,
        since_seq: int = 0,
        limit: int | None = None,
        action: str | None = None,
    ) -> list[AuditEntry]:
        return await self._run(_Calls.audit_log(user_id, since_seq, limit, action))

    async def verify_audit(self) -> ChainVerification:
        return await self._run(_Calls.verify_audit())

    async def audit_anchor(self) -> dict[str, Any]:
        """The tenant's audit head (see :meth:`remnant.engine.Memory.audit_anchor`)."""
        return await self._run(_Calls.audit_anchor())
