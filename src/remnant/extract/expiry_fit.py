"""Fit the learned expiry reader (:mod:`remnant.extract.expiry_model`) and choose its threshold,
veto and default horizon by cross-validation: ``python -m remnant.extract.expiry_fit``.

Training lines: the corpora of ``corpora/expiry/`` (``{"text", "label": temporary | lasting,
"span", "lasts", "keep", "lang", "author"}``), each written by one independent author who read no
code and no evaluation set. Each line gives its text; each clause of a temporary line
(:func:`remnant.extract.expiry.clauses`) is one more example, lasting when it is the line's
``keep`` (the part said to hold on beside the temporary value), temporary otherwise, in the line's
fold. Never an evaluation set: ``--dev`` files (the
expiry suite's development files, ``{"text", "ttl_seconds"}``) are only scored.

**Background**: ``--background`` (default: the supersession corpora, ``corpora/supersession/``,
six more independent authors) gives one ordinary lasting statement per pair, in every training
fold with weight ``BG_WEIGHT`` and never scored: the expiry corpora's lasting lines are all
look-alikes (a period or a date said in something lasting), so without them a plain fact with no
time in it ("two cats at home, both rescues") read as temporary.

**Selection** (on the training authors only, by leave-one-author-out among them): the L2 strength
(the least out-of-fold log loss), the threshold (the most recall, on the lines the rules read
nothing in and refused no period in, among those that name a period, an end point or a temporary
word (the gate: :func:`remnant.extract.expiry.names_a_while`), at precision >= ``--target``, and
never under 0.5: the corpora are half temporary, a user's chat far less), the refused bar (the same
on the lines where the rules saw an exact period and refused it), the veto (the highest probability under which the
rules' readings, at least five, are look-alikes at >= ``--veto-target`` of the time; 0, no veto,
when none is),
the keep bar (the highest probability under which a clause of a temporary line is lasting at
precision >= ``--keep-target``, 0.70: a clause kept wrongly keeps a stale value, one dropped
wrongly loses a lasting one; at 0.75 no bar met it on the six authors, so no part was ever kept)
and the default horizon (of the grid, the least cost on the temporary lines whose length nothing
in the text names and whose author gave one: how many times too early or too late it ends, on a
log scale, an early end weighing 2 and a late one 1, since a memory lost wrongly is the worse
failure).

**Leave one author out**: that selection on two authors, tested on the third; the report gives
each held author's figures (the reader alone, the rules alone, the two together as the ingestor
combines them) and their mean ± spread. The shipped weights: the selection on all authors, a
final fit on all of them. ``--dry-run`` only reports.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.extract.expiry import CUES, cues, expiry_of, names_a_while, period_refused, units
from remnant.extract.expiry_model import SENTENCE_CHARS, ExpiryWeights, length_of, weights_path
from remnant.understand.pair_model import fit_logistic

CORPORA = tuple(sorted(Path("corpora/expiry").glob("expiry_*.jsonl")))
# ordinary lasting statements (a job, a home, a pet) by other independent authors: the expiry
# corpora's lasting lines are all look-alikes (a period or a date in a lasting statement), so
# without these a plain fact with no time in it read as temporary ("two cats at home, both rescues")
# pinned to the six authors the shipped expiry weights were fitted with: p7 and p8 came later for
# the pair judge, and a glob would change this reader's training set (and its weights) unasked
BACKGROUND = tuple(Path(f"corpora/supersession/pairs_p{i}.jsonl") for i in range(1, 7))
BG_WEIGHT = 0.5  # each background statement's weight in the fit (they are many: 3,000)
# a fixed reference time for the cues and lengths: a Wednesday morning (an end point said then
# has days to run, as most in the corpora do)
REF = datetime(2026, 1, 7, 10, 0, tzinfo=UTC)
L2_GRID = (3.0, 30.0, 300.0)
GRID = [round(float(t), 2) for t in np.arange(0.05, 0.96, 0.01)]
HORIZONS = tuple(int(h * 3600) for h in (1, 3, 6, 12, 24, 48, 72, 120, 168, 336, 720))  # 1 hour .. 30 days
EARLY_COST, LATE_COST = 2.0, 1.0
MIN_BAR = 0.5  # the reader's thresholds are never under even odds (see select)
MIN_VETOED = 5  # a veto needs this many of the rules' readings under it (the rules are rarely wrong)

Array = npt.NDArray[np.float64]


@dataclass
class Data:
    texts: list[str]
    x: Array  # [vector, cues]
    y: npt.NDArray[np.bool_]
    author: list[str]
    primary: npt.NDArray[np.bool_]  # a line's own text (scored), not one of its clauses
    rule: npt.NDArray[np.bool_]  # the rules read an expiry in it
    refused: npt.NDArray[np.bool_]  # the rules saw an exact period and refused it (the guard)
    named: npt.NDArray[np.bool_]  # a period, an end point or a temporary word is named (the gate)
    past: npt.NDArray[np.bool_]  # a past word: with a refused period, never added
    lasts: list[float | None]  # the author's length (temporary lines)
    source: list[str]  # where the reader's length would come from (rules, period, end_point, horizon)
    length: list[float]  # that length in seconds (the horizon's is a placeholder: 0)
    line: list[int]  # the line an example comes from (its clauses stay in its fold)
    background: npt.NDArray[np.bool_]  # a background statement: always in training, never scored


def load_lines(paths: Sequence[Path]) -> list[dict[str, Any]]:
    out = []
    for path in paths:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError:
                print(f"{path}:{n}: not JSON, skipped", file=sys.stderr)
                continue
            if not isinstance(row.get("text"), str) or row.get("label") not in ("temporary", "lasting"):
                print(f"{path}:{n}: no text or label, skipped", file=sys.stderr)
                continue
            row.setdefault("author", path.stem)
            out.append(row)
    return out


def _embed(texts: list[str], embedder_name: str, cache: Path | None) -> Array:
    from remnant.embed.registry import get_embedder

    store: dict[str, Array] = {}
    if cache is not None and cache.exists():
        with np.load(cache) as z:
            store = {k: z[k] for k in z.files}
    key = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
    missing = sorted({k: t for k, t in zip(key, texts, strict=True) if k not in store}.items())
    if missing:
        embedder = get_embedder(embedder_name)
        vecs = embedder.embed_documents([t[:SENTENCE_CHARS] for _, t in missing])
        for (k, _), v in zip(missing, vecs, strict=True):
            store[k] = np.asarray(v, dtype=np.float64)
        if cache is not None:
            np.savez(cache, **store)  # type: ignore[arg-type]
    return np.stack([store[k] for k in key])


def _in_keep(clause: str, keep: str) -> bool:
    """The clause is (mostly) the author's lasting part."""
    norm = lambda t: " ".join(t.casefold().split())  # noqa: E731
    c, k = norm(clause), norm(keep)
    if not c or not k:
        return False
    return c in k or (k in c and len(k) >= 0.5 * len(c))


