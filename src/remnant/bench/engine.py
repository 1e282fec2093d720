"""``remnant bench engine``: write throughput, recall latency and the cost of "still remembered"."""

from __future__ import annotations

import json
import os
import random
import shlex
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from remnant.bench import CONTEXT_SETTINGS

_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ren",
    "tu",
    "sa",
    "vel",
    "dor",
    "ni",
    "pa",
    "qui",
    "zen",
    "ro",
    "fa",
    "lu",
    "ber",
)


def _vocabulary(size: int = 4000) -> list[str]:
    """Pseudo-words: a vocabulary as large as a real conversation's, so FTS matches are realistic."""
    rng = random.Random(1234)
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


_WORDS = _vocabulary()
# Zipf-like weights: a few words are everywhere, most are rare, as in natural text
_WEIGHTS = [1.0 / (rank + 1) ** 1.07 for rank in range(len(_WORDS))]


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choices(_WORDS, weights=_WEIGHTS, k=rng.randint(6, 14)))


def _query(rng: random.Random) -> str:
    return " ".join(rng.choices(_WORDS, weights=_WEIGHTS, k=3))


def synthetic_texts(rng: random.Random, memories: int, queries: int) -> tuple[list[str], list[str]]:
    """Memories and queries from this benchmark's vocabulary (Zipf-weighted), for other benchmarks
    that need the same workload (``bench peers``)."""
    return [_sentence(rng) for _ in range(memories)], [_query(rng) for _ in range(queries)]


def _retriever(embedder: str | None) -> Any:
    """``None``: the engine's default lexical recall; a name: hybrid recall with that embedder."""
    if embedder is None:
        return None
    from remnant.embed import get_embedder
    from remnant.retrieval import HybridRetriever

    return HybridRetriever(get_embedder(embedder))


#: what a fresh process runs: open the database, one recall, its wall time and peak memory
_FRESH = """
import json, sys, time
from remnant.bench import peak_rss_mib
t0 = time.perf_counter()
from remnant.engine.memory import Memory
from remnant.engine.forgetting.contradictions import ContradictionPolicy
embedder = sys.argv[2] or None
retriever = None
if embedder:
    from remnant.embed import get_embedder
    from remnant.retrieval import HybridRetriever
    retriever = HybridRetriever(get_embedder(embedder))
    retriever.embedder.embed_query("warm up the model")  # model loading is not the index's cost
from datetime import UTC, datetime
from remnant.core.clock import ManualClock
model_rss = peak_rss_mib()  # imports and the model: not the store's
t1 = time.perf_counter()
mem = Memory(sys.argv[1], clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)),
             contradictions=ContradictionPolicy(mode="off"), retriever=retriever)
t2 = time.perf_counter()
mem.recall(sys.argv[4], user_id=sys.argv[3], limit=10, touch=False, hints=False)
t3 = time.perf_counter()
print(json.dumps({"startup_s": t1 - t0, "open_s": t2 - t1, "first_recall_s": t3 - t2,
                  "model_rss_mib": model_rss, "peak_rss_mib": peak_rss_mib()}))
"""


