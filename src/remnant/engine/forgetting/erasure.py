"""The right to be forgotten: purge everything of a user and prove that nothing remains.

Removed: the user's memories in every status (rows, full-text rows, embeddings and entity rows go with them),
summaries anyone derived from them (``kind=summary`` with ``metadata["derived_from"]`` naming one of
the user's memories), anything the retriever keeps outside the store (``on_delete``) and the user's
vault entries (``redactor.purge_user``) and the days the user was active (the active-days clock). Then the store is compacted (SQLite: ``secure_delete`` is on,
the FTS index is merged, ``VACUUM`` rewrites the file and the WAL is truncated), and every path is
queried again: the row count, the recall filter, embeddings, the retriever, derived summaries and
the raw bytes of the database files (searched for distinctive strings of the erased text, which are
held in memory only for the duration of the call).

The probes are the erased text and the user's own values: every distinctive key, source and
metadata string of the erased memories, and the originals behind their placeholders (read from the
vault before it is purged). A field value is a probe only when it cannot be one of the system's
own texts: not a role, kind, status, source or field name the engine writes, and distinctive (at
least eight characters, or holding a digit or a space); otherwise the role ``"user"`` of every
ingested turn would match the fixed reason "user asked to forget" and fail every clean erasure. Besides the store's rows, the report checks the tenant's audit log (no entry may hold
one of them), the full-text index text of every remaining memory (a neighbouring turn indexed with
the erased one), other memories' content (partitions, summaries), the vault, any extra files
handed in (``log_files``: a server's log file) and any further ``derived_checks`` a layer above
installs (a training pool). ``verified`` is false while anything remains.
"""

from __future__ import annotations

import json
import mmap
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from remnant.core import memo
from remnant.core.model import Kind, MemoryRecord, Status, check_identifier
from remnant.core.text import CJK_CLASS, PLACEHOLDER, fts_match
from remnant.engine.ledger import ENGINE_METADATA
from remnant.engine.results import ErasureReport
from remnant.engine.seams import vault_of
from remnant.store.base import MemoryFilter

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger

_MAX_PROBES = 12
_WORD = re.compile(rf"[^\W_]{{8,}}|[{CJK_CLASS}]{{4,}}")


def _probes(records: list[MemoryRecord]) -> list[str]:
    """Distinctive strings of the erased text: content prefixes and long words."""
    out: dict[str, None] = {}
    for r in records:
        if len(out) >= _MAX_PROBES * 4:
            break
        prefix = r.content.strip()[:48]
        if len(prefix) >= 12:
            out.setdefault(prefix, None)
        for w in _WORD.findall(r.content)[:3]:
            out.setdefault(w, None)
    return list(out)


#: the engine's own words: roles, kinds, statuses, sources and field names it writes itself, which
#: fixed audit texts may hold (a user's metadata equal to one of them is no evidence of a leak)
_SYSTEM_WORDS = frozenset(
    {"user", "assistant", "system", "tool", "human", "ai", "developer", "function"}
    | {k.value for k in Kind}
    | {s.value for s in Status}
    | set(ENGINE_METADATA)
    | {"chat", "mem0", "mcp", "llm", "forget", "extractive", "none", "rules", "extract:rules", "extract:llm"}
    | {"langgraph", "llamaindex", "crewai", "openai_agents", "autogen", "memories", "memory"}
)


def _distinctive(value: str) -> bool:
    """A stored field value that can only be the user's own (see the module's note on probes)."""
    v = value.strip()
    if len(v) < 4 or v.lower() in _SYSTEM_WORDS or PLACEHOLDER.fullmatch(v) or _ID.fullmatch(v):
        return False
    return len(v) >= 8 or any(c.isdigit() or c.isspace() for c in v)


_ID = re.compile(r"[a-z]+_[0-9a-z]{26}")  # an engine id (mem_…): in audit entries by design


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _value_probes(ledger: Ledger, user_id: str, records: list[MemoryRecord]) -> tuple[list[str], list[str]]:
    """The user's own values among the erased memories: the vault's originals behind every
    placeholder they use (read before the vault is purged; held in memory only), and their keys,
    sources and metadata strings as stored (which other users may share: evidence only in the
    audit log, which should hold none of them)."""
    out: dict[str, None] = {}
    field_values: dict[str, None] = {}
    placeholders: set[str] = set()
    for r in records:
        own = {k: v for k, v in r.metadata.items() if k not in ENGINE_METADATA}
        fields = [r.key, r.source, *_strings(own)]
        for f in fields:
            if f and _distinctive(f):
                field_values.setdefault(f.strip(), None)
        for text in (r.content, *(f for f in fields if f)):
            placeholders.update(PLACEHOLDER.findall(text))
    vault = vault_of(ledger.redactor)
    if vault is not None:
        for ph in sorted(placeholders):
            try:
                value = vault.rehydrate(ph, ledger.tenant, user_id)
            except Exception:  # a value already forgotten, or a key problem: nothing to probe
                continue
            if value != ph and len(value.strip()) >= 4:
                out.setdefault(value.strip(), None)
    return list(out), list(field_values)


