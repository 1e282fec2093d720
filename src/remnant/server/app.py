"""The FastAPI application: REST under ``/v1``, MCP at ``/mcp``, the inspector at ``/``, health checks.

:func:`create_app` builds everything from a :class:`ServerConfig`; ``remnant serve`` runs it under
uvicorn, and the tests run the same app on a loopback port.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from remnant.core.budget import time_budget
from remnant.core.clock import Clock
from remnant.core.errors import RemnantError
from remnant.server.auth import SCOPES, AuthError, KeyStore, Principal, key_from_headers
from remnant.server.engines import Engines
from remnant.server.errors import (
    BodyLimit,
    error_body,
    error_response,
    install_error_handlers,
    remnant_status,
)
from remnant.server.idempotency import IdempotencyKeys
from remnant.server.logs import AccessLog
from remnant.server.schemas import ErrorBody, HealthOut
from remnant.server.sweeper import Sweeper

log = logging.getLogger("remnant.server")

DAY_SECONDS = 86_400.0


@dataclass
class ServerConfig:
    """Everything ``remnant serve`` can set. ``keys_path=None`` with ``auth=True`` uses the default file."""

    db: str | None = None
    host: str = "127.0.0.1"
    port: int = 8420
    auth: bool = True
    keys_path: str | None = None
    sweep_interval: float = DAY_SECONDS  # seconds; 0 turns the periodic sweep off
    max_body_bytes: int = 1 << 20
    mcp: bool = True
    tenant: str = "default"  # the tenant of --no-auth mode
    clock: Clock | None = None
    # seconds of CPU-heavy reading a request may take before it is given up, unwritten (503);
    # None: REMNANT_REQUEST_BUDGET (30 s by default); 0: no budget
    request_budget: float | None = None


def web_dir() -> Path:
    return Path(str(resources.files("remnant.server") / "web"))


class _McpGate:
    """In front of ``/mcp``: refuse calls without a valid key before the MCP transport sees them."""

    def __init__(self, app: ASGIApp, keys: KeyStore | None) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.keys is not None and scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            try:
                p = self.keys.authenticate(key_from_headers(headers))
                scope.setdefault("state", {})["tenant"] = p.tenant
            except AuthError as exc:
                await error_response(401, "unauthorized", str(exc))(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(config: ServerConfig | None = None, *, engines: Engines | None = None) -> FastAPI:
    """Build the server application (nothing is opened until it starts, except the key file)."""
    config = config or ServerConfig()
    engines = engines or Engines(config.db, clock=config.clock)
    keys: KeyStore | None = None
    local = local_principal(config.tenant)
    if config.auth:
        from remnant.server.auth import default_keys_path

        keys = KeyStore(config.keys_path or default_keys_path(config.db))
    sweeper = Sweeper(engines, config.sweep_interval, tenants=keys.tenants if keys else None)
    warm_tenant = config.tenant if keys is None else "default"

    mcp_server = None
    mcp_routes: list[Any] = []
    if config.mcp:
        from remnant.server.mcp_server import build_mcp_server

        mcp_server = build_mcp_server(engines, keys=keys, local=local)
        mcp_app = mcp_server.streamable_http_app(
            streamable_http_path="/mcp", stateless_http=True, json_response=True, host=config.host
        )
        from starlette.routing import Route

        for route in mcp_app.routes:
            if isinstance(route, Route) and route.path == "/mcp":
                mcp_routes.append(Route("/mcp", endpoint=_McpGate(route.app, keys), include_in_schema=False))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        log.info(
            "server starting",
            extra={
                "event": "start",
                "host": config.host,
                "port": config.port,
                "auth": config.auth,
                "sweep_interval_s": config.sweep_interval,
                "store": type(engines.store).__name__,
            },
        )
        # load the slow layers before listening, so the first request is not the one that waits
        try:
            warm_s = await anyio.to_thread.run_sync(engines.warm, warm_tenant)
            log.info("ready", extra={"event": "ready", "warm_up_s": round(warm_s, 2)})
        except RemnantError as exc:
            # a server-side fault (no vault key, the wrong one): serve anyway, so /readyz can say
            # what is wrong and every request answers 5xx with the fault's code
            log.error("not ready", extra={"event": "not_ready", "error": f"{type(exc).__name__}: {exc}"})
        sweeper.start()
        try:
            if mcp_server is not None:
                async with mcp_server.session_manager.run():
                    yield
            else:
                yield
        finally:
            await sweeper.stop()
            engines.close()
            if keys is not None:
                keys.close()
            log.info("server stopped", extra={"event": "stop"})

    app = FastAPI(
        title="Remnant",
        version=_version(),
        summary="Memory for LLM apps and agents that forgets the way people do.",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.engines = engines
    app.state.keys = keys
    app.state.local_principal = local
    app.state.config = config
    app.state.sweeper = sweeper
    clock = config.clock
    from remnant.config import audit_key

    # the fingerprints' secret comes from the audit key (outside the database) when there is one
    def signing() -> bytes | None:
        return audit_key(engines.store, create=False)

    app.state.idempotency = (
        IdempotencyKeys(engines.store, now=lambda: clock.now().timestamp(), audit_key=signing)
        if clock is not None
        else IdempotencyKeys(engines.store, audit_key=signing)
    )
    install_error_handlers(app)

    from remnant.server.rest import router

    app.include_router(router)
    from remnant.server.inspector import router as inspector_router

    app.include_router(inspector_router)  # the web inspector's read-only routes, /v1/inspector/...
    from remnant.server.mem0 import router as mem0_router

    app.include_router(mem0_router)  # trailing-slash paths: no clash with the routes above
    app.router.routes.extend(mcp_routes)

    # public on purpose (load balancers probe them without a key): declared so in the OpenAPI document
    @app.get(
        "/healthz",
        tags=["health"],
        summary="The process is alive",
        response_model=HealthOut,
        openapi_extra={"security": []},
    )
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get(
        "/readyz",
        tags=["health"],
        summary="The store answers and the vault key opens the vault",
        response_model=HealthOut,
        responses={503: {"model": ErrorBody, "description": "Not ready: the code says which part"}},
        openapi_extra={"security": []},
    )
    def readyz() -> JSONResponse:
        try:
            engines.ready(warm_tenant)
        except RemnantError as exc:
            status, code, _ = remnant_status(exc)
            if status < 500:
                code = "not_ready"
            return JSONResponse(error_body(code, f"not ready: {exc}"), status_code=503)
        except Exception as exc:
            return JSONResponse(
                error_body("not_ready", f"store unavailable: {type(exc).__name__}"), status_code=503
            )
        return JSONResponse({"status": "ready"})

    web = web_dir()

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(web / "index.html", headers=_page_headers())

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        return Response(
            '<!doctype html><meta charset="utf-8"><title>Remnant API</title>'
            '<p>The API is described by <a href="/openapi.json">/openapi.json</a> (OpenAPI 3). '
            "Load it into any OpenAPI viewer; this server loads nothing from a CDN.</p>",
            media_type="text/html",
        )

    app.mount("/ui", StaticFiles(directory=web), name="ui")

    app.add_middleware(SecurityHeaders)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
        schema.setdefault("components", {})["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer", "description": "An API key (rk_…)."},
        }
        schema["security"] = [{"bearer": []}]
        schema["info"]["description"] = (
            "Scopes: " + ", ".join(SCOPES) + '. Errors are `{"error": {"code": ..., "message": ...}}`.'
        )
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    app.add_middleware(RequestBudget, seconds=config.request_budget)
    if not config.auth:
        from remnant.server.guard import LocalOnly

        app.add_middleware(LocalOnly, bound_host=config.host)
    app.add_middleware(AccessLog)
    return app


class RequestBudget:
    """Each request's time budget (:mod:`remnant.core.budget`): a deadline the CPU-heavy steps
    check before anything is written. Plain ASGI; the deadline is a context variable, which the
    worker thread a route runs in inherits."""

    def __init__(self, app: ASGIApp, seconds: float | None = None) -> None:
        from remnant.core.settings import read

        self.app = app
        self.seconds = float(read("REMNANT_REQUEST_BUDGET") if seconds is None else seconds)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.seconds <= 0:
            await self.app(scope, receive, send)
            return
        with time_budget(self.seconds):
            await self.app(scope, receive, send)


class SecurityHeaders:
    """``X-Content-Type-Options`` and ``Referrer-Policy`` on every answer that does not set them.

    Plain ASGI: Starlette's ``@app.middleware("http")`` runs every request through a task group and
    memory streams, which cost more CPU per request than this whole header edit."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _page_headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": (
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'"
        ),
        "Cache-Control": "no-cache",
    }


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("remnant")
    except Exception:
        return "0.1.0"


def local_principal(tenant: str) -> Principal:
    return Principal(tenant, frozenset(SCOPES))


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI document, as ``/openapi.json`` serves it (built on an empty in-memory store;
    the document does not depend on the data or on the keys)."""
    app = create_app(ServerConfig(db=":memory:", auth=False, mcp=False, sweep_interval=0))
    try:
        return app.openapi()
    finally:
        app.state.engines.close()
