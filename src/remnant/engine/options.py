"""The option objects of the engine's verbs: what a new memory can say about itself, and what an
ingestor makes of one conversation message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, runtime_checkable

from remnant.core.errors import ValidationError
from remnant.core.model import Kind

if TYPE_CHECKING:
    from remnant.core.model import MemoryRecord


class WriteOptions(TypedDict, total=False):
    """The options of a new memory, shared by :meth:`Memory.remember`, ``remember_many`` items,
    ingest drafts and :meth:`Ledger.build` (defaults: kind fact, importance 0.5, confidence 1.0,
    not pinned, redacted)."""

    kind: Kind | str
    key: str | None
    importance: float
    confidence: float
    source: str | None
    agent_id: str | None
    session_id: str | None
    pinned: bool
    ttl: str | timedelta | float | None
    expires_at: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    occurred_at: datetime | None  # when it happened or was said (default: unknown, i.e. when learned)
    metadata: Mapping[str, Any] | None
    redact: bool


WRITE_OPTIONS = frozenset(WriteOptions.__annotations__)


class UpdateOptions(TypedDict, total=False):
    """What :meth:`Memory.update` can change in place; a key left out keeps its value. ``None``
    clears ``valid_from``, ``valid_to`` and ``expires_at``; ``metadata`` is merged (a key whose new
    value is ``None`` is removed); ``tags`` replaces the memory's tags (``metadata["tags"]``)."""

    content: str
    importance: float
    confidence: float
    tags: Sequence[str] | None
    metadata: Mapping[str, Any] | None
    valid_from: datetime | None
    valid_to: datetime | None
    expires_at: datetime | None
    ttl: str | timedelta | float
    redact: bool


UPDATE_OPTIONS = frozenset(UpdateOptions.__annotations__)


class RecallFilters(TypedDict, total=False):
    """The strict filters of :meth:`Memory.recall` (and of ``recall_filter``): scope beyond the
    user (agent, session), kinds, keys, sources, tags, metadata equality, a point in time
    (``as_of``: what was valid then), ``include_faded``, ``include_stale`` (superseded memories
    too, labelled ``Hit.earlier``), and a creation-time range."""

    kinds: Sequence[Kind | str] | None
    keys: Sequence[str] | None
    agent_id: str | None
    session_id: str | None
    sources: Sequence[str] | None
    tags: Sequence[str] | None
    metadata: Mapping[str, Any] | None
    as_of: datetime | None
    include_faded: bool
    include_stale: bool
    created_after: datetime | None
    created_before: datetime | None


RECALL_FILTERS = frozenset(RecallFilters.__annotations__)


class WriteItem(WriteOptions, total=False):
    """One item of :meth:`Memory.remember_many`: ``content`` and ``user_id`` plus any write option."""

    content: str
    user_id: str


@dataclass(frozen=True)
class Message:
    """One message of a conversation, as :meth:`Memory.add` takes it (a mapping with ``role`` and
    ``content`` works too, as in the OpenAI chat format)."""

    content: str
    role: str = "user"
    name: str | None = None  # the speaker's name, when the app knows it

    @classmethod
    def parse(cls, item: Message | Mapping[str, Any] | str) -> Message:
        if isinstance(item, Message):
            return item
        if isinstance(item, str):
            return cls(item)
        if not isinstance(item, Mapping):
            raise ValidationError("a message is a string or a mapping with 'role' and 'content'")
        content, role, name = item.get("content"), item.get("role", "user"), item.get("name")
        if not isinstance(content, str):
            raise ValidationError("a message's 'content' must be a string")
        if not isinstance(role, str) or role not in ("user", "assistant", "system", "tool"):
            raise ValidationError(f"a message's 'role' must be user, assistant, system or tool, got {role!r}")
        if name is not None and not isinstance(name, str):
            raise ValidationError("a message's 'name' must be a string")
        return cls(content, role, name)


