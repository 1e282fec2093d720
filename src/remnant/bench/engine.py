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

from remnant.bench import CONTEXT_SETTINGS, product_switches

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


LEXICAL = ("none", "off", "lexical")
#: items of the timed batch written into each size's full scope (ingest rate at that size)
INGEST_AT = 1000


def bench_memory(
    target: str | Path,
    clock: Any,
    *,
    embedder: str | None = None,
    dedup: bool = True,
    contradictions: str | None = None,
) -> Any:
    """The product as shipped, ``remnant.Memory(target)``, with only the switches asked for:
    ``embedder`` (None: the default model; ``"none"``: lexical recall), ``dedup=False``,
    ``contradictions`` (a :class:`ContradictionPolicy` mode; None: the default policy)."""
    from remnant.config import Memory
    from remnant.engine.forgetting.contradictions import ContradictionPolicy

    options: dict[str, Any] = {}
    if embedder is not None:
        options["embedder"] = None if embedder.lower() in LEXICAL else embedder
    if not dedup:
        options["dedup"] = False
    if contradictions is not None:
        options["contradictions"] = ContradictionPolicy(mode=contradictions)  # type: ignore[arg-type]
    return Memory(target, clock=clock, **options)


def product_options(mem: Any) -> dict[str, Any]:
    """The switches of a :class:`remnant.Memory` a benchmark could turn, as that object has them
    (what a bench reports, and a test compares with ``Memory(path)``'s)."""
    retriever = mem.retriever
    model = getattr(retriever, "model_id", None)
    policy = getattr(retriever, "policy", None)
    return {
        "dedup": bool(mem.dedup),
        "contradictions": mem.contradictions.mode,
        "embedder": model,
        "context_vector": float(getattr(policy, "context_vector", 0.0)) if model is not None else 0.0,
        "recall": getattr(retriever, "mode", type(retriever).__name__),
        "privacy": mem.redactor is not None,
        "ingestor": type(mem.ingestor).__name__,
    }


def default_options() -> dict[str, Any]:
    """:func:`product_options` of ``remnant.Memory(path)`` with every default (in this environment:
    ``REMNANT_EMBEDDER`` and the like are part of the defaults)."""
    with tempfile.TemporaryDirectory(prefix="remnant-defaults-") as tmp:
        from remnant.config import Memory

        with Memory(Path(tmp) / "defaults.db") as mem:
            return product_options(mem)


def switched(options: dict[str, Any], defaults: dict[str, Any]) -> list[str]:
    """Each switch of ``options`` that differs from the product's ``defaults``, as ``name=value
    (default value)``: what a bench prints, so no figure silently comes from another setup."""
    return [
        f"{k}={options.get(k)!r} (default {v!r})" for k, v in sorted(defaults.items()) if options.get(k) != v
    ]


#: what a fresh process runs: open the database, one recall, its wall time and peak memory
_FRESH = """
import json, sys, time
from remnant.bench import peak_rss_mib
t0 = time.perf_counter()
from datetime import UTC, datetime
from remnant.bench.engine import bench_memory
from remnant.core.clock import ManualClock
model_rss = peak_rss_mib()  # imports: not the store's
t1 = time.perf_counter()
mem = bench_memory(sys.argv[1], ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), embedder=sys.argv[2] or None)
t2 = time.perf_counter()
mem.recall(sys.argv[4], user_id=sys.argv[3], limit=10, touch=False, hints=False)
t3 = time.perf_counter()
print(json.dumps({"startup_s": t1 - t0, "open_s": t2 - t1, "first_recall_s": t3 - t2,
                  "model_rss_mib": model_rss, "peak_rss_mib": peak_rss_mib()}))
"""