def fresh_process_recall(db: str, embedder: str | None, user_id: str, query: str) -> dict[str, float]:
    """The first recall of a new process on ``db``: open, one recall, and that process's peak RSS
    (model loading is timed apart, as ``startup_s``)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", _FRESH, db, embedder or "", user_id, query],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise click.ClickException(f"the fresh process failed: {out.stderr.strip()[-2000:]}")
    got: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return {k: round(v, 3) for k, v in got.items()}


def run_engine_bench(
    db: str | None,
    sizes: list[int],
    queries: int,
    seed: int,
    progress: bool = True,
    *,
    embedder: str | None = None,
    users: int = 1,
    check_writes: int = 100,
    faded_scaling: bool = True,
    fresh_process: bool = False,
    reuse: bool = False,
) -> dict[str, Any]:
    from contextlib import nullcontext

    from remnant.bench import percentile
    from remnant.core.clock import ManualClock
    from remnant.engine.forgetting.contradictions import ContradictionPolicy
    from remnant.engine.memory import Memory

    rng = random.Random(seed)
    results: dict[str, Any] = {"sizes": {}, "embedder": embedder, "users": users}
    tmp = tempfile.TemporaryDirectory(prefix="remnant-bench-")
    try:
        for size in sizes:
            target = db or str(Path(tmp.name) / f"bench-{size}.db")
            clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
            retriever = _retriever(embedder)
            # bulk writes measure the storage path; the contradiction check is measured apart below
            # dedup off: the synthetic sentences repeat (a seeded Zipf vocabulary), and a size must
            # hold that many memories
            mem = Memory(
                target,
                clock=clock,
                contradictions=ContradictionPolicy(mode="off"),
                retriever=retriever,
                dedup=False,
            )
            # one user is the worst case for per-user indexes; several spread the memories round-robin
            names = (
                [f"bench-{size}-{seed}"]
                if users == 1
                else [f"bench-{size}-{seed}-u{i}" for i in range(users)]
            )

            def pick(names: list[str] = names) -> str:
                return names[0] if len(names) == 1 else rng.choice(names)

            batch = 2000
            written = 0
            # --reuse: a database that already holds this size for the bench's users is measured as it
            # is (building 1M takes minutes); with --reuse the sweep is skipped so that it stays reusable
            reused = reuse and db is not None and _holds(mem, names, size)
            if reused:
                written = size
            # PostgreSQL builds its HNSW index once at the end of a bulk load (10x faster than growing it)
            bulk = getattr(mem.store, "bulk_load", None)
            start = time.perf_counter()
            with (
                click.progressbar(
                    length=size, label=f"writing {size:,}", file=sys.stderr, hidden=not progress
                ) as bar,
                bulk() if bulk is not None else nullcontext(),
            ):
                while written < size:
                    n = min(batch, size - written)
                    mem.remember_many(
                        {
                            "content": _sentence(rng),
                            "user_id": names[(written + i) % users],
                            "importance": rng.random(),
                            "kind": "episode" if rng.random() < 0.5 else "fact",
                        }
                        for i in range(n)
                    )
                    written += n
                    bar.update(n)
                write_s = time.perf_counter() - start
            if reused:
                write_s = float("nan")
            index_s = time.perf_counter() - start - write_s  # the deferred HNSW build, if any
            single = []
            for _ in range(200):
                t0 = time.perf_counter()
                mem.remember(_sentence(rng), user_id=pick())
                single.append(time.perf_counter() - t0)
            flagged: list[float] = []
            flagged_cpu: list[float] = []  # CPU time of the process (every thread), less distorted by load
            if check_writes:
                # default policy (flag contradictions on write), same retriever: no second vector index
                checked = Memory(target, clock=clock, retriever=retriever, dedup=False)
                for _ in range(check_writes):
                    t0, c0 = time.perf_counter(), time.process_time()
                    checked.remember(_sentence(rng), user_id=pick())
                    flagged.append(time.perf_counter() - t0)
                    flagged_cpu.append(time.process_time() - c0)
                checked.close()
            # the first search may build a per-process vector index (SQLite with an embedder)
            t0 = time.perf_counter()
            first_user = pick()
            mem.recall(_query(rng), user_id=first_user, limit=10, touch=False, hints=False)
            first_recall_s = time.perf_counter() - t0
            lat, lat_cpu = [], []
            for _ in range(queries):
                q = _query(rng)
                t0, c0 = time.perf_counter(), time.process_time()
                mem.recall(q, user_id=pick(), limit=10, touch=False, hints=False)
                lat.append(time.perf_counter() - t0)
                lat_cpu.append(time.process_time() - c0)
            lat_touch = []
            for _ in range(max(20, queries // 5)):
                q = _query(rng)
                t0 = time.perf_counter()
                mem.recall(q, user_id=pick(), limit=5)
                lat_touch.append(time.perf_counter() - t0)
            flt = mem.recall_filter(first_user)
            remembered = []
            for _ in range(20):
                t0 = time.perf_counter()
                n_active = mem.store.count(flt)
                remembered.append(time.perf_counter() - t0)
            fresh = fresh_process_recall(target, embedder, first_user, _query(rng)) if fresh_process else None
            sweep_s, swept = float("nan"), None
            if not reuse:
                clock.advance(days=45)  # most low-importance episodes fade by now
                t0 = time.perf_counter()
                swept = mem.sweep().total
                sweep_s = time.perf_counter() - t0
            results["sizes"][str(size)] = {
                "reused": reused,
                "bulk_writes_per_s": None if reused else round(size / write_s, 1),
                "index_build_s": None if reused else round(index_s, 3),
                "single_write_ms_p50": round(percentile(single, 0.5) * 1000, 3),
                "single_write_with_contradiction_check_ms_p50": (
                    round(percentile(flagged, 0.5) * 1000, 3) if flagged else None  # --check-writes 0
                ),
                "first_recall_s": round(first_recall_s, 3),
                "recall_ms_p50": round(percentile(lat, 0.5) * 1000, 3),
                "recall_cpu_ms_p50": round(percentile(lat_cpu, 0.5) * 1000, 3),
                "single_write_with_contradiction_check_cpu_ms_p50": (
                    round(percentile(flagged_cpu, 0.5) * 1000, 3) if flagged_cpu else None
                ),
                "load_average": round(os.getloadavg()[0], 1),
                "recall_ms_p95": round(percentile(lat, 0.95) * 1000, 3),
                "recall_with_touch_ms_p50": round(percentile(lat_touch, 0.5) * 1000, 3),
                "still_remembered_count_ms_p50": round(percentile(remembered, 0.5) * 1000, 3),
                "still_remembered": n_active,
                "sweep_s_after_45_days": None if reuse else round(sweep_s, 3),
                "swept": swept,
                "fresh_process": fresh,
            }
            mem.close()
        results["faded_scaling"] = _faded_scaling(Path(tmp.name), rng, progress) if faded_scaling else []
    finally:
        tmp.cleanup()
    return results


def _holds(mem: Any, names: list[str], size: int) -> bool:
    """Whether the bench's users already hold ``size`` memories between them in this database."""
    return sum(mem.count_memories(name) for name in names) >= size


