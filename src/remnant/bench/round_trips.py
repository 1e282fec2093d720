"""``remnant bench round-trips``: the statements and round trips of each verb on PostgreSQL, with
the client's and the server's CPU (issue 30: PostgreSQL within 2x of SQLite).

It fills one scope (or ``--users`` scopes) with ``bench engine``'s synthetic data through the
product's ``Memory`` as shipped (only the embedder switched: ``--embedder``), then runs each verb a
few times: a fact (the contradiction check), a conversation turn, ``remember_many`` of 100, a
recall, and a sweep 45 days later. For each it prints the wall and CPU time per call, the server's
CPU when ``--server-pid`` names the postmaster of a local server (its own and its children's
utime+stime+cutime+cstime from /proc: the backends that ran the statements and the ones that
exited), the round trips (an ``executemany`` is one: psycopg pipelines it) and the statements by
kind, with the client's wall time waiting on each. On a SQLite path it prints the times only.
"""

from __future__ import annotations

import collections
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any

import click

from remnant.bench import CONTEXT_SETTINGS, header
from remnant.bench.engine import bench_memory, synthetic_texts


def server_cpu(postmaster: int | None) -> float:
    """CPU seconds of a local PostgreSQL server: the postmaster and its children (0.0: unknown)."""
    if postmaster is None or not os.path.isdir("/proc"):
        return 0.0
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(pid) == postmaster or int(fields[1]) == postmaster:
            total += sum(int(x) for x in fields[11:15])
    return total / os.sysconf("SC_CLK_TCK")


