"""The memory-aware customer-service assistant (the seed's flow, end to end).

For each customer message: extract facts and write them (keyed, so newer values supersede older
ones; rules take over when the model is unreachable), keep the turn as an episode, retrieve valid
knowledge and the customer's memories (open issues and preferences first), build a prompt within a
token budget with remembered content quoted as data, get the model's answer, review the memories
the answer used, and every N turns compress the conversation into a structured summary that
replaces those turns in the context. Faded memories are reported so the answer can ask again.
Without a model (or when it fails) a deterministic offline answer is composed from the same context.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from remnant.assistant.context import Context, build_context, key_mentioned, messages_tokens
from remnant.assistant.knowledge import KnowledgeBase
from remnant.core.errors import ConfirmationRequired
from remnant.core.model import Kind, MemoryRecord
from remnant.core.text import HAN_CLASS
from remnant.engine.forgetting.requests import forget_in_text
from remnant.engine.memory import Memory
from remnant.engine.results import ForgetResult
from remnant.extract.llm import Extraction, LLMExtractor
from remnant.extract.model import ExtractedFact
from remnant.llm.base import LLM, LLMError, Message, is_demo
from remnant.summarize.extractive import ExtractiveSummarizer
from remnant.summarize.llm import LLMSummarizer
from remnant.summarize.template import StructuredSummary
from remnant.understand.requests import is_forget_request


class Summarizer(Protocol):
    def summarize(self, turns: list[Message]) -> StructuredSummary: ...


@dataclass
class Reply:
    """The answer to one message and everything that happened around it."""

    text: str
    context: Context
    extracted: list[ExtractedFact]
    extraction_source: str
    written: list[MemoryRecord]
    reviewed: list[str]
    answer_source: str  # "llm", or "offline" (no model, or the model failed)
    error: str | None = None
    summary: MemoryRecord | None = None
    forgot: ForgetResult | None = None  # the message was a forget request: what it did

    @property
    def prompt_tokens(self) -> int:
        return self.context.tokens


@dataclass
class _Session:
    turns: list[Message] = field(default_factory=list)  # the whole conversation (for baselines)
    since_summary: list[Message] = field(default_factory=list)  # turns the latest summary does not cover
    since_times: list[datetime] = field(default_factory=list)  # when each of those turns happened
    summary: MemoryRecord | None = None
    # facts extracted from each turn of since_summary ((key, value) pairs; None for the reply),
    # so a newer value can drop the turns that still say the old one
    since_facts: list[list[tuple[str, str]]] = field(default_factory=list)
    pending_forget: str | None = None  # a request waiting for the user's confirmation


_DATA = Path(__file__).resolve().parent / "data"


@cache
def _words(lang: str) -> dict[str, Any]:
    """``data/<lang>/assistant.json``: the assistant's words in one language, read once."""
    return dict(json.loads((_DATA / lang / "assistant.json").read_text(encoding="utf-8")))


# a reply that confirms a pending forget request ("yes", "go ahead", 好的)
_YES = re.compile(r"^\s*(" + "|".join(_words("en")["yes_words"] + _words("zh")["yes_words"]) + r")\b", re.I)
_CJK = re.compile(f"[{HAN_CLASS}]")  # Chinese: picks lang="zh"


