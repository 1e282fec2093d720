"""Forget requests in natural language: "forget my phone number", "删除我的地址".

:func:`forget_request` parses the request into a :class:`ForgetIntent` (what: keys, kinds, PII
types, free text; hide or delete), finds the user's memories that match (by key, by kind, by the
privacy layer's placeholders such as ``[PHONE_1]`` in the content, by words), and hides or purges
them, all audited under one batch id. ``dry_run`` shows what would go. A request that would take
more than ``confirm_share`` of the user's memories needs ``confirm=True``. Rule-based, English and
Chinese; an LLM can parse instead through :class:`IntentParser` (the rules still do the matching);
beside the rules' targets (or where they find none), the learned forget-target matcher
(:mod:`remnant.understand.forget_model`, :func:`_learned`) may take a guess, hidden, never purged.
The reading (the intent, the match of one memory) is :mod:`remnant.understand.requests`; this module
is the policy: what is hidden, purged or rewritten, when to ask for confirmation, the audit.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from remnant.core.budget import checkpoint
from remnant.core.errors import ConfirmationRequired, ValidationError
from remnant.core.model import Kind, MemoryRecord, Status, check_identifier, new_id
from remnant.core.text import PLACEHOLDER, has_cjk
from remnant.embed.base import base_model_id
from remnant.engine.results import ForgetIntent, ForgetMatch, ForgetResult
from remnant.engine.seams import vault_of
from remnant.store.base import MemoryFilter
from remnant.understand import forget_model, lexicon
from remnant.understand.requests import (
    IntentParser,
    Matcher,
    MatchHit,
    by_names,
    core_request,
    has_content,
    literal_terms,
    narrow,
    parse_intent,
    redacted,
    relax_terms,
    story_turns,
)

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger


@dataclass(frozen=True)
class MeaningMatch:
    """The meaning match, for a request the rules find nothing for (issue 15): the memory whose
    stored vector is nearest the request's, when its cosine clears ``threshold`` and beats the
    next memory by ``margin``. Chosen by cross-validation over the dev sets' personas
    (docs/forgetting.md); ``threshold=None`` turns it off."""

    threshold: float | None = 0.90
    margin: float = 0.01
    max_matches: int = 1
    # below ``threshold``: the nearest memory is still taken when it clears ``tentative`` and leads
    # the next by ``tentative_margin``, but only hidden (restorable), never purged, and marked
    # ``tentative`` in the result; a guess must be undoable. ``None`` turns this tier off.
    tentative: float | None = 0.80
    tentative_margin: float = 0.02
    # cosines are not comparable across models: the threshold holds for these models only
    models: tuple[str, ...] = ("multilingual-e5-small-q4",)


DEFAULT_MEANING = MeaningMatch()


def _matcher(
    ledger: Ledger, intent: ForgetIntent, related: set[str], literal: set[str] | None = None
) -> Matcher:
    """The request's reader on this ledger: its clock, and the redactor's PII detector when it has one."""
    detect = getattr(ledger.redactor, "detect", None)
    return Matcher(intent, related, literal, clock=ledger.now, detect=detect if callable(detect) else None)


def _related(ledger: Ledger, text: str, flt: MemoryFilter) -> set[str]:
    """Ids the retriever ranks nearest the request: corroboration, never evidence on its own."""
    try:
        return {mid for mid, _ in ledger.retriever.search(ledger, text, flt, 3)}
    except Exception:  # a retriever that cannot answer (no model) only loses the extra signal
        return set()


_GUESS = re.compile(r"^meaning: ")
_GUESS_SAYS = "meaning: a guess, hidden not purged: "


def _by_meaning(
    ledger: Ledger, text: str, intent: ForgetIntent, flt: MemoryFilter, meaning: MeaningMatch | None
) -> list[tuple[MemoryRecord, MatchHit]]:
    """The memory nearest the request by the retriever's embedder, when it is clearly nearest."""
    if meaning is None or meaning.threshold is None:
        return []
    embedder = ledger.retriever.embedder
    model = embedder.model_id if embedder is not None else None
    if meaning.models and (not isinstance(model, str) or base_model_id(model) not in meaning.models):
        return []  # an embedder the threshold was not chosen for
    scores = meaning_scores(ledger, text, flt)
    if not scores:
        return []
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best, second = ranked[0][1], (ranked[1][1] if len(ranked) > 1 else -1.0)
    if best >= meaning.threshold and best - second >= meaning.margin:
        bar, tentative = meaning.threshold, False
    elif (
        meaning.tentative is not None
        and best >= meaning.tentative
        and best - second >= meaning.tentative_margin
    ):
        bar, tentative = meaning.tentative, True
    else:
        return []
    chosen = [mid for mid, sc in ranked[: meaning.max_matches] if sc >= bar]
    records = {r.id: r for r in ledger.store.get_many(chosen, tenant=ledger.tenant)}
    how = _GUESS_SAYS[len("meaning: ") :] if tentative else ""
    return [
        (
            records[mid],
            MatchHit(
                f"meaning: {how}nearest to the request (cosine {scores[mid]:.2f}, next {second:.2f})",
                [],
                tentative=tentative,
            ),
        )
        for mid in chosen
        if mid in records
    ]


