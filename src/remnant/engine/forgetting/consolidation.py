"""Consolidation before fading: what a salient conversation turn carried outlives the turn.

Episodes decay in days (their kind's base stability is 3 days); that is right for the words of a
conversation and wrong for what they said about the user. So each sweep, before it marks anything
faded, looks at the episodes that will cross the recall threshold within ``horizon`` (a set-based
query on the indexed fade time, so nothing loops over the table) and, for those whose importance
(the ingestor's salience) is at least ``min_importance``, writes a **fact** with what the turn said
that lasts (already redacted), the episode's importance and a lower confidence, with provenance
(``metadata.derived_from``) and an audit entry (``consolidate``). What lasts is the ingestor's
reading (:class:`~remnant.engine.options.LastingReader`, done for all the due turns before any row
lock): the turn's clauses without those whose period or end point, read from when the turn was
said, ends within ``horizon`` (a code "this weekend only", a room "till thursday"), without
questions to the assistant and filler; the whole text when every clause lasts; nothing when none
does (the turn just fades). The fact goes through the normal
write path, so it supersedes or is flagged against what the user said before. Filler, which the
ingestor scored low, is not consolidated and simply fades: the way sleep keeps the gist and drops
the noise.

A turn whose facts were extracted when it was written is skipped only when those facts carry it
(:data:`CARRIED`: at least four fifths of its words are in the text of those that last). A fact that keeps a part of the
turn ("User: he's 12" from "my son's called Kieran btw, he's 12"; a reminder drawn from "I'm
allergic to penicillin, remind me to tell the doctor") must not cost the rest of it when the turn
fades (docs/retrieval.md, "Relevance floor").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from remnant.core import decay as dk
from remnant.core.model import Kind, MemoryRecord, Status
from remnant.core.text import query_terms
from remnant.engine.ledger import Ledger, by_user
from remnant.engine.options import Lasting, LastingReader
from remnant.engine.results import SweepStep
from remnant.store.base import MemoryFilter

CONSOLIDATED = "consolidated_into"  # episode metadata: the fact it became
# The share of a turn's words its extracted facts must hold for the turn to need no consolidated
# copy of its own (below it the facts kept a part: an age without the name, a reminder without
# the allergy). 0.8 against 0.5 on the development timelines: 71 cases against 69 with the
# relevance floor, salience 25/30 against 22 (docs/benchmarks/understanding.md).
CARRIED = 0.8


@dataclass(frozen=True)
class ConsolidationPolicy:
    """Which fading episodes become facts. ``min_importance`` 0.5 is the ingestor's salience above
    which a turn is worth keeping (see :mod:`remnant.extract.salience`); ``horizon`` must exceed the
    sweep interval so no salient episode fades between two sweeps."""

    enabled: bool = True
    min_importance: float = 0.5
    horizon: timedelta = timedelta(days=2)
    confidence: float = 0.8  # below a user-stated fact's 1.0: it was inferred from a turn
    batch: int = 5000
    # keep what the turn said that lasts, clause by clause, not a copy of it (the ingestor's
    # LastingReader; without one, or False, the turn's text as it is)
    clauses: bool = True
    # the learned expiry reader judges each clause too (when its weights load), even while it is
    # off at write time (REMNANT_EXPIRY_READER)
    expiry_reader: bool = False


def _due(ledger: Ledger, policy: ConsolidationPolicy) -> tuple[list[MemoryRecord], dict[str, list[str]]]:
    horizon_days = policy.horizon.total_seconds() / dk.SECONDS_PER_DAY
    base = MemoryFilter(
        tenant=ledger.tenant,
        kinds=(Kind.EPISODE,),
        now=ledger.now().timestamp(),  # an expired one-time code is not worth keeping
    )
    filters = ledger.fading_filters(base, within_days=horizon_days)
    out: list[MemoryRecord] = []
    for flt in filters:
        for r in ledger.store.query(flt, limit=policy.batch):
            if (
                r.importance >= policy.min_importance
                and CONSOLIDATED not in r.metadata
                and r.metadata.get("role", "user") == "user"
            ):
                out.append(r)
    return _not_carried(ledger, out, policy.min_importance)


def _not_carried(
    ledger: Ledger, episodes: list[MemoryRecord], bar: float
) -> tuple[list[MemoryRecord], dict[str, list[str]]]:
    """The episodes whose extracted facts (``metadata["facts"]``, read in one batch) do not carry
    them: none were extracted, they are gone, or those that last (importance at least ``bar``, the
    consolidation bar: a fact under it fades like filler) hold under :data:`CARRIED` of its words;
    with the texts of each one's lasting facts (what is kept of it is checked against them too)."""
    wanted = [str(i) for r in episodes for i in (r.metadata.get("facts") or []) if isinstance(i, str)]
    lasting = (
        {
            f.id: f.content
            for f in ledger.store.get_many(wanted, tenant=ledger.tenant)
            if f.status == Status.ACTIVE and (f.pinned or f.importance >= bar)
        }
        if wanted
        else {}
    )
    facts = {r.id: [lasting[i] for i in r.metadata.get("facts") or [] if i in lasting] for r in episodes}
    return [r for r in episodes if not carried(r.content, facts[r.id])], facts


