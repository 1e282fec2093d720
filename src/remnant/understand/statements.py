"""The statement pair reader: do two statements share a subject, and does one change the other's
value, number or polarity? (The word detector of the contradiction policy.)

Rule-based (word and CJK-character sequences, a value/number diff) and offline; a
:class:`ContradictionJudge` (an LLM) may give a second opinion. The engine's
:class:`~remnant.engine.forgetting.contradictions.ContradictionPolicy` decides what a verdict does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal, Protocol, runtime_checkable

from remnant.core.memo import text_cache
from remnant.core.text import CJK_CLASS, STOPWORDS, is_cjk
from remnant.understand import lexicon

Label = Literal["contradiction", "compatible", "unrelated"]
LABELS: tuple[Label, ...] = ("contradiction", "compatible", "unrelated")

_TOKEN = re.compile(rf"\d+(?:[.,]\d+)*|[{CJK_CLASS}]|[^\W\d_]+", re.UNICODE)
# the words are data (``data/<lang>/statements.json``), every language's merged: a word token is
# never a single CJK character, so one language's list never reaches another's script
_NEG = frozenset(lexicon.words("statements", "negations"))
# predicates that hold many values at once: a new value adds, it does not replace
_MULTI = frozenset(lexicon.words("statements", "many_valued"))
# words that make a predicate single-valued again ("my favourite", "only", "最")
_SINGLE = frozenset(lexicon.words("statements", "single_valued"))
_ADDITIVE = frozenset(lexicon.words("statements", "additive"))
# contraction pieces and particles only: pronouns and 是/在 stay, they carry the frame of a short
# Chinese statement
_EXTRA_STOP = frozenset(lexicon.words("statements", "stopwords"))
_SPELLING: dict[str, str] = {str(k): str(v) for k, v in lexicon.mapping("statements", "spellings").items()}


def _stem(word: str) -> str:
    word = _SPELLING.get(word, word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-1] if word.endswith("ved") else word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Tok:
    kind: Literal["w", "c", "n", "neg"]  # word, CJK character, number, negation
    value: str


def tokens(text: str) -> list[Tok]:
    """Content tokens of a statement: stemmed words, CJK characters, numbers, negations; no stopwords."""
    return list(_tokens(text))


@text_cache(maxsize=8192)  # each write compares with candidates that recur write after write
def _tokens(text: str) -> tuple[Tok, ...]:
    norm = unicodedata.normalize("NFKC", text).lower().replace("n't", " not").replace("’", "'")
    out: list[Tok] = []
    for raw in _TOKEN.findall(norm):
        if raw[0].isdigit():
            out.append(Tok("n", raw.replace(",", "")))
        elif len(raw) == 1 and is_cjk(raw):
            if raw in _NEG:
                out.append(Tok("neg", "neg"))
            elif raw not in _EXTRA_STOP:
                out.append(Tok("c", raw))
        elif raw in _NEG:
            out.append(Tok("neg", "neg"))
        elif raw not in STOPWORDS and raw not in _EXTRA_STOP:
            out.append(Tok("w", _stem(raw)))
    return tuple(out)


@dataclass(frozen=True)
class PairVerdict:
    """How two statements relate; ``similarity`` is the subject overlap in [0, 1]."""

    label: Label
    similarity: float
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"label": self.label, "similarity": round(self.similarity, 4), "reason": self.reason}


@runtime_checkable
class ContradictionJudge(Protocol):
    """An optional second opinion (e.g. an LLM) on a pair that shares a subject.

    Return ``"contradiction"``, ``"compatible"`` or ``"unrelated"``, or ``None`` to leave the
    decision to the rules. It is never called for pairs with no shared subject.
    """

    def judge(self, new: str, old: str) -> str | None: ...


@dataclass(frozen=True)
class ContradictionDetector:
    """The rule set. ``min_overlap``: share of the smaller statement's content words the other must have.

    ``max_value_tokens``: how long a replaced span may be and still count as one changed value
    (a CJK character counts half a word). ``similarity``: an optional embedding similarity
    ``(a, b) -> [0, 1]``; a pair passes the subject gate when either similarity is high enough.
    """

    min_overlap: float = 0.5
    max_value_tokens: float = 3.0
    judge: ContradictionJudge | None = None
    similarity: Callable[[str, str], float] | None = None
    min_similarity: float = 0.8

    def compare(self, new: str, old: str) -> PairVerdict:
        ta, tb = tokens(new), tokens(old)
        ca = {t.value for t in ta if t.kind in ("w", "c")}
        cb = {t.value for t in tb if t.kind in ("w", "c")}
        shared = ca & cb
        overlap = len(shared) / min(len(ca), len(cb)) if ca and cb else 0.0
        if self.similarity is not None and (not shared or overlap < self.min_overlap):
            sim = float(self.similarity(new, old))
            if sim >= self.min_similarity:
                overlap = max(overlap, sim)
        if not shared or overlap < self.min_overlap:
            return PairVerdict("unrelated", overlap, "little shared subject")
        if self.judge is not None:
            said = self.judge.judge(new, old)
            if said in LABELS:
                return PairVerdict(said, overlap, "judge")  # type: ignore[arg-type]
        return _rules(ta, tb, shared, overlap, self.max_value_tokens)


def _cost(seg: Sequence[Tok]) -> float:
    return sum(0.5 if t.kind == "c" else 1.0 for t in seg if t.kind != "neg")


def _rules(ta: list[Tok], tb: list[Tok], shared: set[str], overlap: float, max_value: float) -> PairVerdict:
    neg_a = sum(t.kind == "neg" for t in ta)
    neg_b = sum(t.kind == "neg" for t in tb)
    words = {t.value for t in ta + tb if t.kind in ("w", "c")}
    additive = bool(words & _ADDITIVE)
    multi = bool(shared & _MULTI) and not (words & _SINGLE)
    sa = [t for t in ta if t.kind != "neg"]
    sb = [t for t in tb if t.kind != "neg"]
    # matched as (kind, value) tuples, equal exactly when the tokens are: a tuple hashes in C, a
    # frozen dataclass in Python (the matcher hashes every token many times; 4x the pair's cost)
    ops = SequenceMatcher(
        None, [(t.kind, t.value) for t in sa], [(t.kind, t.value) for t in sb], autojunk=False
    ).get_opcodes()
    numeric = False
    value_spans = 0
    big_change = 0.0
    for tag, i1, i2, j1, j2 in ops:
        if tag != "replace":
            continue
        seg_a, seg_b = sa[i1:i2], sb[j1:j2]
        if any(t.kind == "n" for t in seg_a) and any(t.kind == "n" for t in seg_b):
            numeric = True
        elif _cost(seg_a) <= max_value and _cost(seg_b) <= max_value:
            value_spans += 1
        else:
            big_change += max(_cost(seg_a), _cost(seg_b))
    # one changed slot is a changed value; two or more changed spans say something else
    value = value_spans == 1
    nums_a = sorted(t.value for t in sa if t.kind == "n")
    nums_b = sorted(t.value for t in sb if t.kind == "n")
    if not numeric and nums_a and nums_b and len(nums_a) == len(nums_b) and nums_a != nums_b:
        numeric = True  # same count of numbers, different values, in a reordered sentence
    if (neg_a % 2) != (neg_b % 2) and not big_change:
        return PairVerdict("contradiction", overlap, "opposite polarity")
    if numeric:
        return PairVerdict("contradiction", overlap, "different number")
    if value and not additive and not multi and not big_change:
        return PairVerdict("contradiction", overlap, "different value")
    if additive or multi:
        return PairVerdict("compatible", overlap, "adds a value to a many-valued subject")
    return PairVerdict("compatible", overlap, "same subject, no conflicting value")
