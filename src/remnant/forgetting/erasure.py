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
from remnant.core.text import fts_match
from remnant.engine.results import ErasureReport
from remnant.store.base import MemoryFilter

if TYPE_CHECKING:
    from remnant.engine.memory import Memory

_MAX_PROBES = 12
_WORD = re.compile(r"[^\W_]{8,}|[\u4e00-\u9fff]{4,}")


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


def _derived_summaries(mem: Memory, ids: set[str]) -> list[MemoryRecord]:
    flt = MemoryFilter(tenant=mem.tenant, kinds=(Kind.SUMMARY,), statuses=None)
    found = []
    for s in mem.store.query(flt):
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
    mem: Memory, user_id: str, *, actor: str | None = None, scan_bytes: bool = True
) -> ErasureReport:
    """Purge every trace of ``user_id`` in this tenant and return the verified erasure report."""
    check_identifier(user_id, "user_id")
    flt = MemoryFilter(tenant=mem.tenant, user_id=user_id, statuses=None)
    removed: dict[str, int] = defaultdict(int)
    all_ids: list[str] = []
    probes: list[str] = []
    while True:
        batch = mem.store.query(flt, limit=1000)
        if not batch:
            break
        for r in batch:
            removed[r.kind.value] += 1
        if len(probes) < _MAX_PROBES * 4:
            probes.extend(_probes(batch))
        all_ids.extend(r.id for r in batch)
        with mem.store.transaction():
            mem.store.delete([r.id for r in batch], tenant=mem.tenant)
    derived = _derived_summaries(mem, set(all_ids))
    if derived:
        probes.extend(_probes(derived))
        with mem.store.transaction():
            mem.store.delete([s.id for s in derived], tenant=mem.tenant)
        removed["summary_derived"] = len(derived)
    gone = all_ids + [s.id for s in derived]
    mem.retriever.on_delete(mem, gone)
    activity_removed = mem.store.forget_activity(mem.tenant, user_id)  # the active-days clock's rows
    vault_removed = 0
    if mem.redactor is not None:
        vault_removed = int(mem.redactor.purge_user(tenant=mem.tenant, user_id=user_id))
    # a probe that other memories still legitimately contain proves nothing: drop it
    probes = [p for p in dict.fromkeys(probes) if not _in_others(mem, p)][:_MAX_PROBES]
    mem.store.compact()
    checks = {
        "memories": mem.store.count(flt),
        "derived_summaries": len(mem.store.get_many([s.id for s in derived], tenant=mem.tenant)),
        "embeddings": sum(
            len(mem.store.embeddings(flt, model=m)[0]) for m in mem.store.embedding_models(tenant=mem.tenant)
        ),
        "recall": len(mem.store.query(mem.recall_filter(user_id), limit=1)),
        "retriever": sum(len(mem.retriever.search(mem, p, flt, 5)) for p in probes[:3]),
        "activity_days": mem.store.active_day_count(mem.tenant, user_id, date.max),
        "hidden_or_history": mem.store.count(
            MemoryFilter(
                tenant=mem.tenant, user_id=user_id, statuses=tuple(s for s in Status if s != Status.ACTIVE)
            )
        ),
    }
    if scan_bytes and mem.store.files():
        checks["file_bytes"] = len(scan_files(mem.store.files(), probes))
    summary = (
        f"{len(gone)} memories erased (" + ", ".join(f"{n} {k}" for k, n in sorted(removed.items())) + ")"
    )
    entry = mem._audit(
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
    return ErasureReport(mem.tenant, user_id, mem.now(), dict(removed), vault_removed, checks, entry.seq)


def _in_others(mem: Memory, probe: str) -> bool:
    """Whether some remaining memory's content contains ``probe`` verbatim (then it is not evidence)."""
    match = fts_match(probe)
    if match is None:
        return False
    flt = MemoryFilter(tenant=mem.tenant, statuses=None)
    for mid, _ in mem.store.lexical_search(match, flt, limit=50):
        r = mem.store.get(mid, tenant=mem.tenant)
        if r is not None and probe in r.content:
            return True
    return False
