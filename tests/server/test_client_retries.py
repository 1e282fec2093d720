"""The clients' retries, against the real server behind a real loopback proxy that fails on purpose:
a lost answer to a keyed write is retried and the write happens once; an unkeyed write is never sent
twice; reads are retried through 503s; a refused connection is retried; the server's Retry-After is
honoured."""

from __future__ import annotations

import asyncio
import http.server
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx
import pytest

from remnant import AsyncClient, Client, ValidationError
from remnant.core.errors import ServiceError

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer


@dataclass
class Flaky:
    """A proxy in front of the server: the next ``fail`` requests matching ``path`` are forwarded
    (``forward``: the server does the work) or not, and answered 503 instead of the server's answer."""

    base: str
    seen: list[str] = field(default_factory=list)
    fail: int = 0
    path: str = ""
    forward: bool = True
    retry_after: str | None = None


@pytest.fixture
def flaky(live: LiveServer) -> Iterator[Flaky]:
    upstream = httpx.Client(base_url=live.base, timeout=30)
    state = Flaky("")
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            return None

        def _any(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                state.seen.append(f"{self.command} {self.path}")
                failing = state.fail > 0 and self.path.startswith(state.path)
                if failing:
                    state.fail -= 1
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            if not failing or state.forward:
                answer = upstream.request(self.command, self.path, content=body, headers=headers)
            if failing:
                self.send_response(503)
                if state.retry_after is not None:
                    self.send_header("Retry-After", state.retry_after)
                payload = b'{"error": {"code": "unavailable", "message": "proxy says no"}}'
            else:
                self.send_response(answer.status_code)
                payload = answer.content
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = do_PATCH = do_PUT = _any

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        upstream.close()


@pytest.mark.slow
def test_a_keyed_write_whose_answer_was_lost_is_retried_and_written_once(
    live: LiveServer, flaky: Flaky
) -> None:
    flaky.fail, flaky.path, flaky.retry_after = 1, "/v1/memories", "0"
    with Client(flaky.base, api_key=live.keys["a_all"]) as mem:
        rec = mem.remember("I keep a spare key under the mat", user_id="rt-ana", idempotency_key="rt-1")
        assert flaky.seen.count("POST /v1/memories") == 2  # the first answer was lost, the write was done
        assert mem.count_memories(user_id="rt-ana") == 1
        assert mem.get(rec.id).content == "I keep a spare key under the mat"


@pytest.mark.slow
def test_an_unkeyed_write_is_never_sent_twice(live: LiveServer, flaky: Flaky) -> None:
    flaky.fail, flaky.path = 1, "/v1/memories"
    with Client(flaky.base, api_key=live.keys["a_all"]) as mem:
        with pytest.raises(ServiceError) as err:
            mem.remember("I keep a spare key in the shed", user_id="rt-bo")
        assert err.value.status == 503
        assert flaky.seen.count("POST /v1/memories") == 1
        assert mem.count_memories(user_id="rt-bo") == 1  # it was applied: a resend would have made two


@pytest.mark.slow
def test_reads_are_retried_through_503s_and_give_up_after_the_budget(live: LiveServer, flaky: Flaky) -> None:
    flaky.fail, flaky.path, flaky.forward, flaky.retry_after = 2, "/v1/memories?", False, "0"
    with Client(flaky.base, api_key=live.keys["a_all"], retries=2) as mem:
        assert mem.list_memories(user_id="rt-nobody") == []
    flaky.fail = 3
    with Client(flaky.base, api_key=live.keys["a_all"], retries=2) as mem, pytest.raises(ServiceError):
        mem.list_memories(user_id="rt-nobody")
    with Client(flaky.base, api_key=live.keys["a_all"], retries=0) as mem:
        flaky.fail = 1
        with pytest.raises(ServiceError):
            mem.list_memories(user_id="rt-nobody")


def test_the_async_client_retries_the_same_way(live: LiveServer, flaky: Flaky) -> None:
    async def go() -> int:
        flaky.fail, flaky.path, flaky.retry_after = 1, "/v1/memories", "0"
        async with AsyncClient(flaky.base, api_key=live.keys["a_all"]) as mem:
            await mem.remember("I park on level 3", user_id="rt-cy", idempotency_key="rt-async-1")
            return await mem.count_memories(user_id="rt-cy")

    assert asyncio.run(go()) == 1
    assert flaky.seen.count("POST /v1/memories") == 2


def test_a_refused_connection_is_retried_then_reported() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with Client(f"http://127.0.0.1:{port}", retries=1) as mem, pytest.raises(ServiceError) as err:
        mem.remember("never sent", user_id="rt-dee")
    assert err.value.code == "unreachable"


def test_retries_are_validated() -> None:
    for bad in (-1, 11, True, 1.5):
        with pytest.raises(ValidationError):
            Client("http://127.0.0.1:1", retries=bad)  # type: ignore[arg-type]