def _faded_scaling(folder: Path, rng: random.Random, progress: bool) -> list[dict[str, Any]]:
    """Listing what is remembered must not get slower as faded memories pile up."""
    from remnant.bench import percentile
    from remnant.core.clock import ManualClock
    from remnant.engine.forgetting.contradictions import ContradictionPolicy
    from remnant.engine.memory import Memory

    rows = []
    for faded in (0, 10_000, 100_000):
        clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
        mem = Memory(
            folder / f"faded-{faded}.db",
            clock=clock,
            contradictions=ContradictionPolicy(mode="off"),
            dedup=False,
        )
        done = 0
        while done < faded:
            n = min(5000, faded - done)
            mem.remember_many(
                {"content": _sentence(rng), "user_id": "u", "kind": "episode", "importance": 0.0}
                for _ in range(n)
            )
            done += n
        clock.advance(days=400)  # all of those fade
        mem.remember_many({"content": _sentence(rng), "user_id": "u", "importance": 0.8} for _ in range(1000))
        lat = []
        for _ in range(15):
            t0 = time.perf_counter()
            active = mem.active("u")
            lat.append(time.perf_counter() - t0)
        rows.append(
            {
                "faded": faded,
                "active": len(active),
                "active_list_ms_p50": round(percentile(lat, 0.5) * 1000, 3),
            }
        )
        mem.close()
    return rows


