"""Claims as training text, so resolved datasets can go into the pool with their status.

``remnant conflicts resolve -o marked.jsonl`` writes every claim with a ``status``; turning
those rows into pool examples keeps superseded statements in the pool (for audit and
history) but flags them, so the pool's ``superseded_factor`` (0 by default) keeps them out of
training draws.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remnant.core.text import has_han
from remnant.training.claims import Claim, claim_from_dict
from remnant.training.example import TrainingExample
from remnant.training.jsonl import LineProblem, LoadReport, load_jsonl


def claim_statement(claim: Claim) -> str:
    """ "The max concurrency of Atlas DB is 15." (or "Atlas DB的最大并发数是15。" for Chinese)."""
    if has_han(claim.attribute) or has_han(claim.entity):  # Chinese: the Chinese template
        return f"{claim.entity}的{claim.attribute}是{claim.value}。"
    return f"The {claim.attribute} of {claim.entity} is {claim.value}."


def example_from_claim(claim: Claim, status: str | None = None) -> TrainingExample:
    """A pool example stating the claim, dated and sourced like it; superseded if its status says so."""
    return TrainingExample(
        created_at=claim.date,
        source=claim.source,
        text=claim_statement(claim),
        authority=claim.authority,
        example_id=claim.claim_id,
        superseded=status == "superseded",
        meta={"entity": claim.entity, "attribute": claim.attribute, "value": claim.value, "status": status},
    )


def load_claim_examples(path: str | Path | list[str], **defaults: Any) -> LoadReport[TrainingExample]:
    """Read claims JSONL (plain or marked with ``status``) as pool examples; bad lines reported."""

    def parse(obj: dict[str, Any], line: int, notes: list[LineProblem]) -> TrainingExample:
        claim = claim_from_dict(obj, line, notes, **defaults)
        status = obj.get("status")
        return example_from_claim(claim, status if isinstance(status, str) else None)

    return load_jsonl(path, parse)
