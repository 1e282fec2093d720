"""Train the claim gate (:mod:`remnant.understand.claim_gate`) on the claim corpora.

``python -m remnant.extract.claim_fit corpora/claims/claims_q*.jsonl`` embeds every turn with
e5-small, holds each corpus author out in turn (leave-one-author-out), and picks the L2 strength
and the threshold: the threshold that drops the most filler while, for **every** held-out author,
at least ``--precision`` of the turns it drops are filler (a real fact lost is worse than a filler
kept). It prints, per held author, the gate's drop precision and filler recall, and what it does to
the rules' generic facts as the ingestor applies the gate (invented facts removed on filler turns,
real facts lost on fact turns; a keyed fact needs half the threshold),
then fits on every turn and writes ``understand/data/claims_<model>.json``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.extract.rules import RuleExtractor, exact_shape, keyed
from remnant.extract.salience_model import Array, fit, predict
from remnant.understand.claim_gate import (
    KEYED_FACTOR,
    READ_CHARS,
    ClaimGate,
    cue_features,
    features,
    has_filler_cue,
    weights_path,
)

Mask = npt.NDArray[np.bool_]
L2_GRID = (10.0, 30.0, 100.0, 300.0, 1000.0)
THRESHOLDS = tuple(round(float(t), 3) for t in np.linspace(0.02, 0.6, 59))


def _standardise(x: Array) -> tuple[Array, Array]:
    return x.mean(axis=0), x.std(axis=0) + 1e-6


def _held_out(x: Array, y: Array, authors: Array, l2: float) -> Array:
    """Each turn's probability from the gate fitted without its author's turns."""
    out = np.zeros(len(y))
    for held in sorted(set(authors.tolist())):
        train, test = authors != held, authors == held
        mean, scale = _standardise(x[train])
        w, b = fit((x[train] - mean) / scale, y[train], l2=l2)
        out[test] = predict((x[test] - mean) / scale, w, b)
    return out


def _figures(p: Array, cued: Mask, y: Array, copies: Mask, keys: Mask, t: float) -> dict[str, Any]:
    """At threshold ``t``: drop precision (filler share of the turns judged filler), filler recall,
    and the rules' generic facts as the ingestor applies the gate (a keyed fact at ``t`` ×
    ``KEYED_FACTOR``): filler turns whose invented facts all go, fact turns that lose any."""
    drop = (p < t) & cued
    drop_keyed = (p < t * KEYED_FACTOR) & cued
    filler, fact = y == 0, y == 1
    generic = copies | keys
    all_gone = drop & (~keys | drop_keyed)
    any_lost = (drop & copies) | (drop_keyed & keys)
    return {
        "dropped": int(drop.sum()),
        "drop_precision": round(float(np.mean(filler[drop])), 4) if drop.any() else 1.0,
        "filler_recall": round(float(np.mean(drop[filler])), 4) if filler.any() else 0.0,
        "invented_removed": f"{int((generic & filler & all_gone).sum())}/{int((generic & filler).sum())}",
        "real_lost": f"{int((generic & fact & any_lost).sum())}/{int((generic & fact).sum())}",
    }


def _choose(p: Array, cued: Mask, y: Array, authors: Array, floor: float) -> tuple[float, float] | None:
    """The threshold dropping the most filler (pooled) with every author's drop precision ≥ floor
    (a turn is dropped when it has a filler cue and its probability is under the threshold)."""
    best: tuple[float, float] | None = None
    for t in THRESHOLDS:
        precisions = []
        for a in sorted(set(authors.tolist())):
            drop = (p < t) & cued & (authors == a)
            precisions.append(float(np.mean(y[drop] == 0)) if drop.any() else 1.0)
        if min(precisions) < floor:
            continue
        recall = float(np.mean(((p < t) & cued)[y == 0]))
        if best is None or recall > best[1]:
            best = (t, recall)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    """Retrain the claim gate: ``python -m remnant.extract.claim_fit corpora/claims/claims_q*.jsonl``."""
    from remnant.embed.registry import get_embedder

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("corpora", nargs="+", help="claim corpus files (JSON Lines: text, label, lang, author)")
    ap.add_argument("--embedder", default="e5-small")
    ap.add_argument("--precision", type=float, default=0.98, help="least drop precision per held author")
    ap.add_argument("--vectors", help="a .npy of the turns' document vectors (written when missing)")
    ap.add_argument("--dry-run", action="store_true", help="report leave-one-author-out, write nothing")
    args = ap.parse_args(argv)

    rows: list[dict[str, Any]] = []
    for name in args.corpora:
        with Path(name).open(encoding="utf-8") as fh:
            rows += [r for r in (json.loads(line) for line in fh if line.strip()) if "text" in r]
    texts = [str(r["text"]) for r in rows]
    y = np.asarray([r["label"] == "fact" for r in rows], dtype=np.float64)
    authors = np.asarray([str(r["author"]) for r in rows])
    rules = RuleExtractor()
    found = [[f for f in rules.extract(t) if not exact_shape(f)] for t in texts]
    copies = np.asarray([any(not keyed(f) for f in fs) for fs in found])
    keys = np.asarray([any(keyed(f) for f in fs) for fs in found])

    embedder = get_embedder(args.embedder, threads=2)
    if args.vectors and Path(args.vectors).exists():
        vectors = np.load(args.vectors)
    else:
        vectors = np.asarray(embedder.embed_documents([t[:READ_CHARS] for t in texts]))
        if args.vectors:
            np.save(args.vectors, vectors)
    x = features(vectors, texts)
    cued = np.asarray([has_filler_cue(cue_features(t)) for t in texts])

    chosen: tuple[float, float, float, Array] | None = None  # l2, threshold, recall, probabilities
    for l2 in L2_GRID:
        p = _held_out(x, y, authors, l2)
        pick = _choose(p, cued, y, authors, args.precision)
        if pick is None:
            print(f"l2={l2}: no threshold keeps every author's drop precision >= {args.precision}")
            continue
        print(f"l2={l2}: threshold {pick[0]:.3f}, pooled filler recall {pick[1]:.4f}")
        if chosen is None or pick[1] > chosen[2]:
            chosen = (l2, pick[0], pick[1], p)
    if chosen is None:
        print("no gate meets the precision floor: nothing written")
        return 1
    l2, threshold, _, p = chosen
    per_author = {
        a: _figures(p[at], cued[at], y[at], copies[at], keys[at], threshold)
        for a in sorted(set(authors.tolist()))
        for at in [authors == a]
    }
    pooled = _figures(p, cued, y, copies, keys, threshold)
    precisions = [f["drop_precision"] for f in per_author.values()]
    recalls = [f["filler_recall"] for f in per_author.values()]
    print(f"chosen l2={l2} threshold={threshold:.3f}")
    for a, f in per_author.items():
        print(f"  held out {a}: {f}")
    print(f"  pooled: {pooled}")
    print(f"  drop precision {min(precisions):.4f}..{max(precisions):.4f}, "
          f"filler recall {min(recalls):.4f}..{max(recalls):.4f}")  # fmt: skip

    mean, scale = _standardise(x)
    w, b = fit((x - mean) / scale, y, l2=l2)
    gate = ClaimGate(
        embedder.model_id,
        mean,
        scale,
        w,
        b,
        threshold,
        {
            "trained_on": [Path(c).name for c in args.corpora],
            "turns": len(rows),
            "l2": l2,
            "precision_floor": args.precision,
            "leave_one_author_out": per_author,
            "pooled": pooled,
        },
        threshold * KEYED_FACTOR,
    )
    if not args.dry_run:
        path = weights_path(embedder.model_id)
        path.write_text(json.dumps(gate.to_json()) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
