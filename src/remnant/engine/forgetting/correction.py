"""The correction policy: a turn that corrects a value makes the corrected value current.

The ingestor's correction reader (:class:`~remnant.engine.options.CorrectionReading`, in the
product :mod:`remnant.extract.corrections`) names the recent memory that stated the wrong value;
this module writes what follows, through the ledger:

- the corrected statement, a fact: the wrong memory's text with the corrected value in place of
  the wrong one, its key when it had one (so it supersedes it by key, and e's stale-turn step
  retires the turn that stated it), ``metadata["corrects"]`` the wrong memory's id and
  ``from_episode`` the correcting turn;
- the wrong memory superseded (``superseded_by`` the corrected fact, policy ``correction``) when
  its key did not already do it, and the turns and copies that stated it with it (a turn that
  says the wrong value in so many words even when it carries other claims: those are facts of
  their own and stay, the turn would offer the wrong value beside the correction);
- the correcting turn superseded by the corrected fact when it says nothing else (the reader's
  ``Correction.only``): it would offer the wrong value again;
- one audit entry, action ``correct`` (ids only, never a value).

A correction of a correction is the same step again: the memory corrected is then the earlier
corrected fact. What is read is bounded: :data:`RECENT_LIMIT` memories of the last
:data:`RECENT_WINDOW`, on the (user, created_at) index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from remnant.core.model import Kind, MemoryRecord, Status
from remnant.core.text import CJK_CLASS, PLACEHOLDER
from remnant.engine.ledger import CONSOLIDATED_INTO, Ledger, provenance
from remnant.engine.options import Correction, CorrectionReading, WriteOptions
from remnant.engine.seams import vault_of

#: how many of the user's newest memories a correction is read against, and how far back
RECENT_LIMIT = 20
RECENT_WINDOW = timedelta(days=7)
CORRECTS = "corrects"  # metadata key: the memory a corrected fact replaces
_LIVE = (Status.ACTIVE, Status.FADED)
_CJK = re.compile(f"[{CJK_CLASS}]+")


def recent_memories(ledger: Ledger, user_id: str, agent_id: str | None) -> list[MemoryRecord]:
    """The user's newest active turns and facts, newest first (what a correction may correct)."""
    flt = ledger.filter(
        user_id,
        agent_id=agent_id,
        kinds=(Kind.EPISODE, Kind.FACT, Kind.PREFERENCE),
        created_after=(ledger.now() - RECENT_WINDOW).timestamp(),
    )
    return ledger.store.query(flt, order="-created_at", limit=RECENT_LIMIT)


