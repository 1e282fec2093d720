"""Per-deployment privacy configuration: which entity types are redacted and how."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from remnant.core.errors import ValidationError
from remnant.core.settings import read
from remnant.privacy.entities import ALL_ENTITIES, EntityType

DEFAULT_ENTITIES: frozenset[EntityType] = ALL_ENTITIES - {EntityType.PERSON}
"""What is redacted unless configured otherwise: everything but person names. A name is what a
memory is about ("Bob drinks espresso" is useless as "[NAME_1] drinks espresso"), and a name alone
reaches no one; contact details, documents, cards, accounts, addresses and IPs do. See
docs/privacy.md ("Person names") for the reasoning; ``REMNANT_REDACT_ENTITIES=all`` adds them."""


@dataclass(frozen=True)
class PrivacyPolicy:
    """What to redact.

    ``entities``: entity types to detect and replace (default: all).
    ``use_presidio``: ``"auto"`` uses Presidio/spaCy when installed (better English names),
    ``True`` requires it (raises if missing), ``False`` uses only the built-in recognizers.
    ``phone_regions``: regions whose national phone formats are accepted without a ``+`` prefix.
    ``min_score``: detections scoring below this are ignored.
    ``stable_placeholders``: ``False`` (default) numbers every write's values afresh, so the same
    card in two memories gets two placeholders and a key that can write and read cannot confirm a
    guessed value by comparing them; ``True`` reuses the user's placeholder for a value seen before
    (equal values stay recognisably equal across memories, at that cost).
    """

    entities: frozenset[EntityType] = DEFAULT_ENTITIES
    use_presidio: bool | str = "auto"
    phone_regions: tuple[str, ...] = ("US", "CN", "GB", "DE", "FR", "IN", "JP", "AU", "CA")
    min_score: float = 0.5
    stable_placeholders: bool = False

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
        """Deployment config: ``REMNANT_REDACT_ENTITIES`` (comma list or ``all``; default all but
        person names), ``REMNANT_REDACT_PRESIDIO`` (``auto`` | ``on`` | ``off``, default auto) and
        ``REMNANT_PLACEHOLDERS`` (``per-write``, the default, or ``stable``)."""
        raw = read("REMNANT_REDACT_ENTITIES", environ) or ""
        if raw.lower() == "all":
            entities = ALL_ENTITIES
        elif raw:
            entities = frozenset(EntityType.parse(t) for t in raw.split(",") if t.strip())
        else:
            entities = DEFAULT_ENTITIES
        numbering = str(read("REMNANT_PLACEHOLDERS", environ)).lower()
        if numbering not in ("per-write", "stable"):
            raise ValidationError(f"REMNANT_PLACEHOLDERS must be per-write or stable, not {numbering!r}")
        mode = str(read("REMNANT_REDACT_PRESIDIO", environ)).lower()
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
        return cls(entities=entities, use_presidio=presidio, stable_placeholders=numbering == "stable")

    def without(self, *entity_types: EntityType) -> PrivacyPolicy:
        """A copy that no longer redacts the given types."""
        return replace(self, entities=self.entities - frozenset(entity_types))
