"""A real Remnant server on a free loopback port (uvicorn in a thread), with keys for two tenants."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import uvicorn

from remnant.server.app import ServerConfig, create_app
from remnant.server.auth import KeyStore


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        from remnant.server.logs import JsonFormatter

        self.lines.append(JsonFormatter().format(record))


@dataclass
class LiveServer:
    base: str
    keys: dict[str, str]  # name -> secret
    config: ServerConfig
    app: object
    logs: _Capture
    db: Path
    extra: dict[str, object] = field(default_factory=dict)

    def client(self, key: str | None = "a_all", **kw: object) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.keys[key]}"} if key else {}
        kw.setdefault("timeout", 30)
        return httpx.Client(base_url=self.base, headers=headers, **kw)  # type: ignore[arg-type]


def bound_socket() -> socket.socket:
    """A loopback socket bound to a free port, kept open until the server listens on it.

    ``free_port()`` closes its socket before the server binds, so another process on a busy
    machine can take the port in between (or answer our requests on it); a socket bound here and
    handed to uvicorn leaves no such window.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def run_server(config: ServerConfig, sock: socket.socket | None = None) -> Iterator[tuple[str, object]]:
    sock = sock or bound_socket()
    config.port = sock.getsockname()[1]
    app = create_app(config)
    uv = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=config.port, log_config=None, access_log=False, lifespan="on"
        )
    )
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}", app
    finally:
        uv.should_exit = True
        thread.join(timeout=20)
        sock.close()


def start_live(tmp: Path, **overrides: object) -> Iterator[LiveServer]:
    keys_path = tmp / "keys.db"
    ks = KeyStore(keys_path)
    keys = {
        "a_all": ks.create("tenant-a", ["admin"], "a admin").secret,
        "a_read": ks.create("tenant-a", ["read"], "a read-only").secret,
        "a_vault": ks.create("tenant-a", ["read", "vault"], "a vault").secret,
        "b_all": ks.create("tenant-b", ["admin", "vault"], "b admin").secret,
    }
    revoked = ks.create("tenant-a", ["admin"], "revoked")
    ks.revoke(revoked.key.key_id)
    keys["revoked"] = revoked.secret
    ks.close()
    db = tmp / "remnant.db"
    settings: dict[str, object] = {
        "db": str(db),
        "keys_path": str(keys_path),
        "sweep_interval": 0,
        "max_body_bytes": 64 * 1024,
    }
    settings.update(overrides)
    config = ServerConfig(**settings)  # type: ignore[arg-type]
    capture = _Capture()
    logger = logging.getLogger("remnant")
    logger.addHandler(capture)
    logger.setLevel(logging.INFO)
    try:
        for base, app in run_server(config):
            yield LiveServer(base, keys, config, app, capture, db)
    finally:
        logger.removeHandler(capture)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from start_live(tmp_path_factory.mktemp("live"))
