"""Likely contradictions among unkeyed memories: same subject, a different value, number or polarity.

Keyed facts supersede each other deterministically (the engine does that). Memories written
without a key ("I live in Berlin", later "I live in Paris") need a heuristic: this module compares
a new memory with the user's most similar active ones and labels each pair

- ``contradiction``: the same statement with a different value ("Berlin" → "Paris"), a different
  number ("2 cats" → "3 cats") or the opposite polarity ("I like coffee" → "I don't like coffee");
- ``compatible``: the same subject, but one adds to the other ("… and a dog") or the predicate can
  hold many values at once ("I like tea" / "I like coffee", "I also …");
- ``unrelated``: little shared subject.

It is rule-based (word and CJK-character sequences, a value/number diff) and works offline. An LLM
can be plugged in as a :class:`ContradictionJudge`; it is asked only about pairs that share a
subject and is never required. :class:`ContradictionPolicy` decides what happens on write:
``supersede`` the old memory, ``flag`` both in metadata (the default), or ``off``. The reading (the
word detector, the attribute rules and models) is in :mod:`remnant.understand`; this is the policy.
"""

from __future__ import annotations

import contextvars
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from remnant.core.errors import ValidationError
from remnant.core.model import Kind, MemoryRecord, Status
from remnant.core.text import fts_match
from remnant.engine.seams import NeighbourBatch, NeighbourSource
from remnant.store.base import MemoryFilter
from remnant.understand import attributes
from remnant.understand.attribute_model import AttributeClassifier
from remnant.understand.statements import ContradictionDetector, PairVerdict

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger

# -- policy on write -------------------------------------------------------------------------------
Action = Literal["supersede", "flag"]


@runtime_checkable
class PairDecider(Protocol):
    """A model of whether ``new`` replaces ``old`` (:class:`~remnant.understand.pair_model.PairJudge`):
    ``("supersede" | "flag" | None, reason)``; it compares by meaning, so the policy also hands it
    the user's most recent facts as candidates when the retriever has no vectors."""

    def decide(self, new: str, old: str, *, crowded: bool = False) -> tuple[Action | None, str]: ...


