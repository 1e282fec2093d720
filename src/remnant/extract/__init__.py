"""Fact extraction: turn a conversation turn into typed candidate memories with normalised keys."""

from remnant.extract.keys import normalise_key, slug
from remnant.extract.model import FACT_KINDS, ExtractedFact, FactKind
from remnant.extract.rules import RuleExtractor

__all__ = ["FACT_KINDS", "ExtractedFact", "FactKind", "RuleExtractor", "normalise_key", "slug"]