class Assistant:
    """A customer-service assistant whose memory forgets like people do.

    `memory` holds customers' memories and the knowledge base; `llm` may be None (offline answers).
    `summary_every` turns (user+assistant pairs) trigger a structured summary; `token_budget`
    bounds each prompt; `recent_turns` caps the verbatim turns kept besides the summary, and only
    turns younger than `recent_max_age` are replayed verbatim. `llm_extraction` says whether the
    model also extracts facts: by default it does unless it is only a demo (the bundled SmolLM2-135M,
    :func:`remnant.llm.is_demo`), which invents facts the rules would not; ``False`` keeps the rules
    alone, ``True`` uses even a demo model. A new process resumes from the latest summary.
    """

    def __init__(
        self,
        memory: Memory,
        llm: LLM | None = None,
        *,
        kb: KnowledgeBase | None = None,
        summarizer: Summarizer | None = None,
        summary_every: int = 10,
        token_budget: int = 1000,
        recent_turns: int = 4,
        knowledge_k: int = 2,
        max_answer_tokens: int = 200,
        store_turns: bool = True,
        stale_guard: bool = True,
        recent_max_age: timedelta = timedelta(hours=12),
        llm_extraction: bool | None = None,
    ) -> None:
        if summary_every < 1:
            raise ValueError("summary_every must be >= 1")
        if token_budget < 200:
            raise ValueError("token_budget must be at least 200 tokens")
        self.memory = memory
        self.llm = llm
        self.kb = kb or KnowledgeBase(memory)
        # With a tiny model the rules alone extract better (docs/benchmarks/assistant.md)
        if llm_extraction is None:
            llm_extraction = llm is not None and not is_demo(llm)
        self.extractor = LLMExtractor(llm if llm_extraction else None)
        self.summarizer: Summarizer = summarizer or (LLMSummarizer(llm) if llm else ExtractiveSummarizer())
        self.summary_every = summary_every
        self.token_budget = token_budget
        self.recent_turns = recent_turns
        self.knowledge_k = knowledge_k
        self.max_answer_tokens = max_answer_tokens
        self.store_turns = store_turns
        self.stale_guard = stale_guard
        self.recent_max_age = recent_max_age  # a conversation resumed weeks later does not replay old turns
        self._sessions: dict[str, _Session] = {}

    def session_turns(self, user_id: str) -> list[Message]:
        """The full conversation with this user in this process (what a no-memory app would resend)."""
        return list(self._sessions.get(user_id, _Session()).turns)

    def full_history_tokens(self, user_id: str, message: str) -> int:
        """Tokens of the naive alternative: system prompt + the whole conversation + the message."""
        from remnant.assistant.context import SYSTEM_PROMPT

        history = self.session_turns(user_id)
        messages: list[Message] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            *history,
            {"role": "user", "content": message},
        ]
        return messages_tokens(messages)

    def _session(self, user_id: str) -> _Session:
        """This process's view of the conversation; a new one resumes from the latest stored summary."""
        if user_id not in self._sessions:
            latest = self.memory.list_memories(user_id, statuses=["active"], kinds=[Kind.SUMMARY], limit=1)
            self._sessions[user_id] = _Session(summary=latest[0] if latest else None)
        return self._sessions[user_id]

    # -- the turn --------------------------------------------------------------------------------
    def remember_facts(
        self, user_id: str, facts: list[ExtractedFact], *, session_id: str | None = None
    ) -> list[MemoryRecord]:
        """Write extracted facts as keyed memories: same key supersedes (a move replaces the city).

        A model's fact never replaces a more trusted one: when the key's current value came from
        the user or a rule (higher confidence), the LLM's reading of the turn is not written."""
        written = []
        for fact in facts:
            if fact.source == "llm":
                current = self.memory.current(fact.key, user_id=user_id)
                if current is not None and current.confidence > fact.confidence:
                    continue
            written.append(
                self.memory.remember(
                    fact.content,
                    user_id=user_id,
                    kind=fact.kind,
                    key=fact.key,
                    importance=fact.importance,
                    confidence=fact.confidence,
                    source=f"extract:{fact.source}",
                    session_id=session_id,
                    ttl=fact.expires_in,
                    # The bare value is kept for staleness checks; it passes the same redactor as content.
                    metadata={"value": self.memory.redact(fact.value, user_id)},
                )
            )
        return written

    def reply(self, user_id: str, message: str, *, session_id: str | None = None) -> Reply:
        """Answer one customer message and update memory from the exchange."""
        if not message.strip():
            raise ValueError("message must not be empty")
        session = self._session(user_id)
        if session.pending_forget is not None:
            pending, session.pending_forget = session.pending_forget, None
            if _YES.search(message):
                return self._forget(user_id, session, pending, confirm=True)
        if is_forget_request(message):
            return self._forget(user_id, session, message)
        extraction: Extraction = self.extractor.run(message)
        written = self.remember_facts(user_id, extraction.facts, session_id=session_id)
        self._drop_superseded(session, extraction.facts)
        if self.store_turns:
            self.memory.remember(
                message,
                user_id=user_id,
                kind=Kind.EPISODE,
                importance=0.2,
                source="chat",
                session_id=session_id,
                metadata={"role": "user"},
            )
        hits = self.kb.search(message, limit=self.knowledge_k)
        knowledge = [h.content for h in hits]
        now = self.memory.now()
        fresh = [
            m
            for m, at in zip(session.since_summary, session.since_times, strict=True)
            if now - at <= self.recent_max_age
        ]
        recent = fresh[-self.recent_turns :] if self.recent_turns else []
        context = build_context(
            self.memory,
            user_id,
            message,
            recent=recent,
            summary=session.summary,
            knowledge=knowledge,
            budget=self.token_budget,
            kb_user=self.kb.user_id,
            stale_guard=self.stale_guard,
        )
        answer_source, error = "offline", None
        text = ""
        if self.llm is not None:
            try:
                text = self.llm.complete(
                    context.messages, max_tokens=self.max_answer_tokens, temperature=0.2
                ).text.strip()
                answer_source = "llm"
            except LLMError as exc:
                error = f"{type(exc).__name__}: {exc}"
        if not text:
            text = offline_answer(message, context, extraction.facts)
            answer_source = "offline"
        reviewed = self._review_used(context, text)
        if self.store_turns:
            self.memory.remember(
                text,
                user_id=user_id,
                kind=Kind.EPISODE,
                importance=0.1,
                source="chat",
                session_id=session_id,
                # Which document versions this answer drew on: once they expire, the turn is stale.
                metadata={
                    "role": "assistant",
                    "knowledge": [
                        f"kb:{h.doc_id}@{h.version}" for h in hits if h.content in context.knowledge
                    ],
                },
            )
        pair: list[Message] = [{"role": "user", "content": message}, {"role": "assistant", "content": text}]
        session.turns.extend(pair)
        session.since_summary.extend(pair)
        session.since_times.extend([now, now])
        session.since_facts.extend([[(f.key, f.value) for f in extraction.facts if f.key], []])
        summary_record = None
        if len(session.since_summary) >= 2 * self.summary_every:
            summary_record = self._summarise(user_id, session, session_id)
        return Reply(
            text=text,
            context=context,
            extracted=extraction.facts,
            extraction_source=extraction.source,
            written=written,
            reviewed=reviewed,
            answer_source=answer_source,
            error=error
            or (
                extraction.error if self.extractor.llm is not None and extraction.source == "rules" else None
            ),
            summary=summary_record,
        )

    # -- forgetting --------------------------------------------------------------------------------
    def _forget(self, user_id: str, session: _Session, message: str, *, confirm: bool = False) -> Reply:
        """Carry out a forget request from the chat and confirm it; the request itself is not stored
        (it may hold the very value to forget), and what it forgot leaves this process's turns too."""
        zh = bool(_CJK.search(message))
        result: ForgetResult | None = None
        try:
            result = self.memory.forget(message, user_id=user_id, confirm=confirm, actor=f"user:{user_id}")
        except ConfirmationRequired as exc:
            session.pending_forget = message
            text = (
                f"这会删除您 {exc.total} 条记忆中的 {exc.matched} 条。确定吗？回复“确认”继续。"
                if zh
                else f"That would forget {exc.matched} of your {exc.total} memories. Are you sure? "
                "Reply 'yes' to go ahead."
            )
        else:
            n = len(result.forgotten) + len(result.rewritten)
            if result.intent.empty:
                text = (
                    "我没听明白要忘记什么，能具体说一下吗？"
                    if zh
                    else "I couldn't tell what to forget; could you name it?"
                )
            elif n == 0:
                text = (
                    "我这里没有相关的记忆，没有删除任何内容。"
                    if zh
                    else "I had nothing on file for that; nothing was forgotten."
                )
            else:
                what = _what(result, zh)
                parts = f"（其中 {len(result.rewritten)} 条只删除了相关部分）" if zh else ""
                if result.rewritten and not zh:
                    parts = f" ({len(result.rewritten)} only in part: the rest of those turns stays)"
                text = (
                    f"好的，已忘记{what}：共 {n} 条记忆{parts}。"
                    if zh
                    else f"Done: I've forgotten {what}, {n} {'memory' if n == 1 else 'memories'}{parts}."
                )
            self._forget_in_session(session, result)
        context = Context(messages=[], tokens=0, used=[], knowledge=[], faded=[])
        return Reply(
            text=text,
            context=context,
            extracted=[],
            extraction_source="none",
            written=[],
            reviewed=[],
            answer_source="forget",
            forgot=result,
        )

    def _forget_in_session(self, session: _Session, result: ForgetResult) -> None:
        """Drop (or redact) what the request forgot from the in-process turns and the summary."""
        intent = result.intent
        ledger = self.memory.ledger

        def keep(turns: list[Message], times: list[datetime] | None) -> list[str | None]:
            out: list[str | None] = []
            for i, turn in enumerate(turns):
                at = times[i] if times is not None and i < len(times) else None
                out.append(forget_in_text(ledger, intent, turn["content"], said_at=at))
            return out

        new = keep(session.since_summary, session.since_times)
        gone = {i for i, v in enumerate(new) if v is None}
        gone |= {i + 1 for i in gone if i % 2 == 0}  # the answer to a forgotten message goes with it
        since: list[Message] = []
        times: list[datetime] = []
        facts: list[list[tuple[str, str]]] = []
        for i, turn in enumerate(session.since_summary):
            if i in gone:
                continue
            since.append({"role": turn["role"], "content": str(new[i])})
            times.append(session.since_times[i])
            facts.append(session.since_facts[i] if i < len(session.since_facts) else [])
        session.since_summary, session.since_times, session.since_facts = since, times, facts
        full = keep(session.turns, None)
        session.turns = [
            {"role": t["role"], "content": str(v)}
            for t, v in zip(session.turns, full, strict=True)
            if v is not None
        ]
        if session.summary is not None and session.summary.id in set(result.forgotten) | set(
            result.rewritten
        ):
            latest = self.memory.list_memories(
                session.summary.user_id, statuses=["active"], kinds=[Kind.SUMMARY], limit=1
            )
            session.summary = latest[0] if latest else None

    def _drop_superseded(self, session: _Session, facts: list[ExtractedFact]) -> None:
        """A newer value replaces the old one: earlier turns that said the old value leave the
        recent turns (they would put it back in front of the model)."""
        new = {f.key: f.value for f in facts if f.key}
        if not new:
            return
        drop: set[int] = set()
        for i, said in enumerate(session.since_facts):
            if any(k in new and v.lower() != new[k].lower() for k, v in said):
                drop.update((i, i + 1))
        if not drop:
            return
        keep = [i for i in range(len(session.since_summary)) if i not in drop]
        session.since_summary = [session.since_summary[i] for i in keep]
        session.since_times = [session.since_times[i] for i in keep]
        session.since_facts = [session.since_facts[i] for i in keep if i < len(session.since_facts)]

    def _review_used(self, context: Context, answer: str) -> list[str]:
        """Review (spaced repetition) the memories whose value the answer actually used."""
        reviewed = []
        lowered = answer.lower()
        for record in context.used:
            if record.kind not in (Kind.FACT, Kind.PREFERENCE, Kind.OPEN_ISSUE):
                continue
            value = str(record.metadata.get("value", ""))
            if len(value) >= 2 and value.lower() not in ("yes", "no") and value.lower() in lowered:
                self.memory.review(record.id)
                reviewed.append(record.id)
        return reviewed

    def _summarise(self, user_id: str, session: _Session, session_id: str | None) -> MemoryRecord:
        """Compress the turns since the last summary; the summary replaces them in the context."""
        turns = list(session.since_summary)
        summary = self.summarizer.summarize(turns)
        lang = "zh" if sum(bool(_CJK.search(t["content"])) for t in turns) > len(turns) / 2 else "en"
        record = self.memory.remember(
            summary.render(lang),
            user_id=user_id,
            kind=Kind.SUMMARY,
            importance=0.6,
            source=f"summary:{summary.source}",
            session_id=session_id,
            metadata={"turns": summary.turns, "entities": summary.key_entities},
        )
        session.summary = record
        session.since_summary = []
        session.since_times = []
        session.since_facts = []
        return record