def meaning_scores(ledger: Ledger, text: str, flt: MemoryFilter) -> dict[str, float]:
    """Cosine of the request (without its verb) to each of the user's stored memory vectors; empty
    without an embedder. Uses the vectors recall already stored: one model call per request."""
    embedder = ledger.retriever.embedder
    if embedder is None:
        return {}
    try:
        import numpy as np

        ids, mat = ledger.store.embeddings(flt, model=embedder.model_id)
        if not len(ids):
            return {}
        allowed = set(ledger.store.ids(flt))
        q = np.asarray(embedder.embed_query(core_request(text)), dtype=np.float32)
        m = np.asarray(mat, dtype=np.float32)
        sims = m @ q / (np.linalg.norm(m, axis=1) * float(np.linalg.norm(q)) + 1e-9)
        return {mid: float(sc) for mid, sc in zip(ids, sims, strict=True) if mid in allowed}
    except Exception:  # no vectors, a model mismatch: the rules' answer stands
        return {}


def _learned(
    ledger: Ledger,
    text: str,
    intent: ForgetIntent,
    flt: MemoryFilter,
    records: list[MemoryRecord],
    found: list[tuple[MemoryRecord, MatchHit]],
    *,
    keeps: Callable[[str], bool] | None = None,
) -> tuple[list[tuple[MemoryRecord, MatchHit]], set[str]]:
    """The learned forget-target matcher (:mod:`remnant.understand.forget_model`): memories it
    takes that the rules did not (where they found nothing, or always, as its weights say), and the
    rule picks it vetoes. It judges the ``candidates`` memories nearest the request by their stored
    vectors (no memory is embedded again; one model call for the request) and the rules' picks.
    Beside the rules' picks, a memory holding what the request keeps (``keeps``: "…, keep the pe
    kit thing") is never a guess.
    Without an embedder, stored vectors or weights for the model: nothing, the rules decide."""
    embedder = ledger.retriever.embedder
    if embedder is None or not records:
        return [], set()
    weights = forget_model.load_weights(base_model_id(embedder.model_id))
    if weights is None or (found and not weights.union and weights.veto is None):
        return [], set()
    try:
        import numpy as np

        ids, mat = ledger.store.embeddings(flt, model=embedder.model_id)
        if not len(ids):
            return [], set()
        by_id = {r.id: r for r in records}
        core = core_request(text)
        # the model's own vectors: a stored context pair's first half (remnant.retrieval.passages)
        q = weights.own(embedder.embed_query(core))[0]
        m = weights.own(mat)
        sims = m @ q / (np.linalg.norm(m, axis=1) * float(np.linalg.norm(q)) + 1e-12)
        cosines = {mid: float(sc) for mid, sc in zip(ids, sims, strict=True) if mid in by_id}
        rows = {mid: i for i, mid in enumerate(ids)}
        hits = {r.id: h for r, h in found}
        chosen = list(dict.fromkeys(forget_model.nearest(cosines, weights.candidates) + list(hits)))
        cand = [by_id[mid] for mid in chosen if mid in by_id and mid in rows]
        vectors = {r.id: m[rows[r.id]] for r in cand}
        probs = forget_model.score(weights, core, intent, q, cand, vectors, hits, cosines, len(records))
    except Exception:  # no vectors, a model mismatch: the rules' answer stands
        return [], set()
    vetoed: set[str] = set()
    if weights.veto is not None and weights.veto_at is not None:
        for record, hit in found:
            p = probs.get(record.id)
            unsure = _word_only(hit) if weights.veto == "word_only" else not _by_value(hit)
            if p is not None and unsure and p < weights.veto_at:
                vetoed.add(record.id)
    added: list[tuple[MemoryRecord, MatchHit]] = []
    # where the rules' reading is exact (a type of personal data the detectors find nowhere, a time
    # scope, everything, a kind) there is nothing to guess beside it: a guess could only be wrong
    if (weights.union or not found) and not forget_model.guarded(intent):
        near = forget_model.nearest(cosines, weights.candidates)
        top = max((probs.get(mid, 0.0) for mid in near), default=0.0)
        for mid in near:
            p = probs.get(mid)
            if p is None or mid in hits or p < weights.add_at:
                continue
            if found and keeps is not None and keeps(by_id[mid].content):
                continue  # beside the rules' picks, a memory holding what the request keeps stays
            if weights.lead is None or p >= top - weights.lead:
                # a guess: hidden (undoable), never purged, whatever the request's verb
                added.append((by_id[mid], MatchHit(f"{_MODEL_SAYS} (p={p:.2f})", [], tentative=True)))
    return added, vetoed


