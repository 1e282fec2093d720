"""Does a turn state something lasting about the speaker? A small logistic gate over its vector.

The rule extractor reads shapes ("I love X", "my X is Y", 我住在X, a habit or a plan clause), and
chit-chat has the same shapes: "i just LOVE mondays 🙃", "can u explain compound interest like i'm
5", "imagine living in 1850", a quoted "I'm moving to Mars", 要是我有一千万，我就天天躺平. The gate
weighs the turn's e5-small document vector (the one salience and recall already computed on the add
path) with a few cheap cues read from per-language data files (``data/<lang>/claims.json``: a
question, a quote, a hypothetical, sarcasm, a request to the assistant, someone else's words, the
speaker speaking of themself):

``p = sigmoid(w · standardise([v, cues]) + b)``; ``p < threshold`` and at least one of the
:data:`FILLER_CUES` present → the turn states nothing lasting. The cue is a precision guard: the
corpora's fact turns are chatty, so a short plain statement ("I'm retired", 我结婚了) scores low
without being filler (on the dev timelines and supersession files the model alone dropped 180 of
1,348 turns with rule facts, most of them real; with the guard about a dozen).

The ingestor (:mod:`remnant.extract.ingest`) then drops the rules' *generic* facts and preferences
of that turn; facts whose value has an exact shape (a phone number, an e-mail, a name, an order,
a reminder) stay with the rules. The threshold is chosen by leave-one-author-out on the claim corpora
(``corpora/claims/``) for the precision of what the gate drops (a real fact lost is worse than a
filler kept); retrain with ``python -m remnant.extract.claim_fit`` (docs/benchmarks/understanding.md).
Weights ship as ``data/claims_<model>.json``; without them (another embedder, none installed) the
gate answers nothing and the rules decide alone.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.understand import lexicon, logistic

DATA_DIR = Path(__file__).resolve().parent / "data"
CUES: tuple[str, ...] = ("question", "quote", "hypothetical", "sarcasm", "request", "reported", "first")
FEATURES: tuple[str, ...] = CUES
FILLER_CUES: tuple[str, ...] = CUES[:-1]
"""The cues of which one must be present for the gate to drop anything (``first`` is not one): a
plain short statement ("I'm retired", "my favourite colour is green") reads, to a model trained on
chatty turns, much like "lol same"; without a cue it stays with the rules, a precision guard."""
KEYED_FACTOR = 0.5
"""A keyed fact's threshold is this share of the generic one (see :attr:`ClaimGate.keyed_threshold`)."""
READ_CHARS = 2000
"""How much of a turn the cues read (the vector reads the same opening: the salience model's)."""

Array = npt.NDArray[np.float64]


def weights_path(model_id: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model_id)
    return DATA_DIR / f"claims_{safe}.json"


def _cue_pattern(cue: str) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """Every language's words and patterns of ``cue`` as one case-insensitive regex, and its
    ``cased`` patterns (a shouted LOVE) as one that keeps case."""
    parts: list[str] = []
    cased: list[str] = []
    for lang in lexicon.languages():
        words = [re.escape(w) for w in lexicon.entries("claims", "cues", cue, "words", lang)]
        bounded = bool(lexicon.table(lang, "claims").get("word_boundaries", False))
        if words:
            group = f"(?:{'|'.join(words)})"
            parts.append(rf"(?<!\w){group}(?!\w)" if bounded else group)
        parts.extend(lexicon.entries("claims", "cues", cue, "patterns", lang))
        cased.extend(lexicon.entries("claims", "cues", cue, "cased", lang))
    return (
        re.compile("|".join(parts) or r"(?!)", re.I),
        re.compile("|".join(cased)) if cased else None,
    )


_PATTERNS = {cue: _cue_pattern(cue) for cue in CUES}


def cue_features(text: str) -> list[float]:
    """The lexical features of a turn, in :data:`FEATURES` order (one regex search per cue over the
    turn's opening: linear in it)."""
    head = text[:READ_CHARS]
    out = []
    for cue in CUES:
        plain, cased = _PATTERNS[cue]
        out.append(1.0 if plain.search(head) or (cased is not None and cased.search(head)) else 0.0)
    return out


def has_filler_cue(cues: list[float]) -> bool:
    """Any of :data:`FILLER_CUES` among a turn's :func:`cue_features`."""
    return any(cues[CUES.index(c)] for c in FILLER_CUES)


def features(vectors: npt.ArrayLike, texts: list[str]) -> Array:
    """Rows of ``[vector, cues]``, one per turn."""
    v = np.asarray(vectors, dtype=np.float64).reshape(len(texts), -1)
    return np.hstack([v, np.asarray([cue_features(t) for t in texts], dtype=np.float64)])


@dataclass(frozen=True)
class ClaimGate:
    """Trained weights for one embedder model (features standardised by ``mean``/``scale``)."""

    model_id: str
    mean: Array
    scale: Array
    w: Array
    bias: float
    threshold: float
    meta: dict[str, Any]
    # a keyed fact (an attribute with its value: diet, city, employer) lost also loses the change it
    # states (supersession): the gate drops it only with twice the confidence (KEYED_FACTOR)
    keyed_threshold: float = 0.0

    def probability(self, vector: npt.ArrayLike, text: str) -> float:
        """How likely ``text`` (whose document vector is ``vector``) states something lasting."""
        x = features([np.asarray(vector, dtype=np.float64).reshape(-1)], [text])[0]
        if x.shape[0] != self.w.shape[0]:
            raise ValueError(f"vector gives {x.shape[0]} features, the gate expects {self.w.shape[0]}")
        return logistic.probability(x, self.mean, self.scale, self.w, self.bias)

    def states_claim(self, vector: npt.ArrayLike, text: str, *, keyed: bool = False) -> bool:
        """``False`` when the turn says nothing lasting (chit-chat, a question, a joke, a wish): a
        filler cue is present and the probability is under the threshold (``keyed``: under
        :attr:`keyed_threshold`, for a fact that sets an attribute)."""
        if not has_filler_cue(cue_features(text)):
            return True
        return self.probability(vector, text) >= (self.keyed_threshold if keyed else self.threshold)

    def to_json(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "features": list(FEATURES),
            "mean": logistic.rounded(self.mean),
            "scale": logistic.rounded(self.scale),
            "w": logistic.rounded(self.w),
            "bias": round(self.bias, 6),
            "threshold": round(self.threshold, 6),
            "keyed_threshold": round(self.keyed_threshold, 6),
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ClaimGate:
        return cls(
            str(raw["model_id"]),
            np.asarray(raw["mean"], dtype=np.float64),
            np.asarray(raw["scale"], dtype=np.float64),
            np.asarray(raw["w"], dtype=np.float64),
            float(raw["bias"]),
            float(raw["threshold"]),
            dict(raw.get("meta", {})),
            float(raw.get("keyed_threshold", raw["threshold"])),
        )


_cache: dict[str, ClaimGate | None] = {}
_lock = threading.Lock()


def load_gate(model_id: str) -> ClaimGate | None:
    """The shipped gate for ``model_id``, or ``None`` when none was trained for it (or its cues
    are not the ones this code reads: stale weights answer nothing rather than something wrong)."""
    with _lock:
        if model_id not in _cache:
            path = weights_path(model_id)
            gate = None
            if path.exists():
                raw = json.loads(path.read_text(encoding="utf-8"))
                if tuple(raw.get("features", ())) == FEATURES:
                    gate = ClaimGate.from_json(raw)
            _cache[model_id] = gate
        return _cache[model_id]
