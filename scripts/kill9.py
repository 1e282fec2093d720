#!/usr/bin/env python3
"""kill -9 during writes: every acknowledged write survives a SIGKILL of the server (SQLite)."""

import os, sys, signal, tempfile, threading, time, httpx
from remnant.bench.serve import free_port, start_server
from remnant.server.auth import KeyStore

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
total_acked = total_lost = 0
for run in range(runs):
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "k.db")
    keys = os.path.join(tmp, "k.keys.db")
    secret = KeyStore(keys).create("t", ["admin"], "kill").secret
    env = {"REMNANT_REDACT_PRESIDIO": "off"}
    port = free_port()
    proc = start_server(db, keys, port, env=env)
    base = f"http://127.0.0.1:{port}"
    acked = []
    stop = threading.Event()
    lock = threading.Lock()

    def client(i):
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {secret}"}, timeout=10) as c:
            n = 0
            while not stop.is_set():
                try:
                    r = c.post(
                        "/v1/memories", json={"content": f"note {i}-{n} about the garden", "user_id": f"u{i}"}
                    )
                except httpx.HTTPError:
                    return
                if r.status_code == 201:
                    with lock:
                        acked.append(r.json()["id"])
                n += 1

    ts = [threading.Thread(target=client, args=(i,)) for i in range(6)]
    [t.start() for t in ts]
    time.sleep(4 + run)
    os.kill(proc.pid, signal.SIGKILL)
    stop.set()
    [t.join() for t in ts]
    proc.wait()
    port = free_port()
    proc = start_server(db, keys, port, env=env)
    with httpx.Client(
        base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {secret}"}, timeout=30
    ) as c:
        lost = [i for i in acked if c.get(f"/v1/memories/{i}").status_code != 200]
    proc.terminate()
    proc.wait()
    print(f"run {run + 1}: {len(acked)} acknowledged writes before SIGKILL, {len(lost)} lost", flush=True)
    total_acked += len(acked)
    total_lost += len(lost)
print(f"total: {total_lost} of {total_acked} acknowledged writes lost over {runs} kill -9 runs")