_MODEL_SAYS = "learned matcher: a guess, hidden not purged: what the request means"
_NOT_SURE = "not sure enough to purge: hidden"
# "everything about that / it / this": a referent only the conversation knows (each language's
# patterns: understand/data/<lang>/requests.json)
_UNRESOLVED = re.compile("|".join(lexicon.words("requests", "unresolved_referent")), re.IGNORECASE)


def _word_only(hit: MatchHit) -> bool:
    """A match that rests on one word of a broad scope alone ("about health (hospital)"), not on
    the memory's key, a value or a topic's own words."""
    return forget_model.word_only(hit)


def _by_value(hit: MatchHit) -> bool:
    """A match on the memory's key or on a value of the type the request names: sure."""
    return forget_model.sure(hit)


def _match_all(matcher: Matcher, records: list[MemoryRecord]) -> list[tuple[MemoryRecord, MatchHit]]:
    """Every record the request matches; the request's time budget is checked between records."""
    found = []
    for record in records:
        checkpoint("matching the forget request")
        hit = matcher.match(record)
        if hit is not None:
            found.append((record, hit))
    return found


# metadata naming the memories one was drawn from or became (engine/ledger.py writes them)
_LINKS = ("from_episode", "derived_from", "consolidated_into", "facts")
_DERIVED_SAYS = "drawn from the same turn as a memory it forgets"
# a fact's frame before its value ("User's address: …", "用户的微信号：…")
_FRAME = re.compile(r"^[^:：\n]{1,60}[:：]\s*")


def _linked(record: MemoryRecord) -> list[str]:
    out: list[str] = []
    for name in _LINKS:
        value = record.metadata.get(name)
        values = value if isinstance(value, list) else [value]
        out.extend(v for v in values if isinstance(v, str) and v)
    return out


def _families(records: list[MemoryRecord]) -> dict[str, list[MemoryRecord]]:
    """Each memory's family: the turn, the facts drawn from it, its consolidated copy and theirs
    (connected by their metadata links), in one pass over the records (union-find)."""
    parent: dict[str, str] = {r.id: r.id for r in records}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r in records:
        for other in _linked(r):
            if other in parent:
                parent[root(other)] = root(r.id)
    groups: dict[str, list[MemoryRecord]] = {}
    for r in records:
        groups.setdefault(root(r.id), []).append(r)
    return {r.id: groups[root(r.id)] for r in records if len(groups[root(r.id)]) > 1}


