"""``remnant bench locomo``: retrieval quality on LoCoMo through the real engine, with two baselines."""

from __future__ import annotations

import json
import shlex
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from remnant.bench import CONTEXT_SETTINGS


def _embedder(name: str, threads: int, cache_dir: str | None, query_cache: bool = True) -> Any:
    from remnant.embed import CachedEmbedder, NpzVectorCache, get_embedder

    options: dict[str, Any] = {"threads": threads} if name in ("minilm", "e5-small", "e5", "arctic") else {}
    inner = get_embedder(name, shared=False, **options)
    return CachedEmbedder(
        inner,
        store=NpzVectorCache(cache_dir) if cache_dir else None,
        persist_queries=bool(cache_dir) and query_cache,
    )


def _flush(*embedders: Any) -> None:
    for cached in embedders:
        store = getattr(cached, "store", None)
        if store is not None:
            store.flush()


def latency_at_scale(conversations: Any, embedder: Any, n: int, db_dir: str) -> dict[str, Any]:
    """Recall latency (excluding the query embedding) with ``n`` memories in one scope.

    The scope is filled with the turns of the given conversations, repeated (with a marker so
    each memory is distinct) until it holds ``n``; the questions are then asked against it.
    """
    from datetime import UTC

    from remnant.bench import percentile
    from remnant.bench.eval.locomo import TimedEmbedder, latest_session
    from remnant.core.clock import ManualClock
    from remnant.engine.memory import Memory
    from remnant.retrieval.retriever import HybridRetriever

    timed = TimedEmbedder(embedder)
    when = latest_session(conversations)
    clock = ManualClock(when.replace(tzinfo=UTC)) if when else None
    path = Path(db_dir) / "locomo-scale.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    turns = [t for c in conversations for t in c.turns]
    # dedup off: the copies repeat their text on purpose (a scope of n memories to search)
    mem = Memory(path, clock=clock, retriever=HybridRetriever(timed), dedup=False)
    try:
        items = []
        for i in range(n):
            t = turns[i % len(turns)]
            rep = i // len(turns)
            # copies keep the text (so the content-hash cache embeds each text once) but live
            # in their own sessions, so the scope really holds n memories to search
            items.append(
                {
                    "content": (t.text + (f" [shared a photo: {t.caption}]" if t.caption else "")).strip()
                    or "(no text)",
                    "user_id": "scale",
                    "kind": "episode",
                    "session_id": f"r{rep}-s{t.session}",
                    "metadata": {"speaker": t.speaker},
                }
            )
        t0 = time.perf_counter()
        for s in range(0, n, 500):
            mem.remember_many(items[s : s + 500], supersede=False)
        ingest = time.perf_counter() - t0
        questions = [q.question for c in conversations for q in c.questions][:300]
        mem.recall(questions[0], user_id="scale", limit=5, touch=False, hints=False)  # builds the index
        times = []
        for q in questions:
            q0 = timed.queries_s
            t1 = time.perf_counter()
            mem.recall(q, user_id="scale", limit=5, touch=False, hints=False)
            times.append((time.perf_counter() - t1 - (timed.queries_s - q0)) * 1000)
        return {
            "memories": n,
            "queries": len(times),
            "search_ms_p50": percentile(times, 0.5),
            "search_ms_p95": percentile(times, 0.95),
            "ingest_ms_per_item": 1000 * ingest / n,
            "embed_ms_per_query": 1000 * timed.queries_s / max(len(times) + 1, 1),
        }
    finally:
        mem.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


