"""Does a new unkeyed statement replace an old one? A small logistic model over a pair's features.

The attribute rules (:mod:`remnant.understand.attributes`) are precise but read few of the
ways people state a change ("I'm vegetarian now", "handed in my notice at Acme", 现在改吃素了). This
model weighs, for a pair (old, new), a handful of signals that each say a little:

- how close the two statements are in meaning (cosine of their e5-small vectors, raw and centred);
- the attribute each side gets (the rules' reading when they have one, else the nearest attribute
  centroid of :mod:`remnant.understand.attribute_model`) and whether they agree;
- what the rules and the word detector say about the pair (supersedes / compatible / unrelated /
  cannot tell; contradiction);
- cues in the new statement: a change word (now, switched, 现在, 改成), an ending (left, quit,
  辞职), an addition (also, 也), a temporary exception (this week, 这周), a hypothetical;
- a different subject (my sister, a name, 我妹妹) or context (weekend, work phone) on either side;
- lexical overlap, one statement's words inside the other's, numbers, negation;
- and three blocks of the statements' centred unit vectors (:data:`BLOCKS`): the scalars alone
  separated little in cross-validation (out-of-fold AUC 0.69 against 0.84 with the blocks).

``p = sigmoid(w · standardise(x) + b)``; ``p ≥ supersede_at`` → supersede, ``p ≥ flag_at`` → flag
(both stay; "flag, don't supersede, when unsure"). A write with several candidates left to the model
(a user with many facts) is judged more strictly: only its ``nearest`` candidates by cosine are the
model's to judge, the threshold is ``crowd_at``, and the likeliest is superseded only when it leads
the next pick by ``margin`` (else both are flagged). Weights, thresholds and those three ship as
``data/supersession_<model>.json``, fitted by ``python -m remnant.extract.supersession_fit`` on the
hand-written development pairs and eight corpus authors' pairs, chosen by cross-validation and
leave-one-author-out (see ``docs/benchmarks/understanding.md``). The rules decide first; the model
is asked only about pairs they cannot read. It is the default (``REMNANT_ATTRIBUTES=pairs``): every
held-out corpus author measured precision ≥ 0.90, the rule fixed before the fit;
``REMNANT_ATTRIBUTES=rules`` turns it off. Without e5-small (or without
weights for the embedder, or with stale ones) it answers nothing and the rules decide alone.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from remnant.core import memo
from remnant.core.text import PLACEHOLDER
from remnant.embed.base import Embedder, EmbeddingError
from remnant.understand import attributes, lexicon, logistic
from remnant.understand.attribute_model import OTHER, AttributeClassifier
from remnant.understand.statements import ContradictionDetector, tokens

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent / "data"
_RECALL_CACHE = 2048  # statements read and pairs scored at recall kept for the next (a few kB a statement)
Action = Literal["supersede", "flag"]

FEATURES: tuple[str, ...] = (
    "cos",  # cosine of the two document vectors
    "cos_centred",  # the same after removing the attribute model's centre (spreads e5's high floor)
    "attr_same",  # both sides on the same single-valued attribute
    "attr_margin",  # the smaller attribute margin when they agree (1 for a rule reading), else 0
    "attr_other",  # either side is about something a person has many of
    "rule_supersedes",
    "rule_compatible",
    "rule_unrelated",
    "rule_unsure",  # the rules read one side, or none, or cannot tell
    "detector_contradiction",
    "detector_unrelated",
    "overlap",  # Jaccard of content tokens (stemmed words, CJK characters)
    "contained",  # one statement's words are all in the other (restated, refined)
    "change_new",
    "ended_new",
    "additive_new",
    "temporary_new",
    "hypothetical",  # either side
    "other_subject",  # the subjects differ, or the new one is about a named person
    "context_differs",
    "refinement_new",
    "numbers_differ",  # both carry numbers and they differ
    "negation_differs",
    "same_attr_x_change",  # an agreed attribute with a change or ending word in the new statement
    "cos_x_change",
    # cues added with the third development set (EN/ZH); each is one regex over the raw text
    "event_new",  # the new statement reports something that happened (last week, just, 上周, 刚)
    "plan_new",  # a plan or intention, not a change yet (going to, next month, 打算, 准备)
    "now_le_new",  # the Chinese change frame 现在/已经/改/换 … 了
    "habit_old",  # the old statement is a habit (usually, every, 一般, 平时): an exception is compatible
    "exception_new",  # except, unless, only when, 除了, 除非
    "question_new",  # a question states nothing
    "same_subject_user",  # both about the user themself (no relation, no name) on both sides
    "len_ratio",  # |log(len(new) / len(old))|: a long new statement often adds, not replaces
    # added with six corpus authors (chosen by leave-one-author-out, docs/benchmarks/understanding.md)
    "correction_new",  # a correction cue: I meant, my bad, typo, 说错了, 打错了, 不对
    "new_only",  # share of the new statement's words the old lacks (the new value's span)
    "old_only",  # share of the old statement's words the new lacks (the old value's span)
    "old_negated",  # an old word right after a negation in the new ("Danny's not Dana's", 不是周三)
    "guess_same",  # the attribute head alone puts both sides on one attribute (rules aside)
    "guess_margin",  # the smaller of its two margins when it does, else 0
    "correction_x_numbers",  # a correction cue with differing numbers
    "kept_new",  # the old value still holds: still, staying put, 还在, 继续, 没变
    "third_new",  # the new statement opens on someone else: our manager, my husband, 我们组长, 邻居
    "first_new",  # the new statement speaks as I / we / 我
)


#: blocks of the statements' centred unit vectors appended to the scalar features: their
#: element-wise product and absolute difference (what the two share, where they differ) and the new
#: statement's own vector (how a change is said: "these days", "handed in my notice", 改成)
BLOCKS: tuple[str, ...] = ("product", "absdiff", "new")


def weights_path(model_id: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model_id)
    return DATA_DIR / f"supersession_{safe}.json"


def _content(text: str) -> set[str]:
    # a privacy placeholder ([PHONE_1]) is a value, as the number it hides would be: not a word
    # two statements share (its type's name would make any two phone statements one subject)
    return {t.value for t in tokens(PLACEHOLDER.sub(" ", text)) if t.kind in ("w", "c")}


def share_words(a: str, b: str) -> bool:
    """Whether two statements share a content word (a stemmed word or a CJK character, no
    stopwords): what says they may be about one subject at all."""
    return not _content(a).isdisjoint(_content(b))


def _numbers(text: str) -> list[str]:
    return sorted(re.findall(r"\d+(?:[.,:]\d+)*", unicodedata.normalize("NFKC", text)))


def _negations(text: str) -> int:
    return sum(t.kind == "neg" for t in tokens(text))


def contained(a: str, b: str) -> bool:
    """One statement holds all the other's content words ("I drink tea" / "I drink tea with honey")."""
    wa, wb = _content(a), _content(b)
    return bool(wa and wb) and (wa <= wb or wb <= wa)