def carried(turn: str, facts: list[str]) -> bool:
    """Whether ``facts`` hold at least :data:`CARRIED` of the words of ``turn`` (stop words aside;
    Chinese as character bigrams)."""
    if not facts:
        return False
    words = query_terms(turn)
    if not words:
        return True
    held = set(query_terms(" ".join(facts), drop_stopwords=False))
    return sum(w in held for w in words) >= CARRIED * len(words)


def _lasting(
    ledger: Ledger, policy: ConsolidationPolicy, due: Sequence[MemoryRecord], reader: LastingReader | None
) -> dict[str, Lasting]:
    """What of each due turn lasts past the horizon, read from when it was said (the reader's
    models embed every turn's clauses in one batch, before any lock); without a reader, all of it."""
    if reader is None or not policy.clauses or not due:
        return {r.id: Lasting(r.content) for r in due}
    now = ledger.now()
    turns: list[tuple[str, datetime]] = [(r.content, r.occurred_at or r.created_at or now) for r in due]
    got = reader.lasting_many(turns, now + policy.horizon, expiry_reader=policy.expiry_reader)
    return {r.id: lasting for r, lasting in zip(due, got, strict=True)}


def run_consolidation(
    ledger: Ledger,
    policy: ConsolidationPolicy,
    *,
    batch_id: str,
    dry_run: bool = False,
    reader: LastingReader | None = None,
) -> SweepStep:
    """Consolidate the salient episodes about to fade into what they said that lasts (``reader``:
    the ingestor's clause reading, :class:`~remnant.engine.options.LastingReader`); one audit entry
    per user."""
    due, facts = _due(ledger, policy)
    if dry_run or not due:
        return SweepStep("consolidate", "consolidation", len(due), [r.id for r in due])
    lasting = _lasting(ledger, policy, due, reader)
    # nothing lasting left: the turn just fades; what is left, its facts may hold ("the code is
    # 4471 this week only. I do pilates on tuesdays" split when it was written): no second copy
    due = [
        r
        for r in due
        if (text := lasting[r.id].text) and (text == r.content or not carried(text, facts[r.id]))
    ]
    read = {r.id: r.content for r in due}
    if not due:
        return SweepStep("consolidate", "consolidation", 0, [])
    made: list[str] = []
    done: list[MemoryRecord] = []
    with ledger.store.transaction():
        # lock, then re-read: a concurrent sweep may have consolidated some of them meanwhile
        for episode in ledger.store.locked_rows([r.id for r in due], tenant=ledger.tenant):
            if CONSOLIDATED in episode.metadata or episode.status != Status.ACTIVE:
                continue
            if episode.content != read[episode.id]:
                continue  # rewritten since it was read (a correction): the next sweep reads it again
            kept = lasting[episode.id]
            whole = kept.text == episode.content
            meta: dict[str, Any] = {"derived_from": [episode.id]}
            if not whole:
                meta["clauses_left_out"] = list(kept.dropped)  # why, never what: the words went
            fact = ledger.build(
                kept.text,
                user_id=episode.user_id,
                options={
                    "kind": Kind.FACT,
                    "importance": episode.importance,
                    "confidence": policy.confidence,
                    "source": "consolidation",
                    "agent_id": episode.agent_id,
                    "session_id": episode.session_id,
                    "metadata": meta,
                    # said when the turn was, not when it faded: "forget what I told you today" must
                    # not take a month-old turn consolidated this morning
                    "occurred_at": episode.occurred_at or episode.created_at,
                    # a turn said to hold for a while (a code, a stay) makes a fact that ends with it
                    # (kept whole); the clauses kept end with the period said of them, if any
                    "expires_at": episode.expires_at if whole else kept.ends_at,
                    "redact": False,  # the episode's text was redacted when it was written
                },
            )
            ledger.insert([fact])
            made.append(fact.id)
            done.append(episode)
        # the episodes' links in one batch; read again (still locked) since a fact's write hooks may
        # have changed one of them meanwhile (a contradiction policy that checks episodes flags them)
        into = dict(zip((r.id for r in done), made, strict=True))
        linked = ledger.store.get_many(list(into), tenant=ledger.tenant) if into else []
        for episode in linked:
            episode.metadata[CONSOLIDATED] = into[episode.id]
        ledger.save_many(linked)
        for user, episodes in by_user(done).items():
            ledger.audit(
                "consolidate",
                "salient episodes about to fade became facts",
                episodes,
                user_id=user,
                policy="consolidation",
                batch_id=batch_id,
                summary=f"{len(episodes)} episodes consolidated into facts",
            )
    return SweepStep("consolidate", "consolidation", len(made), made)
