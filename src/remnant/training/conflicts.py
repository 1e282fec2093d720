"""Finding conflicts: the same entity and attribute stated with different (normalised) values.

This is the seed's "conflict detection" step (section 3.1, strategy two): before a dataset
goes to fine-tuning, every place where the 2022, 2023 and 2024 manuals disagree is surfaced.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from remnant.training.claims import Claim
from remnant.training.normalize import normalize_key


@dataclass(frozen=True)
class Conflict:
    """All claims about one (entity, attribute) when they hold more than one distinct value."""

    entity_key: str
    attribute_key: str
    claims: tuple[Claim, ...]

    @property
    def values(self) -> dict[tuple[str, str], list[Claim]]:
        """Claims grouped by normalised value."""
        groups: dict[tuple[str, str], list[Claim]] = defaultdict(list)
        for claim in self.claims:
            groups[claim.normalized.key].append(claim)
        return dict(groups)

    @property
    def entity(self) -> str:
        return self.claims[-1].entity

    @property
    def attribute(self) -> str:
        return self.claims[-1].attribute

    def to_dict(self) -> dict[str, object]:
        return {
            "entity": self.entity,
            "attribute": self.attribute,
            "distinct_values": len(self.values),
            "claims": [c.to_dict() for c in self.claims],
        }


class AttributeAliases:
    """Maps attribute spellings (e.g. "最大并发数", "max concurrent connections") onto one key."""

    def __init__(self, aliases: Mapping[str, Iterable[str]] | None = None) -> None:
        self._map: dict[str, str] = {}
        for canonical, names in (aliases or {}).items():
            key = normalize_key(canonical)
            self._map[key] = key
            for name in names:
                self._map[normalize_key(name)] = key

    def __call__(self, attribute: str) -> str:
        key = normalize_key(attribute)
        return self._map.get(key, key)


def group_claims(
    claims: Iterable[Claim], aliases: AttributeAliases | None = None
) -> dict[tuple[str, str], list[Claim]]:
    """Claims grouped by normalised (entity, attribute), each group sorted oldest first."""
    canon = aliases or AttributeAliases()
    groups: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for claim in claims:
        groups[(claim.entity_key, canon(claim.attribute))].append(claim)
    for members in groups.values():
        members.sort(key=lambda c: (c.date, c.claim_id))
    return dict(groups)


def find_conflicts(claims: Iterable[Claim], aliases: AttributeAliases | None = None) -> list[Conflict]:
    """Every (entity, attribute) whose claims disagree after normalisation, in key order."""
    out = []
    for (entity_key, attribute_key), members in sorted(group_claims(claims, aliases).items()):
        if len({c.normalized.key for c in members}) > 1:
            out.append(Conflict(entity_key, attribute_key, tuple(members)))
    return out