def _forgotten_values(record: MemoryRecord, hit: MatchHit) -> list[str]:
    """The texts a match takes from a memory: its spans, or a whole fact's value after its frame
    ("User's address: 14 Cherry Tree Lane" → the address), or the whole content."""
    if hit.spans:
        values = [record.content[a:b].strip(" ,.;:，。；：") for a, b in hit.spans]
    else:
        values = [_FRAME.sub("", record.content, count=1).strip(" ,.;:，。；：")]
        if record.kind != Kind.EPISODE:
            values.append(record.content.strip())
    # a word or two of a clause ("ugh") would take the same letters wherever they stand
    return [v for v in values if len(v) >= (2 if has_cjk(v) else 4)]


def _with_derived(
    found: list[tuple[MemoryRecord, MatchHit]],
    records: list[MemoryRecord],
    reveal: Callable[[MemoryRecord, str], str] | None = None,
) -> list[tuple[MemoryRecord, MatchHit]]:
    """The matches, plus what a forgotten value leaves in the memories drawn from the same turn
    (issue 27): the facts extracted from it, its consolidated copy, the turn of a forgotten fact.
    A memory that is a whole copy of a forgotten one goes whole; one drawn from a turn that goes
    whole goes whole, unless the rules took the turn and the fact is keyed and not matched itself
    (a statement of its own: the occupation beside the PIN); elsewhere the forgotten value's text
    is removed where it stands. A relative of a match that is only hidden (not sure) is hidden too.
    Linear in the user's memories.

    ``reveal`` (the privacy layer on): a placeholder's original. The vault numbers each write's
    values afresh, so the turn's ``[PHONE_1]`` is its fact's ``[PHONE_2]``: a relative's placeholder
    whose original is a forgotten placeholder's goes with it."""
    families = _families(records)
    if not families:
        return found
    planned = {r.id: h for r, h in found}
    extra: dict[str, tuple[MemoryRecord, MatchHit]] = {}
    for record, hit in found:
        family = families.get(record.id)
        if not family:
            continue
        values = _forgotten_values(record, hit)
        # the originals behind the forgotten values' placeholders, read once for the whole family
        said = (
            {
                o
                for v in values
                for m in PLACEHOLDER.finditer(v)
                if (o := reveal(record, m.group())) != m.group()  # a forgotten entry reveals nothing
            }
            if reveal is not None
            else set()
        )
        whole_turn = not hit.spans and record.kind == Kind.EPISODE
        for other in family:
            if other.id in planned and not planned[other.id].spans:
                continue  # already goes whole
            drawn = record.id in _linked(other) and other.kind != Kind.EPISODE
            copy = other.content.strip() == record.content.strip()
            if (
                drawn
                and not copy
                and whole_turn
                and not hit.tentative
                and other.key
                and other.id not in planned
            ):
                # a keyed fact the request does not match says something of its own ("User:
                # night shifts mostly" beside the PIN the request takes): the turn goes, it stays
                continue
            if copy and hit.spans:
                spans = list(hit.spans)
            elif (copy or (whole_turn and drawn)) and not hit.spans:
                spans = []
            else:
                low = other.content.lower()
                spans = [(i, i + len(v)) for v in values for i in _occurrences(low, v.lower())]
                if said:
                    spans += [
                        m.span()
                        for m in PLACEHOLDER.finditer(other.content)
                        if m.span() not in spans and reveal is not None and reveal(other, m.group()) in said
                    ]
                if not spans:
                    continue
            prev = extra.get(other.id, (other, planned.get(other.id)))[1]
            if prev is not None and prev.spans and spans:
                spans = sorted(set(prev.spans) | set(spans))
            elif prev is not None and not prev.spans and other.id in extra:
                continue
            why = prev.why if prev is not None and other.id in planned else _DERIVED_SAYS
            extra[other.id] = (
                other,
                MatchHit(
                    why,
                    [] if hit.tentative else spans,
                    hit.topic,
                    by_key=True,  # the same value as a sure match: not a sweep
                    tentative=hit.tentative,
                ),
            )
    if not extra:
        return found
    out = [(r, extra.pop(r.id)[1]) if r.id in extra else (r, h) for r, h in found]
    return out + list(extra.values())


