"""LLM-based fact extraction: schema-constrained JSON, validated, grounded, with a rule fallback.

The model is asked for ``{"facts": [...]}`` under a JSON schema (enforced by the backend where it
can, and always re-validated here). Output that is not valid JSON for the schema raises
`LLMOutputError` inside and is never stored; items whose value does not appear, whole, in the turn
(hallucinations, common with small models), whose value is a bare answer ("No"), or whose key names
a number the turn does not contain (``order_5631``) are dropped. What is kept carries
:data:`LLM_CONFIDENCE`, below every rule's and the user's own. When the model is unreachable or its
output is unusable, the rule-based extractor runs instead, so the memory write still happens.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from remnant.core.text import fold, has_cjk, tokens
from remnant.core.text.stopwords import STOPWORDS
from remnant.extract.keys import normalise_key
from remnant.extract.model import FACT_KINDS, ExtractedFact
from remnant.extract.rules import RuleExtractor
from remnant.llm.base import LLM, LLMError, Message
from remnant.llm.structured import complete_json

FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": 4,
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": list(FACT_KINDS)},
                    "key": {"type": "string", "minLength": 1},
                    "value": {"type": "string", "minLength": 1},
                },
                "required": ["kind", "key", "value"],
            },
        }
    },
    "required": ["facts"],
}
"""Deliberately small: small models cannot calibrate confidence or importance, and every field
costs generation time, so those come from the kind (see `_to_fact`)."""

SYSTEM_PROMPT = (
    "Extract facts the user states about themselves as JSON. kind is preference (likes, dislikes, "
    "preferred options), fact (name, city, phone_number, email, address...) or open_issue (unresolved "
    "problems, reminders). key is snake_case. value is copied from the message. No facts: empty list."
)

FEW_SHOT: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "I moved to Berlin and my favourite colour is green.",
        {
            "facts": [
                {"kind": "fact", "key": "city", "value": "Berlin"},
                {"kind": "preference", "key": "preferred_color", "value": "green"},
            ]
        },
    ),
    ("我的订单5531还没到", {"facts": [{"kind": "open_issue", "key": "order_5531", "value": "还没到"}]}),
    ("What is the warranty period?", {"facts": []}),
)

LLM_CONFIDENCE = 0.5
"""How much an LLM-extracted fact is trusted: below every rule-extracted fact (the weakest rule, a
generic "my X is Y", is 0.55) and below what the user states through ``remember`` (1.0), so a
model's reading never outranks what the user said or what a rule matched."""
# How much an LLM-extracted fact weighs, by kind: a little under the rules' (s0 0.7-0.8, not 1.0).
_IMPORTANCE = {"preference": 0.4, "fact": 0.4, "open_issue": 0.6}
_OPEN_ISSUE_TTL = timedelta(days=30)


