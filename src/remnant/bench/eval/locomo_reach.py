"""Candidate reach on LoCoMo: which evidence turns the learned ranker never sees, and what reaches them.

The ranker orders the candidates it is given (the fused head, plus what a candidate round adds);
an evidence turn outside them is a miss whatever the ranker learns. For every question of
categories 1-4 this reports, per configuration, the share of its evidence turns among the
candidates (the R@5 a perfect ranker could reach is bounded by it) and how many candidates there
were; and it can dump each evidence turn of the base configuration that is not among them, with
what it shares with the question and the first hits (its speaker named in the question, its
session among the first hits' sessions, its distance to the nearest first hit of that session,
the entities it shares with the first five hits, its lexical / vector / fused rank where it has
one, and whether the speaker round reaches it).

``python -m remnant.bench.eval.locomo_reach --data locomo10-dev.json --embed-cache DIR
[--speaker-round 10,25,50] [--depth 100] [--dump misses.jsonl]``. The data is read by path.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Sequence
from typing import Any

from remnant.bench.eval.locomo import CATEGORIES, Conversation, load_locomo
from remnant.bench.eval.locomo_folds import FoldRunner, apply, current_config
from remnant.core.model import MemoryRecord
from remnant.store.base import MemoryFilter


def _turn_pos(dia: str) -> tuple[str, int]:
    session, _, n = dia.partition(":")
    return session, int(n) if n.isdigit() else 0


def reach(runner: FoldRunner, cfg: dict[str, float]) -> dict[str, Any]:
    """Per category: the mean share of a question's evidence turns among the ranker's candidates,
    the R@5 a perfect ordering of them would give, and the mean number of candidates."""
    apply(runner.retriever, cfg)
    memory = runner.backend.memory
    shares: dict[int, list[float]] = {}
    oracle: dict[int, list[float]] = {}
    sizes: list[int] = []
    for conv in runner.conversations:
        flt = memory.recall_filter(conv.sample_id)
        for q in conv.questions:
            if q.category not in (1, 2, 3, 4):
                continue
            trace = runner.retriever.explain(memory.ledger, q.question, flt, 10)
            ev = set(q.evidence)
            found = {d for i in trace.features for d in runner.backend.refs(i)} & ev
            shares.setdefault(q.category, []).append(len(found) / len(ev))
            oracle.setdefault(q.category, []).append(min(5, len(found)) / len(ev))
            sizes.append(len(trace.features))
    return {
        "candidates": statistics.fmean(sizes) if sizes else 0.0,
        "reach": {CATEGORIES[c]: statistics.fmean(v) for c, v in sorted(shares.items())},
        "oracle_r5": {CATEGORIES[c]: statistics.fmean(v) for c, v in sorted(oracle.items())},
    }


def misses(runner: FoldRunner, cfg: dict[str, float], speaker_round: int) -> list[dict[str, Any]]:
    """The evidence turns of categories 1-4 that are not among the candidates under ``cfg``, each
    with what it shares with the question and the first hits (module docstring)."""
    memory = runner.backend.memory
    store = memory.store
    rows: list[dict[str, Any]] = []
    for conv in runner.conversations:
        flt = memory.recall_filter(conv.sample_id)
        by_dia = _memories_by_turn(runner, conv, flt)
        speakers = runner.retriever.speakers(memory.ledger, flt)
        for q in conv.questions:
            if q.category not in (1, 2, 3, 4):
                continue
            apply(runner.retriever, cfg)
            trace = runner.retriever.explain(memory.ledger, q.question, flt, 10)
            candidates = set(trace.features)
            lost = [d for d in q.evidence if d in by_dia and by_dia[d].id not in candidates]
            if not lost:
                continue
            apply(runner.retriever, {**cfg, "speaker_round": float(speaker_round)})
            wider = set(runner.retriever.explain(memory.ledger, q.question, flt, 10).features)
            fused_rank = {
                i: r for r, (i, _) in enumerate(sorted(trace.fused.items(), key=lambda kv: -kv[1]), 1)
            }
            first = [i for i, _ in trace.ranking[:10]]
            first_turns = [_turn_pos(d) for i in first for d in runner.backend.refs(i)]
            first_entities = {
                k for es in store.entities_of(first[:5], tenant=flt.tenant).values() for _, k in es
            }
            named = sorted(s for s in speakers if s in set(trace.terms))
            for d in lost:
                rec = by_dia[d]
                session, n = _turn_pos(d)
                near = [abs(n - m) for s, m in first_turns if s == session]
                own = store.entities_of([rec.id], tenant=flt.tenant).get(rec.id, [])
                speaker = str(rec.metadata.get("speaker", ""))
                rows.append(
                    {
                        "conversation": conv.sample_id,
                        "category": CATEGORIES[q.category],
                        "question": q.question,
                        "answer": str(q.answer),
                        "evidence": d,
                        "text": rec.content,
                        "speaker": speaker,
                        "speaker_named": speaker.casefold() in named,
                        "speakers_named": named,
                        "session_among_first_hits": bool(near),
                        "distance_to_first_hit": min(near) if near else None,
                        "entities": [k for _, k in own],
                        "entities_shared_with_first_hits": sorted({k for _, k in own} & first_entities),
                        "lexical_rank": trace.lexical.get(rec.id, (None,))[0],
                        "vector_rank": trace.vector.get(rec.id, (None,))[0],
                        "fused_rank": fused_rank.get(rec.id),
                        "speaker_round_reaches": rec.id in wider,
                    }
                )
    apply(runner.retriever, cfg)
    return rows


def _memories_by_turn(runner: FoldRunner, conv: Conversation, flt: MemoryFilter) -> dict[str, MemoryRecord]:
    out: dict[str, MemoryRecord] = {}
    for rec in runner.backend.memory.store.query(flt):
        for d in runner.backend.refs(rec.id):
            out.setdefault(d, rec)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    from remnant.embed import CachedEmbedder, NpzVectorCache, get_embedder

    ap = argparse.ArgumentParser(prog="python -m remnant.bench.eval.locomo_reach", description=__doc__)
    ap.add_argument("--data", required=True, help="a LoCoMo JSON file (read by path)")
    ap.add_argument("--embed-cache", help="directory of the bench's vector cache")
    ap.add_argument("--speaker-round", default="10,25,50", help="speaker round sizes to measure")
    ap.add_argument("--depth", default="100", help="fused head depths to measure beside the default")
    ap.add_argument("--dump", help="write the base configuration's lost evidence turns here (JSON lines)")
    args = ap.parse_args(argv)
    emb = CachedEmbedder(
        get_embedder("e5-small", shared=False, threads=2),
        store=NpzVectorCache(args.embed_cache) if args.embed_cache else None,
        persist_queries=bool(args.embed_cache),
    )
    rounds = [int(x) for x in args.speaker_round.split(",") if x.strip()]
    depths = [int(x) for x in args.depth.split(",") if x.strip()]
    with tempfile.TemporaryDirectory(prefix="remnant-reach-") as tmp:
        runner = FoldRunner(load_locomo(args.data), emb, tmp, "real")
        try:
            base = {**current_config(), "speaker_round": 0.0}
            configs: list[tuple[str, dict[str, Any]]] = [("shipped candidates", base)]
            configs += [(f"speaker round {k}", {**base, "speaker_round": float(k)}) for k in rounds]
            configs += [(f"fused head {d}", {**base, "depth": d}) for d in depths]
            for label, cfg in configs:
                r = reach(runner, cfg)
                cells = ", ".join(
                    f"{k} {100 * v:.1f} (oracle R@5 {100 * r['oracle_r5'][k]:.1f})"
                    for k, v in r["reach"].items()
                )
                print(
                    f"{label:<22} {r['candidates']:6.1f} candidates; evidence among them: {cells}", flush=True
                )
            if args.dump:
                lost = misses(runner, base, max(rounds, default=50))
                with open(args.dump, "w", encoding="utf-8") as f:
                    for row in lost:
                        f.write(json.dumps(row, ensure_ascii=False) + "\n")
                print(f"wrote {len(lost)} lost evidence turns to {args.dump}")
        finally:
            runner.close()
        flush = getattr(emb.store, "flush", None)  # the file-backed cache writes what it learned
        if flush is not None:
            flush()


if __name__ == "__main__":
    main()
