"""The ingestor the product installs (:func:`remnant.config.build_memory`): salience, facts and an
expiry said in words, for each conversation message, offline.

- **Salience** sets the episode's importance, so filler fades in days and what matters is
  consolidated into a fact before it fades. With an embedder that has trained weights
  (:mod:`remnant.extract.salience_model`: logistic regression over the turn's vector and the rule
  score), the model decides; otherwise the rule cues (:mod:`remnant.extract.salience`) do.
- **Facts**: the rule extractor's (:mod:`remnant.extract.rules`), or an LLM extractor's when one is
  configured (its values must be grounded in the text; rules win on shared keys).
- **Expiry in words**: "this code is valid for ten minutes", "expires in 2 hours", "good for the next
  48h", 十分钟内有效, 两小时后过期 set the episode's TTL (and its facts').
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from datetime import timedelta
from typing import Protocol

from remnant.core.text.numerals import ZH_DIGITS
from remnant.embed.base import Embedder, EmbeddingError
from remnant.embed.registry import get_embedder
from remnant.engine.options import Draft, Message, Observation
from remnant.extract.model import ExtractedFact
from remnant.extract.rules import RuleExtractor
from remnant.extract.salience import salience
from remnant.extract.salience_model import SalienceModel, load_model

log = logging.getLogger(__name__)

_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60, "ninety": 90,
}  # fmt: skip
_EN_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
    "w": 604800, "wk": 604800, "week": 604800, "weeks": 604800,
}  # fmt: skip
_EN_NUM = r"(\d+(?:\.\d+)?|" + "|".join(sorted(map(re.escape, _EN_NUMBERS), key=len, reverse=True)) + r")"
_EN_UNIT = r"(" + "|".join(sorted(_EN_UNITS, key=len, reverse=True)) + r")\b"
# "valid for 10 minutes", "expires in two hours", "good for the next 48h", "only works for a day"
_EN_TTL = re.compile(
    r"\b(?:valid|good|works?|working|active|usable|expires?|expiring|lasts?|live|alive)"
    r"(?:\s+(?:only|just))?\s+(?:for|in|within|after)\s+(?:the\s+next\s+|another\s+|only\s+|just\s+)?"
    + _EN_NUM
    + r"\s*-?\s*"
    + _EN_UNIT,
    re.I,
)
_EN_HALF_HOUR = re.compile(
    r"\b(?:valid|good|works?|expires?|expiring|lasts?)\s+(?:for|in|within)\s+(?:the\s+next\s+)?half an hour\b",
    re.I,
)

_ZH_DIGITS = ZH_DIGITS
_ZH_UNITS = {"秒": 1, "秒钟": 1, "分": 60, "分钟": 60, "小时": 3600, "个小时": 3600, "钟头": 3600,
             "个钟头": 3600, "天": 86400, "日": 86400, "周": 604800, "星期": 604800, "个星期": 604800}  # fmt: skip
_ZH_NUM = r"(\d+|[零一二两三四五六七八九十百]+|半)"
_ZH_UNIT = r"(" + "|".join(sorted(_ZH_UNITS, key=len, reverse=True)) + r")"
# 十分钟内有效, 两小时后过期, 有效期三天, 半小时内失效
_ZH_TTL = re.compile(_ZH_NUM + _ZH_UNIT + r"(?:之?内|以内)?(?:有效|过期|失效|作废)")
_ZH_TTL_AFTER = re.compile(_ZH_NUM + _ZH_UNIT + r"(?:之?后|以后)(?:过期|失效|作废)")
_ZH_PERIOD = re.compile(r"有效期(?:为|是|只有)?" + _ZH_NUM + _ZH_UNIT)


def _zh_number(text: str) -> float | None:
    if text.isdigit():
        return float(text)
    if text == "半":
        return 0.5
    total, current = 0, 0
    for ch in text:
        if ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
        elif ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        else:
            return None
    return float(total + current)


def expiry_in_words(text: str) -> timedelta | None:
    """The validity period a message states ("valid for ten minutes" → 10 min), or ``None``.

    Only a period attached to a validity word counts: "I waited ten minutes" sets nothing.
    """
    m = _EN_TTL.search(text)
    if m:
        raw = m.group(1).lower()
        n = float(raw) if raw[0].isdigit() else float(_EN_NUMBERS[raw])
        return timedelta(seconds=n * _EN_UNITS[m.group(2).lower()])
    if _EN_HALF_HOUR.search(text):
        return timedelta(minutes=30)
    for pattern in (_ZH_TTL, _ZH_TTL_AFTER, _ZH_PERIOD):
        z = pattern.search(text)
        if z:
            count = _zh_number(z.group(1))
            if count is not None and count > 0:
                return timedelta(seconds=count * _ZH_UNITS[z.group(2)])
    return None


class FactExtractor(Protocol):
    def extract(self, text: str, *, role: str = "user") -> list[ExtractedFact]: ...


class RuleIngestor:
    """Salience + rule (or LLM) facts + expiry in words (see the module docstring).

    Salience uses the trained model (:mod:`remnant.extract.salience_model`) over the vector of the
    first embedder that has shipped weights: ``embedder`` (the product ``Memory`` passes the retriever's,
    whose cache then serves the same vector to recall's index), else the first of
    ``salience_embedders`` that is installed, loaded on first use (so salience does not depend on
    whether recall is lexical). No such embedder, or ``salience_embedders=()`` with no ``embedder``:
    the rule cues decide."""

    def __init__(
        self,
        extractor: FactExtractor | None = None,
        *,
        embedder: Embedder | None = None,
        salience_embedders: Sequence[str] = (),
        threads: int = 2,
    ) -> None:
        self.extractor: FactExtractor = extractor or RuleExtractor()
        self._given = embedder
        self._names = tuple(salience_embedders)
        self._threads = threads
        self._resolved = False
        self._model: tuple[Embedder, SalienceModel] | None = None
        self._lock = threading.Lock()

    @property
    def model(self) -> SalienceModel | None:
        """The salience model in use, or ``None`` when the rules decide (resolves on first use)."""
        pair = self._salience_model()
        return pair[1] if pair is not None else None

    def _salience_model(self) -> tuple[Embedder, SalienceModel] | None:
        with self._lock:
            if not self._resolved:
                self._resolved = True
                self._model = self._resolve()
            return self._model

    def _resolve(self) -> tuple[Embedder, SalienceModel] | None:
        if self._given is not None:
            model = load_model(self._given.model_id)
            if model is not None:
                return self._given, model
        for name in self._names:
            try:
                embedder = get_embedder(name, threads=self._threads)
            except EmbeddingError as exc:  # not installed: try the next one, then the rules
                log.info("salience embedder %r unavailable (%s)", name, exc)
                continue
            model = load_model(embedder.model_id)
            if model is not None:
                return embedder, model
        return None

    def _importance(self, message: Message) -> tuple[float, tuple[str, ...]]:
        sal = salience(message.content, role=message.role)
        # the model was trained on user turns; an assistant turn keeps the rules' lower score
        if message.role != "user" or not message.content.strip():
            return sal.score, sal.cues
        pair = self._salience_model()
        if pair is None:
            return sal.score, sal.cues
        embedder, model = pair
        try:
            vector = embedder.embed_documents([message.content])[0]
        except EmbeddingError as exc:
            log.warning("salience model skipped, embedding failed (%s): rule salience used", exc)
            return sal.score, (*sal.cues, "model_unavailable")
        return model.importance(vector, sal.score), (*sal.cues, "model")

    def observe(self, message: Message, *, recent: Sequence[str] = ()) -> Observation:
        score, cues = self._importance(message)
        ttl = expiry_in_words(message.content)
        facts = self.extractor.extract(message.content, role=message.role)
        drafts = [
            Draft(
                f.content,
                {
                    "kind": f.kind,
                    "key": f.key,
                    "importance": f.importance,
                    "confidence": f.confidence,
                    "source": f"extract:{f.source}",
                    # no bare value in metadata: only content passes the redactor
                    "ttl": ttl if ttl is not None else f.expires_in,
                },
            )
            for f in facts
        ]
        reasons = cues + (("expiry_in_words",) if ttl is not None else ())
        # a turn that yielded a fact carried something: never score it as filler
        importance = max(score, 0.5) if facts else score
        return Observation(importance=round(importance, 4), facts=drafts, ttl=ttl, reasons=reasons)