# The cues' words are data (``data/<lang>/pairs.json``); the shapes that join them are here. A
# language with ``word_boundaries`` matches its words whole (English), one without by substring
# (Chinese); every language's alternatives join into one regex per cue, case-insensitive.


def _bounded(lang: str) -> bool:
    return bool(lexicon.table(lang, "pairs").get("word_boundaries", False))


def _alts(cue: str, field: str, lang: str, patterns: str | None = None) -> str:
    """``field``'s words of ``cue`` escaped, and ``patterns``' regexes as they are, as one group
    (empty when the language has none)."""
    alts = [re.escape(w) for w in lexicon.entries("pairs", "cues", cue, field, lang)]
    if patterns is not None:
        alts += list(lexicon.entries("pairs", "cues", cue, patterns, lang))
    return f"(?:{'|'.join(alts)})" if alts else ""


def _words_cue(cue: str) -> re.Pattern[str]:
    """A cue that is its words and patterns anywhere in the text."""
    parts = []
    for lang in lexicon.languages():
        group = _alts(cue, "words", lang, "patterns")
        if group:
            parts.append(rf"\b{group}\b" if _bounded(lang) else group)
    return re.compile("|".join(parts) or r"(?!)", re.I)


def _now_le() -> re.Pattern[str]:
    """A lead, then at most ``within`` characters, then an end (现在 … 了)."""
    parts = []
    for lang in lexicon.languages():
        leads, ends = _alts("now_le", "leads", lang), _alts("now_le", "ends", lang)
        if leads and ends:
            within = int(lexicon.table(lang, "pairs")["cues"]["now_le"]["within"])
            parts.append(f"{leads}.{{0,{within}}}{ends}")
    return re.compile("|".join(parts) or r"(?!)", re.I)


