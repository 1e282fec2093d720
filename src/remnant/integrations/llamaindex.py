"""Remnant as a LlamaIndex memory block: :class:`RemnantMemoryBlock` for ``llama_index.core.memory``.

Put it in ``Memory.from_defaults(memory_blocks=[RemnantMemoryBlock(memory=mem, user_id="ana")])``.
LlamaIndex keeps recent turns in its short-term buffer and hands the older ones to its blocks as
the buffer flushes; this block then

- **stores** them (``_aput``) through :meth:`remnant.Memory.add`, the conversation ingest path:
  each message an episode that decays unless it is used, plus keyed facts ("I moved to Porto"
  supersedes "I live in Lisbon"). When the Memory's ingestor extracts nothing (the engine's own
  ``PlainIngestor``), the block extracts facts itself with Remnant's offline rules;
- **honours forget requests**: a user message such as "please forget my phone number" is passed to
  :meth:`remnant.Memory.forget` (what matches is forgotten and audited: personal data is purged,
  and a turn that holds it among other things keeps the rest) and is not stored;
- **recalls** (``_aget``) what is still remembered for the latest user message and renders it as
  text within ``token_limit`` tokens, most relevant first, reporting the rendered memories to
  :meth:`remnant.Memory.used` (what goes into the prompt is what gets reinforced); when
  LlamaIndex's ``Memory`` must cut tokens, :meth:`atruncate` drops the least relevant lines first
  (``priority`` 1 by default, so the block may be truncated; 0 would mean never).

See ``docs/integrations/llamaindex.md``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from remnant.core.errors import ConfirmationRequired
from remnant.core.extras import needs
from remnant.core.model import Kind, MemoryRecord
from remnant.engine.memory import Memory
from remnant.engine.options import PlainIngestor, WriteItem
from remnant.engine.results import AddResult, Hit
from remnant.extract import RuleExtractor

with needs("the LlamaIndex adapter", "llamaindex"):
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.bridge.pydantic import Field
    from llama_index.core.memory import BaseMemoryBlock
    from llama_index.core.utils import get_tokenizer

__all__ = ["RemnantMemoryBlock", "is_forget_request"]

log = logging.getLogger("remnant.integrations.llamaindex")

_ROLES = {
    MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant",
    MessageRole.CHATBOT: "assistant",
    MessageRole.MODEL: "assistant",
    MessageRole.SYSTEM: "system",
    MessageRole.DEVELOPER: "system",
    MessageRole.TOOL: "tool",
    MessageRole.FUNCTION: "tool",
}
_DATA = Path(__file__).resolve().parent / "data"
# each language's patterns of a request to forget (data/<lang>/llamaindex.json), matched from the start
_FORGET = tuple(
    re.compile(pattern, re.IGNORECASE | re.DOTALL)
    for folder in sorted(p for p in _DATA.iterdir() if p.is_dir())
    if (folder / "llamaindex.json").exists()
    for pattern in json.loads((folder / "llamaindex.json").read_text(encoding="utf-8"))["forget_openers"]
)


def is_forget_request(text: str) -> bool:
    """Whether a user message asks to forget something about them ("please forget my address",
    "delete what I told you about my job", "请忘记我的电话")."""
    return any(p.match(text) for p in _FORGET)


def _text(message: ChatMessage) -> str:
    return (message.content or "").strip()


def _line(hit: Hit) -> str:
    record = hit.memory
    text = " ".join(record.content.split())
    if record.kind == Kind.EPISODE:
        role = record.metadata.get("role", "user")
        when = record.created_at.date().isoformat() if record.created_at else ""
        return f"- [{when}] {role} said: {text}"
    return f"- {text}"


class RemnantMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory from Remnant, as a LlamaIndex memory block (see the module docstring).

    ``memory``: an open :class:`remnant.Memory` (``remnant.config.build_memory(db)`` for the full
    product). ``user_id`` / ``agent_id``: whose memories these are. ``session_scoped``: recall only
    the current LlamaIndex session's memories (default: everything the user said in any session).
    ``limit``: the most memories recalled per turn; ``kinds``: only these kinds (``fact``,
    ``preference``, ``episode``, ...). ``token_limit``: the rendered block's budget, counted with
    ``tokenizer_fn`` (LlamaIndex's tokenizer by default). ``infer``: passed to ``Memory.add``.
    ``extract_facts``: run Remnant's rule extractor on user messages (default: only when the
    Memory's ingestor is the plain one, which extracts nothing).
    """

    name: str = Field(default="remnant_memory", description="The name of the memory block.")
    description: str | None = Field(
        default="What is remembered about the user from earlier conversations, most relevant first."
    )
    priority: int = Field(default=1, description="Truncation priority (0 = never truncate).")
    memory: Memory = Field(exclude=True, description="The Remnant Memory behind the block.")
    user_id: str
    agent_id: str | None = None
    session_scoped: bool = False
    limit: int = Field(default=8, ge=1, le=1000)
    kinds: list[str] | None = None
    token_limit: int = Field(default=512, ge=1)
    tokenizer_fn: Callable[[str], list[Any]] = Field(default_factory=get_tokenizer, exclude=True)
    infer: bool = True
    extract_facts: bool | None = None
    honour_forget_requests: bool = True

    # -- recall ------------------------------------------------------------------------------------
    async def _aget(
        self, messages: list[ChatMessage] | None = None, session_id: str | None = None, **block_kwargs: Any
    ) -> str:
        query = next((_text(m) for m in reversed(messages or []) if m.role == MessageRole.USER), "")
        if not query or (self.honour_forget_requests and is_forget_request(query)):
            return ""
        return await asyncio.to_thread(self.context, query, session_id)

    def context(self, query: str, session_id: str | None = None) -> str:
        """What ``_aget`` puts into the prompt for ``query``: the recalled memories that fit in
        ``token_limit``, rendered, and reported to :meth:`remnant.Memory.used` (the ``use``
        reinforcement), the way :func:`remnant.retrieval.context.recall_context` does. The recall
        itself does not touch, so a memory in the prompt is reinforced once, as used."""
        shown = self.fit(self.recall(query, session_id, touch=False))
        if shown:
            self.memory.used([h.memory.id for h in shown])
        return "\n".join(_line(h) for h in shown)

    def recall(self, query: str, session_id: str | None = None, *, touch: bool = True) -> list[Hit]:
        """The memories recalled for ``query``. With ``touch``, :meth:`remnant.Memory.recall`'s weak
        reinforcement applies to the hits that clear its relevance bar (they share more than half of
        the query's content words); what is then used should be reported with ``Memory.used``."""
        found = self.memory.recall(
            query,
            user_id=self.user_id,
            limit=self.limit,
            agent_id=self.agent_id,
            session_id=session_id if self.session_scoped else None,
            kinds=self.kinds,
            touch=touch,
        )
        return found.hits

    def fit(self, hits: Sequence[Hit]) -> list[Hit]:
        """The leading hits whose rendered lines fit in ``token_limit`` tokens together."""
        shown: list[Hit] = []
        used = 0
        for hit in hits:
            cost = len(self.tokenizer_fn(_line(hit) + "\n"))
            if used + cost > self.token_limit:
                break
            shown.append(hit)
            used += cost
        return shown

    def render(self, hits: Sequence[Hit]) -> str:
        """One line per memory, most relevant first, as many as fit in ``token_limit`` tokens."""
        return "\n".join(_line(h) for h in self.fit(hits))

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop the least relevant lines (the last ones) until ``tokens_to_truncate`` are saved."""
        lines = content.splitlines()
        while lines and tokens_to_truncate > 0:
            tokens_to_truncate -= len(self.tokenizer_fn(lines.pop() + "\n"))
        return "\n".join(lines) if lines else None

    # -- ingest ------------------------------------------------------------------------------------
    async def _aput(self, messages: list[ChatMessage]) -> None:
        await asyncio.to_thread(self.ingest, messages)

    def ingest(self, messages: Sequence[ChatMessage]) -> list[AddResult]:
        """Store messages (grouped by their LlamaIndex session) and honour forget requests."""
        results: list[AddResult] = []
        batch: list[dict[str, str]] = []
        session: str | None = None

        def flush() -> None:
            if batch:
                results.append(self.store(batch, session))
                batch.clear()

        for message in messages:
            text = _text(message)
            role = _ROLES.get(message.role, "user")
            if not text or role in ("system", "tool"):
                continue
            sid = message.additional_kwargs.get("session_id")
            sid = sid if isinstance(sid, str) and sid.strip() else None
            if sid != session:
                flush()
                session = sid
            if role == "user" and self.honour_forget_requests and is_forget_request(text):
                flush()  # what came before the request is stored first, so the request can reach it
                self.forget(text)
                continue
            batch.append({"role": role, "content": text})
        flush()
        return results

    def store(self, messages: list[dict[str, str]], session_id: str | None) -> AddResult:
        added = self.memory.add(
            messages, user_id=self.user_id, session_id=session_id, agent_id=self.agent_id, infer=self.infer
        )
        extract = (
            self.extract_facts
            if self.extract_facts is not None
            else isinstance(self.memory.ingestor, PlainIngestor)
        )
        if extract:
            added.facts.extend(self.extract(messages, added.episodes, session_id))
        return added

    def extract(
        self, messages: list[dict[str, str]], episodes: Sequence[MemoryRecord], session_id: str | None
    ) -> list[MemoryRecord]:
        """Keyed facts from the user's messages (Remnant's offline rules): a newer value supersedes."""
        extractor = RuleExtractor()
        items: list[WriteItem] = []
        for message, episode in zip(messages, episodes, strict=False):
            for fact in extractor.extract(message["content"], role=message["role"]):
                items.append(
                    {
                        "content": fact.content,
                        "user_id": self.user_id,
                        "kind": fact.kind,
                        "key": fact.key,
                        "importance": fact.importance,
                        "confidence": fact.confidence,
                        "source": f"extract:{fact.source}",
                        "agent_id": self.agent_id,
                        "session_id": session_id,
                        "ttl": fact.expires_in,
                        "metadata": {
                            "from_episode": episode.id,
                            "value": self.memory.redact(fact.value, self.user_id),
                        },
                    }
                )
        return self.memory.remember_many(items) if items else []

    # -- forgetting --------------------------------------------------------------------------------
    def forget(self, request: str) -> list[str]:
        """Forget what a request in words names ("my phone number"): the ids of the memories
        forgotten (purged, or hidden when the request allows it) and then of those rewritten with
        only the matching part removed. A request that would take too much of the user's memory
        needs confirmation, so it is logged and skipped here (use :meth:`remnant.Memory.forget`
        with ``confirm=True``)."""
        try:
            result = self.memory.forget(request, user_id=self.user_id)
        except ConfirmationRequired as exc:
            log.warning("forget request not applied (needs confirmation): %s", exc)
            return []
        return [*result.forgotten, *result.rewritten]

    async def aforget(self, request: str) -> list[str]:
        return await asyncio.to_thread(self.forget, request)
