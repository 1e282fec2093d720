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

from remnant.bench import CONTEXT_SETTINGS


def _bulk_load(path: Path, n: int, users: int, seed: int, now_epoch: float, *, settled: bool) -> float:
    """Insert ``n`` synthetic memories a year deep in big transactions; returns seconds taken.

    ``settled``: the store looks as if daily sweeps (and weekly eviction) ran until yesterday:
    faded memories carry the faded status, expired ones the expired status, and what those sweeps
    would have purged is not there; ``n`` counts the memories that remain. Otherwise every memory is
    active and the first sweep has a whole year of backlog. The decay state and the importance
    score are computed with numpy from the same formulas as :mod:`remnant.core.decay` and
    :mod:`remnant.core.importance` (a test-sized run checks them against the sweep).
    """
    import numpy as np

    from remnant.core.decay import SECONDS_PER_DAY, DecayConfig
    from remnant.core.model import Kind
    from remnant.engine.forgetting.eviction import EvictionPolicy
    from remnant.store.filter_sql import BIG
    from remnant.store.sql import COLUMNS
    from remnant.store.sqlite import SQLiteStore, scope_tokens

    rng = np.random.default_rng(seed)
    cfg = DecayConfig()
    kinds = [Kind.FACT, Kind.PREFERENCE, Kind.EPISODE, Kind.OPEN_ISSUE]
    base = np.array([cfg.base_stability_days[k.value] for k in kinds])
    words = np.array(
        ["tea", "coffee", "berlin", "paris", "invoice", "order", "meeting", "dentist", "garden", "bike"]
    )
    store = SQLiteStore(path)
    store.set_meta("decay_clock_mode", "wall")
    conn = store.connection
    day = SECONDS_PER_DAY
    year = 365 * day
    yesterday = now_epoch - day
    ev = EvictionPolicy()
    t0 = time.perf_counter()
    cols = ", ".join(("rid", *COLUMNS))
    marks = ", ".join("?" * (len(COLUMNS) + 1))
    rid = 0
    while rid < n:
        m = 100_000
        created = now_epoch - rng.random(m) * year
        imp = rng.random(m)
        access = rng.geometric(0.5, m) - 1
        accessed = np.where(access > 0, created + (now_epoch - created) * rng.random(m), np.nan)
        kind_ix = rng.integers(0, len(kinds), m)
        user_ix = rng.integers(0, users, m)
        expires = np.where(rng.random(m) < 0.05, created + rng.random(m) * 60 * day, np.nan)
        pinned = rng.random(m) < 0.01
        conf = 0.5 + 0.5 * rng.random(m)
        touched = np.where(np.isnan(accessed), created, accessed)
        # decay state (remnant.core.decay): initial strength and stability, anchored at the last use
        s0 = np.minimum(1.0, 0.5 + 0.5 * imp)
        stab = np.minimum(cfg.max_stability_days, base[kind_ix] * (1 + cfg.importance_stability_factor * imp))
        anchor = touched / day
        fade = np.where(s0 > cfg.recall_threshold, anchor + stab * np.log(s0 / cfg.recall_threshold), anchor)
        fade = np.where(pinned, BIG, fade)
        status = np.full(m, "active", dtype=object)
        changed = np.full(m, np.nan)
        keep = np.ones(m, dtype=bool)
        if settled:
            w = ev.weights
            idle = np.maximum(0.0, (yesterday - touched) / day)
            age = np.maximum(0.0, (yesterday - created) / day)
            score = (
                conf
                * (1 / (idle + 1) + np.log1p(access))
                * (1 + w.mark_weight * imp)
                * np.power(w.decay_per_day, age)
            )
            evicted = (~pinned) & (touched < yesterday - ev.unaccessed_days * day) & (score < ev.threshold)
            expired = ~np.isnan(expires) & (expires <= yesterday)
            faded = ~expired & ~pinned & (fade <= yesterday / day)
            faded_at = np.maximum(created, fade * day)
            status[expired], changed[expired] = "expired", expires[expired]
            status[faded], changed[faded] = "faded", faded_at[faded]
            keep = (
                ~evicted
                & ~(expired & (expires <= yesterday - 7 * day))
                & ~(faded & (faded_at <= yesterday - 30 * day))
            )
        idx = np.flatnonzero(keep)[: n - rid]
        rids = np.arange(rid + 1, rid + 1 + len(idx))
        rid += len(idx)
        contents = [
            f"note {r} about {a} and {b}"
            for r, a, b in zip(
                rids.tolist(),
                words[rng.integers(0, len(words), m)][idx],
                words[rng.integers(0, len(words), m)][idx],
                strict=True,
            )
        ]

        scope_of = {u: scope_tokens("default", f"user{u:05d}") for u in range(users)}
        scopes = [scope_of[u] for u in user_ix[idx].tolist()]

        def col(a: Any, idx: Any = idx) -> list[Any]:
            return [None if isinstance(v, float) and v != v else v for v in a[idx].tolist()]  # NaN -> NULL

        rows = zip(
            rids.tolist(),
            [f"mem_bench{r:021d}" for r in rids.tolist()],
            ["default"] * len(idx),
            [f"user{u:05d}" for u in user_ix[idx].tolist()],
            [None] * len(idx),
            [None] * len(idx),
            [kinds[k].value for k in kind_ix[idx].tolist()],
            [None] * len(idx),
            contents,
            ["bench"] * len(idx),
            conf[idx].tolist(),
            imp[idx].tolist(),
            pinned[idx].astype(int).tolist(),
            created[idx].tolist(),
            col(accessed),
            access[idx].tolist(),
            [0] * len(idx),
            col(expires),
            [None] * len(idx),
            [None] * len(idx),
            status[idx].tolist(),
            [None] * len(idx),
            col(changed),
            [None] * len(idx),
            s0[idx].tolist(),
            stab[idx].tolist(),
            anchor[idx].tolist(),
            fade[idx].tolist(),
            ["{}"] * len(idx),
            [None] * len(idx),  # occurred_at
            strict=True,
        )
        with store.transaction():
            conn.executemany(f"INSERT INTO memories ({cols}) VALUES ({marks})", rows)
            conn.executemany(
                "INSERT INTO memory_fts (rowid, scope, text) VALUES (?, ?, ?)",
                zip(rids.tolist(), scopes, contents, strict=True),
            )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return time.perf_counter() - t0


