"""Build the model's context from memory within a token budget.

Sections, in the order they claim the budget (the seed's flow: open issues and preferences first):
open issues, preferences, faded notes, facts, valid knowledge, the latest summary, relevant older
turns, recent turns. Everything remembered goes into quoted data blocks (see `remnant.llm.prompt`);
lines that still carry a value the user has since replaced ("lives in Munich" after a move to
Berlin) are left out, so the context holds the current value and not the stale one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from remnant.core.model import Kind, MemoryRecord, Status
from remnant.core.text import CJK_CLASS, has_cjk
from remnant.engine.memory import Memory
from remnant.engine.results import FadedHint
from remnant.llm.base import Message
from remnant.llm.prompt import DATA_RULE, DataItem, quote_block, quote_data
from remnant.llm.tokens import count_tokens

SYSTEM_PROMPT = (
    "You are a helpful, concise customer-service assistant. Answer from the knowledge and memories "
    "given below; if they do not contain the answer, say so. When a memory is listed as faded, say "
    "you are not sure any more and ask the customer again instead of guessing."
)

MESSAGE_OVERHEAD_TOKENS = 4  # role and separators per chat message, as OpenAI-style APIs bill


def messages_tokens(messages: Sequence[Message]) -> int:
    """Tokens a list of chat messages costs (content plus a small per-message overhead)."""
    return sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages)


@dataclass
class Context:
    """The messages sent to the model, their cost, and what memory went into them."""

    messages: list[Message]
    tokens: int
    used: list[MemoryRecord] = field(default_factory=list)
    knowledge: list[str] = field(default_factory=list)
    faded: list[FadedHint] = field(default_factory=list)
    dropped_stale: int = 0
    dropped_budget: int = 0

    def text(self) -> str:
        """Everything in the context as one string (for inspection and benchmarks)."""
        return "\n".join(m["content"] for m in self.messages)


@dataclass(frozen=True, slots=True)
class _Candidate:
    section: str
    item: DataItem
    record: MemoryRecord | None = None


_MIN_VALUE_CHARS = 3


def _distinctive(value: str) -> bool:
    v = value.strip()
    if has_cjk(v):
        return len(v) >= 2
    return len(v) >= _MIN_VALUE_CHARS and v.lower() not in ("yes", "no", "arrived")


class StaleGuard:
    """Knows the values a user has replaced and the document versions no longer valid, to keep old
    summaries and turns from reasserting them."""

    def __init__(
        self, memory: Memory, user_id: str, *, kb_user: str | None = None, enabled: bool = True
    ) -> None:
        self.enabled = enabled
        superseded = memory.list_memories(user_id, statuses=[Status.SUPERSEDED], limit=1000)
        current: dict[str, str] = {}
        for record, _ in memory.active(user_id, kinds=[Kind.FACT, Kind.PREFERENCE, Kind.OPEN_ISSUE]):
            if record.key and "value" in record.metadata:
                current[record.key] = str(record.metadata["value"])
        self._stale: list[tuple[re.Pattern[str], str | None]] = []
        for record in superseded:
            value = str(record.metadata.get("value", ""))
            if not record.key or not _distinctive(value) or current.get(record.key) == value:
                continue
            pattern = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", re.IGNORECASE)
            self._stale.append((pattern, current.get(record.key)))
        # Document versions outside their validity window now: earlier answers that quoted them are stale.
        self.invalid_docs: set[str] = set()
        self._invalid_texts: list[str] = []
        if kb_user is not None:
            now = memory.now()
            for doc in memory.list_memories(kb_user, kinds=[Kind.KNOWLEDGE], limit=1000):
                if (doc.valid_to is not None and doc.valid_to <= now) or (
                    doc.valid_from is not None and doc.valid_from > now
                ):
                    self.invalid_docs.add(doc.key or doc.id)
                    self._invalid_texts.append(doc.content)

    def is_stale_record(self, record: MemoryRecord) -> bool:
        """A remembered turn is stale if it cites an invalid document version or names a replaced value."""
        if not self.enabled:
            return False
        cited = record.metadata.get("knowledge") or []
        if any(key in self.invalid_docs for key in cited):
            return True
        return self.is_stale(record.content)

    def is_stale(self, text: str) -> bool:
        """True when `text` names a replaced value without also naming the current one."""
        if not self.enabled:
            return False
        for pattern, now in self._stale:
            if pattern.search(text) and not (now and now.lower() in text.lower()):
                return True
        return any(doc in text for doc in self._invalid_texts)


_KEY_WORDS = re.compile(rf"[a-z]+|[{CJK_CLASS}]+")
_KEY_ALIASES = {
    "city": ("城市", "住在", "哪里住"),
    "phone_number": ("phone", "手机", "电话"),
    "email": ("邮箱", "邮件"),
    "shipping_address": ("地址",),
    "address": ("地址",),
    "name": ("名字", "姓名"),
    "preferred_courier": ("courier", "快递"),
    "preferred_color": ("colour", "颜色"),
}
_GENERIC_KEY_WORDS = {"preferred", "likes", "preference", "order", "reminder", "number", "the"}


def key_mentioned(key: str, message: str) -> bool:
    """Does the message name the attribute `key` ("which city…" names ``city``, 手机 names ``phone_number``)?"""
    lowered = message.lower()
    words = [w for w in _KEY_WORDS.findall(key.lower()) if w not in _GENERIC_KEY_WORDS and len(w) >= 2]
    words += _KEY_ALIASES.get(key, ())
    return any(w in lowered for w in words)


def faded_by_key(memory: Memory, user_id: str, message: str) -> list[FadedHint]:
    """Faded keyed memories whose key the message mentions ("which city…" and a faded ``city``).

    Lexical recall matches content ("User lives in Munich"), not keys, so a question naming the
    attribute would otherwise not notice that the answer has faded.
    """
    now = memory.now()
    hints = []
    records = memory.list_memories(
        user_id,
        statuses=[Status.ACTIVE, Status.FADED],
        kinds=[Kind.FACT, Kind.PREFERENCE, Kind.OPEN_ISSUE],
        limit=500,
    )
    for r in records:
        if not r.key or (r.expires_at is not None and r.expires_at <= now):
            continue
        if not key_mentioned(r.key, message):
            continue
        strength = memory.strength_of(r)
        if r.status == Status.FADED or strength < memory.decay.recall_threshold:
            hints.append(FadedHint(r.id, r.kind.value, r.key, "faded", r.status_changed_at, strength))
    return hints[:3]


_NOTES = {
    "memories": "what this customer told us; open issues and preferences first",
    "faded": "memories that have faded: do not guess their values, ask again",
    "knowledge": "product documentation valid today",
    "summary": "summary of earlier conversation",
}


def _item_cost(item: DataItem) -> int:
    return count_tokens(quote_block("x", [item])) - count_tokens(quote_block("x", []))


def _block_overhead(section: str) -> int:
    """Tokens of a block's delimiters and note, plus the blank line that joins it to the prompt."""
    return count_tokens(quote_block(section, [], note=_NOTES[section])) + 1


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.\-]+")


