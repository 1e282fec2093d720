"""The structured summary template from the design seed.

核心诉求 core request · 已确认事实 confirmed facts · 待决事项 pending items · 用户偏好 preferences ·
关键实体 key entities (order numbers, dates, amounts, specs kept verbatim). A summary replaces the
turns it covers in the assistant's context, so it must keep what the conversation established.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from remnant.summarize.lexicon import languages, table, words

# each language's section labels (data/<lang>/summary.json), in the template's order
LABELS = {lang: words("labels", lang) for lang in languages()}

SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "core_request": {"type": "string", "maxLength": 200},
        "confirmed_facts": {"type": "array", "maxItems": 6, "items": {"type": "string", "maxLength": 120}},
        "pending_items": {"type": "array", "maxItems": 6, "items": {"type": "string", "maxLength": 120}},
        "preferences": {"type": "array", "maxItems": 6, "items": {"type": "string", "maxLength": 120}},
        "key_entities": {"type": "array", "maxItems": 12, "items": {"type": "string", "maxLength": 40}},
    },
    "required": ["core_request", "confirmed_facts", "pending_items", "preferences", "key_entities"],
}


@dataclass(slots=True)
class StructuredSummary:
    """A conversation compressed into the seed's five fields. `turns` is how many turns it covers."""

    core_request: str
    confirmed_facts: list[str] = field(default_factory=list)
    pending_items: list[str] = field(default_factory=list)
    preferences: list[str] = field(default_factory=list)
    key_entities: list[str] = field(default_factory=list)
    turns: int = 0
    source: str = "extractive"

    @classmethod
    def from_json(cls, data: dict[str, Any], *, turns: int = 0, source: str = "llm") -> StructuredSummary:
        """Build from validated `SUMMARY_SCHEMA` data, dropping blank strings."""

        def clean(items: list[Any]) -> list[str]:
            return [str(i).strip() for i in items if str(i).strip()]

        return cls(
            core_request=str(data["core_request"]).strip(),
            confirmed_facts=clean(data["confirmed_facts"]),
            pending_items=clean(data["pending_items"]),
            preferences=clean(data["preferences"]),
            key_entities=clean(data["key_entities"]),
            turns=turns,
            source=source,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "core_request": self.core_request,
            "confirmed_facts": list(self.confirmed_facts),
            "pending_items": list(self.pending_items),
            "preferences": list(self.preferences),
            "key_entities": list(self.key_entities),
        }

    def render(self, lang: str = "en") -> str:
        """Plain-text rendering with bracketed section labels, as stored in memory and prompts."""
        labels = LABELS.get(lang, LABELS["en"])
        none = str(table(lang if lang in LABELS else "en").get("none", "none"))
        sections = [
            (labels[0], [self.core_request] if self.core_request else []),
            (labels[1], self.confirmed_facts),
            (labels[2], self.pending_items),
            (labels[3], self.preferences),
            (labels[4], self.key_entities),
        ]
        lines: list[str] = []
        for label, items in sections:
            if label == labels[4]:
                lines.append(f"[{label}] " + (", ".join(items) if items else none))
            elif len(items) <= 1:
                lines.append(f"[{label}] " + (items[0] if items else none))
            else:
                lines.append(f"[{label}]")
                lines.extend(f"- {item}" for item in items)
        return "\n".join(lines)
