"""``remnant bench serve``: many concurrent clients against the real server on loopback.

The server runs in its own process (``python -m remnant serve``), exactly as users run it; the
clients run in this process on one asyncio loop, each with its own keep-alive connection. Every
acknowledged write is counted, and after the run the stored memories are counted through the API:
a difference is a lost (or invented) write.
"""

from __future__ import annotations

import asyncio
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

WORDS = [
    "tea",
    "coffee",
    "garden",
    "paris",
    "berlin",
    "meeting",
    "deadline",
    "python",
    "rust",
    "chess",
    "piano",
    "dog",
    "cat",
    "bike",
    "train",
    "allergy",
    "peanut",
    "birthday",
    "sister",
    "project",
    "budget",
    "invoice",
    "holiday",
    "mountain",
    "river",
    "novel",
]


def _code(r: Any) -> str:
    """A failed answer's error code (``{"error": {"code": ...}}``), so a report says which 5xx."""
    try:
        return str(r.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return "?"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    db: str,
    keys_db: str,
    port: int,
    *,
    extra: tuple[str, ...] = (),
    log: Any = subprocess.DEVNULL,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """``remnant serve`` in a subprocess (``env`` adds variables); returns once /readyz answers."""
    src = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, **(env or {}), "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [
        sys.executable,
        "-m",
        "remnant",
        "serve",
        "--db",
        db,
        "--keys-db",
        keys_db,
        "--port",
        str(port),
        "--sweep-interval",
        "0",
        "--log-level",
        "warning",
        *extra,
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + 120  # imports and the PII model load take a while on a busy machine
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("server did not become ready in 120 s")


def stop_server(proc: subprocess.Popen[bytes]) -> int:
    proc.terminate()  # SIGTERM: uvicorn shuts down gracefully
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def _cpu_seconds(pid: int) -> float | None:
    """utime + stime of process ``pid`` (all its threads) from ``/proc``, or None where there is no
    ``/proc``: CPU per request is the figure a shared machine's load distorts least."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime (fields 14 and 15 of stat)


def _threads_cpu(pid: int) -> dict[str, tuple[str, float]]:
    """Each thread of process ``pid``: its OS name and CPU seconds (utime + stime), from ``/proc``
    (empty where there is none)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    out: dict[str, tuple[str, float]] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended meanwhile
        out[task.name] = (name, (int(fields[11]) + int(fields[12])) / ticks)
    return out


def model_cpu_seconds(
    before: dict[str, tuple[str, float]], after: dict[str, tuple[str, float]]
) -> float | None:
    """CPU seconds the embedding model's threads used between two :func:`_threads_cpu` readings:
    the micro-batcher's lanes and the threads they started (the model's OpenMP helpers), which
    inherit the lanes' OS name; ``None`` without lanes (no model, or ``REMNANT_EMBED_BATCH=off``:
    the model then runs on the request threads). A thread that ended meanwhile is not counted."""
    from remnant.server.batcher import LANE_THREAD_PREFIX

    lanes = [(tid, cpu) for tid, (name, cpu) in after.items() if name.startswith(LANE_THREAD_PREFIX)]
    if not lanes:
        return None
    return sum(cpu - before.get(tid, ("", 0.0))[1] for tid, cpu in lanes)


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _pct(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return 0.0
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


async def _load(
    bases: list[str], key: str, clients: int, duration: float, write_ratio: float, users: int
) -> dict[str, Any]:
    lat_write: list[float] = []
    lat_recall: list[float] = []
    errors: list[str] = []
    acked = 0
    stop_at = time.monotonic() + duration

    async def client(i: int) -> None:
        nonlocal acked
        rnd = random.Random(i)
        async with httpx.AsyncClient(
            base_url=bases[i % len(bases)], headers={"Authorization": f"Bearer {key}"}, timeout=30
        ) as http:
            n = 0
            while time.monotonic() < stop_at:
                user = f"user{rnd.randrange(users)}"
                words = " ".join(rnd.choice(WORDS) for _ in range(6))
                t0 = time.perf_counter()
                try:
                    if rnd.random() < write_ratio:
                        r = await http.post(
                            "/v1/memories",
                            json={
                                "content": f"client {i} note {n}: {words}",
                                "user_id": user,
                                "kind": rnd.choice(["fact", "preference", "episode"]),
                                "importance": round(rnd.random(), 2),
                            },
                        )
                        ms = (time.perf_counter() - t0) * 1000
                        if r.status_code == 201:
                            acked += 1
                            lat_write.append(ms)
                        else:
                            errors.append(
                                f"write {r.status_code}" + (f" {_code(r)}" if r.status_code >= 500 else "")
                            )
                    else:
                        r = await http.post("/v1/recall", json={"query": words, "user_id": user, "limit": 5})
                        ms = (time.perf_counter() - t0) * 1000
                        if r.status_code == 200:
                            lat_recall.append(ms)
                        else:
                            errors.append(
                                f"recall {r.status_code}" + (f" {_code(r)}" if r.status_code >= 500 else "")
                            )
                except httpx.HTTPError as exc:
                    errors.append(type(exc).__name__)
                n += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    elapsed = time.perf_counter() - t0
    return {
        "elapsed": elapsed,
        "acked": acked,
        "lat_write": sorted(lat_write),
        "lat_recall": sorted(lat_recall),
        "errors": errors,
    }


def run_bench(
    *,
    clients: int = 50,
    duration: float = 60.0,
    write_ratio: float = 0.5,
    db: str | None = None,
    users: int = 20,
    processes: int = 1,
) -> dict[str, Any]:
    from remnant.core.settings import is_set
    from remnant.privacy.keys import KEY_ENV, KEY_FILE_ENV, generate_key
    from remnant.server.auth import KeyStore

    tmp = tempfile.mkdtemp(prefix="remnant-bench-")
    db = db or os.path.join(tmp, "bench.db")
    keys_db = os.path.join(tmp, "bench.keys.db")
    ks = KeyStore(keys_db)
    key = ks.create("bench", ["read", "write"], "bench").secret
    ks.close()
    env: dict[str, str] = {}
    if "://" in db and not is_set(KEY_ENV, KEY_FILE_ENV):
        env[KEY_ENV] = generate_key()  # a server database has no file to keep a generated key beside
    procs: list[subprocess.Popen[bytes]] = []
    codes: list[int] = []
    try:
        # one at a time: the first creates the schema; all of them share the database and the keys
        bases: list[str] = []
        for _ in range(processes):
            port = free_port()
            procs.append(start_server(db, keys_db, port, env=env))
            bases.append(f"http://127.0.0.1:{port}")
        auth = {"Authorization": f"Bearer {key}"}
        before = httpx.get(f"{bases[0]}/v1/stats", headers=auth).json()["total"]
        load_before = _loadavg()
        cpu_before = [_cpu_seconds(p.pid) for p in procs]
        threads_before = [_threads_cpu(p.pid) for p in procs]
        load = asyncio.run(_load(bases, key, clients, duration, write_ratio, users))
        threads_after = [_threads_cpu(p.pid) for p in procs]
        cpu_after = [_cpu_seconds(p.pid) for p in procs]
        load_after = _loadavg()
        # generous: the servers may still be finishing requests queued at the end of the load
        stored = httpx.get(f"{bases[0]}/v1/stats", headers=auth, timeout=120).json()["total"]
    finally:
        codes = [stop_server(p) for p in procs]
    code = next((c for c in codes if c not in (0, -15)), codes[0] if codes else -1)
    all_ms = sorted(load["lat_write"] + load["lat_recall"])
    requests = len(all_ms) + len(load["errors"])
    lost = load["acked"] - (stored - before)
    known = [(a, b) for a, b in zip(cpu_before, cpu_after, strict=True) if a is not None and b is not None]
    server_cpu = round(sum(b - a for a, b in known), 2) if known else None
    # the model's share of it, where /proc names the threads (None without /proc)
    per_process = [model_cpu_seconds(a, b) for a, b in zip(threads_before, threads_after, strict=True)]
    model_cpu = (
        round(sum(m for m in per_process if m is not None), 2)
        if any(m is not None for m in per_process)
        else None
    )
    result: dict[str, Any] = {
        "clients": clients,
        "processes": processes,
        "store": "postgresql" if "://" in db else "sqlite",
        "duration_s": round(load["elapsed"], 2),
        "write_ratio": write_ratio,
        "requests": requests,
        "throughput_rps": round(requests / load["elapsed"], 1),
        "writes_acked": load["acked"],
        "memories_stored": stored - before,
        "lost_writes": lost,
        "errors": len(load["errors"]),
        "error_kinds": sorted(set(load["errors"]))[:10],
        "latency_ms": {
            "all": {"p50": round(_pct(all_ms, 0.5), 2), "p99": round(_pct(all_ms, 0.99), 2)},
            "write": {
                "p50": round(_pct(load["lat_write"], 0.5), 2),
                "p99": round(_pct(load["lat_write"], 0.99), 2),
            },
            "recall": {
                "p50": round(_pct(load["lat_recall"], 0.5), 2),
                "p99": round(_pct(load["lat_recall"], 0.99), 2),
            },
        },
        "server_cpu_s": server_cpu,
        "server_cpu_ms_per_request": round(server_cpu * 1000 / requests, 2)
        if server_cpu and requests
        else None,
        "server_model_cpu_s": model_cpu,
        "server_model_cpu_ms_per_request": round(model_cpu * 1000 / requests, 2)
        if model_cpu is not None and requests
        else None,
        "load_average": [load_before, load_after],
        "server_exit_code": code,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }
    lat = result["latency_ms"]
    cpu_line = (
        f"  server CPU    {server_cpu} s ({result['server_cpu_ms_per_request']} ms per request)"
        if server_cpu is not None
        else "  server CPU    unknown (no /proc)"
    )
    if server_cpu and model_cpu is not None:
        cpu_line += (
            f"; the embedding model {model_cpu} s ({result['server_model_cpu_ms_per_request']} ms, "
            f"{model_cpu / server_cpu:.0%})"
        )
    loads = "unknown" if load_before is None else f"{load_before:.2f} -> {load_after:.2f}"
    result["text"] = "\n".join(
        [
            f"remnant bench serve: {clients} clients, {processes} server process(es) on {result['store']}, "
            f"{result['duration_s']} s, write ratio {write_ratio}",
            f"  requests      {requests}  ({result['throughput_rps']} req/s)",
            f"  latency ms    all p50 {lat['all']['p50']}  p99 {lat['all']['p99']}",
            f"                write p50 {lat['write']['p50']}  p99 {lat['write']['p99']}",
            f"                recall p50 {lat['recall']['p50']}  p99 {lat['recall']['p99']}",
            f"  writes acked  {load['acked']}, stored {stored - before}, lost {lost}",
            f"  errors        {len(load['errors'])} {result['error_kinds'] or ''}",
            cpu_line,
            f"  load average  {loads} (1 min, start -> end of the load)",
            f"  server exit   {code} ({'graceful shutdown on SIGTERM' if code in (0, -15) else 'NOT graceful'})",
            f"  machine       {result['machine']}",
        ]
    )
    return result


def _large_text(rnd: random.Random, size: int) -> str:
    """About ``size`` characters of prose-like words (no personal data: the detector still reads it all)."""
    words: list[str] = []
    n = 0
    while n < size:
        w = rnd.choice(WORDS)
        words.append(w)
        n += len(w) + 1
    return " ".join(words)[:size]


async def _mixed(
    base: str,
    read_key: str,
    write_key: str | None,
    readers: int,
    duration: float,
    users: int,
    large_chars: int,
) -> dict[str, Any]:
    """``readers`` clients recall in one tenant; with ``write_key`` one more client of another tenant
    writes ``large_chars``-character memories in a loop meanwhile."""
    lat: list[float] = []
    errors: list[str] = []
    server_errors = 0
    big_acked = 0
    big_ms: list[float] = []
    stop_at = time.monotonic() + duration

    async def reader(i: int) -> None:
        nonlocal server_errors
        rnd = random.Random(1000 + i)
        async with httpx.AsyncClient(
            base_url=base, headers={"Authorization": f"Bearer {read_key}"}, timeout=60
        ) as http:
            while time.monotonic() < stop_at:
                words = " ".join(rnd.choice(WORDS) for _ in range(4))
                t0 = time.perf_counter()
                try:
                    r = await http.post(
                        "/v1/recall",
                        json={
                            "query": words,
                            "user_id": f"user{rnd.randrange(users)}",
                            "limit": 5,
                            "touch": False,
                        },
                    )
                    if r.status_code == 200:
                        lat.append((time.perf_counter() - t0) * 1000)
                    else:
                        errors.append(f"recall {r.status_code}")
                        server_errors += r.status_code >= 500
                except httpx.HTTPError as exc:
                    errors.append(type(exc).__name__)

    async def big_writer(key: str) -> None:
        nonlocal big_acked, server_errors
        rnd = random.Random(7)
        async with httpx.AsyncClient(
            base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=600
        ) as http:
            n = 0
            while time.monotonic() < stop_at:
                t0 = time.perf_counter()
                try:
                    r = await http.post(
                        "/v1/memories",
                        json={
                            "content": (f"document {n}: " + _large_text(rnd, large_chars))[:large_chars],
                            "user_id": "writer",
                        },
                    )
                    if r.status_code == 201:
                        big_acked += 1
                        big_ms.append((time.perf_counter() - t0) * 1000)
                    else:
                        errors.append(f"large write {r.status_code}")
                        server_errors += r.status_code >= 500
                except httpx.HTTPError as exc:
                    errors.append(type(exc).__name__)
                n += 1

    tasks = [reader(i) for i in range(readers)]
    if write_key is not None:
        tasks.append(big_writer(write_key))
    t0 = time.perf_counter()
    await asyncio.gather(*tasks)
    return {
        "elapsed": time.perf_counter() - t0,
        "lat": sorted(lat),
        "errors": errors,
        "server_errors": server_errors,
        "large_acked": big_acked,
        "large_ms": sorted(big_ms),
    }


def run_large_writes_bench(
    *, readers: int = 20, duration: float = 30.0, users: int = 20, large_chars: int = 100_000
) -> dict[str, Any]:
    """Other tenants' read latency with and without one client writing ``large_chars``-character
    memories in a loop (issue 16: a large write must not stall anyone else)."""
    from remnant.server.auth import KeyStore

    tmp = tempfile.mkdtemp(prefix="remnant-bench-")
    db = os.path.join(tmp, "bench.db")
    keys_db = os.path.join(tmp, "bench.keys.db")
    ks = KeyStore(keys_db)
    read_key = ks.create("readers", ["read", "write"], "readers").secret
    write_key = ks.create("writer", ["read", "write"], "writer").secret
    ks.close()
    port = free_port()
    proc = start_server(db, keys_db, port)
    base = f"http://127.0.0.1:{port}"
    try:
        auth = {"Authorization": f"Bearer {read_key}"}
        rnd = random.Random(3)
        for i in range(40):  # something to recall
            words = " ".join(rnd.choice(WORDS) for _ in range(6))
            r = httpx.post(
                f"{base}/v1/memories",
                json={"content": f"note {i}: {words}", "user_id": f"user{i % users}"},
                headers=auth,
                timeout=60,
            )
            r.raise_for_status()
        quiet = asyncio.run(_mixed(base, read_key, None, readers, duration, users, large_chars))
        loaded = asyncio.run(_mixed(base, read_key, write_key, readers, duration, users, large_chars))
        w_auth = {"Authorization": f"Bearer {write_key}"}
        stored = httpx.get(f"{base}/v1/stats", headers=w_auth, timeout=600).json()["total"]
    finally:
        code = stop_server(proc)
    p99_quiet, p99_loaded = _pct(quiet["lat"], 0.99), _pct(loaded["lat"], 0.99)
    ratio = p99_loaded / p99_quiet if p99_quiet else 0.0
    lost = loaded["large_acked"] - stored
    result: dict[str, Any] = {
        "readers": readers,
        "duration_s": duration,
        "large_chars": large_chars,
        "reads_quiet": len(quiet["lat"]),
        "reads_loaded": len(loaded["lat"]),
        "read_p50_ms": {
            "quiet": round(_pct(quiet["lat"], 0.5), 1),
            "loaded": round(_pct(loaded["lat"], 0.5), 1),
        },
        "read_p99_ms": {"quiet": round(p99_quiet, 1), "loaded": round(p99_loaded, 1)},
        "p99_ratio": round(ratio, 2),
        "large_writes_acked": loaded["large_acked"],
        "large_write_ms_p50": round(_pct(loaded["large_ms"], 0.5), 1),
        "large_writes_stored": stored,
        "lost_writes": lost,
        "errors": len(quiet["errors"]) + len(loaded["errors"]),
        "server_errors_5xx": quiet["server_errors"] + loaded["server_errors"],
        "error_kinds": sorted(set(quiet["errors"] + loaded["errors"]))[:10],
        "server_exit_code": code,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }
    result["text"] = "\n".join(
        [
            f"remnant bench serve --large-writes: {readers} readers of one tenant, {duration:g} s per phase; "
            f"one client of another tenant writing {large_chars:,}-character memories in the second",
            f"  read p50 ms   quiet {result['read_p50_ms']['quiet']}  with large writer {result['read_p50_ms']['loaded']}",
            f"  read p99 ms   quiet {result['read_p99_ms']['quiet']}  with large writer {result['read_p99_ms']['loaded']}"
            f"  ({result['p99_ratio']}x; target <= 2x)",
            f"  large writes  acked {loaded['large_acked']}, stored {stored}, lost {lost}, "
            f"p50 {result['large_write_ms_p50']} ms each",
            f"  errors        {result['errors']} ({result['server_errors_5xx']} 5xx) {result['error_kinds'] or ''}",
            f"  machine       {result['machine']}",
        ]
    )
    return result