def background_lines(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """One lasting statement per pair of the supersession corpora, old and new in turn (a change
    said, "i moved to leeds last month", holds from then on: lasting too)."""
    out = []
    for path in paths:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if not raw.strip():
                continue
            row = json.loads(raw)
            text = row.get("old" if n % 2 == 0 else "new")
            if isinstance(text, str) and text.strip():
                out.append(
                    {"text": text, "label": "lasting", "author": f"bg:{path.stem}", "background": True}
                )
    return out


def build(rows: list[dict[str, Any]], embedder_name: str, cache: Path | None) -> Data:
    texts: list[str] = []
    y: list[bool] = []
    author: list[str] = []
    primary: list[bool] = []
    lasts: list[float | None] = []
    line: list[int] = []
    for n, row in enumerate(rows):
        temp = row["label"] == "temporary"
        texts.append(row["text"])
        y.append(temp)
        author.append(str(row["author"]))
        primary.append(True)
        line.append(n)
        lasts.append(float(row["lasts"]) if temp and isinstance(row.get("lasts"), (int, float)) else None)
        if temp and not row.get("background"):
            # the value level: each clause of a temporary line, lasting when it is the author's
            # ``keep`` (the part said to hold on), temporary otherwise (it expires with the value)
            said_keep = row.get("keep")
            keep = said_keep if isinstance(said_keep, str) else ""
            parts = units(row["text"])
            if len(parts) > 1:
                for c in parts:
                    texts.append(c)
                    y.append(not _in_keep(c, keep))
                    author.append(str(row["author"]))
                    primary.append(False)
                    lasts.append(None)
                    line.append(n)
    vectors = _embed(texts, embedder_name, cache)
    cue_rows = np.asarray([cues(t, REF) for t in texts], dtype=np.float64)
    rule = np.asarray([expiry_of(t, REF) is not None for t in texts])
    refused = np.asarray([period_refused(t, REF) for t in texts])
    named = np.asarray([names_a_while(list(c)) for c in cue_rows])
    past = cue_rows[:, CUES.index("past")] > 0
    source, length = [], []
    for t in texts:
        got, src = length_of(t, REF, timedelta(0))
        source.append(src)
        length.append(got.total_seconds())
    return Data(
        texts,
        np.hstack([vectors, cue_rows]),
        np.asarray(y),
        author,
        np.asarray(primary),
        rule,
        refused & ~past,
        named & ~(refused & past),
        past,
        lasts,
        source,
        length,
        line,
        np.asarray([str(a).startswith("bg:") for a in author]),
    )


Model = tuple[Array, Array, Array, float]


def fit(data: Data, idx: npt.NDArray[np.int64], l2: float) -> Model:
    weight = np.where(data.background[idx], BG_WEIGHT, 1.0)
    return fit_logistic(data.x[idx], data.y[idx], l2=l2, sample_weight=weight)


def prob(model: Model, x: Array) -> Array:
    mean, scale, w, b = model
    z = ((x - mean) / scale) @ w + b
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -50, 50))), dtype=np.float64)