_ZH_KEY_NAMES: dict[str, str] = dict(_words("zh")["key_names"])
_SAID_WHEN: dict[str, str] = dict(_words("en")["said_when"])


def _what(result: ForgetResult, zh: bool) -> str:
    """What a forget request named, in words, for the confirmation."""
    intent = result.intent
    names = [t.replace("_", " ") for t in intent.topics] + list(intent.scopes)
    names += [k.value.replace("_", " ") + "s" for k in intent.kinds]
    if intent.when:
        names.append(_SAID_WHEN.get(intent.when, "what you said then"))
    if intent.everything:
        names = ["everything"]
    if zh:
        return (
            "您要求的内容"
            if not names
            else "、".join(_ZH_KEY_NAMES.get(n.replace(" ", "_"), n) for n in names)
        )
    if not names:
        return "what you asked"
    return ("your " if not intent.when and not intent.everything else "") + ", ".join(names)


def offline_answer(message: str, context: Context, facts: list[ExtractedFact]) -> str:
    """A deterministic answer from the context when no model is available: honest and grounded."""
    zh = bool(_CJK.search(message))
    parts: list[str] = []
    if facts:
        noted = "; ".join(f.content for f in facts)
        parts.append(f"已记录：{noted}。" if zh else f"Noted: {noted}.")
    if context.faded:
        names = {(h.key or h.kind) for h in context.faded}
        if zh:
            keys = "、".join(sorted(_ZH_KEY_NAMES.get(k, k.replace("_", " ")) for k in names))
        else:
            keys = ", ".join(sorted(k.replace("_", " ") for k in names))
        parts.append(
            f"关于您的{keys}，我已经记不太清了，能再告诉我一次吗？"
            if zh
            else f"I'm not sure any more about your {keys}; could you tell me again?"
        )
    on_file = [
        r.content for r in context.used if r.key and r.kind != Kind.SUMMARY and key_mentioned(r.key, message)
    ]
    if on_file and not facts:
        parts.append(
            f"我们记录的是：{'；'.join(on_file[:2])}。" if zh else f"On file: {'; '.join(on_file[:2])}."
        )
    if context.knowledge and not facts:
        parts.append(
            f"根据当前有效的资料：{context.knowledge[0]}"
            if zh
            else f"According to our current documentation: {context.knowledge[0]}"
        )
    issues = [r.content for r in context.used if r.kind == Kind.OPEN_ISSUE]
    if issues and not facts and not on_file:
        parts.append(f"您还有未解决的问题：{issues[0]}" if zh else f"Your open issue: {issues[0]}")
    if not parts:
        parts.append("请问还有什么可以帮您？" if zh else "How else can I help?")
    return " ".join(parts)
