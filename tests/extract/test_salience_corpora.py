"""The salience fit on authored corpora (issue 27): corpus lines read and checked, the weighted fit,
leave-one-author-out over the corpora for each recipe, and the command end to end on a tiny corpus
with the static embedder (no model download)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from remnant.extract.salience_model import (
    CORPUS,
    DEV,
    GENERATED,
    RECIPES,
    Recipe,
    Rows,
    fit,
    held_figures,
    leave_one_author_out,
    main,
    predict,
    read_corpus,
    summarise,
)


def _write(path: Path, author: str, lines: list[tuple[str, bool]]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i, (text, salient) in enumerate(lines):
            row = {"id": f"{author}-{i}", "author": author, "lang": "en", "text": text, "salient": salient}
            fh.write(json.dumps({**row, "kind": "x"}) + "\n")
    return path


def test_a_corpus_line_without_its_fields_is_an_error_naming_the_line(tmp_path: Path) -> None:
    good = _write(tmp_path / "ok.jsonl", "s1", [("I moved to Leeds", True), ("lol", False)])
    assert [r["salient"] for r in read_corpus(good)] == [True, False]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        good.read_text(encoding="utf-8")
        + '{"id": "x", "author": "s1", "lang": "en", "text": "hi", "salient": "no"}\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"bad.jsonl:3: field 'salient'"):
        read_corpus(bad)
    (tmp_path / "junk.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"junk.jsonl:1: not JSON"):
        read_corpus(tmp_path / "junk.jsonl")


def test_row_weights_count_in_the_fit() -> None:
    # two contradicting copies of one point: the heavier one decides which side it falls
    x = np.asarray([[1.0], [1.0], [-1.0], [-1.0]])
    y = np.asarray([1.0, 0.0, 0.0, 1.0])
    w, b = fit(x, y, l2=0.1, weights=np.asarray([5.0, 1.0, 5.0, 1.0]))
    assert predict(np.asarray([[1.0]]), w, b)[0] > 0.5 > predict(np.asarray([[-1.0]]), w, b)[0]
    w, b = fit(x, y, l2=0.1, weights=np.asarray([1.0, 5.0, 1.0, 5.0]))
    assert predict(np.asarray([[1.0]]), w, b)[0] < 0.5


def _synthetic(n_gen: int = 240, n_author: int = 60) -> tuple[np.ndarray, Rows]:
    """Generated turns whose signal is on one axis, corpus turns whose signal is on another: only
    a fit that sees other authors' corpora reads a held author's turns."""
    rng = np.random.default_rng(1)
    parts, labels, source, authors = [], [], [], []
    for src, count, axis, author in [(GENERATED, n_gen, 0, "")] + [
        (CORPUS, n_author, 1, a) for a in ("s1", "s2", "s3")
    ] + [(DEV, 20, 0, "")]:  # fmt: skip
        y = (np.arange(count) % 2).astype(float)
        x = rng.normal(size=(count, 4))
        x[:, axis] += (2 * y - 1) * 2.0
        parts.append(x)
        labels += list(y)
        source += [src] * count
        authors += [author] * count
    x = np.vstack(parts)
    rows = Rows(
        [f"t{i}" for i in range(len(labels))],
        ["en"] * len(labels),
        np.asarray(labels),
        np.asarray(source),
        [f"g{i % 37}" if s == GENERATED else f"r{i}" for i, s in enumerate(source)],
        authors,
    )
    return x, rows


def test_leave_one_author_out_scores_each_held_author_and_the_recipes_differ() -> None:
    x, rows = _synthetic()
    by_name = {r.name: r for r in RECIPES}
    today = leave_one_author_out(by_name["a: generated + dev"], x, rows, folds=3)
    with_corpora = leave_one_author_out(by_name["b: generated + dev + corpora"], x, rows, folds=3)
    corpora_only = leave_one_author_out(by_name["c: corpora + dev"], x, rows, folds=3)
    for per in (today, with_corpora, corpora_only):
        assert sorted(per) == ["s1", "s2", "s3"]
        for f in per.values():
            assert 0.0 <= f["accuracy"] <= 1.0 and 0.05 <= f["threshold"] <= 0.95
    # generated turns alone never saw the corpora's signal; the other authors' lines carry it
    assert summarise(today)["accuracy"][0] < 0.7
    assert summarise(with_corpora)["accuracy"][0] > 0.85
    assert summarise(corpora_only)["accuracy"][0] > 0.85
    mean, sd = summarise(with_corpora)["salient_recall"]
    assert 0.0 <= sd <= 0.5 and 0.0 <= mean <= 1.0
    # the held author's lines are never in its fit
    mask = Recipe("b").mask(rows, "s2")
    assert not any(a == "s2" for a, m in zip(rows.authors, mask, strict=True) if m)
    assert Recipe("c", generated=False).mask(rows, None)[rows.source == GENERATED].sum() == 0


def test_held_figures_at_the_threshold() -> None:
    p = np.asarray([0.9, 0.8, 0.2, 0.7, 0.1, 0.3])
    y = np.asarray([1, 1, 1, 0, 0, 0], dtype=float)
    f = held_figures(p, y, 0.5)
    assert f["accuracy"] == pytest.approx(4 / 6)
    assert f["salient_recall"] == pytest.approx(2 / 3)
    assert f["false_keep"] == pytest.approx(1 / 3)
    assert f["filler_precision"] == pytest.approx(2 / 3)  # faded: 0.2 (salient), 0.1, 0.3


def test_the_command_reports_leave_one_author_out_and_fits_on_a_tiny_corpus(tmp_path: Path) -> None:
    salient = ["I moved to {} last month", "my new job at the {} starts Monday", "I'm allergic to {}"]
    filler = ["lol {} is funny", "what's the weather in {}?", "thanks, {} sounds fine"]
    words = ["Leeds", "Osaka", "Porto", "bakery", "harbour", "cats", "peanuts", "pollen"]
    files = [
        _write(
            tmp_path / f"salience_{a}.jsonl",
            a,
            [(t.format(w + a), True) for t in salient for w in words[:4]]
            + [(t.format(w + a), False) for t in filler for w in words[:4]],
        )
        for a in ("s1", "s2", "s3")
    ]
    vectors = tmp_path / "v.npy"
    out = tmp_path / "loao.json"
    args = ["--embedder", "static", "--turns", "120", "--folds", "3", "--vectors", str(vectors), "--corpus"]
    assert main([*args, *map(str, files), "--loao", "--loao-json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) == {r.name for r in RECIPES}
    for heads in report.values():
        assert set(heads) == {"plain", "spoken"}
        assert set(heads["plain"]["per_author"]) == {"s1", "s2", "s3"}
    cached = json.loads(Path(f"{vectors}.texts.json").read_text(encoding="utf-8"))
    assert len(cached) == len(set(cached)) and np.load(vectors).shape[0] == len(cached)
    # the second run embeds nothing new and writes no weights with --dry-run
    assert main([*args, *map(str, files), "--dry-run", "--corpus-weight", "2"]) == 0
