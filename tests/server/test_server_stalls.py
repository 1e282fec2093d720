"""No request stalls the server for another tenant (issue 29, finding 1).

A real server on loopback. Tenant A sends the worst input at each limit to the routes that read
text: a 100,000-character memory of digits, spaces and CJK numerals (``POST /v1/memories``,
``/v1/ingest``, mem0's add), a dry-run forget request at its limit over those memories, and a
recall with the longest query. Meanwhile tenant B calls ``GET /healthz`` and a small recall.

The server runs with lexical recall (``REMNANT_EMBEDDER=none``): the readers are what is
measured; the default embedder's cost on a 100,000-character text (it embeds every token) is
an open item of its own (docs/security.md, round three).

Budget: tenant B's p99 under attack stays within **2x its quiet p99 plus 1.5 s**. The allowance
is what one Python process on 2 cores can hold while another request is CPU-bound: B's recall
gives up the GIL at each SQLite call and waits for the attacker's current C call (one regex pass
over a 100,000-character text, tens of milliseconds) before it goes on, and B's store reads wait
for the attacker's write transaction of a 100,000-character memory. Measured: 0.70 s at load 14,
0.85 s on a quiet machine (quiet p99 0.006-0.015 s), docs/security.md. Before the readers were
made linear, one dry-run forget request over a 20,000-digit memory held the GIL for 42.8 s and
B's ``/healthz`` waited as long.
Bounded: a fixed number of attack requests and of probes.

The limits of :mod:`remnant.core.limits` are checked on the same server: a forget request over
``MAX_REQUEST_CHARS`` and a mem0 add of more than ``MAX_MESSAGES`` messages get a 4xx, not work.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.server.conftest import LiveServer, start_live

from remnant.core.limits import MAX_CONTENT_CHARS, MAX_MESSAGES, MAX_QUERY_CHARS, MAX_REQUEST_CHARS

ALLOWANCE_S = 1.5
PROBES = 24


def _worst(run: str, size: int) -> str:
    head, tail = "I paid ", " for the car"
    body = size - len(head) - len(tail)
    return head + (run * (body // len(run) + 1))[:body] + tail


RUNS = ("1", " ", "一二三四五六七八九十百千万两", "12 345  6 ", "1 一 23 二十 $4,5.6 三百 7k ")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # Lexical recall (REMNANT_EMBEDDER=none, a documented setting): what is measured is the
    # readers; the embedder's cost on a 100,000-character text is its own open item.
    with pytest.MonkeyPatch.context() as env:
        env.setenv("REMNANT_EMBEDDER", "none")
        # bodies at the content limit: the default 1 MiB body limit, not the test suite's 64 KiB
        yield from start_live(Path(tmp_path_factory.mktemp("stalls")), max_body_bytes=1 << 20)


def _p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def _probe(c: httpx.Client) -> list[float]:
    took: list[float] = []
    for i in range(PROBES):
        start = time.perf_counter()
        if i % 2:
            r = c.get("/healthz")
        else:
            r = c.post("/v1/recall", json={"query": "what car do I drive", "user_id": "bob"})
        took.append(time.perf_counter() - start)
        assert r.status_code == 200, r.text
        time.sleep(0.02)
    return took


def _attack(server: LiveServer, done: threading.Event, codes: list[tuple[int, str]]) -> None:
    with server.client("a_all", timeout=300) as c:

        def post(path: str, body: dict[str, object]) -> None:
            r = c.post(path, json=body)
            codes.append((r.status_code, r.json().get("error", {}).get("code", "") if r.is_error else ""))

        for run in RUNS:
            text = _worst(run, MAX_CONTENT_CHARS)
            post("/v1/memories", {"content": text, "user_id": "eve"})
            post("/v1/ingest", {"messages": [text], "user_id": "eve"})
            post("/v1/memories/", {"messages": [{"role": "user", "content": text}], "user_id": "eve"})
            request = "forget how much I paid for the car "
            post(
                "/v1/forget",
                {"request": request + _worst(run, MAX_REQUEST_CHARS - 40), "user_id": "eve", "dry_run": True},
            )
            post("/v1/forget", {"request": request.strip(), "user_id": "eve", "dry_run": True})
            post("/v1/recall", {"query": _worst(run, MAX_QUERY_CHARS), "user_id": "eve"})
    done.set()


@pytest.mark.slow  # the attack at the limits takes one to two minutes on 2 cores
def test_one_tenants_worst_inputs_do_not_stall_another(server: LiveServer) -> None:
    with server.client("b_all") as b:
        assert (
            b.post("/v1/memories", json={"content": "I drive a blue Volvo", "user_id": "bob"}).status_code
            == 201
        )
        _probe(b)  # warm: the engine, the embedder, the connection
        quiet = _probe(b)

        done, codes = threading.Event(), list[tuple[int, str]]()
        attacker = threading.Thread(target=_attack, args=(server, done, codes), daemon=True)
        attacker.start()
        loud: list[float] = []
        deadline = time.monotonic() + 600
        while not done.is_set() and time.monotonic() < deadline:
            loud += _probe(b)
        attacker.join(timeout=60)

    assert done.is_set(), "the attack did not finish in 10 minutes"
    # a request given up at its time budget (503 time_budget_exceeded, nothing written) is an answer
    assert codes and all(code < 500 or err == "time_budget_exceeded" for code, err in codes), codes
    quiet_p99, loud_p99 = _p99(quiet), _p99(loud)
    budget = 2 * quiet_p99 + ALLOWANCE_S
    print(f"tenant B p99: quiet {quiet_p99:.3f} s, under attack {loud_p99:.3f} s over {len(loud)} probes")
    assert loud_p99 <= budget, (
        f"tenant B p99 {loud_p99:.3f} s under attack vs {quiet_p99:.3f} s quiet (budget {budget:.3f} s); "
        f"median {statistics.median(loud):.3f} s over {len(loud)} probes"
    )


def test_limits_hold_on_every_route(server: LiveServer) -> None:
    with server.client("a_all") as c:
        long_request = "forget " + "x" * MAX_REQUEST_CHARS
        r = c.post("/v1/forget", json={"request": long_request, "user_id": "eve", "dry_run": True})
        assert r.status_code == 422, r.text
        many = [{"role": "user", "content": f"message {i}"} for i in range(MAX_MESSAGES + 1)]
        for route in ("/v1/memories/", "/v3/memories/add/"):
            r = c.post(route, json={"messages": many, "user_id": "eve"})
            assert r.status_code == 422, (route, r.text)
        r = c.post("/v1/ingest", json={"messages": [m["content"] for m in many], "user_id": "eve"})
        assert r.status_code == 422, r.text