def _pr(pred: npt.NDArray[np.bool_], y: npt.NDArray[np.bool_]) -> tuple[float, float]:
    tp = int((pred & y).sum())
    p = tp / int(pred.sum()) if pred.sum() else 1.0
    r = tp / int(y.sum()) if y.sum() else 1.0
    return p, r


def _combined(
    p: Array,
    rule: npt.NDArray[np.bool_],
    refused: npt.NDArray[np.bool_],
    named: npt.NDArray[np.bool_],
    threshold: float,
    veto: float,
    refused_bar: float,
) -> npt.NDArray[np.bool_]:
    """As the ingestor decides: the rules' reading unless vetoed, the reader's where the rules read
    nothing and the text names a while (at the stricter bar where they refused a period)."""
    added = named & ((~refused & (p >= threshold)) | (refused & (p >= refused_bar)))
    return np.asarray((rule & (p >= veto)) | (~rule & added))


def _bar(p: Array, y: npt.NDArray[np.bool_], among: npt.NDArray[np.bool_], target: float) -> float:
    """The threshold with the most recall among ``among`` at precision >= ``target`` (at least three
    predicted; 1.01, never, when none reaches it)."""
    best, most = 1.01, -1.0
    for t in GRID:
        pred = among & (p >= t)
        if pred.sum() < 3:
            continue
        prec = float((pred & y).sum() / pred.sum())
        rec = float((pred & y).sum() / max(1, int((among & y).sum())))
        if prec >= target and rec > most:
            best, most = t, rec
    return best


def _horizon_cost(h: float, lasts: Sequence[float]) -> float:
    """The mean cost of the horizon ``h`` over the stated lengths: how many times too early or too
    late it ends, on a log scale, an early end (a memory lost while it still held) weighing
    ``EARLY_COST``, a late one (a stale value still offered) ``LATE_COST``."""
    cost = 0.0
    for length in lasts:
        ratio = math.log(max(h, 1.0) / max(length, 1.0))
        cost += LATE_COST * ratio if ratio > 0 else -EARLY_COST * ratio
    return cost / max(1, len(lasts))


def _horizon_lasts(data: Data, idx: npt.NDArray[np.int64]) -> list[float]:
    return [
        float(data.lasts[i])  # type: ignore[arg-type]
        for i in idx
        if data.y[i] and data.primary[i] and data.source[i] == "horizon" and data.lasts[i]
    ]


@dataclass(frozen=True)
class Choice:
    l2: float
    threshold: float
    veto: float
    horizon: int
    keep: float
    refused: float


def select(
    data: Data, idx: npt.NDArray[np.int64], *, target: float, veto_target: float, keep_target: float
) -> Choice:
    """L2, threshold, veto and horizon from the out-of-fold probabilities of the authors in ``idx``
    (each author held out in turn)."""
    authors = sorted({data.author[i] for i in idx if not data.background[i]})
    # the inner folds: by author where there are several, else five by line; the background
    # statements are in every training fold and no test fold
    fold = {i: (data.author[i] if len(authors) > 1 else str(data.line[i] % 5)) for i in idx}
    scored = np.asarray([i for i in idx if not data.background[i]])
    best: tuple[float, float, Array] | None = None
    for l2 in L2_GRID:
        oof = np.zeros(len(data.texts))
        for a in sorted({fold[i] for i in scored}):
            train = np.asarray([i for i in idx if fold[i] != a or data.background[i]])
            test = np.asarray([i for i in scored if fold[i] == a])
            oof[test] = prob(fit(data, train, l2), data.x[test])
        p = np.clip(oof[scored], 1e-6, 1 - 1e-6)
        yy = data.y[scored]
        loss = float(-np.mean(yy * np.log(p) + (~yy) * np.log(1 - p)))
        if best is None or loss < best[0]:
            best = (loss, l2, oof)
    assert best is not None
    _, l2, oof = best
    prim = np.asarray([i for i in idx if data.primary[i] and not data.background[i]])
    p, y, rule = oof[prim], data.y[prim], data.rule[prim]
    refused, named = data.refused[prim], data.named[prim]
    # never under even odds: the corpora are half temporary, a user's chat far less
    threshold = max(MIN_BAR, _bar(p, y, ~rule & ~refused & named, target))
    refused_bar = max(MIN_BAR, _bar(p, y, ~rule & refused & named, target))
    veto = 0.0
    for t in GRID:
        below = rule & (p < t)
        if below.sum() >= MIN_VETOED and float((below & ~y).sum() / below.sum()) >= veto_target:
            veto = t
    lasts = _horizon_lasts(data, idx)
    horizon = min(HORIZONS, key=lambda h: (_horizon_cost(h, lasts), h)) if lasts else 86400
    return Choice(l2, threshold, veto, horizon, _keep_bar(oof, data, idx, keep_target), refused_bar)