@dataclass(frozen=True)
class ContradictionPolicy:
    """What the engine does when a new unkeyed memory likely contradicts an active one.

    Two opinions are asked about each candidate: the attribute reader
    (:mod:`remnant.understand.attributes`: which attribute of whose, and its value) and the
    word-level :class:`ContradictionDetector`. When the reader knows both statements, it decides: the
    same attribute of the same subject with another value is a contradiction, anything else is not
    (it overrules the detector). When it cannot tell, the detector's ``contradiction`` stands, as an
    uncertain one.

    ``auto`` (the default): supersede what the reader is sure of, flag what only the detector says;
    ``supersede``: supersede both; ``flag``: flag both (the new one gets ``metadata["contradicts"]``,
    the old ones ``metadata["contradicted_by"]``, audited as ``flag_contradiction``); ``off``: nothing
    is checked. A superseded memory is kept as history and audited.

    Candidates are bounded: at most ``candidates`` of the user's active memories, taken in turn from
    the keyword index (the new text's words, then the words its attribute is stated with) and, when
    the retriever offers vectors (:class:`~remnant.engine.seams.NeighbourSource`), the ``neighbours``
    nearest embeddings. Texts longer than ``max_chars`` (documents, not statements) are neither
    checked nor compared with, so the work per write stays bounded.
    """

    mode: Literal["auto", "supersede", "flag", "off"] = "auto"
    kinds: tuple[Kind, ...] = (Kind.FACT, Kind.PREFERENCE)
    candidates: int = 20
    neighbours: int = 10
    max_chars: int = 2000
    detector: ContradictionDetector = field(default_factory=ContradictionDetector)
    attributes: bool = True
    # the embedding attribute classifier, asked only when the rules cannot read one of the two
    # statements (the product Memory installs it; None: rules and the detector only)
    classifier: AttributeClassifier | None = None
    # the supersession pair model, asked when the rules cannot read the pair (the default:
    # ``REMNANT_ATTRIBUTES=pairs``); it takes the classifier's place
    pairs: PairDecider | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "supersede", "flag", "off"):
            raise ValidationError(
                f"contradiction mode must be auto, supersede, flag or off, got {self.mode!r}"
            )
        if self.candidates < 1:
            raise ValidationError("candidates must be at least 1")
        if self.neighbours < 0:
            raise ValidationError("neighbours must be at least 0")

    def before_insert(self, ledger: Ledger, record: MemoryRecord) -> None:
        """The engine's write hook: runs inside the write transaction of each new unkeyed memory.

        When :meth:`prejudged` judged this write before the lock, only what changed since is looked
        at here (see :func:`revalidate`); otherwise the whole check runs now."""
        if self.mode == "off":
            return
        early = _take_pending(self, record)
        found = revalidate(ledger, record, self, early) if early is not None else None
        if found is None:
            resolve_on_write(ledger, record, self)
        else:
            apply_on_write(ledger, record, found, self)

    def reads_for(self, record: MemoryRecord) -> bool:
        """The engine's ``ScopedWriteHook``: whether :meth:`before_insert` looks at the store for
        ``record`` (an unkeyed memory of a checked kind, a statement's length); the rows of a batch
        it does not look for (conversation turns) are inserted together."""
        return (
            self.mode != "off"
            and record.key is None
            and record.kind in self.kinds
            and len(record.content) <= self.max_chars
        )

    def batch(self, ledger: Ledger, records: Sequence[MemoryRecord]) -> AbstractContextManager[None]:
        """The engine's batch hook: the nearest-neighbour probes of a batch's checked writes as one
        search of the stored vectors (``NeighbourBatch``), which each :meth:`before_insert` then reads
        (the same candidates as one search a write). Writes judged before the lock search nothing."""
        retriever = ledger.retriever
        if (
            self.mode == "off"
            or not self.neighbours
            or not isinstance(retriever, NeighbourSource)
            or not isinstance(retriever, NeighbourBatch)
            or getattr(retriever, "model_id", "") is None
        ):
            return nullcontext()
        texts = [
            r.content
            for r in records
            if r.key is None
            and r.kind in self.kinds
            and len(r.content) <= self.max_chars
            and not _has_pending(self, r)
        ]
        return retriever.neighbour_batch(ledger, texts, self.neighbours) if texts else nullcontext()

    @contextmanager
    def prejudged(
        self, ledger: Ledger, items: Sequence[tuple[str | None, str, Mapping[str, object]]]
    ) -> Iterator[None]:
        """Judge writes before the write lock is taken; :meth:`before_insert` then only re-checks.

        ``items``: ``(text as it will be stored or None when unknown, user_id, options)``. Searching
        and judging candidates is the expensive part of the check; done here, on a read connection,
        other writers do not queue behind it. Outside the block nothing is kept."""
        # a big batch would see its own earlier items as late writes: it is judged under the lock
        small = len(items) <= MAX_LATE_WRITES
        early = (
            [prejudge(ledger, text, user_id, opts, self) for text, user_id, opts in items] if small else []
        )
        kept = [e for e in early if e is not None]
        pending = _pending_list()
        pending.extend(kept)
        try:
            yield
        finally:
            for e in kept:
                if e in pending:
                    pending.remove(e)

    def pair_margin(self) -> float:
        """How far the pair model's likeliest candidate must lead the next to be superseded."""
        margin = getattr(self.pairs, "margin", 0.0) if self.pairs is not None else 0.0
        return float(margin) if isinstance(margin, int | float) else 0.0

    def decide_many(
        self, new: str, olds: Sequence[str], *, derived: bool = False
    ) -> list[tuple[Action | None, PairVerdict]]:
        """:meth:`decide` for each of a write's candidates, where the pair model judges only those
        nearest in meaning to ``new`` among the ones the rules leave to it (its ``nearest_of``): a
        user with many facts hands it many candidates, and the far ones are where it errs.
        ``derived``: ``new`` restates a turn said earlier (a consolidated fact); the model judges it
        at the crowded bar: recall's current-state step already weighed that turn against the
        others, and a supersession on a copy's judgement is permanent (a copy of "moved flats, the dog
        loves the garden" is no reason to retire what the dog eats)."""
        allowed: set[int] | None = None
        crowded = derived
        nearest_of = getattr(self.pairs, "nearest_of", None)
        if self.pairs is not None and callable(nearest_of) and len(olds) > 1:
            left = [
                i
                for i, old in enumerate(olds)
                if not self.attributes or attributes.relation(new, old) is None
            ]
            crowded = derived or len(left) > 1
            chosen = nearest_of(new, [olds[i] for i in left]) if len(left) > 1 else None
            if chosen is not None:
                allowed = {left[j] for j in chosen}
        return [
            self.decide(new, old, model=allowed is None or i in allowed, crowded=crowded)
            for i, old in enumerate(olds)
        ]

    def decide(
        self, new: str, old: str, *, model: bool = True, crowded: bool = False
    ) -> tuple[Action | None, PairVerdict]:
        """What this policy does to ``old`` when ``new`` is written: supersede, flag or nothing
        (``model=False``: without the pair model, as for a candidate it does not judge;
        ``crowded``: one of several candidates left to it)."""
        if self.attributes:
            relation = attributes.relation(new, old)
            if relation is not None:
                reading = attributes.read(new)
                what = reading.attribute if reading is not None else "attribute"
                if relation != "supersedes":
                    return None, PairVerdict(relation, 1.0, f"{relation} ({what})")  # type: ignore[arg-type]
                verdict = PairVerdict("contradiction", 1.0, f"same {what}, a new value")
                return ("flag" if self.mode == "flag" else "supersede"), verdict
        if self.pairs is not None:
            if not model:
                action, reason = None, ""
            elif crowded:
                action, reason = self.pairs.decide(new, old, crowded=True)
            else:
                action, reason = self.pairs.decide(new, old)
            if action is not None:
                verdict = PairVerdict("contradiction", _probability(reason), reason)
                return ("flag" if self.mode == "flag" else action), verdict
        elif self.classifier is not None:
            rn, ro = attributes.read(new), attributes.read(old)
            if rn is None or ro is None:  # both read and still unclear: the rules' flag stands
                action, reason = self.classifier.decide(
                    new,
                    old,
                    new_attr=rn.attribute if rn is not None else None,
                    old_attr=ro.attribute if ro is not None else None,
                )
                if action is not None:
                    verdict = PairVerdict("contradiction", 1.0, reason)
                    return ("flag" if self.mode == "flag" else action), verdict
        verdict = self.detector.compare(new, old)
        if verdict.label != "contradiction":
            return None, verdict
        return ("supersede" if self.mode == "supersede" else "flag"), verdict


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """Threads for the candidates' vector search (SQLite and numpy release the GIL)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            # threads start on demand; enough that concurrent requests (a server's) do not queue here
            _POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="remnant-neighbours")
        return _POOL


PAIR_MODEL = "pair model"


def _probability(reason: str) -> float:
    """The pair model's probability from its reason ("pair model p=0.93"), 1.0 when absent."""
    m = re.search(r"p=([0-9.]+)", reason)
    return float(m.group(1)) if m else 1.0