class RoundTripCounter:
    """Statements by kind (their first 90 characters), their count and the client's wait on them."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()
        self.waits: dict[str, float] = collections.defaultdict(float)
        self.trips = 0

    def cursor_class(self) -> type[Any]:
        import psycopg

        counter = self

        class Counted(psycopg.Cursor[Any]):
            def execute(self, query: Any, params: Any = None, **kw: Any) -> Any:
                return counter.timed(
                    "", query, self, lambda: super(Counted, self).execute(query, params, **kw)
                )

            def executemany(self, query: Any, params_seq: Any, **kw: Any) -> Any:
                return counter.timed(
                    "MANY ", query, self, lambda: super(Counted, self).executemany(query, params_seq, **kw)
                )

        return Counted

    def timed(self, tag: str, query: Any, cur: Any, run: Callable[[], Any]) -> Any:
        text = query if isinstance(query, str) else query.as_string(cur.connection)
        name = tag + " ".join(text.split())[:90]
        self.counts[name] += 1
        self.trips += 1
        t0 = time.perf_counter()
        try:
            return run()
        finally:
            self.waits[name] += time.perf_counter() - t0


@contextmanager
def counting(store: Any, counter: RoundTripCounter) -> Iterator[None]:
    # the store hands each pooled connection this cursor class (PostgresStore.set_cursor_class)
    if not hasattr(store, "set_cursor_class"):
        yield
        return
    store.set_cursor_class(counter.cursor_class())
    try:
        yield
    finally:
        store.set_cursor_class(None)


def run_round_trips(
    db: str, size: int, users: int, embedder: str, postmaster: int | None, seed: int, top: int
) -> list[dict[str, Any]]:
    from remnant.core.clock import ManualClock

    rng = random.Random(seed)
    # bench engine's vocabulary: the fill, then the verbs' own new texts and queries
    fill, _ = synthetic_texts(rng, size, 0)
    fresh, queries = synthetic_texts(random.Random(seed + 1), 30 + 30 + 200, 30)
    texts, asks = iter(fresh), iter(queries)
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    mem = bench_memory(db, clock, embedder=embedder)
    names = [f"rt-{seed}-u{i}" for i in range(users)]
    bulk = getattr(mem.store, "bulk_load", None)
    t0 = time.perf_counter()
    with bulk() if bulk is not None else nullcontext():
        written = 0
        while written < size:
            n = min(2000, size - written)
            mem.remember_many(
                {
                    "content": fill[written + i],
                    "user_id": names[(written + i) % users],
                    "importance": rng.random(),
                    "kind": "episode" if rng.random() < 0.5 else "fact",
                }
                for i in range(n)
            )
            written += n
    click.echo(f"filled {size:,} memories over {users} user(s) in {time.perf_counter() - t0:.1f} s", err=True)
    wr = random.Random(seed + 1)

    def batch() -> None:
        mem.remember_many(
            {
                "content": next(texts),
                "user_id": names[0],
                "importance": wr.random(),
                "kind": "episode" if wr.random() < 0.5 else "fact",
            }
            for _ in range(100)
        )

    def sweep() -> None:
        clock.advance(days=45)
        mem.sweep()

    verbs: list[tuple[str, Callable[[], object], int]] = [
        ("remember a fact", lambda: mem.remember(next(texts), user_id=names[0]), 30),
        ("remember a turn", lambda: mem.remember(next(texts), user_id=names[0], kind="episode"), 30),
        ("remember_many 100", batch, 2),
        ("recall", lambda: mem.recall(next(asks), user_id=names[0], limit=10, touch=False, hints=False), 30),
        ("sweep after 45 days", sweep, 1),
    ]
    out: list[dict[str, Any]] = []
    for name, fn, reps in verbs:
        counter = RoundTripCounter()
        with counting(mem.store, counter):
            s0, c0, t0 = server_cpu(postmaster), time.process_time(), time.perf_counter()
            for _ in range(reps):
                fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            server = server_cpu(postmaster) - s0
        out.append(
            {
                "verb": name,
                "calls": reps,
                "wall_ms": round(wall / reps * 1000, 2),
                "client_cpu_ms": round(cpu / reps * 1000, 2),
                "server_cpu_ms": round(server / reps * 1000, 2) if postmaster is not None else None,
                # None: a store without a cursor to count on (SQLite runs in process)
                "round_trips": round(counter.trips / reps, 1)
                if hasattr(mem.store, "set_cursor_class")
                else None,
                "statements": [
                    {
                        "times": round(c / reps, 1),
                        "wait_ms": round(counter.waits[q] / reps * 1000, 2),
                        "sql": q,
                    }
                    for q, c in counter.counts.most_common(top)
                ],
            }
        )
    mem.close()
    return out


@click.command("round-trips", context_settings=CONTEXT_SETTINGS)
@click.option("--db", required=True, help="A PostgreSQL URL (a fresh database) or a SQLite path.")
@click.option(
    "--size", type=click.IntRange(1), default=2000, show_default=True, help="Memories filled first."
)
@click.option(
    "--users", type=click.IntRange(1), default=1, show_default=True, help="Scopes they are spread over."
)
@click.option("--embedder", default="static", show_default=True, help="The retriever's embedder.")
@click.option("--server-pid", type=int, help="The local PostgreSQL postmaster's pid: also its CPU.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--top", type=click.IntRange(1), default=15, show_default=True, help="Statements listed a verb."
)
def bench_round_trips(
    db: str, size: int, users: int, embedder: str, server_pid: int | None, seed: int, top: int
) -> None:
    """Statements, round trips and client/server CPU of each verb (PostgreSQL)."""
    click.echo(header(f"remnant bench round-trips --size {size} --users {users} --embedder {embedder}"))
    for row in run_round_trips(db, size, users, embedder, server_pid, seed, top):
        server = f", server CPU {row['server_cpu_ms']} ms" if row["server_cpu_ms"] is not None else ""
        trips = f", {row['round_trips']} round trips a call" if row["round_trips"] is not None else ""
        click.echo(
            f"\n{row['verb']} (x{row['calls']}): wall {row['wall_ms']} ms, client CPU {row['client_cpu_ms']} ms"
            f"{server}{trips}"
        )
        for s in row["statements"]:
            click.echo(f"  {s['times']:8.1f}  {s['wait_ms']:9.2f} ms  {s['sql']}")
    sys.stdout.flush()
