"""``remnant bench forgetting``: sweep time at scale and the contradiction detector's precision/recall.

Heavy work happens inside the command body; importing this module costs nothing but click.
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click


def _bulk_load(path: Path, n: int, users: int, seed: int, now_epoch: float, *, settled: bool) -> float:
    """Insert ``n`` synthetic memories a year deep in big transactions; returns seconds taken.

    ``settled``: the store looks as if daily sweeps (and weekly eviction) ran until yesterday:
    faded memories carry the faded status, expired ones the expired status, and what those sweeps
    would have purged is not there; ``n`` counts the memories that remain. Otherwise every memory is
    active and the first sweep has a whole year of backlog.
    """
    import math

    import numpy as np

    from remnant.core import decay as dk
    from remnant.core.decay import DecayConfig
    from remnant.core.model import Kind
    from remnant.forgetting.eviction import EvictionPolicy
    from remnant.forgetting.importance import importance_score_raw
    from remnant.store.sqlite import _BIG, _COLUMNS, SQLiteStore

    rng = np.random.default_rng(seed)
    cfg = DecayConfig()
    kinds = [Kind.FACT, Kind.PREFERENCE, Kind.EPISODE, Kind.OPEN_ISSUE]
    words = ["tea", "coffee", "berlin", "paris", "invoice", "order", "meeting", "dentist", "garden", "bike"]
    store = SQLiteStore(path)
    store.set_meta("decay_clock_mode", "wall")
    conn = store.connection
    year = 365 * 86_400.0
    t0 = time.perf_counter()
    cols = ", ".join(("rid", *_COLUMNS))
    marks = ", ".join("?" * (len(_COLUMNS) + 1))
    chunk = 50_000
    day = 86_400.0
    yesterday = now_epoch - day
    ev = EvictionPolicy()
    rid = 0
    while rid < n:
        m = chunk
        created = now_epoch - rng.random(m) * year
        imp = rng.random(m)
        access = rng.geometric(0.5, m) - 1
        accessed = created + (now_epoch - created) * rng.random(m)
        kind_ix = rng.integers(0, len(kinds), m)
        user_ix = rng.integers(0, users, m)
        expiring = rng.random(m) < 0.05
        expires = created + rng.random(m) * 60 * 86_400.0
        pinned = rng.random(m) < 0.01
        conf = 0.5 + 0.5 * rng.random(m)
        w1 = rng.integers(0, len(words), m)
        w2 = rng.integers(0, len(words), m)
        rows, fts = [], []
        for i in range(m):
            if rid >= n:
                break
            kind = kinds[int(kind_ix[i])]
            last = float(accessed[i]) if access[i] > 0 else None
            anchor = dk.wall_axis(last if last is not None else float(created[i]))
            state = dk.DecayState(
                dk.initial_strength(float(imp[i])),
                dk.initial_stability(kind, float(imp[i]), cfg),
                anchor,
                bool(pinned[i]),
            )
            fade = dk.fade_at(state, cfg)
            status, changed, exp = "active", None, float(expires[i]) if expiring[i] else None
            if settled:
                if exp is not None and exp <= yesterday - 7 * day:
                    continue  # purged after the expiry grace
                touched = last if last is not None else float(created[i])
                idle_enough = touched < yesterday - ev.unaccessed_days * day
                score = importance_score_raw(
                    now=yesterday,
                    created_at=float(created[i]),
                    last_accessed_at=last,
                    access_count=int(access[i]),
                    confidence=float(conf[i]),
                    importance=float(imp[i]),
                    pinned=bool(pinned[i]),
                    weights=ev.weights,
                )
                if idle_enough and score < ev.threshold:
                    continue  # evicted by an earlier weekly sweep
                if exp is not None and exp <= yesterday:
                    status, changed = "expired", exp
                elif not pinned[i] and fade <= dk.wall_axis(yesterday):
                    status, changed = "faded", max(float(created[i]), fade * dk.SECONDS_PER_DAY)
                    if changed <= yesterday - 30 * day:
                        continue  # purged after the fade grace (the bench policy purges faded)
            rid += 1
            content = f"note {rid} about {words[int(w1[i])]} and {words[int(w2[i])]}"
            rows.append(
                (
                    rid,
                    f"mem_bench{rid:021d}",
                    "default",
                    f"user{int(user_ix[i]):05d}",
                    None,
                    None,
                    kind.value,
                    None,
                    content,
                    "bench",
                    float(conf[i]),
                    float(imp[i]),
                    int(pinned[i]),
                    float(created[i]),
                    last,
                    int(access[i]),
                    0,
                    exp,
                    None,
                    None,
                    status,
                    None,
                    changed,
                    None,
                    state.strength0,
                    state.stability,
                    state.anchor,
                    _BIG if math.isinf(fade) else fade,
                    "{}",
                )
            )
            fts.append((rid, content))
        with store.transaction():
            conn.executemany(f"INSERT INTO memories ({cols}) VALUES ({marks})", rows)
            conn.executemany("INSERT INTO memory_fts (rowid, text) VALUES (?, ?)", fts)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return time.perf_counter() - t0


def _sweep_figures(path: Path, n: int, users: int, now_epoch: float, settled: bool) -> dict[str, Any]:
    from dataclasses import replace
    from datetime import timedelta

    from remnant.core.clock import ManualClock, from_epoch
    from remnant.engine.memory import Memory
    from remnant.engine.sweep import SweepPolicy
    from remnant.forgetting.eviction import EvictionPolicy

    start = from_epoch(now_epoch)
    assert start is not None
    clock = ManualClock(start)
    capacity = max(1, int(n / users * 0.9))
    policy = SweepPolicy(fade_action="purge", evict=EvictionPolicy(capacity=capacity))
    out: dict[str, Any] = {
        "memories": n,
        "users": users,
        "store": "settled" if settled else "backlog",
        "capacity_per_user": capacity,
    }
    with Memory(path, clock=clock) as mem:
        t = time.perf_counter()
        dry = mem.sweep(dry_run=True, policy=policy)
        out["dry_run_s"] = round(time.perf_counter() - t, 2)
        out["dry_run_steps"] = {s.action: s.count for s in dry.steps}
        t = time.perf_counter()
        first = mem.sweep(policy=policy)
        out["sweep_s"] = round(time.perf_counter() - t, 2)
        out["sweep_steps"] = {s.action: s.count for s in first.steps}
        # the steady state: a day later, the daily sweep (expiry and fading, no eviction)...
        clock.advance(timedelta(days=1))
        t = time.perf_counter()
        daily = mem.sweep(policy=replace(policy, evict=None))
        out["daily_sweep_s"] = round(time.perf_counter() - t, 2)
        out["daily_sweep_steps"] = {s.action: s.count for s in daily.steps}
        # ...and a week after the first, the weekly sweep with eviction and the capacity cap
        clock.advance(timedelta(days=6))
        t = time.perf_counter()
        weekly = mem.sweep(policy=policy)
        out["weekly_sweep_s"] = round(time.perf_counter() - t, 2)
        out["weekly_sweep_steps"] = {s.action: s.count for s in weekly.steps}
        t = time.perf_counter()
        again = mem.sweep(policy=policy)
        out["repeat_sweep_s"] = round(time.perf_counter() - t, 2)
        out["repeat_sweep_total"] = again.total
        out["audit_entries"] = len(mem.audit_log())
        out["audit_ok"] = mem.verify_audit().ok
        out["remaining"] = mem.stats()["by_status"]
    return out


@click.command(name="forgetting")
@click.option("--sizes", default="100000,1000000", show_default=True, help="Comma-separated memory counts.")
@click.option("--users", type=click.IntRange(1), default=1000, show_default=True)
@click.option("--db", "db_dir", type=click.Path(file_okay=False), help="Folder for the bench databases.")
@click.option(
    "--pairs", type=click.IntRange(10), default=200, show_default=True, help="Labelled pairs per label."
)
@click.option("--seed", type=int, default=7, show_default=True)
@click.option("--keep", is_flag=True, help="Keep the bench databases.")
@click.option(
    "--backlog",
    is_flag=True,
    help="Start from a year of unswept memories (worst case) instead of a store swept until yesterday.",
)
@click.option("--json", "as_json", is_flag=True)
def bench_forgetting(
    sizes: str,
    users: int,
    db_dir: str | None,
    pairs: int,
    seed: int,
    keep: bool,
    backlog: bool,
    as_json: bool,
) -> None:
    """Sweep time at each size, and the contradiction detector's precision/recall.

    Each size gets a fresh SQLite file of synthetic memories created over the past year (5 % with
    a TTL, 1 % pinned, access counts geometric), by default as daily sweeps would have left it
    yesterday (--backlog: all active, a year of unswept work). The first sweep runs every policy
    (expiry, fading, purges after grace, importance eviction, a per-user capacity of 90 % of the
    average); then a daily sweep a simulated day later (no eviction) and the weekly sweep with
    eviction a week after the first; a repeat must change nothing.
    """
    from datetime import UTC, datetime

    from remnant.forgetting.contradiction_set import evaluate, generate_pairs

    try:
        counts = [int(s.replace("_", "")) for s in sizes.split(",") if s.strip()]
    except ValueError as exc:
        raise click.BadParameter(f"--sizes must be integers: {exc}") from exc
    if not counts or any(c < 1 for c in counts):
        raise click.BadParameter("--sizes needs positive integers")
    now_epoch = datetime(2027, 1, 1, tzinfo=UTC).timestamp()
    folder = Path(db_dir) if db_dir else Path(tempfile.mkdtemp(prefix="remnant-bench-forgetting-"))
    folder.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "command": "remnant bench forgetting " + " ".join(sys.argv[3:]) if len(sys.argv) > 3 else "",
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}",
        "sweeps": [],
    }
    t = time.perf_counter()
    score = evaluate(generate_pairs(pairs, seed))
    result["contradictions"] = {**score.to_dict(), "seconds": round(time.perf_counter() - t, 2)}
    for n in counts:
        path = folder / f"forgetting-{n}.db"
        for p in folder.glob(f"forgetting-{n}.db*"):
            p.unlink()
        load_s = _bulk_load(path, n, users, seed, now_epoch, settled=not backlog)
        figures = _sweep_figures(path, n, users, now_epoch, settled=not backlog)
        figures["load_s"] = round(load_s, 1)
        figures["db_mb"] = round(path.stat().st_size / 1e6, 1)
        result["sweeps"].append(figures)
        if not keep:
            for p in folder.glob(f"forgetting-{n}.db*"):
                p.unlink()
        if not as_json:
            click.echo(
                f"{n:>9} memories, {figures['store']} ({figures['db_mb']} MB, loaded in {figures['load_s']}s)\n"
                f"  dry run          {figures['dry_run_s']:>7}s  {figures['dry_run_steps']}\n"
                f"  first sweep      {figures['sweep_s']:>7}s  {figures['sweep_steps']}\n"
                f"  daily, +1 day    {figures['daily_sweep_s']:>7}s  {figures['daily_sweep_steps']}\n"
                f"  weekly, +7 days  {figures['weekly_sweep_s']:>7}s  {figures['weekly_sweep_steps']}\n"
                f"  repeat           {figures['repeat_sweep_s']:>7}s  changed {figures['repeat_sweep_total']}\n"
                f"  audit entries {figures['audit_entries']}, chain ok {figures['audit_ok']}"
            )
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        c = result["contradictions"]
        click.echo(
            f"contradictions on {c['n']} labelled pairs: precision {c['precision']:.3f}, "
            f"recall {c['recall']:.3f}, F1 {c['f1']:.3f}, 3-way accuracy {c['accuracy']:.3f}"
        )
        click.echo(f"machine: {result['machine']}")
