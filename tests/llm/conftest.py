"""Fixtures: a real OpenAI-compatible HTTP server on loopback, and the real local model (loaded once)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Scripted:
    """One scripted answer: HTTP status, raw body (or None for a normal completion), delay, headers."""

    status: int = 200
    body: str | None = None
    delay_s: float = 0.0  # a wait the server cuts short when it closes (so a long one is a hang)
    headers: dict[str, str] = field(default_factory=dict)
    content: str | None = None  # message content for a normal completion


class ChatServer:
    """A tiny OpenAI-compatible /v1/chat/completions server. Pops scripted answers, else replies
    with `reply(request)` as the assistant content and a `usage` block."""

    def __init__(self) -> None:
        self.script: list[Scripted] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.reply: Callable[[dict[str, Any]], str] = lambda req: "hello from loopback"
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                try:
                    req = json.loads(raw)
                except json.JSONDecodeError:
                    req = {"_raw": raw.decode("utf-8", "replace")}
                server.requests.append(req)
                server.headers.append(dict(self.headers))
                if self.path != "/v1/chat/completions":
                    self._send(404, json.dumps({"error": "not found"}), {})
                    return
                step = server.script.pop(0) if server.script else Scripted()
                if step.delay_s:
                    server.closing.wait(step.delay_s)
                if step.body is not None:
                    self._send(step.status, step.body, step.headers)
                    return
                content = step.content if step.content is not None else server.reply(req)
                body = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": req.get("model", "?"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": content},
                        }
                    ],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                }
                self._send(step.status, json.dumps(body), step.headers)

            def _send(self, status: int, body: str, headers: dict[str, str]) -> None:
                data = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left: expected in timeout tests

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


@pytest.fixture(scope="session")
def local_llm() -> Any:
    """The real SmolLM2 model via xllamacpp, loaded once for the whole session."""
    pytest.importorskip("xllamacpp")
    from remnant.llm import LLMUnavailable, LocalLLM

    try:
        return LocalLLM(n_ctx=1024).load()
    except LLMUnavailable as exc:
        pytest.skip(f"local model unavailable: {exc}")