@dataclass(frozen=True)
class Draft:
    """A memory an ingestor proposes besides the message itself (an extracted fact)."""

    content: str
    options: WriteOptions = field(default_factory=lambda: WriteOptions())


@dataclass(frozen=True)
class Observation:
    """What an ingestor makes of one message: how much the message itself matters (its salience,
    the episode's importance), when it expires if it says so, and the facts it carries."""

    importance: float
    facts: Sequence[Draft] = ()
    ttl: timedelta | None = None
    reasons: tuple[str, ...] = ()  # why it scored as it did (features that fired), for inspection


class Ingestor(Protocol):
    """Turns a conversation message into an :class:`Observation`, offline (rules, a small model)
    or with an LLM; ``recent`` holds the texts of the messages just before it, oldest first."""

    def observe(self, message: Message, *, recent: Sequence[str] = ()) -> Observation: ...


@runtime_checkable
class BatchIngestor(Protocol):
    """Optional on an ingestor: :meth:`Ingestor.observe` of consecutive messages at once (each with
    the four before it as ``recent``), so a model it runs reads them in one batch. ``vectors``,
    when given: the id of the model recall embeds with and each message's vector of the text recall
    stores for it (``None`` where there is none), for a model of the same id to read instead of
    embedding the turn again."""

    def observe_many(
        self,
        messages: Sequence[Message],
        *,
        recent: Sequence[str] = (),
        vectors: tuple[str, Sequence[Any]] | None = None,
    ) -> list[Observation]: ...


@dataclass(frozen=True)
class Lasting:
    """What of a conversation turn lasts past the consolidation horizon (:class:`LastingReader`):
    ``text`` is the turn's own text when all of it does, the clauses that do when some lapse or
    state nothing (a code "this weekend only", a question to the assistant), ``""`` when none
    does; ``ends_at``: the earliest end said of a kept clause (a period that outlasts the horizon);
    ``dropped``: why clauses were left out ("expiry", "expiry_model", "question", "no_claim", "filler")."""

    text: str
    ends_at: datetime | None = None
    dropped: tuple[str, ...] = ()


@runtime_checkable
class LastingReader(Protocol):
    """Optional on an ingestor: what of each turn ``(text, said)`` lasts past ``until``, read clause
    by clause (consolidation keeps that, not a copy of the turn). Called before the sweep takes any
    lock; any model it runs reads all the turns in one batch. ``expiry_reader``: the learned expiry
    reader judges the clauses too, when its weights load."""

    def lasting_many(
        self, turns: Sequence[tuple[str, datetime]], until: datetime, *, expiry_reader: bool = False
    ) -> list[Lasting]: ...


@dataclass(frozen=True)
class Correction:
    """A turn that corrects a value one of the user's recent memories stated ("I meant Tuesday not
    Thursday", 说错了，是周二): that memory, the wrong value's span in its content, the corrected
    value as the turn says it and its span in the turn, and how sure the reader is."""

    memory_id: str
    wrong: tuple[int, int]
    right: str
    right_span: tuple[int, int]
    confidence: float
    # the turn says nothing but the correction ("I meant Tuesday not Thursday"): once the corrected
    # fact states the value, the turn only repeats the wrong one
    only: bool = False


@runtime_checkable
class CorrectionReading(Protocol):
    """Optional on an ingestor: reads a correction from a user turn against the user's recent
    memories (newest first). ``might_correct`` is the cheap test that decides whether the engine
    reads those memories at all."""

    def might_correct(self, text: str) -> bool: ...

    def read_correction(self, text: str, recent: Sequence[MemoryRecord]) -> Correction | None: ...


class PlainIngestor:
    """The engine's own ingestor: no extraction, a fixed low importance for every message (the
    composition layer installs a real one, see :func:`remnant.config.build_memory`)."""

    def observe(self, message: Message, *, recent: Sequence[str] = ()) -> Observation:
        return Observation(importance=0.2 if message.role == "user" else 0.1)
