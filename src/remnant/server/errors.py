"""One error shape for every failure: ``{"error": {"code": ..., "message": ..., "details"?: ...}}``.

Bad input of any kind (malformed JSON, wrong types, unknown ids, oversized bodies, missing keys)
answers with a 4xx and this body. A server-side fault answers 5xx with a code that names the part
that failed (``store_unavailable``, ``vault_key``, ``redaction_failed``, ``embedder_failed``); a
plain 500 ``internal`` means a bug in Remnant. Never a 5xx for the request's fault.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from remnant.core.errors import (
    BudgetExceeded,
    ConfirmationRequired,
    ConflictError,
    DecayModeMismatch,
    NotFoundError,
    RemnantError,
    ServiceError,
    StoreError,
    TransientConflict,
    ValidationError,
)
from remnant.embed.base import EmbeddingError
from remnant.server.auth import AuthError, ForbiddenError
from remnant.server.idempotency import IdempotencyKeyReused

log = logging.getLogger("remnant.server")

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid",
    429: "too_many_requests",
    500: "internal",
    503: "unavailable",
}


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        err["details"] = details
    return {"error": err}


def error_response(status: int, code: str, message: str, details: Any = None) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(error_body(code, message, details), status_code=status, headers=headers)


def remnant_status(exc: RemnantError) -> tuple[int, str, Any]:
    """HTTP status, error code and details for a Remnant error: 4xx for the request's fault, 5xx
    (with a code saying which part failed) for the server's own."""
    from remnant.privacy.errors import (
        PrivacyError,
        RedactionError,
        VaultCorruptError,
        VaultKeyError,
        VaultNotFoundError,
    )

    if isinstance(exc, IdempotencyKeyReused):
        return 422, "idempotency_key_reused", None
    if isinstance(exc, VaultKeyError):
        return 503, "vault_key", None
    if isinstance(exc, RedactionError):
        return 503, "redaction_failed", None
    if isinstance(exc, VaultCorruptError):
        return 500, "vault_corrupt", None
    if isinstance(exc, VaultNotFoundError):
        return 409, "vault_entry_missing", None
    if isinstance(exc, PrivacyError):
        return 503, "privacy_unavailable", None
    if isinstance(exc, EmbeddingError):
        return 503, "embedder_failed", None
    if isinstance(exc, BudgetExceeded):
        return 503, "time_budget_exceeded", None
    if isinstance(exc, ServiceError):
        return exc.status, exc.code, None
    if isinstance(exc, AuthError):
        return 401, "unauthorized", None
    if isinstance(exc, ForbiddenError):
        return 403, "forbidden", None
    if isinstance(exc, ValidationError):
        return 422, "invalid", None
    if isinstance(exc, NotFoundError):
        return 404, "not_found", None
    if isinstance(exc, ConfirmationRequired):
        details: dict[str, Any] = {"matched": exc.matched, "total": exc.total}
        if exc.ids:
            details["ids"] = exc.ids
        return 409, "confirmation_required", details
    if isinstance(exc, ConflictError):
        return 409, "conflict", None
    if isinstance(exc, DecayModeMismatch):
        return 409, "decay_mode_mismatch", None
    if isinstance(exc, TransientConflict):
        return 503, "transient_conflict", None
    if isinstance(exc, StoreError):
        return 503, "store_unavailable", None
    return 400, "bad_request", None


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _leaf_routes(routes: Any) -> Any:
    """The routes inside included routers too (FastAPI wraps each included router in one route)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _leaf_routes(inner.routes)
        else:
            yield route


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path. Starlette's 405 names only the methods of the
    first route that matched the path, while GET and POST of one path are often two routes."""
    from starlette.routing import Match

    static: list[str] = []  # served by a route without path parameters (/v1/memories/search/)
    dynamic: list[str] = []  # ... or only by one that takes the path as a parameter ({memory_id})
    routes = list(_leaf_routes(request.app.router.routes))
    for method in _METHODS:
        probe = {**request.scope, "method": method}
        for route in routes:
            match, child = route.matches(probe)
            if match == Match.FULL:
                (dynamic if child.get("path_params") else static).append(method)
                break
    # a literal path names its own resource: list what that resource does, not what a
    # parameterised route would make of the same characters
    return static or dynamic


def _clean_validation(errors: list[Any]) -> list[dict[str, Any]]:
    out = []
    for e in errors[:20]:
        loc = [str(p) for p in e.get("loc", ())]
        out.append({"loc": loc, "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))})
    return out


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RemnantError)
    async def _remnant(request: Request, exc: RemnantError) -> JSONResponse:
        status, code, details = remnant_status(exc)
        return error_response(status, code, str(exc), details)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(400, "malformed_json", "the request body is not valid JSON")
        return error_response(
            422, "invalid", "the request does not match the expected shape", _clean_validation(errors)
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        resp = error_response(exc.status_code, code, message)
        if exc.headers:
            resp.headers.update(exc.headers)
        if exc.status_code == 405:
            allowed = allowed_methods(request)
            if allowed:
                resp.headers["Allow"] = ", ".join(allowed)
        return resp

    @app.exception_handler(OverflowError)
    async def _overflow(request: Request, exc: OverflowError) -> JSONResponse:
        # e.g. a ttl of 10^11 days: a date past year 9999 (the core's duration parser lets it through)
        return error_response(422, "invalid", "a value is out of range (a date or duration too large)")

    @app.exception_handler(RecursionError)
    async def _deep(request: Request, exc: RecursionError) -> JSONResponse:
        return error_response(400, "bad_request", "the request body is nested too deeply")

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.error(
            "unhandled error",
            extra={"event": "error", "path": request.url.path, "error": type(exc).__name__},
            exc_info=exc,
        )
        return error_response(500, "internal", "internal error (a bug in Remnant; see the server log)")


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``max_bytes`` with 413, streamed or not."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = False
                    await _send_json(send, 400, error_body("bad_request", "invalid Content-Length"))
                    return
                if too_big:
                    await _send_json(send, 413, _too_large(self.max_bytes))
                    return
        # read the body up front (bounded), then replay it: a handler never sees a partial body
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body = message.get("body", b"")
            received += len(body)
            if received > self.max_bytes:
                await _send_json(send, 413, _too_large(self.max_bytes))
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _too_large(limit: int) -> dict[str, Any]:
    return error_body("payload_too_large", f"request body is larger than {limit} bytes")


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})