def build_messages(text: str) -> list[Message]:
    """System instruction, few-shot turns as chat pairs (small models follow those best), the turn."""
    messages: list[Message] = [{"role": "system", "content": SYSTEM_PROMPT}]
    for user, answer in FEW_SHOT:
        messages.append({"role": "user", "content": user})
        messages.append({"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)})
    messages.append({"role": "user", "content": text})
    return messages


def kind_for_key(key: str, proposed: str) -> str:
    """Keys that follow Remnant's conventions fix the kind; otherwise keep the model's choice."""
    if key.startswith(("preferred_", "likes_", "preference_")):
        return "preference"
    if key.startswith(("order_", "reminder_")):
        return "open_issue"
    if key in (
        "city",
        "name",
        "email",
        "phone_number",
        "address",
        "shipping_address",
        "birthday",
        "occupation",
    ):
        return "fact"
    return proposed


@dataclass(frozen=True, slots=True)
class Extraction:
    """What an extractor produced for a turn, which path produced it, and why a fallback happened."""

    facts: list[ExtractedFact]
    source: str
    error: str | None = None
    dropped: list[dict[str, Any]] = field(default_factory=list)


# Values a model emits for "nothing" or a bare answer: never a fact on their own.
_NOT_A_VALUE = frozenset(
    json.loads((Path(__file__).resolve().parent / "data" / "llm.en.json").read_text(encoding="utf-8"))[
        "non_values"
    ]
)
_DIGITS = re.compile(r"\d+")


def _compact(text: str) -> str:
    """Folded letters, digits and CJK only: ``138 1234 5678`` and ``138-1234-5678`` are one number."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def grounded(value: str, text: str) -> bool:
    """True when all of ``value`` occurs in ``text`` after normalisation (NFKC, case, punctuation):
    its words, in order, as a run of the text's words (CJK as character bigrams); a number or a CJK
    value may differ only in separators. A value that is only stop words or a bare answer ("No",
    "none", "yes") is never grounded: a model that copies a reply word has found no fact."""
    words = tokens(value)
    if not words or all(w in STOPWORDS for w in words) or fold(value).strip() in _NOT_A_VALUE:
        return False
    if _contains(tokens(text), words):
        return True
    compact = _compact(value)
    if compact.isdigit() or has_cjk(compact):
        return len(compact) >= (1 if has_cjk(compact) else 2) and compact in _compact(text)
    return False


def key_grounded(key: str, text: str) -> bool:
    """Numbers in a key (``order_5631``) must be numbers of the turn: a model copying its few-shot
    example's order id into an unrelated turn invents an order."""
    said = set(_DIGITS.findall(_compact(text)))
    return all(d in said or any(d in s for s in said) for d in _DIGITS.findall(key))


def _to_fact(item: dict[str, Any], text: str) -> ExtractedFact | None:
    value = str(item["value"]).strip()
    if not grounded(value, text):
        return None
    try:
        key = normalise_key(str(item["key"]))
    except ValueError:
        return None
    if not key_grounded(key, text):
        return None
    kind = kind_for_key(key, str(item["kind"]))
    return ExtractedFact(
        kind=kind,  # type: ignore[arg-type]  # kind_for_key only returns FACT_KINDS members
        key=key,
        value=value,
        content=f"{key.replace('_', ' ')}: {value}",
        confidence=LLM_CONFIDENCE,
        importance=_IMPORTANCE[kind],
        expires_in=_OPEN_ISSUE_TTL if kind == "open_issue" else None,
        source="llm",
        evidence=text,
    )


class LLMExtractor:
    """Extract facts with a model; fall back to `fallback` (rules) when the model fails.

    With `merge_rules=True` (default) the rule extractor also runs and its facts win on shared
    keys: rules are precise on the patterns they know, the model adds what they miss.
    """

    name = "llm"

    def __init__(
        self,
        llm: LLM | None,
        *,
        fallback: RuleExtractor | None = None,
        merge_rules: bool = True,
        max_tokens: int = 200,
    ) -> None:
        self.llm = llm
        self.fallback = fallback or RuleExtractor()
        self.merge_rules = merge_rules
        self.max_tokens = max_tokens

    def run(self, text: str, *, role: str = "user") -> Extraction:
        """Extract from one turn and report which path was taken (``llm``, ``llm+rules``, ``rules``)."""
        if role != "user" or not text.strip():
            return Extraction([], "none")
        rule_facts = self.fallback.extract(text, role=role)
        if self.llm is None:
            return Extraction(rule_facts, "rules", "no LLM configured")
        try:
            data, _ = complete_json(self.llm, build_messages(text), FACTS_SCHEMA, max_tokens=self.max_tokens)
        except LLMError as exc:
            return Extraction(rule_facts, "rules", f"{type(exc).__name__}: {exc}")
        facts: list[ExtractedFact] = []
        dropped: list[dict[str, Any]] = []
        for item in data["facts"]:
            fact = _to_fact(item, text)
            (facts.append(fact) if fact else dropped.append(item))
        if not self.merge_rules:
            return Extraction(facts, "llm", dropped=dropped)
        merged = {f.key: f for f in facts}
        merged.update({f.key: f for f in rule_facts})
        return Extraction(list(merged.values()), "llm+rules", dropped=dropped)

    def extract(self, text: str, *, role: str = "user") -> list[ExtractedFact]:
        return self.run(text, role=role).facts
