"""The memory-aware customer-service assistant: knowledge with validity windows, customer memory,
prompts within a token budget, memory updated from every exchange."""

from remnant.assistant.assistant import Assistant, Reply, offline_answer
from remnant.assistant.context import SYSTEM_PROMPT, Context, StaleGuard, build_context, messages_tokens
from remnant.assistant.knowledge import KB_USER, KnowledgeBase, KnowledgeDoc, KnowledgeHit, load_documents

__all__ = [
    "KB_USER",
    "SYSTEM_PROMPT",
    "Assistant",
    "Context",
    "KnowledgeBase",
    "KnowledgeDoc",
    "KnowledgeHit",
    "Reply",
    "StaleGuard",
    "build_context",
    "load_documents",
    "messages_tokens",
    "offline_answer",
]