def _keep_bar(p: Array, data: Data, idx: npt.NDArray[np.int64], target: float) -> float:
    """The highest probability under which a clause of a temporary line is kept as lasting with
    precision >= ``target`` (0: keep none)."""
    cl = np.asarray([i for i in idx if not data.primary[i] and not data.background[i]])
    if not len(cl):
        return 0.0
    pc, lasting = p[cl], ~data.y[cl]
    bar = 0.0
    for t in GRID:
        kept = pc < t
        if kept.sum() >= 3 and float((kept & lasting).sum() / kept.sum()) >= target:
            bar = t
    return bar


def _ms(values: Sequence[float]) -> str:
    return f"{np.mean(values):.3f} ± {np.std(values):.3f}"


def leave_one_author_out(
    data: Data, *, target: float, veto_target: float, keep_target: float
) -> dict[str, Any]:
    authors = sorted({a for a, bg in zip(data.author, data.background, strict=True) if not bg})
    rows: dict[str, dict[str, float]] = {}
    for a in authors:
        train = np.asarray([i for i, b in enumerate(data.author) if b != a])
        test = np.asarray([i for i, b in enumerate(data.author) if b == a and data.primary[i]])
        c = select(data, train, target=target, veto_target=veto_target, keep_target=keep_target)
        p = prob(fit(data, train, c.l2), data.x[test])
        y, rule = data.y[test], data.rule[test]
        mp, mr = _pr(p >= c.threshold, y)
        rp, rr = _pr(rule, y)
        comb = _combined(p, rule, data.refused[test], data.named[test], c.threshold, c.veto, c.refused)
        cp, cr = _pr(comb, y)
        lasting = ~y
        vetoed = rule & (p < c.veto)
        lasts = _horizon_lasts(data, test)
        cl = np.asarray(
            [
                i
                for i, b in enumerate(data.author)
                if b == a and not data.primary[i] and not data.background[i]
            ]
        )
        pc = prob(fit(data, train, c.l2), data.x[cl]) if len(cl) else np.zeros(0)
        kp, kr = _pr(pc < c.keep, ~data.y[cl]) if len(cl) else (1.0, 0.0)
        rows[a] = {
            "n": len(test),
            "temporary": int(y.sum()),
            "model_p": mp,
            "model_r": mr,
            "rules_p": rp,
            "rules_r": rr,
            "combined_p": cp,
            "combined_r": cr,
            "lasting_expired_rules": float((rule & lasting).sum() / max(1, lasting.sum())),
            "lasting_expired_combined": float((comb & lasting).sum() / max(1, lasting.sum())),
            "vetoed": int(vetoed.sum()),
            "vetoed_right": int((vetoed & lasting).sum()),
            "threshold": c.threshold,
            "refused_bar": c.refused,
            "veto": c.veto,
            "l2": c.l2,
            "horizon_h": c.horizon / 3600,
            "horizon_lines": len(lasts),
            "horizon_cost": _horizon_cost(c.horizon, lasts),
            "keep_bar": c.keep,
            "keep_p": kp,
            "keep_r": kr,
            "clauses": len(cl),
        }
    keys = ("model_p", "model_r", "rules_p", "rules_r", "combined_p", "combined_r",
            "lasting_expired_rules", "lasting_expired_combined", "keep_p", "keep_r")  # fmt: skip
    summary = {k: _ms([r[k] for r in rows.values()]) for k in keys}
    return {"per_author": rows, "summary": summary}