def one_model_supersession(
    found: list[tuple[MemoryRecord, PairVerdict, Action]], margin: float = 0.0
) -> list[tuple[MemoryRecord, PairVerdict, Action]]:
    """At most one memory superseded on the pair model's word alone per write: the likeliest, and
    only when no other candidate the model also picked (to supersede or to flag) comes within
    ``margin`` of its probability; the others, or all when it is that close, are flagged. A write
    states one change; the model, unlike the rules, does not name the attribute, so two candidates
    it finds about as likely say it is unsure which (a user with many facts meets many candidates)."""
    by_model = [f for f in found if f[1].reason.startswith(PAIR_MODEL)]
    sure = [f for f in by_model if f[2] == "supersede"]
    if not sure or (len(sure) < 2 and len(by_model) < 2):
        return found
    ranked = sorted(by_model, key=lambda f: -f[1].similarity)
    best = ranked[0]
    keep = best[2] == "supersede" and best[1].similarity - ranked[1][1].similarity >= margin
    demoted = {f[0].id for f in sure} - ({best[0].id} if keep else set())
    return [(old, v, "flag" if old.id in demoted else a) for old, v, a in found]


def _candidate_ids(
    ledger: Ledger, record: MemoryRecord, policy: ContradictionPolicy, flt: MemoryFilter
) -> list[str]:
    """At most ``policy.candidates`` ids, in turn from each source (see :class:`ContradictionPolicy`)."""
    sources: list[list[str]] = []
    retriever = ledger.retriever
    near: Future[list[tuple[str, float]]] | None = None
    # a retriever without a model has no vectors to search: no thread for an empty answer
    nearest = (
        policy.neighbours
        and isinstance(retriever, NeighbourSource)
        and getattr(retriever, "model_id", "") is not None
    )
    if nearest and not ledger.store.holds_lock():
        # the vector search runs beside the keyword searches (outside a transaction only: one
        # sees its own uncommitted rows on its own thread); the sources' order is kept below
        assert isinstance(retriever, NeighbourSource)
        ctx = contextvars.copy_context()
        near = _pool().submit(ctx.run, retriever.neighbours, ledger, record.content, flt, policy.neighbours)
    try:
        match = fts_match(record.content)
        if match is not None:
            sources.append(
                [i for i, _ in ledger.store.lexical_candidates(match, flt, limit=policy.candidates)]
            )
        reading = attributes.read(record.content) if policy.attributes else None
        attribute = reading.attribute if reading is not None else None
        if attribute is None and policy.classifier is not None:
            guess = policy.classifier.classify(record.content)
            attribute = guess[0] if guess is not None else None
        if attribute is not None:
            cue = fts_match(" ".join(attributes.cue_words(attribute)))
            if cue is not None:
                found = ledger.store.lexical_candidates(cue, flt, limit=policy.candidates)
                sources.append([i for i, _ in found])
    except BaseException:
        if near is not None:
            wait([near])
        raise
    near_ids: list[str] = []
    if near is not None:
        near_ids = [i for i, _ in near.result()]
    elif nearest:
        assert isinstance(retriever, NeighbourSource)
        near_ids = [i for i, _ in retriever.neighbours(ledger, record.content, flt, policy.neighbours)]
    if nearest:
        sources.append(near_ids)
    if policy.pairs is not None and policy.neighbours and not near_ids:
        # no vectors to search: the pair model compares by meaning with the user's latest facts
        sources.append([r.id for r in ledger.store.query(flt, order="-created_at", limit=policy.neighbours)])
    out: list[str] = []
    seen = {record.id}
    for row in range(max((len(s) for s in sources), default=0)):
        for source in sources:
            if row < len(source) and source[row] not in seen:
                seen.add(source[row])
                out.append(source[row])
    return out[: policy.candidates]