def fresh_process_recall(db: str, embedder: str | None, user_id: str, query: str) -> dict[str, float]:
    """The first recall of a new process on ``db`` through the product (``remnant.Memory``, the
    same embedder): open (the embedder loads with it), one recall, and that process's peak RSS,
    the embedder's included; ``model_rss_mib`` is the imports' share."""
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
    dedup: bool = True,
    contradictions: str | None = None,
    ingest_at: int = INGEST_AT,
) -> dict[str, Any]:
    """The figures of ``remnant bench engine`` on ``remnant.Memory`` as shipped; ``embedder``,
    ``dedup`` and ``contradictions`` are the only switches (see :func:`bench_memory`), and the
    result says which differ from the defaults (``options``, ``switched``)."""
    from contextlib import nullcontext

    from remnant.bench import percentile
    from remnant.core.clock import ManualClock

    rng = random.Random(seed)
    defaults = default_options()
    results: dict[str, Any] = {
        "sizes": {},
        "embedder": embedder,
        "users": users,
        "defaults": defaults,
        "options": {},
        "switched": [],
    }
    switches = {"embedder": embedder, "dedup": dedup, "contradictions": contradictions}
    tmp = tempfile.TemporaryDirectory(prefix="remnant-bench-")
    try:
        for size in sizes:
            target = db or str(Path(tmp.name) / f"bench-{size}.db")
            clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
            # the product's write path: dedup, the contradiction check, the paired context vectors
            mem = bench_memory(target, clock, **switches)  # type: ignore[arg-type]
            results["options"] = product_options(mem)
            results["switched"] = switched(results["options"], defaults)
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
            stored = sum(mem.count_memories(name) for name in names)  # dedup keeps a repeat once
            if reused:
                write_s = float("nan")
            index_s = time.perf_counter() - start - write_s  # the deferred HNSW build, if any
            # a single write as the product does it: a fact (kind's default), so dedup and the
            # contradiction check run; CPU time of the process (every thread) is less distorted by load
            # new texts, never the bulk write's nor an earlier run's on a reused database (those
            # would be repeats: dedup's path, not a write's)
            wrng = random.Random(f"{seed}:{size}:{stored}")
            single: list[float] = []
            single_cpu: list[float] = []
            for _ in range(200):
                t0, c0 = time.perf_counter(), time.process_time()
                mem.remember(_sentence(wrng), user_id=pick())
                single.append(time.perf_counter() - t0)
                single_cpu.append(time.process_time() - c0)
            # conversation turns: the same write path without the contradiction check (episodes)
            episodes: list[float] = []
            for _ in range(check_writes):
                t0 = time.perf_counter()
                mem.remember(_sentence(wrng), user_id=pick(), kind="episode")
                episodes.append(time.perf_counter() - t0)
            # default bulk ingest at this size: a batch of INGEST_AT new items into the full scope
            # (with --reuse, the rate at a size without writing it all again)
            t0, c0 = time.perf_counter(), time.process_time()
            for s in range(0, ingest_at, 500):
                mem.remember_many(
                    {
                        "content": _sentence(wrng),
                        "user_id": names[(s + i) % users],
                        "importance": wrng.random(),
                        "kind": "episode" if wrng.random() < 0.5 else "fact",
                    }
                    for i in range(min(500, ingest_at - s))
                )
            ingest_at_s = max(time.perf_counter() - t0, 1e-9)
            ingest_at_cpu = time.process_time() - c0
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
                "stored_after_bulk": stored,
                "ingest_at_size_items_per_s": round(ingest_at / ingest_at_s, 1) if ingest_at else None,
                "ingest_at_size_cpu_ms_per_item": round(ingest_at_cpu / ingest_at * 1000, 3)
                if ingest_at
                else None,
                "single_write_ms_p50": round(percentile(single, 0.5) * 1000, 3),
                "single_write_cpu_ms_p50": round(percentile(single_cpu, 0.5) * 1000, 3),
                "episode_write_ms_p50": (
                    round(percentile(episodes, 0.5) * 1000, 3) if episodes else None  # --episode-writes 0
                ),
                "first_recall_s": round(first_recall_s, 3),
                "recall_ms_p50": round(percentile(lat, 0.5) * 1000, 3),
                "recall_cpu_ms_p50": round(percentile(lat_cpu, 0.5) * 1000, 3),
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


#: how the faded-scaling databases are filled (100k writes: not with the check and a model)
FADED_SWITCHES = {"embedder": "none", "dedup": False, "contradictions": "off"}


