"""Fit the attribute centroids of :mod:`remnant.understand.attribute_model` and choose its
margins by cross-validation on generated pairs: ``python -m remnant.extract.attribute_fit``.

Folds split the generated statements by template; each fold's centroids are fitted on the other
folds, and its pairs are composed from its own statements only, so every scored pair uses phrasings
the centroids never saw. ``supersede_margin`` is the smallest margin whose pooled out-of-fold
precision of "supersede" is at least 0.98 (generated pairs are easier than real ones: the margin errs towards flagging); ``flag_margin`` the smallest with precision 0.6 (a flag
changes nothing, it asks).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.understand.attribute_model import Centroids, fit_centroids, fit_softmax, weights_path
from remnant.understand.attributes import unread_relation


def _decide(
    c: Centroids, vec: dict[str, npt.NDArray[np.float64]], new: str, old: str, margin_floor: float
) -> tuple[bool, float]:
    (a, ma), (b, mb) = c.classify(np.vstack([vec[new], vec[old]]))
    m = min(ma, mb)
    ok = a == b and a != "other" and unread_relation(new, old) == "supersedes" and m >= margin_floor
    return ok, m


def _fit(method: str, model_id: str, x: npt.NDArray[np.float64], labels: list[str]) -> Centroids:
    if method == "softmax":
        names, w, center, b = fit_softmax(x, labels)
        return Centroids(model_id, names, w, center, 0.0, 0.0, {}, b)
    names, matrix, center = fit_centroids(x, labels)
    return Centroids(model_id, names, matrix, center, 0.0, 0.0, {})


def main(argv: Sequence[str] | None = None) -> int:
    from remnant.embed.registry import get_embedder
    from remnant.training.attribute_data import generate, pairs

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--embedder", default="e5-small")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--vectors", help=".npy of precomputed vectors for --texts")
    ap.add_argument("--texts", help=".json list of the texts of --vectors")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--method", choices=("centroid", "softmax"), default="centroid")
    args = ap.parse_args(argv)

    statements = generate(2000, seed=0)
    embedder = get_embedder(args.embedder, threads=2)
    if args.vectors and args.texts:
        with open(args.texts, encoding="utf-8") as fh:
            texts = json.load(fh)
        vecs = np.load(args.vectors).astype(np.float64)
        vec = dict(zip(texts, vecs, strict=True))
    else:
        vec = {}
    k = args.folds
    templates = sorted({s.template for s in statements})
    order = np.random.default_rng(0).permutation(len(templates))
    fold_of = {templates[i]: j % k for j, i in enumerate(order)}
    scored: list[tuple[str, float, bool]] = []  # (label, margin, same-attribute & same-subject)
    for f in range(k):
        train = [s for s in statements if fold_of[s.template] != f]
        test = [s for s in statements if fold_of[s.template] == f]
        need = [s.text for s in train + test if s.text not in vec]
        test_pairs = pairs(test, 200, seed=f)
        need += [t for o, n, _ in test_pairs for t in (o, n) if t not in vec]
        uniq = list(dict.fromkeys(need))
        if uniq:
            for t, v in zip(uniq, embedder.embed_documents(uniq), strict=True):
                vec[t] = np.asarray(v, dtype=np.float64)
        c = _fit(
            args.method,
            embedder.model_id,
            np.vstack([vec[s.text] for s in train]),
            [s.attribute for s in train],
        )
        for old, new, label in test_pairs:
            ok, m = _decide(c, vec, new, old, 0.0)
            scored.append((label, m, ok))

    def pr(t: float) -> tuple[float, float]:
        tp = sum(1 for lab, m, ok in scored if ok and m >= t and lab == "supersedes")
        fp = sum(1 for lab, m, ok in scored if ok and m >= t and lab != "supersedes")
        pos = sum(1 for lab, _, _ in scored if lab == "supersedes")
        return (tp / (tp + fp) if tp + fp else 1.0), (tp / pos if pos else 0.0)

    grid = [round(float(x), 3) for x in np.arange(0.0, 1.0, 0.02 if args.method == "softmax" else 0.01)]
    curve = {t: pr(t) for t in grid}
    sup = next((t for t in grid if curve[t][0] >= 0.98), grid[-1])
    flag = next((t for t in grid if curve[t][0] >= 0.6), sup)
    for g in grid[::3]:
        print(f"margin {g:.3f}: precision {curve[g][0]:.3f} recall {curve[g][1]:.3f}")
    print(f"supersede_margin {sup} (P {curve[sup][0]:.3f} R {curve[sup][1]:.3f}), flag_margin {flag}")
    full = _fit(
        args.method,
        embedder.model_id,
        np.vstack([vec[s.text] for s in statements]),
        [s.attribute for s in statements],
    )
    meta: dict[str, Any] = {
        "trained_on": "remnant.training.attribute_data.generate(2000, seed=0)",
        "statements": len(statements),
        "cv": {"folds": k, "pairs": len(scored), "precision": curve[sup][0], "recall": curve[sup][1]},
        "method": args.method,
    }
    model = Centroids(
        embedder.model_id,
        full.names,
        full.matrix,
        full.center,
        float(sup),
        float(min(flag, sup)),
        meta,
        full.bias,
    )
    if not args.dry_run:
        path = weights_path(embedder.model_id)
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(model.to_json()) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