def judge_on_write(
    ledger: Ledger, record: MemoryRecord, policy: ContradictionPolicy
) -> list[tuple[MemoryRecord, PairVerdict, Action]]:
    """The user's active unkeyed memories ``record`` likely contradicts, with what to do to each."""
    if policy.mode == "off" or record.key is not None or record.kind not in policy.kinds:
        return []
    if len(record.content) > policy.max_chars:
        return []  # a document, not a statement: nothing to compare word by word (bounded work)
    flt = MemoryFilter(
        tenant=ledger.tenant,
        user_id=record.user_id,
        agent_id=record.agent_id,
        kinds=policy.kinds,
        statuses=(Status.ACTIVE,),
    )
    ids = _candidate_ids(ledger, record, policy, flt)
    if not ids:
        return []
    olds = [
        old
        for old in ledger.store.get_many(ids, tenant=ledger.tenant)
        if old.id != record.id
        and old.key is None
        and old.status == Status.ACTIVE
        and len(old.content) <= policy.max_chars
    ]
    decided = policy.decide_many(record.content, [old.content for old in olds], derived=_derived(record))
    return [
        (old, verdict, action)
        for old, (action, verdict) in zip(olds, decided, strict=True)
        if action is not None
    ]


def find_contradictions(
    ledger: Ledger, record: MemoryRecord, policy: ContradictionPolicy
) -> list[tuple[MemoryRecord, PairVerdict]]:
    """The user's active unkeyed memories that ``record`` likely contradicts (flagged or superseded)."""
    return [(old, verdict) for old, verdict, _ in judge_on_write(ledger, record, policy)]


#: the most ``contradicted_by`` ids an old memory keeps (the newest): a memory many later writes
#: contradict must not grow its row on every write without bound; the audit log keeps every flag.
#: A write's own ``contradicts`` is bounded by the check's candidate budget and kept whole.
MAX_FLAG_IDS = 16


