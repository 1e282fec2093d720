"""``recall_context``: recall for a query and pack the best memories into a token budget.

This is what an assistant puts in its prompt: each memory quoted as data, with its current
strength and confidence so the model can hedge on weak or uncertain ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from remnant.retrieval.packing import PackCandidate, PackedContext, pack_context
from remnant.retrieval.tokens import TokenCounter

if TYPE_CHECKING:
    from remnant.core.model import MemoryRecord
    from remnant.engine.memory import Memory


def _when(r: MemoryRecord) -> str | None:
    at = r.occurred_at or r.valid_from or r.created_at  # when it happened, not when it was learned
    return at.date().isoformat() if at is not None else None


def recall_context(
    engine: Memory,
    query: str,
    *,
    user_id: str,
    budget_tokens: int = 1000,
    limit: int = 20,
    tokenizer: TokenCounter | None = None,
    touch: bool = True,
    **filters: Any,
) -> PackedContext:
    """Recall up to ``limit`` memories and keep the best ones that fit ``budget_tokens`` exactly.

    ``filters`` are :meth:`Memory.recall`'s keyword filters (kinds, tags, as_of, ...). Only the
    memories that made it into the context are reinforced when ``touch`` is set.
    """
    result = engine.recall(query, user_id=user_id, limit=limit, touch=False, hints=False, **filters)
    cands = [
        PackCandidate(
            id=h.memory.id,
            content=h.memory.content,
            strength=h.strength,
            confidence=h.memory.confidence,
            score=h.score,
            when=_when(h.memory),
            label=h.memory.metadata.get("speaker")
            if isinstance(h.memory.metadata.get("speaker"), str)
            else None,
        )
        for h in result.hits
    ]
    packed = pack_context(cands, budget_tokens, tokenizer)
    if touch and packed.items:
        engine.used([c.id for c in packed.items])  # what goes into the prompt is what gets used
    return packed
