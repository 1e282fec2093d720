"""Remnant for the OpenAI Agents SDK: a conversation :class:`Session` and memory tools.

``RemnantSession`` implements the SDK's ``Session`` protocol (``agents.memory.session``): the
runner hands it every conversation item and reads them back on the next turn. Each item becomes
one Remnant memory in the session's scope (user, session, and agent when given), so the history
obeys the same forgetting as everything else: a hidden or purged memory, an expired one and an
erased user drop out of the history the model sees. User and assistant text goes through
:meth:`Memory.add`, the conversation ingest path, so the memory's ingestor extracts keyed facts
(which supersede older values) and the turn decays like any episode; tool calls, tool outputs and
other items (tool calls and outputs, reasoning) are kept as low-importance episodes that fade
fast, which the ``recall`` tool leaves out.

``remnant_tools(memory, user_id=...)`` returns ``remember``, ``recall`` and ``forget`` as
``function_tool`` objects bound to one user, for an agent to manage long-term memory itself.

    >>> from agents import Agent, Runner
    >>> memory = remnant.config.build_memory("memories.db")
    >>> session = RemnantSession("chat-1", memory=memory, user_id="ana")
    >>> agent = Agent(name="assistant", tools=remnant_tools(memory, user_id="ana"))
    >>> await Runner.run(agent, "I moved to Paris", session=session)
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from remnant.core.errors import NotFoundError, RemnantError
from remnant.core.extras import needs
from remnant.core.model import MAX_CONTENT_CHARS, MAX_LIMIT, Kind, MemoryRecord, Status, check_identifier
from remnant.engine.memory import Memory
from remnant.store.base import MemoryFilter
from remnant.understand.attributes import read, relate

with needs("the OpenAI Agents adapter", "openai-agents"):
    from agents import FunctionTool, function_tool
    from agents.memory.session_settings import SessionSettings

__all__ = ["ITEM_SOURCE", "RECALL_KINDS", "RemnantSession", "remnant_tools"]

ITEM_SOURCE = "openai-agents"  # the source of the history records that are not chat text
SESSION_KEY = "openai_agents_session"  # metadata: the SDK session the record belongs to
SEQ_KEY = "openai_agents_seq"  # metadata: the item's position in the session
ITEM_KEY = "openai_agents_item"  # metadata: the item itself, as the SDK gave it (redacted text)

# the statuses of a history record that the model still sees (hidden, expired and purged drop out)
_VISIBLE = (Status.ACTIVE, Status.FADED, Status.SUPERSEDED)
# item fields that are structure, not text: never passed through the redactor
_STRUCTURAL = frozenset({"type", "role", "id", "call_id", "status", "name", "phase", "format"})
# what the recall tool looks in by default: long-term memory, not the conversation turns
RECALL_KINDS = tuple(k for k in Kind if k != Kind.EPISODE)
_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})
_CALLS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
    }
)


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dict(dump(mode="json", exclude_unset=True))
    raise TypeError(f"a session item must be a mapping, got {type(item).__name__}")


def chat_text(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(role, text)`` for a user or assistant message item, ``None`` for anything else."""
    role = item.get("role")
    if role not in ("user", "assistant") or item.get("type", "message") != "message":
        return None
    content = item.get("content")
    if isinstance(content, str):
        return role, content
    if isinstance(content, list):
        texts = [
            p["text"]
            for p in content
            if isinstance(p, Mapping) and p.get("type") in _TEXT_PARTS and isinstance(p.get("text"), str)
        ]
        if texts:
            return role, "\n".join(texts)
    return None


def _strings(value: Any, field: str | None = None) -> list[str]:
    if isinstance(value, str):
        return [] if field in _STRUCTURAL or not value.strip() else [value]
    if isinstance(value, Mapping):
        return [t for k, v in value.items() for t in _strings(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v, field)]
    return []


def _label(item: Mapping[str, Any]) -> str:
    """The text of a non-chat history record: what it is and the text it carries, so that Remnant's
    forgetting (requests in words, PII placeholders) finds what a tool call or output said."""
    kind = str(item.get("type") or item.get("role") or "item")
    name = item.get("name")
    head = f"[{kind}{' ' + name if isinstance(name, str) else ''}]"
    return _clip(" ".join([head, *_strings(item)]))