def _flag(ledger: Ledger, record: MemoryRecord, found: list[tuple[MemoryRecord, PairVerdict]]) -> list[str]:
    ids = [old.id for old, _ in found]
    record.metadata["contradicts"] = [*record.metadata.get("contradicts", []), *ids]
    # lock, then re-read: another writer may have flagged or reinforced them since the search
    olds = ledger.store.locked_rows(sorted(ids), tenant=ledger.tenant)
    for old in olds:
        prior = old.metadata.get("contradicted_by")
        old.metadata["contradicted_by"] = [*(prior if isinstance(prior, list) else []), record.id][
            -MAX_FLAG_IDS:
        ]
    ledger.save_many(olds)  # one batch, not a statement a flagged memory
    ledger.audit(
        "flag_contradiction",
        f"likely contradicted by {record.id}",
        [old for old, _ in found],
        user_id=record.user_id,
        policy="contradiction",
        details={"reasons": sorted({v.reason for _, v in found}), "new_id": record.id},
    )
    return ids


def _supersede(
    ledger: Ledger, record: MemoryRecord, found: list[tuple[MemoryRecord, PairVerdict]]
) -> list[str]:
    ids = [old.id for old, _ in found]
    changed = ledger.set_status(
        MemoryFilter(tenant=ledger.tenant, ids=tuple(ids), statuses=(Status.ACTIVE,)),
        Status.SUPERSEDED,
        reason=f"likely contradicted by {record.id}",
        at=ledger.now().timestamp(),
        superseded_by=record.id,
        close_validity=True,
    )
    done = [c[0] for c in changed]
    if done:
        record.metadata["supersedes"] = done
        ledger.audit(
            "supersede",
            f"likely contradicted by newer memory {record.id}",
            [old for old, _ in found if old.id in done],
            user_id=record.user_id,
            policy="contradiction",
            details={"reasons": sorted({v.reason for _, v in found}), "new_id": record.id},
        )
    return done


def resolve_on_write(ledger: Ledger, record: MemoryRecord, policy: ContradictionPolicy) -> list[str]:
    """Apply the policy for a memory about to be inserted (inside the engine's write transaction);
    returns the ids flagged or superseded."""
    return apply_on_write(ledger, record, judge_on_write(ledger, record, policy), policy)


def apply_on_write(
    ledger: Ledger,
    record: MemoryRecord,
    found: list[tuple[MemoryRecord, PairVerdict, Action]],
    policy: ContradictionPolicy | None = None,
) -> list[str]:
    """Flag or supersede what the check found (inside the write transaction); returns the ids."""
    if policy is not None and any(v.reason.startswith(PAIR_MODEL) for _, v, _ in found):
        found = one_model_supersession(found, policy.pair_margin())
    else:
        found = one_model_supersession(found)
    flagged = [(old, v) for old, v, action in found if action == "flag"]
    retired = [(old, v) for old, v, action in found if action == "supersede"]
    out: list[str] = []
    if flagged:
        out += _flag(ledger, record, flagged)
    if retired:
        out += _supersede(ledger, record, retired)
    return out


# -- judging before the write lock -------------------------------------------------------------------
#: at most this many memories written between the early judgement and the lock are judged under
#: it; more (a bulk load racing the write) and the whole check runs again under the lock
MAX_LATE_WRITES = 64
_LOCAL = threading.local()


@dataclass(eq=False)
class EarlyJudgement:
    """A write judged before the lock: the store's write mark when it started, and each candidate
    with the text it was judged on and the decision."""

    policy_id: int
    user_id: str
    agent_id: str | None
    kind: Kind
    text: str
    mark: int
    judged: dict[str, tuple[str, Action | None, PairVerdict]]


def _derived(record: MemoryRecord) -> bool:
    """A consolidated fact: it restates turns said earlier (``metadata["derived_from"]``)."""
    return bool(record.metadata.get("derived_from"))


def _pending_list() -> list[EarlyJudgement]:
    pending: list[EarlyJudgement] | None = getattr(_LOCAL, "pending", None)
    if pending is None:
        pending = _LOCAL.pending = []
    return pending


def _has_pending(policy: ContradictionPolicy, record: MemoryRecord) -> bool:
    return any(_same_write(e, policy, record) for e in _pending_list())


