"""``remnant bench ingest``: a chat history imported through ``Memory(path).add`` as shipped.

Every turn of a LoCoMo file goes through :meth:`remnant.Memory.add` with the product's defaults (the
default embedder with its paired context vectors, salience, rule facts, dedup, the contradiction
check, privacy): one call per session, or per conversation in calls of at most ``MAX_MESSAGES``
turns. The figure is the import's wall time, its CPU time (the process's, every thread: the load of
a shared machine distorts it less) and the time spent in the embedding model.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
import time
from datetime import UTC
from pathlib import Path
from typing import Any

import click

from remnant.bench import CONTEXT_SETTINGS, header


class _ModelClock:
    """Wraps the model inside the product's embedding cache: what reaches the model, and its time."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.texts = 0
        self.calls = 0
        self.seconds = 0.0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed_documents(self, texts: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - t0
            self.calls += 1
            self.texts += len(texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def _turn_text(t: Any) -> str:
    return (t.text + (f" [shared a photo: {t.caption}]" if t.caption else "")).strip() or "(no text)"


def run_ingest_bench(
    data: str | Path,
    *,
    per: str = "session",
    limit_conversations: int | None = None,
    embedder: str | None = None,
    db_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Import every turn of the LoCoMo file ``data`` through ``Memory(path).add`` (``per``:
    ``session`` or ``conversation``); the figures as a dict."""
    from remnant.bench.engine import bench_memory, default_options, product_options, switched
    from remnant.bench.eval.locomo import load_locomo
    from remnant.core.clock import SystemClock
    from remnant.core.limits import MAX_MESSAGES

    convs = load_locomo(data)[:limit_conversations]
    turns = sum(len(c.turns) for c in convs)
    with tempfile.TemporaryDirectory(prefix="remnant-ingest-", dir=db_dir) as tmp:
        mem = bench_memory(Path(tmp) / "ingest.db", SystemClock(), embedder=embedder)
        try:
            options = product_options(mem)
            text = getattr(mem.retriever, "text_embedder", None)
            timed = None
            if text is not None and hasattr(text, "inner"):
                timed = _ModelClock(text.inner)
                text.inner = timed  # the cache stays in front: only what the model reads is timed
                text.embed_documents(["warm up: the model loads before the clock starts"])
                timed.texts = timed.calls = 0
                timed.seconds = 0.0
            load_before = os.getloadavg()
            calls = 0
            t0, c0 = time.perf_counter(), time.process_time()
            for c in convs:
                sessions: dict[int, list[Any]] = {}
                for t in c.turns:
                    sessions.setdefault(t.session, []).append(t)
                if per == "session":
                    batches = [(f"s{s}", ts) for s, ts in sessions.items()]
                else:  # the whole conversation in calls of MAX_MESSAGES turns
                    batches = [
                        ("all", c.turns[i : i + MAX_MESSAGES]) for i in range(0, len(c.turns), MAX_MESSAGES)
                    ]
                for session, ts in batches:
                    mem.add(
                        [{"role": "user", "name": t.speaker, "content": _turn_text(t)} for t in ts],
                        user_id=c.sample_id,
                        session_id=session,
                        occurred_at=ts[0].when.replace(tzinfo=UTC) if ts[0].when else None,
                    )
                    calls += 1
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            stored = sum(mem.count_memories(user_id=c.sample_id) for c in convs)
        finally:
            mem.close()
    defaults = default_options()
    return {
        "data": str(data),
        "per": per,
        "conversations": len(convs),
        "turns": turns,
        "add_calls": calls,
        "stored": stored,
        "wall_s": wall,
        "cpu_s": cpu,
        "items_per_s": turns / wall if wall else float("nan"),
        "cpu_ms_per_turn": 1000 * cpu / max(turns, 1),
        "model_s": timed.seconds if timed is not None else None,
        "model_texts": timed.texts if timed is not None else None,
        "model_calls": timed.calls if timed is not None else None,
        "load_average_before": [round(x, 1) for x in load_before],
        "load_average_after": [round(x, 1) for x in os.getloadavg()],
        "options": options,
        "switched": switched(options, defaults),
    }


@click.command("ingest", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--data",
    "data_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A LoCoMo JSON file (one conversation or a list).",
)
@click.option(
    "--per",
    type=click.Choice(["session", "conversation"]),
    default="session",
    show_default=True,
    help="One add() call per session, or per conversation (in calls of at most 200 turns).",
)
@click.option("--limit-conversations", type=click.IntRange(1), help="Use only the first N conversations.")
@click.option(
    "--embedder",
    help="The embedder (printed as a switch); default: the product's, with its paired context vectors.",
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
def bench_ingest(
    data_path: str, per: str, limit_conversations: int | None, embedder: str | None, json_path: str | None
) -> None:
    """A chat history imported through ``remnant.Memory(path).add`` as shipped: every turn of a
    LoCoMo file, its wall and CPU time, items per second and the time in the embedding model."""
    from remnant.bench.engine import render_options

    click.echo(header("remnant bench ingest " + shlex.join(sys.argv[3:])))
    res = run_ingest_bench(data_path, per=per, limit_conversations=limit_conversations, embedder=embedder)
    click.echo(render_options(res["options"], res["switched"]))
    model = (
        f"; in the model {res['model_s']:.1f} s ({res['model_texts']:,} texts in {res['model_calls']:,} calls)"
        if res["model_s"] is not None
        else ""
    )
    click.echo(
        f"{res['turns']:,} turns of {res['conversations']} conversations in {res['add_calls']:,} add() calls "
        f"(one per {per}): {res['wall_s']:.1f} s, {res['items_per_s']:.1f} turns/s; CPU {res['cpu_s']:.1f} s "
        f"({res['cpu_ms_per_turn']:.1f} ms a turn){model}; {res['stored']:,} memories stored"
    )
    click.echo(
        f"load average {res['load_average_before']} before, {res['load_average_after']} after "
        f"({os.cpu_count()} cores)"
    )
    if json_path:
        Path(json_path).write_text(json.dumps(res, indent=2, default=str), encoding="utf-8")
        click.echo(f"wrote {json_path}")
