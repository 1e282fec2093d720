"""Structured conversation summaries (the seed's five-field template), LLM-based or extractive."""

from remnant.summarize.entities import Survival, entities_of_turns, entity_survival, extract_entities
from remnant.summarize.extractive import ExtractiveSummarizer
from remnant.summarize.llm import LLMSummarizer, SummaryRun
from remnant.summarize.template import SUMMARY_SCHEMA, StructuredSummary

__all__ = [
    "SUMMARY_SCHEMA",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "StructuredSummary",
    "SummaryRun",
    "Survival",
    "entities_of_turns",
    "entity_survival",
    "extract_entities",
]