def _question() -> re.Pattern[str]:
    """An ending at the end of the text, or an opener at its start."""
    parts = []
    for lang in lexicon.languages():
        openers, endings = _alts("question", "openers", lang), _alts("question", "endings", lang)
        if endings:
            parts.append(rf"{endings}\s*$")
        if openers:
            parts.append(rf"^{openers}\b" if _bounded(lang) else f"^{openers}")
    return re.compile("|".join(parts) or r"(?!)", re.I)


def _third() -> re.Pattern[str]:
    """The text opens on someone else: with word boundaries, an owner, up to two words, a person
    ("my older sister"), or an actor and a verb ("she moved"); without, an optional owner and
    link, then a person (我们的组长, 邻居)."""
    parts = []
    for lang in lexicon.languages():
        owners, people = _alts("third", "owners", lang), _alts("third", "people", lang, "people_patterns")
        if _bounded(lang):
            actors, verbs = _alts("third", "actors", lang, "actor_patterns"), _alts("third", "verbs", lang)
            if owners and people:
                parts.append(rf"{owners} (?:[\w']+ ){{0,2}}?{people}\b")
            if actors and verbs:
                parts.append(rf"{actors} {verbs}\b")
        elif people:
            parts.append(f"{owners}?{_alts('third', 'links', lang)}?{people}" if owners else people)
    return re.compile(rf"^\W*(?:{'|'.join(parts)})" if parts else r"(?!)", re.I)


def _first() -> re.Pattern[str]:
    """The speaker's own words; a word is not one when followed by a ``not_before`` character
    (我们, 我妈: someone else)."""
    parts = []
    for lang in lexicon.languages():
        group = _alts("first", "words", lang)
        if not group:
            continue
        not_before = lexicon.table(lang, "pairs")["cues"]["first"].get("not_before", "")
        if not_before:
            group += f"(?![{''.join(re.escape(c) for c in not_before)}])"
        parts.append(rf"\b{group}\b" if _bounded(lang) else group)
    return re.compile("|".join(parts) or r"(?!)", re.I)


_EVENT = _words_cue("event")
_PLAN = _words_cue("plan")
_NOW_LE = _now_le()
_HABIT = _words_cue("habit")
_EXCEPTION = _words_cue("exception")
_QUESTION = _question()
_CORRECTION = _words_cue("correction")
_KEPT = _words_cue("kept")
_THIRD = _third()
_FIRST = _first()
#: each cue's regex by its name in ``pairs.json``
CUES: dict[str, re.Pattern[str]] = {
    "event": _EVENT,
    "plan": _PLAN,
    "now_le": _NOW_LE,
    "habit": _HABIT,
    "exception": _EXCEPTION,
    "question": _QUESTION,
    "correction": _CORRECTION,
    "kept": _KEPT,
    "third": _THIRD,
    "first": _FIRST,
}


def _flag_of(pat: re.Pattern[str], text: str) -> float:
    return float(bool(pat.search(unicodedata.normalize("NFKC", text).replace("’", "'"))))


def has_cue(name: str, text: str) -> bool:
    """Whether ``text`` carries the cue ``name`` (a key of :data:`CUES`)."""
    return bool(_flag_of(CUES[name], text))


def _old_negated(new: str, old: str) -> float:
    """An old content word within three tokens after a negation in the new statement."""
    wo = _content(old)
    tk = list(tokens(new))
    for i, t in enumerate(tk):
        if t.kind == "neg" and any(u.kind in ("w", "c") and u.value in wo for u in tk[i + 1 : i + 4]):
            return 1.0
    return 0.0


_DETECTOR = ContradictionDetector()
Guess = tuple[str, float] | None  # (attribute, margin) from the classifier, None when none


