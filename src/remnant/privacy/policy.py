"""Per-deployment privacy configuration: which entity types are redacted and how."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from remnant.core.errors import ValidationError
from remnant.privacy.entities import ALL_ENTITIES, EntityType


@dataclass(frozen=True)
class PrivacyPolicy:
    """What to redact.

    ``entities``: entity types to detect and replace (default: all).
    ``use_presidio``: ``"auto"`` uses Presidio/spaCy when installed (better English names),
    ``True`` requires it (raises if missing), ``False`` uses only the built-in recognizers.
    ``phone_regions``: regions whose national phone formats are accepted without a ``+`` prefix.
    ``min_score``: detections scoring below this are ignored.
    """

    entities: frozenset[EntityType] = ALL_ENTITIES
    use_presidio: bool | str = "auto"
    phone_regions: tuple[str, ...] = ("US", "CN", "GB", "DE", "FR", "IN", "JP", "AU", "CA")
    min_score: float = 0.5

    def __post_init__(self) -> None:
        if self.use_presidio not in (True, False, "auto"):
            raise ValidationError("use_presidio must be True, False or 'auto'")
        if not 0.0 <= self.min_score <= 1.0:
            raise ValidationError("min_score must be within [0, 1]")

    @classmethod
    def only(cls, entity_types: Iterable[EntityType | str], **kwargs: object) -> PrivacyPolicy:
        """A policy redacting just the given types (names or labels accepted)."""
        types = frozenset(t if isinstance(t, EntityType) else EntityType.parse(t) for t in entity_types)
        return cls(entities=types, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> PrivacyPolicy:
        """Deployment config: ``REMNANT_REDACT_ENTITIES`` (comma list, default all) and
        ``REMNANT_REDACT_PRESIDIO`` (``auto`` | ``on`` | ``off``, default auto)."""
        env = os.environ if environ is None else environ
        raw = env.get("REMNANT_REDACT_ENTITIES", "").strip()
        entities = (
            frozenset(EntityType.parse(t) for t in raw.split(",") if t.strip()) if raw else ALL_ENTITIES
        )
        mode = env.get("REMNANT_REDACT_PRESIDIO", "auto").strip().lower()
        presidio: bool | str = {
            "on": True,
            "true": True,
            "1": True,
            "off": False,
            "false": False,
            "0": False,
        }.get(mode, "auto")
        if mode not in ("auto", "", "on", "true", "1", "off", "false", "0"):
            raise ValidationError(f"REMNANT_REDACT_PRESIDIO must be auto, on or off, not {mode!r}")
        return cls(entities=entities, use_presidio=presidio)

    def without(self, *entity_types: EntityType) -> PrivacyPolicy:
        """A copy that no longer redacts the given types."""
        return PrivacyPolicy(
            entities=self.entities - frozenset(entity_types),
            use_presidio=self.use_presidio,
            phone_regions=self.phone_regions,
            min_score=self.min_score,
        )