def plain(ledger: Ledger, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The records as the user said them: with the privacy layer on, copies whose placeholders
    ([PHONE_1]) hold the vault's originals again, so "typo, it's 0421 not 0412" finds the 0412 it
    corrects. In process memory only, for this write: the corrected fact is redacted again when it
    is built, and nothing plain is stored, logged or audited. As given without a vault."""
    vault = vault_of(ledger.redactor)
    if vault is None or not any(PLACEHOLDER.search(r.content) for r in records):
        return list(records)
    out = []
    for r in records:
        if PLACEHOLDER.search(r.content):
            r = r.copy()
            r.content = vault.rehydrate(r.content, ledger.tenant, r.user_id)
        out.append(r)
    return out


def read_correction(
    ledger: Ledger, reader: object, text: str, *, user_id: str, agent_id: str | None
) -> tuple[MemoryRecord, str, WriteOptions, bool] | None:
    """The memory a user turn corrects, the corrected fact's content and options, and whether the
    turn says nothing but the correction; None when the ingestor reads no corrections or the turn
    corrects nothing (the cheap test first, so an ordinary turn reads no memory)."""
    if not isinstance(reader, CorrectionReading) or not reader.might_correct(text):
        return None
    recent = plain(ledger, recent_memories(ledger, user_id, agent_id))
    if not recent:
        return None
    fix = reader.read_correction(text, recent)
    wrong = next((r for r in recent if fix is not None and r.id == fix.memory_id), None)
    if fix is None or wrong is None:
        return None
    # the corrected fact is built from the plain text: the ledger redacts it like any write
    statement = corrected_statement(wrong, fix)
    return (wrong, *statement, fix.only) if statement is not None else None


def corrected_statement(wrong: MemoryRecord, fix: Correction) -> tuple[str, WriteOptions] | None:
    """The corrected fact's content and options (without scope and provenance), or None when the
    span does not fit the memory."""
    start, end = fix.wrong
    right = fix.right.strip()
    if not (0 <= start < end <= len(wrong.content)) or not right:
        return None
    # the corrected value may repeat the words around the wrong one (是对芒果过敏 for the 花生 of
    # 我对花生过敏): those words are the memory's already, not said twice (CJK words only: a
    # digit or a Latin letter next to the value is part of another word)
    after = wrong.content[end:]
    for n in range(min(len(right) - 1, len(after)), 0, -1):
        if right.endswith(after[:n]) and _CJK.fullmatch(after[:n]):
            end += n
            break
    before = wrong.content[:start]
    for n in range(min(len(right) - 1, len(before)), 0, -1):
        if right.startswith(before[-n:]) and _CJK.fullmatch(before[-n:]):
            start -= n
            break
    old = wrong.content[start:end]
    if old[:1].isupper() and right[:1].islower():  # "Thursday" → "Tuesday", as the memory wrote it
        right = right[:1].upper() + right[1:]
    content = wrong.content[:start] + right + wrong.content[end:]
    if content == wrong.content:
        return None
    kind = wrong.kind if wrong.kind in (Kind.FACT, Kind.PREFERENCE) else Kind.FACT
    options: WriteOptions = {
        "kind": kind,
        "key": wrong.key,
        "importance": max(wrong.importance, 0.6),
        "confidence": round(min(wrong.confidence, fix.confidence), 4),
        "source": "extract:correction",
    }
    return content, options


def wrong_value(wrong: str, corrected: str) -> str:
    """What ``corrected`` replaced in ``wrong``: the middle the two texts do not share ("9月12号"
    of "生日是9月12号" → "生日是9月21号" is "12"), empty when one holds the other."""
    head = 0
    while head < min(len(wrong), len(corrected)) and wrong[head] == corrected[head]:
        head += 1
    tail = 0
    while tail < min(len(wrong), len(corrected)) - head and wrong[-1 - tail] == corrected[-1 - tail]:
        tail += 1
    return wrong[head : len(wrong) - tail].strip()


def apply_correction(
    ledger: Ledger, wrong_id: str, by: MemoryRecord, *, at: datetime, turn: str | None = None
) -> list[str]:
    """Supersede what stated the wrong value (unless its key already did), audit the correction.
    ``turn``: the correcting turn, when it says nothing but the correction ("I meant Tuesday not
    Thursday"): the corrected fact states what it meant, and the turn itself would offer the wrong
    value again, so it is superseded by the fact too (``history(turns=True)`` still lists it).
    Returns the ids superseded here."""
    found = ledger.store.get_many([wrong_id], tenant=ledger.tenant)
    if not found:
        return []
    wrong, shown = found[0], plain(ledger, [found[0], by])
    own = {by.id, *provenance(by)}
    retire: list[str] = []
    if wrong.status in _LIVE:
        retire.append(wrong.id)
    # the turn that stated it (when every claim it carried is now replaced) and its consolidated copy
    claims = {wrong.id}
    sources = [s for s in provenance(wrong) if s not in own]
    # read as said: two placeholders ([PHONE_1], [PHONE_2]) differ in a digit no turn states
    stated = wrong_value(shown[0].content, shown[1].content)
    live_sources = [s for s in ledger.store.get_many(sources, tenant=ledger.tenant) if s.status in _LIVE]
    for source, said in zip(live_sources, plain(ledger, live_sources), strict=True):
        if stated and stated in said.content:
            # the turn says the wrong value in so many words: it would offer it again beside the
            # correction; its other claims are facts of their own and stay
            retire.append(source.id)
            continue
        if wrong.key is not None:
            continue  # a keyed value's turn was retired by the key's supersession (stale turns)
        others = [f for f in (source.metadata.get("facts") or []) if isinstance(f, str) and f not in claims]
        live = [r for r in ledger.store.get_many(others, tenant=ledger.tenant) if r.status == Status.ACTIVE]
        if not live:
            retire.append(source.id)
    if turn is not None and turn != wrong.id:
        retire.append(turn)
    copy = wrong.metadata.get(CONSOLIDATED_INTO)
    if isinstance(copy, str) and copy not in own:
        retire.append(copy)
    done: list[str] = []
    if retire:
        done = ledger.supersede_live(
            retire,
            by,
            f"corrected by {by.id}",
            policy="correction",
            summary="memories that stated a corrected value superseded",
            at=at,
            status_reason=f"corrected by {by.id}",
        )
    ledger.audit(
        "correct",
        f"{by.id} corrects a value {wrong.id} stated",
        ids=[wrong.id, by.id],
        user_id=wrong.user_id,
        policy="correction",
        summary="a corrected value written, the wrong one superseded",
        details={CORRECTS: wrong.id, "by": by.id},
    )
    return done
