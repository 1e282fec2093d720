"""Consolidation before fading: what a salient conversation turn carried outlives the turn.

Episodes decay in days (their kind's base stability is 3 days); that is right for the words of a
conversation and wrong for what they said about the user. So each sweep, before it marks anything
faded, looks at the episodes that will cross the recall threshold within ``horizon`` (a set-based
query on the indexed fade time, so nothing loops over the table) and, for those whose importance
(the ingestor's salience) is at least ``min_importance``, writes a **fact** with the turn's text
(already redacted), the episode's importance and a lower confidence, with provenance
(``metadata.derived_from``) and an audit entry (``consolidate``). The fact goes through the normal
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

from dataclasses import dataclass
from datetime import timedelta

from remnant.core import decay as dk
from remnant.core.model import Kind, MemoryRecord, Status
from remnant.core.text import query_terms
from remnant.engine.ledger import Ledger, by_user
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


def _due(ledger: Ledger, policy: ConsolidationPolicy) -> list[MemoryRecord]:
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


def _not_carried(ledger: Ledger, episodes: list[MemoryRecord], bar: float) -> list[MemoryRecord]:
    """The episodes whose extracted facts (``metadata["facts"]``, read in one batch) do not carry
    them: none were extracted, they are gone, or those that last (importance at least ``bar``, the
    consolidation bar: a fact under it fades like filler) hold under :data:`CARRIED` of its words."""
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
    return [
        r
        for r in episodes
        if not carried(r.content, [lasting[i] for i in r.metadata.get("facts") or [] if i in lasting])
    ]


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


def run_consolidation(
    ledger: Ledger, policy: ConsolidationPolicy, *, batch_id: str, dry_run: bool = False
) -> SweepStep:
    """Consolidate the salient episodes about to fade; one audit entry per user."""
    due = _due(ledger, policy)
    if dry_run or not due:
        return SweepStep("consolidate", "consolidation", len(due), [r.id for r in due])
    made: list[str] = []
    done: list[MemoryRecord] = []
    with ledger.store.transaction():
        # lock, then re-read: a concurrent sweep may have consolidated some of them meanwhile
        for episode in ledger.store.locked_rows([r.id for r in due], tenant=ledger.tenant):
            if CONSOLIDATED in episode.metadata or episode.status != Status.ACTIVE:
                continue
            fact = ledger.build(
                episode.content,
                user_id=episode.user_id,
                options={
                    "kind": Kind.FACT,
                    "importance": episode.importance,
                    "confidence": policy.confidence,
                    "source": "consolidation",
                    "agent_id": episode.agent_id,
                    "session_id": episode.session_id,
                    "metadata": {"derived_from": [episode.id]},
                    # said when the turn was, not when it faded: "forget what I told you today" must
                    # not take a month-old turn consolidated this morning
                    "occurred_at": episode.occurred_at or episode.created_at,
                    # a turn said to hold for a while (a code, a stay) makes a fact that ends with it
                    "expires_at": episode.expires_at,
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