def _edited(item: Any, text: str, content: str, sep: str, head: str = "") -> Any:
    """``item`` with the edits that turned ``text`` (``head``, then the item's strings joined by
    ``sep``, as the record was written) into ``content`` (the record now) applied to its strings.

    Forgetting may rewrite a history record in place ("forget my phone number" takes the number out
    of a turn and leaves the rest): the item the model is given must say what the record says, not
    what it said when it was stored."""
    # the part of the text past the record's clip was never in the record: it stays as it was
    content = content + text[MAX_CONTENT_CHARS:]
    if content == text:
        return item
    moved = [0] * (len(text) + 1)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, text, content, autojunk=False).get_opcodes():
        if tag == "equal":
            moved[i1:i2] = range(j1, j2)
        else:  # an edit belongs to the string it starts in
            moved[i1 : i2 + 1] = [j1] + [j2] * (i2 - i1)
    moved[len(text)] = len(content)
    pos = len(head) + (len(sep) if head else 0)

    def walk(value: Any, field: str | None = None) -> Any:
        nonlocal pos
        if isinstance(value, str):
            if field in _STRUCTURAL or not value.strip():
                return value
            start, end = pos, pos + len(value)
            pos = end + len(sep)
            return content[moved[start] : moved[end]]
        if isinstance(value, Mapping):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, field) for v in value]
        return value

    return walk(item)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTENT_CHARS else text[:MAX_CONTENT_CHARS]