def _audit_hits(ledger: Ledger, probes: Sequence[str]) -> int:
    """How many of the tenant's audit entries hold one of the probes (reason, summary, details)."""
    if not probes:
        return 0
    hits = 0
    for e in ledger.store.audit_entries(tenant=ledger.tenant):
        text = "\n".join((e.reason, e.summary, json.dumps(e.details, ensure_ascii=False, default=str)))
        if any(p in text for p in probes):
            hits += 1
    return hits


def _remaining_hits(ledger: Ledger, probes: Sequence[str]) -> tuple[int, int]:
    """Remaining memories of the tenant whose index text, or content, holds a probe verbatim."""
    index_texts = getattr(ledger.store, "index_texts", None)
    in_index: set[str] = set()
    in_content: set[str] = set()
    flt = MemoryFilter(tenant=ledger.tenant, statuses=None)
    for probe in probes:
        match = fts_match(probe)
        if match is None:
            continue
        ids = [mid for mid, _ in ledger.store.lexical_search(match, flt, limit=200)]
        if not ids:
            continue
        texts: dict[str, str] = index_texts(ids, tenant=ledger.tenant) if index_texts else {}
        for r in ledger.store.get_many(ids, tenant=ledger.tenant):
            if probe in r.content or any(probe in s for s in _strings(r.metadata)) or probe in (r.key or ""):
                in_content.add(r.id)
            elif probe.lower() in texts.get(r.id, "").lower():
                in_index.add(r.id)
    return len(in_index), len(in_content)


def _derived_summaries(ledger: Ledger, ids: set[str]) -> list[MemoryRecord]:
    flt = MemoryFilter(tenant=ledger.tenant, kinds=(Kind.SUMMARY,), statuses=None)
    found = []
    for s in ledger.store.query(flt):
        src = s.metadata.get("derived_from")
        if isinstance(src, str):
            src = [src]
        if isinstance(src, list) and ids.intersection(str(x) for x in src):
            found.append(s)
    return found


def scan_files(files: list[Path], probes: list[str]) -> list[str]:
    """The probes whose UTF-8 bytes occur in any of ``files``."""
    hits = []
    for probe in probes:
        needle = probe.encode("utf-8")
        for path in files:
            try:
                with path.open("rb") as fh:
                    if path.stat().st_size == 0:
                        continue
                    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                        if mm.find(needle) != -1:
                            hits.append(probe)
                            break
            except (OSError, ValueError):
                continue
    return hits


#: A derived store a layer above keeps (a training pool): given the probes, how many rows still hold one.
DerivedCheck = Callable[[Sequence[str]], int]