@click.command("engine", context_settings=CONTEXT_SETTINGS)
@click.option("--db", "db", help="Run against this database (default: a fresh temp SQLite file per size).")
@click.option("--sizes", default="10000,100000", show_default=True, help="Comma-separated memory counts.")
@click.option("--queries", type=click.IntRange(10), default=200, show_default=True)
@click.option("--seed", type=int, default=7, show_default=True)
@click.option(
    "--embedder",
    help="Hybrid recall with this embedder (e.g. static, minilm, e5-small); default: lexical recall only.",
)
@click.option(
    "--users",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Spread the memories over this many users (1: all in one scope, the worst case for recall).",
)
@click.option(
    "--check-writes",
    type=click.IntRange(0),
    default=100,
    show_default=True,
    help="Single writes timed with the default contradiction check (slow in a huge single-user scope).",
)
@click.option(
    "--faded-scaling/--no-faded-scaling",
    default=True,
    show_default=True,
    help="Also time listing what is remembered as faded memories pile up (always on temp SQLite files).",
)
@click.option(
    "--fresh-process/--no-fresh-process",
    default=False,
    show_default=True,
    help="Also time the first recall of a new process on the database, and its peak memory.",
)
@click.option(
    "--reuse/--no-reuse",
    default=False,
    show_default=True,
    help="With --db: measure a database that already holds this size (from an earlier run with the same "
    "--seed and --users) instead of writing it again (skips the bulk write); never sweeps, so that the "
    "database a first --reuse run builds stays reusable.",
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
def bench_engine(
    db: str | None,
    sizes: str,
    queries: int,
    seed: int,
    embedder: str | None,
    users: int,
    check_writes: int,
    faded_scaling: bool,
    fresh_process: bool,
    reuse: bool,
    json_path: str | None,
) -> None:
    """Writes per second, recall p50/p95 and "still remembered" query time at each size, and the cost
    of listing active memories as faded ones pile up (it should stay flat).

    With --db postgresql://… the same figures come from PostgreSQL; with --embedder, recall is hybrid
    and PostgreSQL searches vectors through its HNSW index (SQLite through a per-process index built
    on the first recall, reported as "first recall")."""
    from remnant.bench import header

    try:
        size_list = [int(s.replace("_", "")) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise click.BadParameter("sizes must be comma-separated integers", param_hint="--sizes") from None
    if embedder is not None:
        from remnant.embed import get_embedder
        from remnant.embed.base import EmbeddingError

        try:
            get_embedder(embedder)
        except EmbeddingError as exc:
            raise click.BadParameter(str(exc), param_hint="--embedder") from None
    click.echo(header("remnant bench engine " + shlex.join(sys.argv[3:])))
    res = run_engine_bench(
        db,
        size_list,
        queries,
        seed,
        embedder=embedder,
        users=users,
        check_writes=check_writes,
        faded_scaling=faded_scaling,
        fresh_process=fresh_process,
        reuse=reuse,
    )
    click.echo(
        f"\n{'memories':>10} {'writes/s':>10} {'index':>8} {'write p50':>10} {'+check p50':>11} "
        f"{'1st recall':>11} {'recall p50':>11} {'recall p95':>11} {'+touch p50':>11} {'remembered':>11} "
        f"{'sweep':>8}"
    )
    for size, r in res["sizes"].items():
        check = r["single_write_with_contradiction_check_ms_p50"]
        rate, built, swept = r["bulk_writes_per_s"], r["index_build_s"], r["sweep_s_after_45_days"]
        click.echo(
            f"{int(size):>10,} {f'{rate:,.0f}' if rate is not None else 'reused':>10} "
            f"{f'{built:.1f}s' if built is not None else '-':>8} "
            f"{r['single_write_ms_p50']:>8.2f}ms "
            f"{f'{check:.2f}ms' if check is not None else '-':>11} {r['first_recall_s']:>10.2f}s "
            f"{r['recall_ms_p50']:>9.2f}ms {r['recall_ms_p95']:>9.2f}ms {r['recall_with_touch_ms_p50']:>9.2f}ms "
            f"{r['still_remembered_count_ms_p50']:>9.2f}ms {f'{swept:.2f}s' if swept is not None else '-':>8}"
        )
    click.echo("CPU time per operation (the process's, every thread; the load distorts it less):")
    for size, r in res["sizes"].items():
        check_cpu = r["single_write_with_contradiction_check_cpu_ms_p50"]
        click.echo(
            f"{int(size):>10,}: recall p50 {r['recall_cpu_ms_p50']:.2f} ms, +check p50 "
            f"{f'{check_cpu:.2f} ms' if check_cpu is not None else '-'} (load average {r['load_average']})"
        )
    for size, r in res["sizes"].items():
        f = r["fresh_process"]
        if f is not None:
            click.echo(
                f"fresh process at {int(size):,}: open {f['open_s'] * 1000:.0f} ms, first recall "
                f"{f['first_recall_s'] * 1000:.0f} ms, peak RSS {f['peak_rss_mib']:.0f} MiB, of which "
                f"{f['model_rss_mib']:.0f} MiB before the store opened (imports and the model, "
                f"loaded in {f['startup_s']:.2f} s, not counted)"
            )
    if res["faded_scaling"]:
        click.echo("\nlisting what is remembered (1,000 active) as faded memories pile up:")
    for row in res["faded_scaling"]:
        click.echo(
            f"  faded {row['faded']:>7,}: active() p50 {row['active_list_ms_p50']:.2f} ms ({row['active']} rows)"
        )
    if json_path:
        Path(json_path).write_text(json.dumps(res, indent=2))