def _sweep_figures(path: Path, n: int, users: int, now_epoch: float, settled: bool) -> dict[str, Any]:
    from dataclasses import replace
    from datetime import timedelta

    from remnant.core.clock import ManualClock, from_epoch
    from remnant.engine.forgetting.eviction import EvictionPolicy
    from remnant.engine.forgetting.sweep import SweepPolicy
    from remnant.engine.memory import Memory

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


@click.command("forgetting", context_settings=CONTEXT_SETTINGS)
@click.option("--sizes", default="100000,1000000", show_default=True, help="Comma-separated memory counts.")
@click.option("--users", type=click.IntRange(1), default=1000, show_default=True)
@click.option("--db", "db_dir", type=click.Path(file_okay=False), help="Folder for the bench databases.")
@click.option(
    "--pairs", type=click.IntRange(10), default=200, show_default=True, help="Labelled pairs per label."
)
@click.option("--seed", type=int, default=7, show_default=True)
@click.option("--keep", is_flag=True, help="Keep the bench databases.")
@click.option("--load-only", is_flag=True, help="Only build the databases (implies --keep).")
@click.option(
    "--reuse",
    is_flag=True,
    help="Sweep the databases a --load-only run left in --db (once: sweeping changes them).",
)
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
    load_only: bool,
    reuse: bool,
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

    from remnant.understand.contradiction_set import evaluate, generate_pairs

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
    if (load_only or reuse) and not db_dir:
        raise click.BadParameter("--load-only and --reuse need --db")
    keep = keep or load_only or reuse
    for n in counts:
        path = folder / f"forgetting-{n}{'-backlog' if backlog else ''}.db"
        if reuse:
            if not path.exists():
                raise click.BadParameter(f"{path} does not exist; build it first with --load-only")
            load_s = float("nan")
        else:
            for p in folder.glob(f"{path.name}*"):
                p.unlink()
            load_s = _bulk_load(path, n, users, seed, now_epoch, settled=not backlog)
        if load_only:
            click.echo(f"{n:>9} memories loaded into {path} in {load_s:.1f}s")
            continue
        figures = _sweep_figures(path, n, users, now_epoch, settled=not backlog)
        figures["load_s"] = None if reuse else round(load_s, 1)
        figures["db_mb"] = round(path.stat().st_size / 1e6, 1)
        result["sweeps"].append(figures)
        if not keep:
            for p in folder.glob(f"{path.name}*"):
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
