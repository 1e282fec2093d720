"""Detection: run every recognizer on normalized text, resolve overlaps, map back to the original."""

from __future__ import annotations

import bisect
from typing import Any

from remnant.privacy.entities import PRIORITY, Detection, EntityType
from remnant.privacy.freetext import find_freetext
from remnant.privacy.normalize import normalize
from remnant.privacy.numbers import NumberRecognizer
from remnant.privacy.patterns import find_structured
from remnant.privacy.policy import PrivacyPolicy
from remnant.privacy.presidio_backend import find_presidio, get_engine

# Entity types only the Presidio backend adds (skip the spaCy pass when none is wanted).
_PRESIDIO_TYPES = (EntityType.PERSON,)


class Detector:
    """Finds personal data in text according to a ``PrivacyPolicy``.

    Stateless apart from the shared Presidio engine; safe to reuse across threads.
    """

    def __init__(self, policy: PrivacyPolicy | None = None) -> None:
        self.policy = policy or PrivacyPolicy()
        self._numbers = NumberRecognizer(self.policy.entities, self.policy.phone_regions)
        self._wants_presidio = self.policy.use_presidio is not False and any(
            t in self.policy.entities for t in _PRESIDIO_TYPES
        )
        self._engine: Any = None
        self._engine_resolved = not self._wants_presidio

    def _presidio(self) -> Any:
        """The shared engine, loaded on first use (spaCy takes seconds; scans of numbers need none)."""
        if not self._engine_resolved:
            self._engine = get_engine(required=self.policy.use_presidio is True)
            self._engine_resolved = True
        return self._engine

    @property
    def uses_presidio(self) -> bool:
        """Whether Presidio/spaCy runs (loads it if it was not loaded yet)."""
        return self._presidio() is not None

    def detect(self, text: str) -> list[Detection]:
        """Non-overlapping detections, sorted by start, with offsets into the original ``text``."""
        if not text:
            return []
        norm = normalize(text)
        found = list(self._numbers.find(norm.text))
        found += find_structured(norm.text, self.policy.entities)
        found += find_freetext(norm.text, self.policy.entities)
        engine = self._presidio()
        if engine is not None:
            found += find_presidio(norm.text, engine, self.policy.min_score)
        found = [
            d for d in found if d.entity_type in self.policy.entities and d.score >= self.policy.min_score
        ]
        chosen = _resolve(found)
        out: list[Detection] = []
        for d in chosen:
            start, end = norm.to_original(d.start, d.end)
            out.append(Detection(d.entity_type, start, end, text[start:end], d.score, d.source))
        return out


def _resolve(found: list[Detection]) -> list[Detection]:
    """Greedy overlap resolution: higher-priority type first, then longer span, then earlier."""
    ranked = sorted(found, key=lambda d: (PRIORITY[d.entity_type], -d.length, d.start))
    # the spans taken are disjoint, so kept in order of start one neighbour on each side decides
    # an overlap (a scan of every span taken was quadratic in the detections of a long text)
    starts: list[int] = []
    taken: list[Detection] = []
    for d in ranked:
        if d.length <= 0:
            continue
        at = bisect.bisect_right(starts, d.start)
        if at > 0 and taken[at - 1].end > d.start:
            continue
        if at < len(taken) and taken[at].start < d.end:
            continue
        starts.insert(at, d.start)
        taken.insert(at, d)
    return taken
