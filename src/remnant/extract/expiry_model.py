"""The learned expiry reader: whether a sentence says something that holds only for a while.

The rules (:mod:`remnant.extract.expiry`) read the exact parts: a period's length ("good for 10
minutes", 十分钟内有效), an end point ("till sunday", 只在今天有效), and what the period attaches
to. They read only the phrasings they were written against, and a few look-alikes fool them. The
reader is ``p = sigmoid(w · [v, c] + b)`` over the sentence's document vector ``v`` from the
product's embedder (e5-small: for the turn, the vector the add path already computed)
and the lexical cues ``c`` of :func:`remnant.extract.expiry.cues` (the rules' reading, a period or an
end point named, temporary words, a value's shape, past, recurring, question, Chinese).

How the ingestor uses it (:class:`remnant.extract.ingest.RuleIngestor` with ``expiry_reader=True``,
as the product builds it unless ``REMNANT_EXPIRY_READER=rules``; on by default since round 8: over
the five development timelines files it passes 13 more cases of 900 than the rules alone, with the
held-out salience and chit-chat figures unchanged, docs/benchmarks/understanding.md):

- **recall**: where the rules read no expiry and ``p >= threshold`` (``p >= refused`` where they
  saw an exact period and refused it: a stricter bar, since they refuse look-alikes such as
  "ran for an hour this morning"), the turn expires after the
  length the text names (:func:`remnant.extract.expiry.period_said`, then
  :func:`~remnant.extract.expiry.end_point_said`), else after the default ``horizon``;
- **veto**: where the rules read an expiry but the turn's ``p < veto``, it is a look-alike (a
  habit, an age, a past duration, a deadline that is lasting knowledge) and none is set;
- **value level**: in a temporary turn the rules did not split, each part is read (its sentences,
  or the clauses of its one sentence: :func:`remnant.extract.expiry.units`; one embedder call for
  all of them); a part with ``p < keep`` that matters (the salience reading) is kept as its own
  fact without the TTL, the rest expires with the turn, as the rules' split does.

``threshold``, ``refused``, ``veto``, ``keep`` and ``horizon`` are chosen by cross-validation on the training corpora
(``corpora/expiry/``, six independent authors): ``python -m remnant.extract.expiry_fit``, which
also reports the leave-one-author-out figures (docs/benchmarks/understanding.md). The weights are one
JSON file per embedder model (``extract/data/expiry_<model_id>.json``); without them the rules decide
alone.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.extract.expiry import CUES, cues, end_point_said, expiry_of, period_said
from remnant.understand import logistic

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent / "data"
SENTENCE_CHARS = 500
"""How much of one clause the reader embeds (a clause is short; a longer one is read by its head)."""

Array = npt.NDArray[np.float64]


def weights_path(model_id: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model_id)
    return DATA_DIR / f"expiry_{safe}.json"


@dataclass(frozen=True)
class ExpiryWeights:
    """The reader's trained weights for one embedder model (standardised features: ``mean``,
    ``scale``); ``threshold``: the probability at which a sentence is temporary; ``veto``: under
    it a rule's reading is a look-alike; ``horizon_s``: the default period when the text names no
    length; ``keep``: under it a part of a temporary turn is lasting (kept when it matters);
    ``refused``: the threshold where the rules saw an exact period and refused it (higher: they
    refuse "ran for an hour this morning"; 1.01, never)."""

    model_id: str
    mean: Array
    scale: Array
    w: Array
    bias: float
    threshold: float
    veto: float
    horizon_s: float
    meta: dict[str, Any]
    keep: float = 0.0
    refused: float = 1.01

    @property
    def horizon(self) -> timedelta:
        return timedelta(seconds=self.horizon_s)

    def probability(self, vector: npt.ArrayLike, cue_values: npt.ArrayLike) -> float:
        x = np.concatenate([np.asarray(vector, dtype=np.float64).reshape(-1), np.asarray(cue_values)])
        if x.shape[0] != self.w.shape[0]:
            raise ValueError(f"features have {x.shape[0]} dimensions, the reader expects {self.w.shape[0]}")
        return logistic.probability(x, self.mean, self.scale, self.w, self.bias)

    def read(self, vector: npt.ArrayLike, text: str, now: datetime) -> float:
        """The probability that ``text`` (one sentence, its vector ``vector``) is temporary."""
        return self.probability(vector, cues(text, now))

    def to_json(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "cues": list(CUES),
            "mean": logistic.rounded(self.mean),
            "scale": logistic.rounded(self.scale),
            "w": logistic.rounded(self.w),
            "bias": round(self.bias, 6),
            "threshold": round(self.threshold, 4),
            "veto": round(self.veto, 4),
            "keep": round(self.keep, 4),
            "refused": round(self.refused, 4),
            "horizon_s": self.horizon_s,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ExpiryWeights:
        if list(raw.get("cues", [])) != list(CUES):
            raise ValueError("the weights were trained on other cues")
        return cls(
            str(raw["model_id"]),
            np.asarray(raw["mean"], dtype=np.float64),
            np.asarray(raw["scale"], dtype=np.float64),
            np.asarray(raw["w"], dtype=np.float64),
            float(raw["bias"]),
            float(raw["threshold"]),
            float(raw["veto"]),
            float(raw["horizon_s"]),
            dict(raw.get("meta", {})),
            float(raw.get("keep", 0.0)),
            float(raw.get("refused", 1.01)),
        )


_cache: dict[str, ExpiryWeights | None] = {}
_lock = threading.Lock()


def load_weights(model_id: str) -> ExpiryWeights | None:
    """The shipped weights for ``model_id``, or ``None`` when the project trained none for it
    (or they are stale: the rules decide alone, and say so in the log)."""
    with _lock:
        if model_id not in _cache:
            path = weights_path(model_id)
            got = None
            if path.exists():
                try:
                    got = ExpiryWeights.from_json(json.loads(path.read_text(encoding="utf-8")))
                except (ValueError, KeyError) as exc:
                    log.warning("expiry reader off: %s (%s)", exc, path)
            _cache[model_id] = got
        return _cache[model_id]


def length_of(text: str, now: datetime, horizon: timedelta) -> tuple[timedelta, str]:
    """How long a sentence the reader judged temporary holds, and where that came from: the rules'
    reading, else the period or end point the text names, else the default ``horizon``."""
    got = expiry_of(text, now)
    if got is not None:
        return got, "rules"
    said = period_said(text)
    if said is not None:
        return said, "period"
    end = end_point_said(text, now)
    if end is not None:
        return end, "end_point"
    return horizon, "horizon"
