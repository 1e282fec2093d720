"""The right to be forgotten: purge everything of a user and prove that nothing remains.

Removed: the user's memories in every status (rows, full-text rows and embeddings go with them),
summaries anyone derived from them (``kind=summary`` with ``metadata["derived_from"]`` naming one of
the user's memories), anything the retriever keeps outside the store (``on_delete``) and the user's
vault entries (``redactor.purge_user``) and the days the user was active (the active-days clock). Then the store is compacted (SQLite: ``secure_delete`` is on,
the FTS index is merged, ``VACUUM`` rewrites the file and the WAL is truncated), and every path is
queried again: the row count, the recall filter, embeddings, the retriever, derived summaries and
the raw bytes of the database files (searched for distinctive strings of the erased text, which are
held in memory only for the duration of the call).
"""

from __future__ import annotations

import mmap
import re
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from remnant.core.model import Kind, MemoryRecord, Status, check_identifier
from remnant.core.text import CJK_CLASS, fts_match
from remnant.engine.results import ErasureReport
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


def erase_user(
    ledger: Ledger, user_id: str, *, actor: str | None = None, scan_bytes: bool = True
) -> ErasureReport:
    """Purge every trace of ``user_id`` in this tenant and return the verified erasure report."""
    check_identifier(user_id, "user_id")
    flt = MemoryFilter(tenant=ledger.tenant, user_id=user_id, statuses=None)
    removed: dict[str, int] = defaultdict(int)
    all_ids: list[str] = []
    probes: list[str] = []
    while True:
        batch = ledger.store.query(flt, limit=1000)
        if not batch:
            break
        for r in batch:
            removed[r.kind.value] += 1
        if len(probes) < _MAX_PROBES * 4:
            probes.extend(_probes(batch))
        all_ids.extend(r.id for r in batch)
        with ledger.store.transaction():
            ledger.store.delete([r.id for r in batch], tenant=ledger.tenant)
    derived = _derived_summaries(ledger, set(all_ids))
    if derived:
        probes.extend(_probes(derived))
        with ledger.store.transaction():
            ledger.store.delete([s.id for s in derived], tenant=ledger.tenant)
        removed["summary_derived"] = len(derived)
    gone = all_ids + [s.id for s in derived]
    ledger.retriever.on_delete(ledger, gone)
    activity_removed = ledger.store.forget_activity(ledger.tenant, user_id)  # the active-days clock's rows
    vault_removed = 0
    if ledger.redactor is not None:
        vault_removed = int(ledger.redactor.purge_user(tenant=ledger.tenant, user_id=user_id))
    # a probe that other memories still legitimately contain proves nothing: drop it
    probes = [p for p in dict.fromkeys(probes) if not _in_others(ledger, p)][:_MAX_PROBES]
    ledger.store.compact()
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
        "hidden_or_history": ledger.store.count(
            MemoryFilter(
                tenant=ledger.tenant, user_id=user_id, statuses=tuple(s for s in Status if s != Status.ACTIVE)
            )
        ),
    }
    if scan_bytes and ledger.store.files():
        checks["file_bytes"] = len(scan_files(ledger.store.files(), probes))
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
            "probes": len(probes),
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