def score_dev(weights: ExpiryWeights, data_x: Array, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The shipped weights on a development file (``ttl_seconds`` given: temporary), turn by turn."""
    mean, scale, w, b = weights.mean, weights.scale, weights.w, weights.bias
    p = prob((mean, scale, w, b), data_x)
    y = np.asarray([r.get("ttl_seconds") is not None for r in rows])
    rule = np.asarray([expiry_of(r["text"], REF) is not None for r in rows])
    said = [cues(r["text"], REF) for r in rows]
    past = np.asarray([c[CUES.index("past")] > 0 for c in said])
    refused = np.asarray([period_refused(r["text"], REF) for r in rows])
    named = np.asarray([names_a_while(c) for c in said]) & ~(refused & past)
    refused &= ~past
    comb = _combined(p, rule, refused, named, weights.threshold, weights.veto, weights.refused)
    rp, rr = _pr(rule, y)
    cp, cr = _pr(comb, y)
    return {
        "n": len(rows),
        "rules_p": round(rp, 3),
        "rules_r": round(rr, 3),
        "combined_p": round(cp, 3),
        "combined_r": round(cr, 3),
        "added": int((comb & ~rule).sum()),
        "added_right": int((comb & ~rule & y).sum()),
        "vetoed": int((rule & ~comb).sum()),
        "vetoed_right": int((rule & ~comb & ~y).sum()),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", type=Path, default=list(CORPORA))
    ap.add_argument("--embedder", default="e5-small")
    ap.add_argument(
        "--background",
        type=Path,
        nargs="*",
        default=list(BACKGROUND),
        help="pair files whose statements are lasting",
    )
    ap.add_argument("--target", type=float, default=0.95, help="precision of the reader's additions")
    ap.add_argument(
        "--veto-target", type=float, default=0.8, help="share of vetoed readings that are look-alikes"
    )
    ap.add_argument("--keep-target", type=float, default=0.7, help="share of kept clauses that are lasting")
    ap.add_argument("--dev", type=Path, action="append", default=[], help="a file only scored (ttl_seconds)")
    ap.add_argument("--cache", type=Path, help="an .npz of vectors by text, reused between runs")
    ap.add_argument("--dry-run", action="store_true", help="report only, write no weights")
    ap.add_argument("--out", type=Path, help="write the weights here instead of the shipped file")
    args = ap.parse_args(argv)
    if not args.corpora:
        ap.error("no corpora given and none under corpora/expiry/")
    rows = load_lines(args.corpora)
    data = build(rows + background_lines(args.background), args.embedder, args.cache)
    print(f"{len(rows)} lines ({int(data.y[data.primary].sum())} temporary); {len(data.texts)} examples with "
          f"the clauses of temporary lines and {int(data.background.sum())} background statements")  # fmt: skip
    report = leave_one_author_out(
        data, target=args.target, veto_target=args.veto_target, keep_target=args.keep_target
    )
    for a, r in report["per_author"].items():
        print(
            f"held out {a}: "
            + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items())
        )
    for k, v in report["summary"].items():
        print(f"  {k}: {v}")
    everyone = np.arange(len(data.texts))
    c = select(data, everyone, target=args.target, veto_target=args.veto_target, keep_target=args.keep_target)
    mean, scale, w, b = fit(data, everyone, c.l2)
    from remnant.embed.registry import get_embedder

    model_id = get_embedder(args.embedder).model_id
    weights = ExpiryWeights(
        model_id,
        mean,
        scale,
        w,
        b,
        c.threshold,
        c.veto,
        float(c.horizon),
        {
            "corpora": [p.name for p in args.corpora],
            "background": [p.name for p in args.background],
            "background_weight": BG_WEIGHT,
            "lines": len(rows),
            "examples": len(data.texts),
            "l2": c.l2,
            "target": args.target,
            "veto_target": args.veto_target,
            "keep_target": args.keep_target,
            "leave_one_author_out": report["summary"],
            "command": "python -m remnant.extract.expiry_fit",
        },
        c.keep,
        c.refused,
    )
    print(
        f"shipped: l2 {c.l2}, threshold {c.threshold}, refused {c.refused}, veto {c.veto}, keep {c.keep}, "
        f"horizon {c.horizon / 3600:g} h"
    )
    for path in args.dev:
        dev_rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        texts = [r["text"] for r in dev_rows]
        x = np.hstack([_embed(texts, args.embedder, args.cache), np.asarray([cues(t, REF) for t in texts])])
        print(f"dev {path}: {score_dev(weights, x, dev_rows)}")
    if not args.dry_run:
        out = args.out or weights_path(model_id)
        out.write_text(json.dumps(weights.to_json()) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
