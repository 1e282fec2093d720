"""LLM providers behind one small interface (`LLM.complete`), structured output and prompt helpers.

Nothing in Remnant requires a model; these providers are used by the optional LLM extractor,
summariser and assistant, which all fall back to rule-based paths when `LLMUnavailable` is raised.
"""

from remnant.llm.base import (
    LLM,
    Completion,
    JsonSchema,
    LLMError,
    LLMOutputError,
    LLMRequestError,
    LLMUnavailable,
    Message,
    is_demo,
)
from remnant.llm.factory import llm_from_config, register_provider
from remnant.llm.local import LocalLLM, default_model_path
from remnant.llm.openai_compat import OpenAICompatibleLLM
from remnant.llm.prompt import DATA_RULE, DataItem, quote_block
from remnant.llm.structured import complete_json, parse_json, validate
from remnant.llm.tokens import count_tokens, truncate_to_tokens

__all__ = [
    "DATA_RULE",
    "LLM",
    "Completion",
    "DataItem",
    "JsonSchema",
    "LLMError",
    "LLMOutputError",
    "LLMRequestError",
    "LLMUnavailable",
    "LocalLLM",
    "Message",
    "OpenAICompatibleLLM",
    "complete_json",
    "count_tokens",
    "default_model_path",
    "is_demo",
    "llm_from_config",
    "parse_json",
    "quote_block",
    "register_provider",
    "truncate_to_tokens",
    "validate",
]
