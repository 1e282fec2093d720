#!/usr/bin/env python3
"""kill -9 during writes: every acknowledged write survives a SIGKILL of the server.

Usage: ``PYTHONPATH=src python scripts/kill9.py [RUNS]``. Each run starts ``remnant serve`` on a
fresh SQLite file, has six clients write memories, kills the server with SIGKILL mid-write,
starts it again on the same file and asks for every memory whose write was acknowledged (201).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
import time

import httpx

from remnant.bench.serve import free_port, start_server
from remnant.server.auth import KeyStore

ENV = {"REMNANT_REDACT_PRESIDIO": "off"}  # the servers' start-up, not the English NER model


def _writer(base: str, secret: str, i: int, stop: threading.Event, acked: list[str]) -> None:
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {secret}"}, timeout=10) as c:
        n = 0
        while not stop.is_set():
            try:
                r = c.post(
                    "/v1/memories", json={"content": f"note {i}-{n} about the garden", "user_id": f"u{i}"}
                )
            except httpx.HTTPError:
                return  # the server is gone
            if r.status_code == 201:
                acked.append(r.json()["id"])  # list.append is atomic
            n += 1


def one_run(seconds: float) -> tuple[int, int]:
    tmp = tempfile.mkdtemp()
    db, keys = os.path.join(tmp, "k.db"), os.path.join(tmp, "k.keys.db")
    secret = KeyStore(keys).create("t", ["admin"], "kill9").secret
    port = free_port()
    proc = start_server(db, keys, port, env=ENV)
    acked: list[str] = []
    stop = threading.Event()
    writers = [
        threading.Thread(target=_writer, args=(f"http://127.0.0.1:{port}", secret, i, stop, acked))
        for i in range(6)
    ]
    for t in writers:
        t.start()
    time.sleep(seconds)
    os.kill(proc.pid, signal.SIGKILL)
    stop.set()
    for t in writers:
        t.join()
    proc.wait()
    port = free_port()
    proc = start_server(db, keys, port, env=ENV)
    headers = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=30) as c:
        lost = sum(c.get(f"/v1/memories/{i}").status_code != 200 for i in acked)
    proc.terminate()
    proc.wait()
    return len(acked), lost


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    total_acked = total_lost = 0
    for run in range(runs):
        acked, lost = one_run(4 + run)
        print(f"run {run + 1}: {acked} acknowledged writes before SIGKILL, {lost} lost", flush=True)
        total_acked, total_lost = total_acked + acked, total_lost + lost
    print(f"total: {total_lost} of {total_acked} acknowledged writes lost over {runs} kill -9 runs")


if __name__ == "__main__":
    main()