def _faded_scaling(folder: Path, rng: random.Random, progress: bool) -> list[dict[str, Any]]:
    """Listing what is remembered must not get slower as faded memories pile up."""
    from remnant.bench import percentile
    from remnant.core.clock import ManualClock

    rows = []
    for faded in (0, 10_000, 100_000):
        clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
        # the product, lexical: the fill is the setup (FADED_SWITCHES, printed), active() the figure
        mem = bench_memory(folder / f"faded-{faded}.db", clock, **FADED_SWITCHES)  # type: ignore[arg-type]
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
    help="The embedder (e.g. static, minilm, e5-small; none: lexical recall); default: the product's "
    "(REMNANT_EMBEDDER, else e5-small), with its paired context vectors.",
)
@product_switches
@click.option(
    "--users",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Spread the memories over this many users (1: all in one scope, the worst case for recall).",
)
@click.option(
    "--episode-writes",
    "--check-writes",
    "check_writes",
    type=click.IntRange(0),
    default=100,
    show_default=True,
    help="Also time this many single conversation-turn writes (kind episode: no contradiction check).",
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
@click.option(
    "--ingest-at",
    type=click.IntRange(0),
    default=INGEST_AT,
    show_default=True,
    help="Also time a default remember_many of this many new items into each size's full scope.",
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
def bench_engine(
    db: str | None,
    sizes: str,
    queries: int,
    seed: int,
    embedder: str | None,
    dedup: bool,
    contradictions: str | None,
    users: int,
    check_writes: int,
    faded_scaling: bool,
    fresh_process: bool,
    reuse: bool,
    ingest_at: int,
    json_path: str | None,
) -> None:
    """Writes per second, recall p50/p95 and "still remembered" query time at each size, and the cost
    of listing active memories as faded ones pile up (it should stay flat), all through
    ``remnant.Memory(path)`` as shipped: dedup, the contradiction check, hybrid recall with the
    default embedder and its paired context vectors. Each switch that differs from the product's
    defaults is printed with the figures.

    With --db postgresql://… the same figures come from PostgreSQL (PostgreSQL searches vectors
    through its HNSW index, SQLite through the vector file beside the database)."""
    from remnant.bench import header

    try:
        size_list = [int(s.replace("_", "")) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise click.BadParameter("sizes must be comma-separated integers", param_hint="--sizes") from None
    if embedder is not None and embedder.lower() not in LEXICAL:
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
        dedup=dedup,
        contradictions=contradictions,
        ingest_at=ingest_at,
    )
    click.echo(render_options(res["options"], res["switched"]))
    click.echo(
        f"\n{'memories':>10} {'stored':>9} {'writes/s':>10} {'index':>8} {'write p50':>10} {'episode p50':>12} "
        f"{'1st recall':>11} {'recall p50':>11} {'recall p95':>11} {'+touch p50':>11} {'remembered':>11} "
        f"{'sweep':>8}"
    )
    for size, r in res["sizes"].items():
        episode = r["episode_write_ms_p50"]
        rate, built, swept = r["bulk_writes_per_s"], r["index_build_s"], r["sweep_s_after_45_days"]
        click.echo(
            f"{int(size):>10,} {r['stored_after_bulk']:>9,} {f'{rate:,.0f}' if rate is not None else 'reused':>10} "
            f"{f'{built:.1f}s' if built is not None else '-':>8} "
            f"{r['single_write_ms_p50']:>8.2f}ms "
            f"{f'{episode:.2f}ms' if episode is not None else '-':>12} {r['first_recall_s']:>10.2f}s "
            f"{r['recall_ms_p50']:>9.2f}ms {r['recall_ms_p95']:>9.2f}ms {r['recall_with_touch_ms_p50']:>9.2f}ms "
            f"{r['still_remembered_count_ms_p50']:>9.2f}ms {f'{swept:.2f}s' if swept is not None else '-':>8}"
        )
    click.echo("write p50: a fact, as remember() writes by default (dedup and the contradiction check)")
    if ingest_at:
        click.echo(
            f"ingest at each size (remember_many of {ingest_at:,} new items, half facts, into the full "
            "scope): "
            + ", ".join(
                f"{int(k):,}: {r['ingest_at_size_items_per_s']:,.0f} items/s "
                f"({r['ingest_at_size_cpu_ms_per_item']:.2f} ms CPU an item)"
                for k, r in res["sizes"].items()
            )
        )
    click.echo("CPU time per operation (the process's, every thread; the load distorts it less):")
    for size, r in res["sizes"].items():
        click.echo(
            f"{int(size):>10,}: recall p50 {r['recall_cpu_ms_p50']:.2f} ms, write p50 "
            f"{r['single_write_cpu_ms_p50']:.2f} ms (load average {r['load_average']})"
        )
    for size, r in res["sizes"].items():
        f = r["fresh_process"]
        if f is not None:
            click.echo(
                f"fresh process at {int(size):,}: open (the embedder with it) {f['open_s'] * 1000:.0f} ms, "
                f"first recall {f['first_recall_s'] * 1000:.0f} ms, peak RSS "
                f"{f['peak_rss_mib']:.0f} MiB with the embedder, of which {f['model_rss_mib']:.0f} MiB "
                f"the imports (in {f['startup_s']:.2f} s)"
            )
    if res["faded_scaling"]:
        click.echo(
            "\nlisting what is remembered (1,000 active) as faded memories pile up (filled with "
            + ", ".join(f"{k}={v}" for k, v in FADED_SWITCHES.items())
            + "; the fill is the setup, not the figure):"
        )
    for row in res["faded_scaling"]:
        click.echo(
            f"  faded {row['faded']:>7,}: active() p50 {row['active_list_ms_p50']:.2f} ms ({row['active']} rows)"
        )
    if json_path:
        Path(json_path).write_text(json.dumps(res, indent=2))


def render_options(options: dict[str, Any], changed: list[str]) -> str:
    """The engine's effective switches, and those that differ from ``remnant.Memory(path)``'s."""
    line = "options: " + ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    if not changed:
        return line + "\nevery switch is the product's default"
    return line + "\nswitches that differ from remnant.Memory(path)'s defaults: " + "; ".join(changed)
