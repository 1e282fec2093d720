"""Structured JSON logs, one object a line. Never memory content: paths, statuses, counts, timings."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# uvicorn adds an ANSI-coloured copy of its messages; drop it from JSON
_RESERVED = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _RESERVED and not key.startswith("_"):
                out[key] = value
        if record.exc_info and record.exc_info[0] is not None:
            out["exc_type"] = record.exc_info[0].__name__
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


# Libraries that log at start-up (Presidio lists every recognizer it skips, about 150 lines) or per
# request: only their warnings and errors are worth a line.
_CHATTY = (
    "presidio-analyzer",
    "presidio_analyzer",
    "spacy",
    "mcp",
    "httpx",
    "httpcore",
    "sentence_transformers",
    "transformers",
    "huggingface_hub",
    "urllib3",
    "tldextract",
    "filelock",
)


def _quiet_libraries(record: logging.LogRecord) -> bool:
    """A handler filter (libraries reset their own loggers' levels when imported, after us)."""
    name = record.name
    if name.startswith(("remnant", "uvicorn")):
        return True
    if name.startswith("presidio"):
        return record.levelno >= logging.ERROR
    return record.levelno >= logging.WARNING


def configure_logging(level: str = "info", stream: Any = None) -> None:
    """Send every log line through one JSON handler: the server's, uvicorn's, and any library's
    (through the root logger, with ``warnings.warn`` captured as log records too)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(_quiet_libraries)
    for name in ("remnant", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    logging.captureWarnings(True)  # py.warnings -> root -> JSON
    logging.getLogger("uvicorn.access").disabled = True  # replaced by AccessLog
    for name in _CHATTY:
        logger = logging.getLogger(name)
        logger.handlers = []  # a library's own stderr handler would print plain text
        logger.propagate = True
        logger.setLevel(logging.WARNING if name != "presidio-analyzer" else logging.ERROR)


def route_of(scope: Scope) -> str:
    """The request's route template (``/v1/memories/{memory_id}``), never the path itself: a user
    id, a memory key or any value a client puts in a URL must not land in the log."""
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    if isinstance(template, str) and template:
        return template
    return "(no route)"


class AccessLog:
    """One log line per HTTP request: method, route template (never the path's values), status,
    tenant, milliseconds."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.log = logging.getLogger("remnant.server.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0

        async def tracking_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except BaseException:
            # the 500 answer is sent further out (Starlette's error middleware): log it as one
            status = status or 500
            raise
        finally:
            state = scope.get("state") or {}
            self.log.info(
                "request",
                extra={
                    "event": "request",
                    "method": scope.get("method"),
                    "path": route_of(scope),
                    "status": status,
                    "tenant": state.get("tenant") if isinstance(state, dict) else None,
                    "ms": round((time.perf_counter() - start) * 1000, 2),
                },
            )
