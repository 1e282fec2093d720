"""An app written for mem0, switched to Remnant by changing the host.

Starts ``remnant serve --no-auth`` on a free loopback port with a fresh database, points the real
``mem0ai`` client at it, and runs a short conversation: an add (the extracted facts are the
memories), a search, a second turn whose new fact supersedes the old one, mem0's update, the
history of every version, a delete that stays gone. Offline: nothing leaves the machine
(mem0's telemetry is switched off before the client is imported).

    .venv/bin/python examples/mem0_switch/run.py     (after scripts/bootstrap)
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("MEM0_TELEMETRY", "False")  # the client would report usage to PostHog
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="mem0-"))  # its config file, not ~/.mem0

try:
    import httpx
    from mem0 import MemoryClient
except ModuleNotFoundError as exc:  # run with a Python that lacks the example's dependencies
    raise SystemExit(
        f"{exc.name} is not installed for {sys.executable}. From the repository root run\n"
        "  scripts/bootstrap && .venv/bin/python examples/mem0_switch/run.py\n"
        "(or pip install -e '.[server]' mem0ai into your environment)"
    ) from None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_remnant(db: Path, port: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "remnant", "--db", str(db), "serve", "--no-auth", "--port", str(port)]
    cmd += ["--sweep-interval", "0", "--log-level", "warning"]
    server = subprocess.Popen(cmd)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"remnant serve exited with {server.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.terminate()
    raise SystemExit("remnant serve did not become ready in 90 s")


def conversation(client: MemoryClient) -> None:
    user = {"user_id": "alice"}
    added = client.add([{"role": "user", "content": "I live in Paris and I like jazz"}], **user)
    print("added:", [(e["event"], e["memory"]) for e in added["results"]])
    home = next(e["id"] for e in added["results"] if "Paris" in e["memory"])

    hits = client.search("where does alice live", filters=user, top_k=1)["results"]
    print("search:", [h["memory"] for h in hits])

    # the next turn: a new value under the same key supersedes the old one
    moved = client.add([{"role": "user", "content": "I moved, I live in Berlin now"}], **user)
    print("moved:", [(e["event"], e.get("previous_memory"), e["memory"]) for e in moved["results"]])
    hits = client.search("where does alice live", filters=user, top_k=1)["results"]
    print("search after the move:", [h["memory"] for h in hits])

    # mem0's update: a new version too (the id changes; the old id resolves to the live version)
    fixed = client.update(moved["results"][0]["id"], text="User lives in Berlin, Kreuzberg")
    print("updated:", fixed["memory"], "(new version", fixed["id"] + ")")
    print("history:", [(h["event"], h["old_memory"], h["new_memory"]) for h in client.history(home)])

    client.delete(fixed["id"])
    hits = client.search("where does alice live", filters=user)["results"]
    print("after delete:", [h["memory"] for h in hits])
    print("still remembered:", [m["memory"] for m in client.get_all(filters=user)["results"]])


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = start_remnant(Path(tmp) / "remnant.db", port)
        try:
            # the only change an app makes: the host (with --no-auth any key is accepted;
            # with API keys, pass a Remnant key: mem0's 'Authorization: Token <key>' works)
            client = MemoryClient(api_key="local", host=f"http://127.0.0.1:{port}")
            conversation(client)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
