"""Protection for ``--no-auth`` mode, where the only defence is that the server listens on loopback.

Two browser attacks reach a loopback server anyway: DNS rebinding (a hostile page makes its own
hostname resolve to 127.0.0.1, so the browser sends ``Host: evil.example``) and cross-site requests
(a hostile page POSTs to ``http://127.0.0.1:8420`` with ``Origin: https://evil.example``). Without
keys, refuse both: the Host must be a loopback name (or the bound address), and a request that
carries an Origin must come from the same loopback origin.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from remnant.server.errors import error_response

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def _hostname(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8420
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _host_port(value: str, scheme: str) -> int | None:
    """The port of a Host header (the scheme's default when it names none); None when malformed."""
    value = value.strip()
    tail = value[value.find("]") + 1 :] if value.startswith("[") else value
    if tail.count(":") == 1:
        port = tail.rsplit(":", 1)[1]
        return int(port) if port.isdigit() else None
    return 443 if scheme in ("https", "wss") else 80


def _origin_port(origin: str) -> int | None:
    try:
        parts = urlsplit(origin)
        return parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None


class LocalOnly:
    """ASGI middleware: only loopback Host headers and same-host Origins (``--no-auth`` mode)."""

    def __init__(self, app: ASGIApp, bound_host: str) -> None:
        self.app = app
        self.allowed = LOOPBACK_NAMES | {bound_host.strip("[]").lower()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            host = _hostname(headers.get("host", ""))
            if host not in self.allowed:
                resp = error_response(
                    403, "forbidden", "this server only answers requests for its loopback address"
                )
                await resp(scope, receive, send)
                return
            origin = headers.get("origin")
            if origin and origin != "null":
                try:
                    origin_host = (urlsplit(origin).hostname or "").lower()
                except ValueError:
                    origin_host = ""
                # same origin means the same port too: another local app (a dev server on
                # localhost:3000) is a different site
                port = _host_port(headers.get("host", ""), str(scope.get("scheme", "http")))
                if origin_host not in self.allowed or _origin_port(origin) != port:
                    resp = error_response(
                        403, "forbidden", "cross-site requests are refused without API keys"
                    )
                    await resp(scope, receive, send)
                    return
            elif origin == "null":
                await error_response(403, "forbidden", "cross-site requests are refused without API keys")(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)