class RemnantSession:
    """An Agents SDK session whose history lives in a Remnant memory.

    ``get_items`` gives back the items ``add_items`` was given, in order (their text passed through
    the memory's redactor when the privacy layer is on), less those that were forgotten since.
    ``infer=False`` stores chat text without fact extraction. ``pop_item`` and ``clear_session``
    purge history records; facts already extracted from them stay in long-term memory (forget
    them with :meth:`Memory.forget` or the ``forget`` tool).
    """

    def __init__(
        self,
        session_id: str,
        *,
        memory: Memory,
        user_id: str,
        agent_id: str | None = None,
        infer: bool = True,
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.session_id = check_identifier(session_id, "session_id")
        self.user_id = check_identifier(user_id, "user_id")
        self.agent_id = check_identifier(agent_id, "agent_id") if agent_id is not None else None
        self.memory = memory
        self.infer = infer
        self.session_settings = session_settings
        self._lock = asyncio.Lock()
        self._next_seq: int | None = None

    # -- the Session protocol ----------------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The session's items, oldest first; the latest ``limit`` when given (else the settings')."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        async with self._lock:
            records = await asyncio.to_thread(self._records, _VISIBLE)
        items = _paired([_current_item(r) for r in records])
        if limit is not None:
            items = items[-limit:] if limit > 0 else []
        return items

    async def add_items(self, items: list[Any]) -> None:
        """Store the items in order; user and assistant text goes through :meth:`Memory.add`."""
        if not items:
            return
        parsed = [_as_dict(i) for i in items]
        async with self._lock:
            await asyncio.to_thread(self._add, parsed)

    async def pop_item(self) -> Any | None:
        """Remove the latest item (its history record is purged) and return it."""
        async with self._lock:
            return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        """Purge the session's history; extracted facts stay in the user's long-term memory."""
        async with self._lock:
            await asyncio.to_thread(self._clear)

    # -- the work, on a worker thread ----------------------------------------------------------------
    def _filter(self, statuses: tuple[Status, ...] | None) -> MemoryFilter:
        return MemoryFilter(
            tenant=self.memory.tenant,
            user_id=self.user_id,
            session_id=self.session_id,
            # the session's own records; facts drawn from its turns carry its metadata too
            kinds=(Kind.EPISODE,),
            statuses=statuses,
            now=self.memory.now().timestamp() if statuses is not None else None,
            metadata={SESSION_KEY: self.session_id},
        )

    def _records(self, statuses: tuple[Status, ...] | None) -> list[MemoryRecord]:
        records = self.memory.store.query(self._filter(statuses))
        return sorted(records, key=lambda r: (int(r.metadata.get(SEQ_KEY, 0)), r.id))

    def _seq(self) -> int:
        if self._next_seq is None:
            every = self._records(None)
            self._next_seq = int(every[-1].metadata.get(SEQ_KEY, 0)) + 1 if every else 1
        seq = self._next_seq
        self._next_seq += 1
        return seq

    def _redacted(self, value: Any, field: str | None = None) -> Any:
        if self.memory.redactor is None:
            return value
        if isinstance(value, str):
            return value if field in _STRUCTURAL else self.memory.redact(value, self.user_id)
        if isinstance(value, Mapping):
            return {k: self._redacted(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._redacted(v, field) for v in value]
        return value

    def _add(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            meta = {SESSION_KEY: self.session_id, SEQ_KEY: self._seq(), ITEM_KEY: self._redacted(item)}
            try:
                json.dumps(meta)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"a session item must be JSON-serialisable: {exc}") from exc
            chat = chat_text(item)
            if chat is not None and chat[1].strip():
                role, text = chat
                result = self.memory.add(
                    [{"role": role, "content": _clip(text)}],
                    user_id=self.user_id,
                    session_id=self.session_id,
                    agent_id=self.agent_id,
                    infer=self.infer,
                    metadata=meta,
                )
                if result.episodes:
                    continue
            self.memory.remember(
                _label(item),
                user_id=self.user_id,
                kind=Kind.EPISODE,
                importance=0.05,
                source=ITEM_SOURCE,
                session_id=self.session_id,
                agent_id=self.agent_id,
                metadata=meta,
            )

    def _pop(self) -> Any | None:
        records = self._records(_VISIBLE)
        if not records:
            return None
        last = records[-1]
        self.memory.purge(last.id, force=True, reason="popped from the agent session")
        return last.metadata[ITEM_KEY]

    def _clear(self) -> None:
        ids = [r.id for r in self._records(None)]
        if ids:
            self.memory.purge(ids, force=True, reason="agent session cleared")
        self._next_seq = None


def _current_item(record: MemoryRecord) -> Any:
    """The SDK item a history record holds, with what forgetting since removed from it removed."""
    item = record.metadata[ITEM_KEY]
    if record.source == ITEM_SOURCE:
        head = _label({k: v for k, v in item.items() if k in ("type", "role", "name")})
        return _edited(item, " ".join([head, *_strings(item)]), record.content, " ", head)
    chat = chat_text(item)
    if chat is None:
        return item
    content = item.get("content")
    if isinstance(content, str):
        return {**item, "content": _edited(content, content, record.content, "")}
    parts = [p for p in content if isinstance(p, Mapping) and p.get("type") in _TEXT_PARTS and isinstance(p.get("text"), str)]  # fmt: skip
    texts = _edited([p["text"] for p in parts], chat[1], record.content, "\n")
    new = dict(zip((id(p) for p in parts), texts, strict=True))
    return {**item, "content": [{**p, "text": new[id(p)]} if id(p) in new else p for p in content]}


def _paired(items: list[Any]) -> list[Any]:
    """Drop tool outputs whose call was forgotten, and calls whose output was (the model's API
    rejects either half alone); a trailing call still waiting for its output stays."""
    calls = {i.get("call_id") for i in items if i.get("type") in _CALLS}
    outputs = {i.get("call_id") for i in items if str(i.get("type", "")).endswith("_output")}
    out = []
    for n, item in enumerate(items):
        kind = str(item.get("type", ""))
        if kind.endswith("_output") and item.get("call_id") not in calls:
            continue
        if kind in _CALLS and item.get("call_id") not in outputs and n < len(items) - 1:
            later = items[n + 1 :]
            if not all(str(i.get("type", "")) in _CALLS for i in later):
                continue
        out.append(item)
    return out


# -- tools -----------------------------------------------------------------------------------------
def _memory_view(record: MemoryRecord, score: float | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {"id": record.id, "content": record.content, "kind": record.kind.value}
    if record.key:
        view["key"] = record.key
    if score is not None:
        view["score"] = round(score, 4)
    return view


def _restated(
    memory: Memory,
    content: str,
    *,
    user_id: str,
    agent_id: str | None,
    key: str | None,
    kind: str,
    ttl: str | None,
) -> MemoryRecord | None:
    """The user's current memory under ``key`` when ``content`` says the same thing again.

    The session's chat text goes through the memory's ingestor, which extracts keyed facts ("User
    lives in Paris", key ``city``); a model that then calls ``remember`` with the same fact in its
    own words would otherwise store a second version that supersedes an identical one. Only an exact
    restatement (same attribute, same value, by the rule reader) counts; anything else is stored."""
    if not key or ttl:
        return None
    found = memory.store.query(
        memory.ledger.filter(user_id, keys=(key,), agent_id=agent_id), order="-created_at", limit=1
    )
    current = found[0] if found else None
    if current is None or current.kind.value != kind:
        return None
    if " ".join(content.casefold().split()) == " ".join(current.content.casefold().split()):
        return current
    new, old = read(content), read(current.content)
    if new is None or old is None or new.attribute != old.attribute or None in (new.value, old.value):
        return None
    if any(r.negated or r.additive or r.refinement or r.hypothetical for r in (new, old)):
        return None
    if new.subject != old.subject and not {new.subject, old.subject} <= {"user", "other"}:
        return None  # "my sister lives in Paris" is not the user's city
    subject = new.subject
    same = relate(new, dataclasses.replace(old, subject=subject)) == "compatible"
    return current if same else None


def remnant_tools(
    memory: Memory,
    *,
    user_id: str,
    agent_id: str | None = None,
    names: Sequence[str] = ("remember", "recall", "forget"),
    recall_kinds: Sequence[Kind | str] | None = RECALL_KINDS,
) -> list[FunctionTool]:
    """``remember``, ``recall`` and ``forget`` as Agents SDK function tools bound to one user.

    The model never names a user: every call is scoped to ``user_id`` (and ``agent_id`` when
    given), and ``forget`` by id refuses a memory of anyone else. ``recall`` looks in
    ``recall_kinds``: by default every kind but episodes (the conversation turns themselves, which
    the session already holds); ``None`` for every kind. ``remember`` with a key whose current
    memory already says the same (extracted from the chat by the ingestor) reinforces that memory
    instead of storing a second version of it. Errors come back to the model
    as text. ``forget`` hides (reversible by a person, audited) and never confirms a request that
    would take most of the user's memories: that needs a person.
    """
    check_identifier(user_id, "user_id")

    def remember(content: str, key: str | None = None, kind: str = "fact", ttl: str | None = None) -> str:
        """Store something worth remembering about the user.

        Args:
            content: The memory, as a self-contained sentence ("The user lives in Paris").
            key: A short snake_case name for a fact that can change ("city", "phone"); a new
                memory with the same key replaces the old one.
            kind: fact, preference, open_issue or knowledge.
            ttl: How long it stays true, if it is temporary ("2 days", "1 week").
        """
        try:
            same = _restated(memory, content, user_id=user_id, agent_id=agent_id, key=key, kind=kind, ttl=ttl)
            if same is not None:  # the session's ingest already has it: no second version of it
                return json.dumps({"stored": _memory_view(memory.touch(same.id)), "already_remembered": True})
            record = memory.remember(
                content,
                user_id=user_id,
                agent_id=agent_id,
                key=key or None,
                kind=kind,
                ttl=ttl or None,
                source="agent-tool",
            )
        except RemnantError as exc:
            return f"error: {exc}"
        return json.dumps({"stored": _memory_view(record)})

    def recall(query: str, limit: int = 5) -> str:
        """Look up what is remembered about the user.

        Args:
            query: What to look for, in words.
            limit: The most memories to return (1 to 20).
        """
        limit = max(1, min(int(limit), 20))
        try:
            result = memory.recall(
                query,
                user_id=user_id,
                agent_id=agent_id,
                kinds=recall_kinds,
                limit=min(2 * limit + 5, MAX_LIMIT),
            )
        except RemnantError as exc:
            return f"error: {exc}"
        hits = [h for h in result.hits if h.memory.source != ITEM_SOURCE][:limit]
        return json.dumps({"memories": [_memory_view(h.memory, h.score) for h in hits]})

    def forget(request: str) -> str:
        """Forget something about the user.

        Args:
            request: A memory id (mem_...) or the request in the user's words
                ("forget my phone number").
        """
        try:
            target = request.strip()
            if target.startswith("mem_") and " " not in target:
                try:
                    owner = memory.get(target).user_id
                except NotFoundError:
                    owner = None
                if owner != user_id:
                    return f"error: no memory {target} for this user"
                result = memory.forget_ids([target])
            else:
                result = memory.forget(target, user_id=user_id)
        except RemnantError as exc:
            return f"error: {exc}"
        return json.dumps({"forgotten": result.forgotten, "message": result.message})

    chosen: dict[str, Callable[..., str]] = {"remember": remember, "recall": recall, "forget": forget}
    unknown = set(names) - set(chosen)
    if unknown:
        raise ValueError(f"unknown tool name(s): {', '.join(sorted(unknown))}")
    return [function_tool(chosen[n], name_override=n, strict_mode=False) for n in names]