def _occurrences(text: str, value: str) -> list[int]:
    out, i = [], text.find(value)
    while i >= 0:
        out.append(i)
        i = text.find(value, i + len(value))
    return out


def forget_request(
    ledger: Ledger,
    text: str,
    *,
    user_id: str,
    hard: bool = False,
    dry_run: bool = False,
    confirm: bool | int = False,
    actor: str | None = None,
    force: bool = False,
    confirm_share: float = 0.5,
    purge_share: float = 0.25,
    parser: IntentParser | None = None,
    meaning: MeaningMatch | None = DEFAULT_MEANING,
    learned: bool = True,
) -> ForgetResult:
    """Carry out a forget request in words for ``user_id``.

    ``hard`` (or a request that says "delete", "permanently", "彻底删除"…, or one that names personal
    data: a phone number, an address, where the user lives, their health…) purges; otherwise the
    memories are hidden (restorable). When only part of a memory matches (a phone number in a turn
    that also gives an e-mail; one clause of a longer turn) and the request purges, only that part is
    removed: the memory is rewritten in place with ``[forgotten]`` (:meth:`Ledger.rewrite`). What
    goes from a memory goes from every memory drawn from the same turn too (its facts, its
    consolidated copy, the turn of a forgotten fact: :func:`_with_derived`). Pinned
    memories are not purged unless ``force``. A request that would take more than ``confirm_share``
    of the user's memories raises :class:`~remnant.core.errors.ConfirmationRequired` unless
    ``confirm`` (dry runs never raise).

    Irreversible only when sure: a purge whose match rests on one word of a broad scope alone
    ("forget my medical info" finding "hospital" in a job), or one that would take more than
    ``purge_share`` of the user's memories (and more than two), hides instead (undoable), marks those
    matches ``tentative`` and says so, unless ``confirm`` is the number of memories it takes (the
    caller saw the list: ``confirm=8``). "Forget everything about that", with no referent the engine
    can resolve, asks for confirmation (listing what it would take) even with ``confirm=True``;
    only ``confirm=<that count>`` carries it out.

    ``learned`` (default on): the learned forget-target matcher (:func:`_learned`) takes what the
    request means where the rules find nothing, and vetoes a rule pick it scores too low, as its
    shipped weights say; ``False``: the rules alone.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("a forget request must be a non-empty text")
    check_identifier(user_id, "user_id")
    if not 0.0 < confirm_share <= 1.0:
        raise ValidationError(f"confirm_share must be in (0, 1], got {confirm_share}")
    intent = (parser.parse(text) if parser is not None else None) or parse_intent(text)
    # a number the request gives itself ("forget 0161 …") or one value it names (借了多少钱) is personal
    # data: purged like a named type (a part of a memory can be removed, not hidden)
    is_hard = (
        hard
        or intent.hard
        or bool(intent.topics or intent.scopes or intent.values)
        or intent.value_kind is not None
    )
    action: Literal["hide", "purge"] = "purge" if is_hard else "hide"
    outcome = ForgetResult(user_id, intent, action, dry_run)
    statuses = None if is_hard else tuple(s for s in Status if s != Status.HIDDEN)
    flt = MemoryFilter(tenant=ledger.tenant, user_id=user_id, statuses=statuses)
    outcome.total_memories = ledger.store.count(
        MemoryFilter(tenant=ledger.tenant, user_id=user_id, statuses=None)
    )
    if intent.empty and not has_content(core_request(text)):
        outcome.message = (
            "could not tell what to forget; name it, e.g. 'forget my phone number' or '忘记我的地址'"
        )
        return outcome
    if intent.kinds and not (intent.topics or intent.terms or intent.scopes):
        flt = replace(flt, kinds=intent.kinds)  # a kind alone is a plain filter
    related = _related(ledger, text, flt) if intent.terms and not intent.topics else set()
    matcher = _matcher(ledger, intent, related)
    plans: dict[str, MatchHit] = {}
    seen: dict[str, str] = {}  # the content each plan was made on
    records = list(ledger.store.query(flt))
    # a memory of someone the request keeps ("老伴的不用删") says nothing of the words' meaning here
    literal = literal_terms(intent.terms, [r for r in records if not matcher.kept_whose(r.content)])
    matcher = _matcher(ledger, intent, related, literal)
    found = [] if intent.empty else _match_all(matcher, records)
    if not found and intent.terms:
        # words no memory of the user holds say how the request was put ("I overshared", a typo),
        # not what to forget: try again without them (a name or a number the request gives stays)
        relaxed = relax_terms(intent, records, text)
        if relaxed is not None:
            intent = replace(intent, terms=relaxed)
            matcher = _matcher(ledger, intent, related, literal)
            found = _match_all(matcher, records)
    found = narrow(found, intent)
    found += by_names(matcher, found, records)  # "everything about my ex": his name elsewhere too
    if learned:
        # the learned matcher where the rules find nothing (or beside them) and as a veto of a
        # rule pick on one scope word alone, as its weights say (docs/benchmarks/understanding.md)
        added, vetoed = _learned(ledger, text, intent, flt, records, found, keeps=matcher.keeps)
        found = [(r, h) for r, h in found if r.id not in vetoed] + added
        if added and all(h.tentative for _, h in found):
            is_hard = False  # only guesses: hidden, so they can be undone
            outcome.action = action = "hide"
    # a request naming a type of personal data ("forget my phone number") that the detectors find
    # nowhere has nothing to forget: guessing by meaning could only purge the wrong memory
    if not found and not intent.when and not intent.everything and not intent.kinds and not intent.pii_types:
        found = _by_meaning(ledger, text, intent, flt, meaning)
        if intent.empty:  # the rules read nothing at all ("what I said about my will"): only a guess
            found = [
                (r, h if h.tentative else replace(h, tentative=True, why=_GUESS.sub(_GUESS_SAYS, h.why, 1)))
                for r, h in found
            ]
        if any(h.tentative for _, h in found):
            is_hard = False  # a guess is hidden, so it can be undone, whatever the request's verb
            outcome.action = action = "hide"
    # "…a row with my brother" then "He wants to sell it…": the next turn of the sitting goes on
    # with the story of a turn the request takes, and goes with it (a guess's as a guess)
    found += story_turns(matcher, found, records)
    if not is_hard and any(h.value for _, h in found):
        # one value the request names among several in a turn is personal data: purged, since a
        # part of a memory can be removed, not hidden
        is_hard = True
        outcome.action = "purge"
    named = confirm if isinstance(confirm, int) and not isinstance(confirm, bool) else None
    if is_hard and found and named != len(found):
        unsure = {r.id for r, h in found if _word_only(h)}
        # found by key or by a personal value the request names ("my phone number", each version)
        # is sure however many; the rest of a sweeping purge is hidden first: it can be undone
        swept = [r.id for r, h in found if not h.part and not _by_value(h)]
        if len(swept) > max(2, purge_share * outcome.total_memories):
            unsure |= set(swept)
        if unsure:
            found = [
                (
                    r,
                    replace(h, tentative=True, why=h.why + "; " + _NOT_SURE, spans=[])
                    if r.id in unsure
                    else h,
                )
                for r, h in found
            ]
    primary = len(found)  # what the request matched itself: the count confirmation speaks of
    vault = vault_of(ledger.redactor)
    found = _with_derived(
        found,
        records,
        (lambda r, ph: vault.rehydrate(ph, ledger.tenant, r.user_id)) if vault is not None else None,
    )
    for record, hit in found:
        if hit.part and not is_hard:
            hit = MatchHit(hit.why + "; hidden whole (hiding is reversible, a part cannot be)", [])
        plans[record.id] = hit
        seen[record.id] = record.content
        outcome.matches.append(
            ForgetMatch(
                record.id,
                record.kind.value,
                record.key,
                record.status.value,
                record.pinned,
                hit.why,
                record.content if dry_run else None,
                part=hit.part,
                new_content=redacted(record.content, hit.spans) if dry_run and hit.part else None,
                tentative=hit.tentative,
            )
        )
    redactor = ledger.redactor
    can_forget_pii = bool(intent.pii_types) and hasattr(redactor, "forget_entities") and not intent.qualifiers
    if not outcome.matches:
        outcome.message = "nothing matched this request; nothing was forgotten"
    if dry_run:
        if outcome.matches:
            outcome.message = f"would {action} {len(outcome.matches)} of {outcome.total_memories} memories"
            in_part = sum(m.part for m in outcome.matches)
            if in_part:
                outcome.message += f" ({in_part} in part: only the matching value or clause)"
            if any(m.tentative and _NOT_SURE not in m.why for m in outcome.matches):
                outcome.message += " (found by meaning only: it would be hidden, not purged)"
            held_back = sum(_NOT_SURE in m.why for m in outcome.matches)
            if held_back:
                outcome.message += f" ({held_back} {_NOT_SURE} instead; confirm={primary} purges them)"
        if can_forget_pii:
            outcome.message += f"; would also forget vault entries of type {', '.join(intent.pii_types)}"
        return outcome
    share = primary / outcome.total_memories if outcome.total_memories else 0.0
    if outcome.matches and intent.everything and _UNRESOLVED.search(text) and named != primary:
        # "everything about that": the engine cannot tell what "that" is; list what it would take
        ids = [m.id for m in outcome.matches]
        raise ConfirmationRequired(
            f"'{text.strip()[:80]}' names nothing the engine can resolve, and would take "
            f"{primary} of {outcome.total_memories} memories of {user_id!r}; name what to forget, "
            f"or repeat it with confirm={primary} to take these {primary}",
            matched=primary,
            total=outcome.total_memories,
            ids=ids,
        )
    if outcome.matches and share > confirm_share and not confirm:
        raise ConfirmationRequired(
            f"this request matches {primary} of {outcome.total_memories} memories of "
            f"{user_id!r} ({share:.0%} > {confirm_share:.0%}); repeat it with confirm=True "
            "(or look first with dry_run=True)",
            matched=primary,
            total=outcome.total_memories,
        )
    # planning (parsing, matching every memory of the user) ran above without the store's hold;
    # only the changes below hold it, so other tenants' requests wait for writes, not for reading
    with ledger.store.exclusive():
        return _apply_forget(
            ledger, outcome, plans, seen, intent, text, user_id, is_hard, action, actor, force, can_forget_pii
        )


def _apply_forget(
    ledger: Ledger,
    outcome: ForgetResult,
    plans: dict[str, MatchHit],
    seen: dict[str, str],
    intent: ForgetIntent,
    text: str,
    user_id: str,
    is_hard: bool,
    action: str,
    actor: str | None,
    force: bool,
    can_forget_pii: bool,
) -> ForgetResult:
    redactor = ledger.redactor
    batch = new_id("forget")
    outcome.batch_id = batch
    who = actor or f"user:{user_id}"
    whole = [m.id for m in outcome.matches if not m.part]
    parts = [m.id for m in outcome.matches if m.part]
    held = [m.id for m in outcome.matches if m.tentative and not m.part] if is_hard else []
    if held:  # not sure enough to purge: hidden, so it can be undone
        whole = [i for i in whole if i not in set(held)]
        outcome.forgotten = ledger.hide(
            held, reason="forget request", actor=who, policy="forget_request", batch_id=batch
        )
    if whole:
        if is_hard:
            pinned = {m.id for m in outcome.matches if m.pinned and not m.part}
            if pinned and not force:
                outcome.skipped_pinned = [i for i in whole if i in pinned]
                whole = [i for i in whole if i not in pinned]
            records = ledger.store.get_many(whole, tenant=ledger.tenant)
            done = ledger.purge(
                records, reason="forget request", actor=who, policy="forget_request", batch_id=batch
            )
            outcome.forgotten += [r.id for r in done]
        else:
            outcome.forgotten = ledger.hide(
                whole, reason="forget request", actor=who, policy="forget_request", batch_id=batch
            )
    for mid in parts:
        current = ledger.store.get(mid, tenant=ledger.tenant)
        if current is None or current.content != seen[mid]:
            continue  # gone or changed since it was matched: its spans no longer fit
        new = redacted(current.content, plans[mid].spans)
        done_rec = ledger.rewrite(
            current,
            new,
            reason="forget request: part of the memory",
            actor=who,
            policy="forget_request",
            batch_id=batch,
            action="forget_part",
        )
        if done_rec is not None:
            outcome.rewritten.append(mid)
    if can_forget_pii:
        outcome.vault_entries_forgotten = int(
            redactor.forget_entities(  # type: ignore[union-attr]
                tenant=ledger.tenant, user_id=user_id, entity_types=list(intent.pii_types)
            )
        )
    if outcome.forgotten or outcome.vault_entries_forgotten or outcome.matches:
        verb = "purged" if is_hard else "hid"
        outcome.message = f"{verb} {len(outcome.forgotten) - len(held)} of {outcome.total_memories} memories"
        if held:
            outcome.message += (
                f"; hid {len(held)} instead of purging ({_NOT_SURE}: unhide what was not meant, or "
                f"repeat with confirm={sum(m.why != _DERIVED_SAYS for m in outcome.matches)} to purge them)"
            )
        if any(m.tentative and _NOT_SURE not in m.why for m in outcome.matches):
            outcome.message += (
                " (found by meaning only: hidden, not purged; unhide it if it was not the one meant,"
                " or ask again naming it)"
            )
        if outcome.rewritten:
            outcome.message += f"; removed the matching part from {len(outcome.rewritten)} more"
        if outcome.skipped_pinned:
            outcome.message += f"; kept {len(outcome.skipped_pinned)} pinned (pass force=True to purge them)"
        if outcome.vault_entries_forgotten:
            outcome.message += f"; forgot {outcome.vault_entries_forgotten} vault entries"
    entry = ledger.audit(
        "forget_request",
        "user asked to forget",
        ids=outcome.forgotten + outcome.rewritten,
        user_id=user_id,
        actor=who,
        policy="forget_request",
        batch_id=batch,
        summary=f"{action}: {len(outcome.forgotten)} memories matched "
        + (", ".join(intent.topics + intent.scopes + tuple(k.value for k in intent.kinds)) or "free text")
        + (f", {len(outcome.rewritten)} in part" if outcome.rewritten else ""),
        details={
            "intent": {
                **intent.to_dict(),
                "terms": len(intent.terms),
                "keep_terms": len(intent.keep_terms),
                "values": len(intent.values),  # the values themselves are what was forgotten
            },
            "request_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "skipped_pinned": len(outcome.skipped_pinned),
            "vault_entries_forgotten": outcome.vault_entries_forgotten,
            "rewritten": len(outcome.rewritten),
        },
    )
    outcome.audit_seq = entry.seq
    return outcome


def forget_in_text(
    ledger: Ledger,
    intent: ForgetIntent,
    text: str,
    *,
    said_at: datetime | None = None,
    key: str | None = None,
) -> str | None:
    """What is left of a text outside the store (an assistant's in-process turn) after a request:
    ``None`` when it goes whole, the text with the matching value or clause replaced by
    ``[forgotten]``, or the text unchanged when it does not match."""
    record = MemoryRecord(
        id="turn",
        user_id="turn",
        content=text,
        kind=Kind.EPISODE,
        key=key,
        created_at=said_at or ledger.now(),
    )
    hit = _matcher(ledger, intent, set()).match(record)
    if hit is None:
        return text
    return redacted(text, hit.spans) if hit.part else None