@dataclass(frozen=True)
class Side:
    """What the features read of one statement alone, computed once however many pairs it is in
    (recall judges each hit against several others)."""

    text: str
    reading: attributes.Reading | None
    guess: Guess  # the attribute head's guess from the vector
    attr: Guess  # the rules' attribute when they read one (margin 1), else the guess
    cues: attributes.Cues
    subject: str  # "other" for a named subject, else the cues' subject
    words: frozenset[str]
    numbers: tuple[str, ...]
    negations: int
    flags: dict[str, float]  # each of CUES on the text
    third: float  # the text opens on someone else
    vec: npt.NDArray[np.float64]
    norm: float
    centred: npt.NDArray[np.float64]  # vec - center
    centred_norm: float
    unit: npt.NDArray[np.float64]  # the centred vector, unit length


def side(text: str, vec: npt.ArrayLike, guess: Guess, center: npt.NDArray[np.float64] | None) -> Side:
    """The one-statement part of :func:`pair_features`."""
    a = np.asarray(vec, dtype=np.float64)
    reading = attributes.read(text)
    cue = attributes.cues(text)
    plain = unicodedata.normalize("NFKC", text).replace("’", "'")
    centred = a - center if center is not None else a
    centred_norm = float(np.linalg.norm(centred))
    return Side(
        text=text,
        reading=reading,
        guess=guess,
        attr=(reading.attribute, 1.0) if reading is not None else guess,
        cues=cue,
        subject="other" if cue.named_subject else cue.subject,
        words=frozenset(_content(text)),
        numbers=tuple(_numbers(text)),
        negations=_negations(text),
        flags={name: float(bool(pat.search(plain))) for name, pat in CUES.items() if name != "third"},
        third=float(bool(_THIRD.search(plain.strip()))),
        vec=a,
        norm=float(np.linalg.norm(a)),
        centred=centred,
        centred_norm=centred_norm,
        unit=centred / max(centred_norm, 1e-12),
    )


def _span_features(new: Side, old: Side) -> list[float]:
    """The features from ``correction_new`` to ``first_new`` (:data:`FEATURES`)."""
    wn, wo = new.words, old.words
    nn, no = list(new.numbers), list(old.numbers)
    guess_new, guess_old = new.guess, old.guess
    correction = new.flags["correction"]
    guess_same = guess_new is not None and guess_old is not None and guess_new[0] == guess_old[0]
    return [
        correction,
        len(wn - wo) / len(wn) if wn else 0.0,
        len(wo - wn) / len(wo) if wo else 0.0,
        _old_negated(new.text, old.text),
        float(guess_same),
        min(guess_new[1], guess_old[1]) if guess_same and guess_new and guess_old else 0.0,
        correction * float(bool(nn) and bool(no) and nn != no),
        new.flags["kept"],
        new.third,
        new.flags["first"],
    ]


def scalar_features(new: Side, old: Side, *, centred: bool = True) -> list[float]:
    """The scalar :data:`FEATURES` of the pair (old, new) from its two sides; ``centred``: the sides
    were made with a center (else the centred cosine is the raw one)."""
    cos = float(new.vec @ old.vec) / max(new.norm * old.norm, 1e-12)
    cos_c = (
        float(new.centred @ old.centred) / max(new.centred_norm * old.centred_norm, 1e-12) if centred else cos
    )
    an, ao = new.attr, old.attr
    same = an is not None and ao is not None and an[0] == ao[0] and an[0] != OTHER
    other = (an is not None and an[0] == OTHER) or (ao is not None and ao[0] == OTHER)
    margin = min(an[1], ao[1]) if same and an is not None and ao is not None else 0.0
    rel = attributes.relate(new.reading, old.reading)
    det = _DETECTOR.compare(new.text, old.text).label
    wn, wo = new.words, old.words
    overlap = len(wn & wo) / len(wn | wo) if wn and wo else 0.0
    cn, co = new.cues, old.cues
    nn, no = new.numbers, old.numbers
    change = cn.changed or cn.ended
    return [
        cos,
        cos_c,
        float(same),
        margin,
        float(other),
        float(rel == "supersedes"),
        float(rel == "compatible"),
        float(rel == "unrelated"),
        float(rel is None),
        float(det == "contradiction"),
        float(det == "unrelated"),
        overlap,
        float(bool(wn and wo) and (wn <= wo or wo <= wn)),
        float(cn.changed),
        float(cn.ended),
        float(cn.additive),
        float(cn.temporary),
        float(cn.hypothetical or co.hypothetical),
        float(new.subject != old.subject),
        float(cn.context != co.context),
        float(cn.refinement and not co.refinement),
        float(bool(nn) and bool(no) and nn != no),
        float((new.negations % 2) != (old.negations % 2)),
        float(same and change),
        cos * float(change),
        new.flags["event"],
        new.flags["plan"],
        new.flags["now_le"],
        old.flags["habit"],
        new.flags["exception"],
        new.flags["question"],
        float(new.subject == old.subject == "user"),
        abs(math.log(max(len(new.text), 1) / max(len(old.text), 1))),
        *_span_features(new, old),
    ]