@click.command("locomo", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--data",
    "data_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A LoCoMo JSON file (one conversation or a list).",
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the results as JSON here.")
@click.option("--chart", "chart_path", type=click.Path(dir_okay=False), help="Write a PNG bar chart here.")
@click.option("--limit-conversations", type=click.IntRange(1), help="Use only the first N conversations.")
@click.option("--embedder", default="e5-small", show_default=True, help="Embedder of the remnant system.")
@click.option(
    "--baseline-embedder",
    default="same",
    show_default=True,
    help="Embedder of the dense baseline ('same': the remnant system's, a same-embedder comparison).",
)
@click.option(
    "--clock",
    type=click.Choice(["real", "replay"]),
    default="real",
    show_default=True,
    help="real: memories learned now, said at their session dates; replay: learned at their session dates.",
)
@click.option(
    "--dump",
    "dump_path",
    type=click.Path(dir_okay=False),
    help="Write one JSON line per question and system (its top 10, evidence, scores) here.",
)
@click.option(
    "--folds",
    is_flag=True,
    help="Leave-one-conversation-out cross-validation of the tuned weights, with an ablation per component.",
)
@click.option(
    "--weight-search/--no-weight-search",
    default=True,
    show_default=True,
    help="With --folds: also search the fixed weights fold by fold (slow); without it only the learned "
    "ranker's folds against the shipped weights.",
)
@click.option(
    "--train-ranker",
    "train_ranker_path",
    type=click.Path(dir_okay=False),
    help="Train the learned ranker on every conversation of --data and write the model (JSON) here "
    "(the shipped one is remnant/retrieval/data/ranker.json).",
)
@click.option(
    "--speaker-round",
    type=click.IntRange(0, 100),
    default=0,
    show_default=True,
    help="With --folds or --train-ranker: the speaker round's candidates (this many of each named "
    "speaker's memories by vector and by BM25) join the ranker's, and its features are trained on.",
)
@click.option(
    "--answer-type/--no-answer-type",
    default=False,
    show_default=True,
    help="With --folds or --train-ranker: also train on the answer-type features (answer_entity, "
    "answer_head: what kind of answer the question asks for).",
)
@click.option(
    "--systems",
    default="remnant,bm25,vector",
    show_default=True,
    help="Comma-separated subset of remnant,bm25,vector,remnant-add,remnant-add-text (the last two: "
    "each turn through Memory.add, the product's conversation path).",
)
@click.option("--threads", type=click.IntRange(1), default=2, show_default=True, help="Embedding threads.")
@click.option(
    "--embed-cache",
    type=click.Path(file_okay=False),
    help="Directory for a content-hash cache of document vectors (reused across runs).",
)
@click.option(
    "--query-cache/--no-query-cache",
    default=True,
    show_default=True,
    help="Keep query vectors in --embed-cache too (off: every query is embedded, for recall latency).",
)
@click.option(
    "--scale",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Also measure recall latency with this many memories in one scope (e.g. 10000).",
)
def bench_locomo(
    data_path: str,
    json_path: str | None,
    chart_path: str | None,
    limit_conversations: int | None,
    embedder: str,
    baseline_embedder: str,
    systems: str,
    threads: int,
    embed_cache: str | None,
    scale: int,
    query_cache: bool,
    clock: str,
    dump_path: str | None,
    folds: bool,
    weight_search: bool,
    train_ranker_path: str | None,
    speaker_round: int,
    answer_type: bool,
) -> None:
    """Turn- and session-level recall, answer-hit, context tokens and timing on LoCoMo.

    Every system runs through the engine (a real SQLite file in a temporary folder): remnant
    (hybrid recall), bm25 (the store's FTS5 BM25 over the content) and vector (embeddings only).
    """
    from remnant.bench import header
    from remnant.bench.eval.locomo import (
        SYSTEMS,
        engine_backends,
        format_report,
        load_locomo,
        run_bench,
        write_chart,
    )

    names = [s.strip() for s in systems.split(",") if s.strip()]
    unknown = set(names) - set(SYSTEMS)
    if unknown or not names:
        raise click.BadParameter(f"unknown systems {sorted(unknown)}", param_hint="--systems")
    convs = load_locomo(data_path)
    if limit_conversations:
        convs = convs[:limit_conversations]
    ctx = click.get_current_context()
    given = [
        f"{p.opts[0]} {shlex.quote(str(ctx.params[p.name]))}"
        for p in ctx.command.params
        if p.name and ctx.get_parameter_source(p.name) == click.core.ParameterSource.COMMANDLINE
    ]
    click.echo(header("remnant bench locomo " + " ".join(given)))
    click.echo(
        f"{len(convs)} conversations, {sum(len(c.turns) for c in convs)} turns, "
        f"{sum(len(c.questions) for c in convs)} questions"
    )
    emb = _embedder(embedder, threads, embed_cache, query_cache)
    same = baseline_embedder in ("same", embedder)
    base = emb if same else _embedder(baseline_embedder, threads, embed_cache, query_cache)
    if train_ranker_path:
        from remnant.bench.eval.locomo_folds import train_full

        with tempfile.TemporaryDirectory(prefix="remnant-locomo-") as tmp:
            model, fit = train_full(
                convs,
                emb,
                tmp,
                clock=clock,
                data_name=Path(data_path).name,
                speaker_round=speaker_round,
                answer_type=answer_type,
            )
        _flush(emb, base)
        model.save(train_ranker_path)
        click.echo(
            f"trained on {fit['questions']} questions; in-sample turn Recall@5 (1-4, optimistic): "
            f"ranker {100 * fit['ranker']:.1f}%, fixed weights {100 * fit['fixed']:.1f}%"
        )
        for f, w in zip(model.features, model.weights, strict=True):
            click.echo(f"  {f:<16} {w:+.3f}")
        click.echo(f"wrote {train_ranker_path}")
        return
    if folds:
        from remnant.bench.eval.locomo_folds import format_folds, run_folds

        with tempfile.TemporaryDirectory(prefix="remnant-locomo-") as tmp:
            report = run_folds(
                convs,
                emb,
                tmp,
                clock=clock,
                progress=lambda m: click.echo(m, err=True),
                weight_search=weight_search,
                speaker_round=speaker_round,
                answer_type=answer_type,
            )
        _flush(emb, base)
        click.echo(format_folds(report))
        if json_path:
            Path(json_path).write_text(json.dumps(report, indent=2), encoding="utf-8")
            click.echo(f"wrote {json_path}")
        return
    dump_file = open(dump_path, "w", encoding="utf-8") if dump_path else None  # noqa: SIM115

    def dump(row: dict[str, Any]) -> None:
        if dump_file is not None:
            dump_file.write(json.dumps(row, ensure_ascii=False) + "\n")

    with tempfile.TemporaryDirectory(prefix="remnant-locomo-") as tmp:
        backends = engine_backends(
            convs, tmp, embedder=emb, baseline_embedder=base, systems=names, clock=clock
        )
        try:
            results = run_bench(
                convs, backends, progress=lambda m: click.echo(m, err=True), dump=dump if dump_file else None
            )
        finally:
            if dump_file:
                dump_file.close()
        if scale:
            results.setdefault("remnant", {})["scale"] = latency_at_scale(convs, emb, scale, tmp)
    _flush(emb, base)
    results_meta = {
        "embedder": emb.model_id,
        "baseline_embedder": base.model_id,
        "data": str(data_path),
        "clock": clock,
    }
    click.echo(format_report({k: v for k, v in results.items() if "turn" in v}))
    if scale and "scale" in results.get("remnant", {}):
        s = results["remnant"]["scale"]
        click.echo(
            f"remnant at {s['memories']} memories in one scope: search p50 {s['search_ms_p50']:.2f} ms, "
            f"p95 {s['search_ms_p95']:.2f} ms (excl. query embedding, {s['embed_ms_per_query']:.1f} ms/query)"
        )
    if json_path:
        Path(json_path).write_text(json.dumps({**results, "meta": results_meta}, indent=2), encoding="utf-8")
        click.echo(f"wrote {json_path}")
    if dump_path:
        click.echo(f"wrote {dump_path}")
    if chart_path:
        write_chart({k: v for k, v in results.items() if "turn" in v}, chart_path)
        click.echo(f"wrote {chart_path}")