def erase_user(
    ledger: Ledger,
    user_id: str,
    *,
    actor: str | None = None,
    scan_bytes: bool = True,
    log_files: Sequence[Path] = (),
    derived_checks: Mapping[str, DerivedCheck] | None = None,
) -> ErasureReport:
    """Purge every trace of ``user_id`` in this tenant and return the verified erasure report."""
    check_identifier(user_id, "user_id")
    flt = MemoryFilter(tenant=ledger.tenant, user_id=user_id, statuses=None)
    removed: dict[str, int] = defaultdict(int)
    all_ids: list[str] = []
    probes: list[str] = []
    values: dict[str, None] = {}
    fields: dict[str, None] = {}
    while True:
        batch = ledger.store.query(flt, limit=1000)
        if not batch:
            break
        for r in batch:
            removed[r.kind.value] += 1
        if len(probes) < _MAX_PROBES * 4:
            probes.extend(_probes(batch))
        if len(values) + len(fields) < _MAX_PROBES * 8:
            originals, stored = _value_probes(ledger, user_id, batch)
            values.update(dict.fromkeys(originals))
            fields.update(dict.fromkeys(stored))
        all_ids.extend(r.id for r in batch)
        ledger.remove(batch)
    derived = _derived_summaries(ledger, set(all_ids))
    if derived:
        probes.extend(_probes(derived))
        ledger.remove(derived)
        removed["summary_derived"] = len(derived)
    gone = all_ids + [s.id for s in derived]
    ledger.retriever.on_delete(ledger, gone)
    activity_removed = ledger.store.forget_activity(ledger.tenant, user_id)  # the active-days clock's rows
    vault_removed = 0
    if ledger.redactor is not None:
        vault_removed = int(ledger.redactor.purge_user(tenant=ledger.tenant, user_id=user_id))
    # a probe that other memories still legitimately contain proves nothing: drop it
    probes = [p for p in dict.fromkeys(probes) if not _in_others(ledger, p)][:_MAX_PROBES]
    # the user's own values (a phone, an e-mail, a key) must be gone from everywhere, others' rows too
    value_probes = list(values)[: _MAX_PROBES * 8]
    ledger.store.compact()
    index_left, content_left = _remaining_hits(ledger, value_probes)
    vault_left = 0
    vault = vault_of(ledger.redactor)
    listing = getattr(vault, "entries", None)
    if listing is not None:
        vault_left = len(listing(ledger.tenant, user_id))
    checks = {
        "memories": ledger.store.count(flt),
        "derived_summaries": len(ledger.store.get_many([s.id for s in derived], tenant=ledger.tenant)),
        "embeddings": sum(
            len(ledger.store.embeddings(flt, model=m)[0])
            for m in ledger.store.embedding_models(tenant=ledger.tenant)
        ),
        "recall": len(ledger.store.query(ledger.recall_filter(user_id), limit=1)),
        "retriever": sum(len(ledger.retriever.search(ledger, p, flt, 5)) for p in probes[:3]),
        "activity_days": ledger.store.active_day_count(ledger.tenant, user_id, date.max),
        # the entity index's rows (remnant.retrieval.entities) went with their memories
        "entities": sum(len(v) for v in ledger.store.entities_of(gone, tenant=ledger.tenant).values()),
        "hidden_or_history": ledger.store.count(
            MemoryFilter(
                tenant=ledger.tenant, user_id=user_id, statuses=tuple(s for s in Status if s != Status.ACTIVE)
            )
        ),
    }
    # content prefixes, not single words: a long word of the text may be in a fixed reason too
    prefixes = [p for p in probes if len(p) >= 12 and " " in p]
    checks["audit_log"] = _audit_hits(ledger, value_probes + list(fields)[: _MAX_PROBES * 8] + prefixes)
    checks["index_text"] = index_left
    checks["other_memories"] = content_left
    checks["vault"] = vault_left
    if scan_bytes and ledger.store.files():
        checks["file_bytes"] = len(scan_files(ledger.store.files(), probes + value_probes))
    if log_files:
        checks["log_files"] = len(scan_files([Path(f) for f in log_files], probes + value_probes))
    for name, check in (derived_checks or {}).items():
        checks[name] = int(check(probes + value_probes))
    # the checks above embedded and read the probes: this process's caches drop them too
    ledger.forget_cached(probes + value_probes)
    checks["process_caches"] = len(memo.holding(probes + value_probes))
    summary = (
        f"{len(gone)} memories erased (" + ", ".join(f"{n} {k}" for k, n in sorted(removed.items())) + ")"
    )
    entry = ledger.audit(
        "erase_user",
        "right to be forgotten",
        ids=gone,
        user_id=user_id,
        actor=actor,
        policy="erasure",
        summary=summary,
        details={
            "vault_entries_removed": vault_removed,
            "activity_days_removed": activity_removed,
            "checks": checks,
            "probes": len(probes) + len(value_probes),
        },
    )
    return ErasureReport(
        ledger.tenant, user_id, ledger.now(), dict(removed), vault_removed, checks, entry.seq
    )


def _in_others(ledger: Ledger, probe: str) -> bool:
    """Whether some remaining memory's content contains ``probe`` verbatim (then it is not evidence)."""
    match = fts_match(probe)
    if match is None:
        return False
    flt = MemoryFilter(tenant=ledger.tenant, statuses=None)
    for mid, _ in ledger.store.lexical_search(match, flt, limit=50):
        r = ledger.store.get(mid, tenant=ledger.tenant)
        if r is not None and probe in r.content:
            return True
    return False