def _same_write(e: EarlyJudgement, policy: ContradictionPolicy, record: MemoryRecord) -> bool:
    return (
        e.policy_id == id(policy)
        and e.text == record.content
        and e.user_id == record.user_id
        and e.agent_id == record.agent_id
        and e.kind == record.kind
    )


def _take_pending(policy: ContradictionPolicy, record: MemoryRecord) -> EarlyJudgement | None:
    pending = _pending_list()
    for i, e in enumerate(pending):
        if _same_write(e, policy, record):
            return pending.pop(i)
    return None


def _scope(ledger: Ledger, user_id: str, agent_id: str | None, policy: ContradictionPolicy) -> MemoryFilter:
    return MemoryFilter(
        tenant=ledger.tenant,
        user_id=user_id,
        agent_id=agent_id,
        kinds=policy.kinds,
        statuses=(Status.ACTIVE,),
    )


def prejudge(
    ledger: Ledger, text: str | None, user_id: str, opts: Mapping[str, object], policy: ContradictionPolicy
) -> EarlyJudgement | None:
    """The check of one write, before the lock (``None``: nothing to judge, or it must run under it)."""
    if policy.mode == "off" or text is None or opts.get("key") is not None or ledger.store.in_transaction():
        return None
    try:
        kind = Kind.parse(opts.get("kind", Kind.FACT))  # type: ignore[arg-type]
    except Exception:
        return None
    agent = opts.get("agent_id")
    if kind not in policy.kinds or len(text) > policy.max_chars or not isinstance(user_id, str):
        return None
    if agent is not None and not isinstance(agent, str):
        return None
    mark = ledger.store.write_mark()
    if mark is None:
        return None  # the store cannot tell what was written meanwhile: judge under the lock
    probe = MemoryRecord(
        id="", user_id=user_id, content=text, kind=kind, tenant=ledger.tenant, agent_id=agent
    )
    flt = _scope(ledger, user_id, agent, policy)
    judged: dict[str, tuple[str, Action | None, PairVerdict]] = {}
    ids = _candidate_ids(ledger, probe, policy, flt)
    olds = [
        old
        for old in (ledger.store.get_many(ids, tenant=ledger.tenant) if ids else [])
        if old.key is None and old.status == Status.ACTIVE and len(old.content) <= policy.max_chars
    ]
    for old, (action, verdict) in zip(olds, policy.decide_many(text, [o.content for o in olds]), strict=True):
        judged[old.id] = (old.content, action, verdict)
    return EarlyJudgement(id(policy), user_id, agent, kind, text, mark, judged)


def revalidate(
    ledger: Ledger, record: MemoryRecord, policy: ContradictionPolicy, early: EarlyJudgement
) -> list[tuple[MemoryRecord, PairVerdict, Action]] | None:
    """Under the write lock: the early judgement brought up to date, or ``None`` to judge afresh.

    Each judged candidate is read again by id: one no longer active (another write superseded or
    forgot it meanwhile) is dropped, one whose text changed is judged again. Memories written to the
    scope since the early judgement's mark (a racing write, or an earlier item of the same batch) are
    judged too, so a write that lands first is seen as it would be by a check under the lock."""
    late = ledger.store.written_since(
        _scope(ledger, record.user_id, record.agent_id, policy), early.mark, limit=MAX_LATE_WRITES + 1
    )
    if len(late) > MAX_LATE_WRITES:
        return None
    found: list[tuple[MemoryRecord, PairVerdict, Action]] = []
    current = ledger.store.get_many(list(early.judged), tenant=ledger.tenant) if early.judged else []
    seen = {record.id}
    fresh: list[MemoryRecord] = []
    for old in [*current, *late]:
        if old.id in seen:
            continue
        seen.add(old.id)
        if old.key is not None or old.status != Status.ACTIVE or len(old.content) > policy.max_chars:
            continue
        judged = early.judged.get(old.id)
        if judged is not None and judged[0] == old.content:
            if judged[1] is not None:
                found.append((old, judged[2], judged[1]))
        else:
            fresh.append(old)
    # the late or changed ones are judged among themselves (the early ones' ranking stands)
    for old, (action, verdict) in zip(
        fresh,
        policy.decide_many(record.content, [o.content for o in fresh], derived=_derived(record)),
        strict=True,
    ):
        if action is not None:
            found.append((old, verdict, action))
    return found