def pair_features(
    new: str,
    old: str,
    vec_new: npt.NDArray[np.float64],
    vec_old: npt.NDArray[np.float64],
    guess_new: Guess,
    guess_old: Guess,
    center: npt.NDArray[np.float64] | None,
) -> npt.NDArray[np.float64]:
    """The feature vector of (old, new): :data:`FEATURES`, then the :data:`BLOCKS`."""
    n, o = side(new, vec_new, guess_new, center), side(old, vec_old, guess_old, center)
    return pair_row(n, o, centred=center is not None)


def pair_row(new: Side, old: Side, *, centred: bool = True) -> npt.NDArray[np.float64]:
    """:func:`pair_features` from the two sides."""
    x = np.asarray(scalar_features(new, old, centred=centred), dtype=np.float64)
    ua, ub = new.unit, old.unit
    return np.concatenate([x, ua * ub, np.abs(ua - ub), ua])


@dataclass(frozen=True)
class PairWeights:
    """A fitted logistic model: standardisation, weights, bias and the two thresholds."""

    model_id: str
    features: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]
    bias: float
    supersede_at: float
    flag_at: float
    meta: dict[str, Any]
    # how far the likeliest candidate of a write must lead the next one the model also picked
    # (:func:`remnant.engine.forgetting.contradictions.one_model_supersession`); else all are flagged
    margin: float = 0.0
    # the model judges only this many of a write's candidates, the nearest in meaning (0: all)
    nearest: int = 0
    # the supersede threshold when a write has several candidates for the model (a user with many
    # facts: the nearest of many is less often the same attribute than a pair put side by side);
    # None: supersede_at
    crowd_at: float | None = None

    def probability(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        z = ((np.atleast_2d(np.asarray(x, dtype=np.float64)) - self.mean) / self.scale) @ self.weights
        return np.asarray(1.0 / (1.0 + np.exp(-(z + self.bias))), dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "features": list(self.features),
            "blocks": list(BLOCKS),
            "mean": logistic.rounded(self.mean),
            "scale": logistic.rounded(self.scale),
            "weights": logistic.rounded(self.weights),
            "bias": round(self.bias, 6),
            "supersede_at": self.supersede_at,
            "flag_at": self.flag_at,
            "margin": self.margin,
            "nearest": self.nearest,
            "crowd_at": self.crowd_at,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> PairWeights:
        features = tuple(str(f) for f in raw["features"])
        if features != FEATURES or tuple(raw.get("blocks", ())) != BLOCKS:
            raise ValueError("supersession weights were fitted on other features: refit them")
        return cls(
            str(raw["model_id"]),
            features,
            np.asarray(raw["mean"], dtype=np.float64),
            np.asarray(raw["scale"], dtype=np.float64),
            np.asarray(raw["weights"], dtype=np.float64),
            float(raw["bias"]),
            float(raw["supersede_at"]),
            float(raw["flag_at"]),
            dict(raw.get("meta", {})),
            float(raw.get("margin", 0.0)),
            int(raw.get("nearest", 0)),
            None if raw.get("crowd_at") is None else float(raw["crowd_at"]),
        )


def fit_logistic(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    l2: float = 1.0,
    sample_weight: npt.ArrayLike | None = None,
    iters: int = 500,
    tol: float = 1e-7,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """(mean, scale, weights, bias) of an L2-regularised logistic regression on standardised
    features, by L-BFGS (deterministic; with ~1,200 features a Newton step costs seconds, an L-BFGS
    step two matrix-vector products, so nested cross-validation stays affordable)."""
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    sw = np.ones(len(ya)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    mean = xa.mean(axis=0)
    scale = xa.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(xa - mean) / scale, np.ones((len(xa), 1))])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0  # the bias is not shrunk
    n = float(sw.sum())

    def cost(w: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        m = z @ w
        loss = float(sw @ (np.logaddexp(0.0, m) - ya * m)) / n + 0.5 * float(reg @ (w * w)) / n
        p = 0.5 * (1.0 + np.tanh(0.5 * m))  # the sigmoid, without overflow
        return loss, np.asarray(z.T @ (sw * (p - ya)) / n + reg * w / n, dtype=np.float64)

    w = np.zeros(z.shape[1])
    f, g = cost(w)
    s_hist: list[npt.NDArray[np.float64]] = []
    y_hist: list[npt.NDArray[np.float64]] = []
    for _ in range(iters):
        # the two-loop recursion: the direction from the last 10 steps' curvature
        q = g.copy()
        alphas = []
        for sv, yv in zip(reversed(s_hist), reversed(y_hist), strict=True):
            a = float(sv @ q) / float(yv @ sv)
            alphas.append(a)
            q -= a * yv
        if s_hist:
            q *= float(s_hist[-1] @ y_hist[-1]) / float(y_hist[-1] @ y_hist[-1])
        for (sv, yv), a in zip(zip(s_hist, y_hist, strict=True), reversed(alphas), strict=True):
            q += (a - float(yv @ q) / float(yv @ sv)) * sv
        d = -q
        slope = float(g @ d)
        if slope >= 0:  # not a descent direction: restart from the gradient
            s_hist.clear()
            y_hist.clear()
            d, slope = -g, -float(g @ g)
        step = 1.0
        while True:  # backtracking (Armijo)
            w_new = w + step * d
            f_new, g_new = cost(w_new)
            if f_new <= f + 1e-4 * step * slope or step < 1e-10:
                break
            step *= 0.5
        sv, yv = w_new - w, g_new - g
        if float(sv @ yv) > 1e-12:
            s_hist.append(sv)
            y_hist.append(yv)
            if len(s_hist) > 10:
                s_hist.pop(0)
                y_hist.pop(0)
        w, f, g = w_new, f_new, g_new
        if float(np.abs(g).max()) < tol:
            break
    return mean, scale, w[:-1], float(w[-1])


class PairJudge:
    """The pair model in the write path: embeds the two statements (the recall embedder when it
    has weights, else e5-small, loaded on first use), reads their attributes and decides."""

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        embedder_name: str = "e5-small",
        threads: int = 2,
        classifier: AttributeClassifier | None = None,
        weights: PairWeights | None = None,
    ):
        self._given = embedder
        self._name = embedder_name
        self._threads = threads
        self.classifier = classifier or AttributeClassifier(
            embedder, embedder_name=embedder_name, threads=threads
        )
        self._weights = weights
        self._resolved = weights is not None and embedder is not None
        self._pair: tuple[Embedder, PairWeights] | None = (
            (embedder, weights) if embedder is not None and weights is not None else None
        )
        self._lock = threading.Lock()
        self._vectors: dict[str, npt.NDArray[np.float64]] = {}
        # what recall read and scored, for the next recall (oldest dropped first)
        self._sides: OrderedDict[tuple[str, bytes], Side] = OrderedDict()
        self._probs: OrderedDict[tuple[tuple[str, bytes], tuple[str, bytes]], float] = OrderedDict()
        memo.on_forget(self)

    def _resolve(self) -> tuple[Embedder, PairWeights] | None:
        from remnant.embed.registry import get_embedder

        candidates: list[Embedder] = [self._given] if self._given is not None else []
        if not candidates or self._given is None or not weights_path(self._given.model_id).exists():
            try:
                candidates.append(get_embedder(self._name, threads=self._threads))
            except EmbeddingError as exc:
                log.info("supersession pair model off: %s", exc)
        for embedder in candidates:
            if self._weights is not None and self._weights.model_id == embedder.model_id:
                return embedder, self._weights
            path = weights_path(embedder.model_id)
            if path.exists():
                try:
                    return embedder, PairWeights.from_json(json.loads(path.read_text(encoding="utf-8")))
                except (ValueError, KeyError) as exc:  # stale weights: the rules decide alone
                    log.warning("supersession pair model off: %s (%s)", exc, path)
        return None

    def _load(self) -> tuple[Embedder, PairWeights] | None:
        with self._lock:
            if not self._resolved:
                self._resolved = True
                self._pair = self._resolve()
            return self._pair

    @property
    def weights(self) -> PairWeights | None:
        pair = self._load()
        return pair[1] if pair is not None else None

    @property
    def margin(self) -> float:
        """The weights' margin between a write's two likeliest candidates (0 without weights)."""
        w = self.weights
        return w.margin if w is not None else 0.0

    def nearest_of(self, new: str, olds: Sequence[str]) -> set[int] | None:
        """Which of ``olds`` the model may judge: the weights' ``nearest`` closest to ``new`` by
        cosine (``None``: all of them; no weights, no limit or too few to choose from)."""
        w = self.weights
        if w is None or w.nearest <= 0 or len(olds) <= w.nearest:
            return None
        vecs = self.vectors([new, *olds])
        if vecs is None:
            return None
        a = vecs[0] / max(float(np.linalg.norm(vecs[0])), 1e-12)
        m = np.vstack(vecs[1:])
        cos = (m @ a) / np.maximum(np.linalg.norm(m, axis=1), 1e-12)
        return {int(i) for i in np.argsort(-cos, kind="stable")[: w.nearest]}

    def vectors(self, texts: Sequence[str]) -> list[npt.NDArray[np.float64]] | None:
        """Document vectors of ``texts`` (by the embedder the weights are for; without weights, the
        given one: a training run)."""
        pair = self._load()
        embedder = pair[0] if pair is not None else self._given
        if embedder is None:
            return None
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            try:
                got = np.asarray(embedder.embed_documents(missing), dtype=np.float64)
            except EmbeddingError as exc:
                log.warning("supersession pair model skipped (%s)", exc)
                return None
            with self._lock:
                if len(self._vectors) > 4096:
                    self._vectors.clear()
                self._vectors.update(zip(missing, got, strict=True))
        with self._lock:
            return [self._vectors[t] for t in texts]

    def preload(self, texts: Sequence[str], vectors: npt.ArrayLike) -> None:
        """Vectors computed elsewhere for ``texts`` (a training run that embedded them once)."""
        arr = np.asarray(vectors, dtype=np.float64)
        with self._lock:
            self._vectors.update(zip(texts, arr, strict=True))

    def features(self, new: str, old: str) -> npt.NDArray[np.float64] | None:
        vecs = self.vectors([new, old])
        if vecs is None:
            return None
        centroids = self.classifier.centroids
        if centroids is None:
            return pair_features(new, old, vecs[0], vecs[1], None, None, None)
        # the attribute guesses from the same vectors (one embedding per statement, not two)
        guess_new, guess_old = centroids.classify(np.vstack(vecs))
        return pair_features(new, old, vecs[0], vecs[1], guess_new, guess_old, centroids.center)

    def probability(self, new: str, old: str) -> float | None:
        pair = self._load()
        x = self.features(new, old) if pair is not None else None
        if pair is None or x is None:
            return None
        return float(pair[1].probability(x)[0])

    def forget_texts(self, texts: Sequence[str]) -> None:
        """A purge: what was read and scored of these texts goes (a pair with either side)."""
        gone = set(texts)
        with self._lock:
            for t in gone:
                self._vectors.pop(t, None)
            for side in [k for k in self._sides if k[0] in gone]:
                del self._sides[side]
            for pair in [k for k in self._probs if k[0][0] in gone or k[1][0] in gone]:
                del self._probs[pair]

    def holds_texts(self, texts: Sequence[str]) -> bool:
        with self._lock:
            gone = set(texts)
            return (
                any(t in self._vectors for t in gone)
                or any(k[0] in gone for k in self._sides)
                or any(k[0][0] in gone or k[1][0] in gone for k in self._probs)
            )

    def clear_cache(self) -> None:
        """Forget the statements read and the pairs scored at recall (they are read again)."""
        with self._lock:
            self._sides.clear()
            self._probs.clear()

    def probabilities_of(
        self,
        texts: Sequence[str],
        vectors: Sequence[npt.ArrayLike],
        pairs: Sequence[tuple[int, int]],
        *,
        model_id: str | None,
    ) -> list[float] | None:
        """The model's probability for each ``(new, old)`` pair of indices into ``texts`` and
        ``vectors`` (a recall's hits and their stored vectors: nothing is embedded), that the new
        statement replaces the old one. Each statement is read once however many pairs it is in,
        the pairs are scored in one product, and what was read and scored is kept for the next
        recall (a user's hits recur), keyed by text and vector. ``None`` when the weights are for
        another model than ``model_id``'s, or there are none. The same statement again is 0."""
        pair = self._load()
        if pair is None or model_id is None or pair[1].model_id != model_id:
            return None
        weights = pair[1]
        needed = sorted({i for p in pairs for i in p})
        vecs = {i: np.asarray(vectors[i], dtype=np.float64) for i in needed}
        keys = {i: (texts[i], vecs[i].tobytes()) for i in needed}
        out: list[float | None] = []
        todo: list[int] = []
        with self._lock:
            for k, (n, o) in enumerate(pairs):
                got = 0.0 if tokens(texts[n]) == tokens(texts[o]) else self._probs.get((keys[n], keys[o]))
                out.append(got)
                if got is None:
                    todo.append(k)
            sides = {i: self._sides[keys[i]] for i in needed if keys[i] in self._sides}
        if todo:
            centroids = self.classifier.centroids
            centred = centroids is not None and centroids.center.shape == vecs[needed[0]].shape
            center = centroids.center if centred and centroids is not None else None
            unread = sorted({i for k in todo for i in pairs[k]} - sides.keys())
            if unread:
                guesses: list[Guess] = (
                    list(centroids.classify(np.vstack([vecs[i] for i in unread])))
                    if centred and centroids is not None
                    else [None] * len(unread)
                )
                sides.update(
                    {i: side(texts[i], vecs[i], g, center) for i, g in zip(unread, guesses, strict=True)}
                )
            rows = np.vstack(
                [pair_row(sides[pairs[k][0]], sides[pairs[k][1]], centred=centred) for k in todo]
            )
            scored = [0.0 if math.isnan(p) else float(p) for p in weights.probability(rows)]
            with self._lock:
                for k, p in zip(todo, scored, strict=True):
                    out[k] = p
                    self._probs[(keys[pairs[k][0]], keys[pairs[k][1]])] = p
                for i in unread:
                    self._sides[keys[i]] = sides[i]
                for cache in (self._probs, self._sides):
                    while len(cache) > _RECALL_CACHE:
                        cache.popitem(last=False)
        return [p if p is not None else 0.0 for p in out]

    def decide(self, new: str, old: str, *, crowded: bool = False) -> tuple[Action | None, str]:
        """Supersede, flag or nothing, with a reason naming the probability; ``crowded``: one of a
        write's several candidates (the weights' ``crowd_at`` threshold)."""
        if tokens(new) == tokens(old):  # the same words again say nothing new (an exact shape, not a guess)
            return None, "the same statement again"
        pair = self._load()
        p = self.probability(new, old) if pair is not None else None
        if pair is None or p is None or math.isnan(p):
            return None, "no pair model"
        w = pair[1]
        at = w.crowd_at if crowded and w.crowd_at is not None else w.supersede_at
        if p >= at:
            return "supersede", f"pair model p={p:.2f}"
        if p >= w.flag_at:
            return "flag", f"pair model unsure p={p:.2f}"
        return None, f"pair model p={p:.2f}"