def _label(record: MemoryRecord, strength: float | None = None) -> str:
    parts = [record.kind.value]
    if record.key:
        # a client wrote the key: quoted unless a plain identifier, so it cannot pose as a strength
        parts.append(record.key if _PLAIN_KEY.fullmatch(record.key) else quote_data(record.key))
    if strength is not None:
        parts.append(f"strength {strength:.2f}")
    return " ".join(parts)


def build_context(
    memory: Memory,
    user_id: str,
    message: str,
    *,
    recent: Sequence[Message] = (),
    summary: MemoryRecord | None = None,
    knowledge: Sequence[str] = (),
    budget: int = 1000,
    relevant_k: int = 4,
    system_prompt: str = SYSTEM_PROMPT,
    kb_user: str | None = None,
    stale_guard: bool = True,
) -> Context:
    """Assemble system prompt, quoted memory/knowledge blocks, recent turns and the message.

    `budget` bounds the whole context in tokens; the system prompt and the message are always
    included, other items are added in priority order while they fit. `stale_guard=False` keeps
    lines with replaced values (an ablation for the benchmark).
    """
    guard = StaleGuard(memory, user_id, kb_user=kb_user, enabled=stale_guard)
    active = memory.active(user_id, kinds=[Kind.OPEN_ISSUE, Kind.PREFERENCE, Kind.FACT])
    recalled = memory.recall(message, user_id=user_id, limit=relevant_k + 4) if message.strip() else None

    candidates: list[_Candidate] = []
    seen: set[str] = set()
    for kind, section in ((Kind.OPEN_ISSUE, "memories"), (Kind.PREFERENCE, "memories")):
        for record, strength in active:
            if record.kind == kind:
                candidates.append(
                    _Candidate(section, DataItem(_label(record, strength), record.content), record)
                )
                seen.add(record.id)
    # Only keyed customer facts are worth asking again about; faded small talk is simply gone.
    faded = [h for h in recalled.faded if h.key and h.kind != Kind.EPISODE.value] if recalled else []
    faded += [h for h in faded_by_key(memory, user_id, message) if h.id not in {f.id for f in faded}]
    for hint in faded:
        what = hint.key or hint.kind
        candidates.append(
            _Candidate("faded", DataItem(f"{hint.reason} {hint.kind}", f"{what} (ask the customer again)"))
        )
    for record, strength in active:
        if record.kind == Kind.FACT:
            candidates.append(
                _Candidate("memories", DataItem(_label(record, strength), record.content), record)
            )
            seen.add(record.id)
    for i, doc in enumerate(knowledge, 1):
        candidates.append(_Candidate("knowledge", DataItem(f"doc {i}", doc)))
    dropped_stale = 0
    if summary is not None:
        lines = [ln for ln in summary.content.splitlines() if ln.strip()]
        kept = [ln for ln in lines if not guard.is_stale(ln)]
        dropped_stale += len(lines) - len(kept)
        if kept:
            candidates.append(
                _Candidate("summary", DataItem("summary of earlier turns", "\n".join(kept)), summary)
            )
    recent_texts = {m["content"] for m in recent}
    if recalled:
        for hit in recalled.hits[: relevant_k + 4]:
            r = hit.memory
            if r.id in seen or r.kind == Kind.KNOWLEDGE or r.content in recent_texts or r.content == message:
                continue
            if guard.is_stale_record(r):
                dropped_stale += 1
                continue
            role = r.metadata.get("role", "")
            role = role if isinstance(role, str) and _PLAIN_KEY.fullmatch(role) else ""
            candidates.append(
                _Candidate("memories", DataItem(f"{r.kind.value} {role}".strip(), r.content), r)
            )
            seen.add(r.id)

    fixed: list[Message] = [{"role": "user", "content": message}]
    base_system = f"{system_prompt}\n{DATA_RULE}"
    remaining = budget - messages_tokens(fixed) - count_tokens(base_system) - MESSAGE_OVERHEAD_TOKENS
    chosen: dict[str, list[_Candidate]] = {"memories": [], "faded": [], "knowledge": [], "summary": []}
    dropped_budget = 0
    for cand in candidates:
        cost = _item_cost(cand.item)
        if not chosen[cand.section]:
            cost += _block_overhead(cand.section)
        if cost <= remaining:
            chosen[cand.section].append(cand)
            remaining -= cost
        else:
            dropped_budget += 1
    # Recent turns: newest first while they fit, then restored to chronological order.
    kept_turns: list[Message] = []
    for turn in reversed(list(recent)):
        cost = count_tokens(turn["content"]) + MESSAGE_OVERHEAD_TOKENS
        if cost > remaining:
            dropped_budget += 1
            break
        kept_turns.insert(0, turn)
        remaining -= cost

    def render() -> list[Message]:
        blocks = [base_system]
        for section in ("memories", "faded", "knowledge", "summary"):
            if chosen[section]:
                blocks.append(quote_block(section, [c.item for c in chosen[section]], note=_NOTES[section]))
        return [{"role": "system", "content": "\n\n".join(blocks)}, *kept_turns, *fixed]

    messages = render()
    # Costs above are per piece; tokens do not add up exactly across joins, so enforce the budget on
    # the rendered prompt: shed the oldest recent turn, then the lowest-priority item, until it fits.
    while messages_tokens(messages) > budget:
        if kept_turns:
            kept_turns.pop(0)
        else:
            lowest = next((sec for sec in ("summary", "knowledge", "faded", "memories") if chosen[sec]), None)
            if lowest is None:
                break  # only the system prompt and the message are left: they always go
            chosen[lowest].pop()
        dropped_budget += 1
        messages = render()
    used = [c.record for cands in chosen.values() for c in cands if c.record is not None]
    return Context(
        messages=messages,
        tokens=messages_tokens(messages),
        used=used,
        knowledge=[c.item.text for c in chosen["knowledge"]],
        faded=faded,
        dropped_stale=dropped_stale,
        dropped_budget=dropped_budget,
    )
