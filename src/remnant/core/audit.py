"""Audit entries and their hash chain.

Every act of forgetting is written to an append-only log. Each entry carries the hash of the entry
before it (per tenant), so editing, deleting or reordering entries breaks the chain and
:func:`verify_chain` finds the first bad one. Entries describe *what kind* of memory was affected
(ids, kinds, counts, hashed keys), never the plaintext of purged content.

A hash chain alone does not stop someone with write access to the database: they can cut the
newest entries, delete a tenant's log, re-hash the whole chain or append a forged entry, and it
still links. Two things close that gap (the threat model is in docs/forgetting.md):

* **signatures**: with an audit key (kept outside the database), every entry carries an HMAC of its
  hash (:func:`entry_mac`) and each tenant has a signed *head* (:class:`AuditHead`: the newest seq
  and hash, updated in the same transaction as each append). Without the key nobody can sign a
  re-hashed or forged entry, or move the head back after cutting the tail;
* **anchors**: :func:`make_anchor` exports each tenant's head as a small JSON document to keep
  elsewhere; :func:`verify_chain` with that anchor checks that the chain still holds the anchored
  entry, unchanged, so cutting or rewriting what the anchor covers is found even without the key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

GENESIS = "0" * 64


@dataclass(frozen=True, slots=True)
class AuditDraft:
    """An audit entry before the store gives it a sequence number and a hash."""

    tenant: str
    at: datetime
    actor: str
    action: str  # expire, fade, evict, supersede, hide, unhide, purge, erase_user, forget_request, ...
    reason: str
    user_id: str | None = None
    policy: str | None = None
    batch_id: str | None = None
    memory_ids: tuple[str, ...] = ()
    summary: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    seq: int
    tenant: str
    at: datetime
    actor: str
    action: str
    reason: str
    user_id: str | None
    policy: str | None
    batch_id: str | None
    memory_ids: tuple[str, ...]
    summary: str
    details: dict[str, Any]
    prev_hash: str
    hash: str
    mac: str | None = None  # HMAC of the hash under the audit key (None: written unsigned)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "seq": self.seq,
            "tenant": self.tenant,
            "at": self.at.isoformat(),
            "actor": self.actor,
            "action": self.action,
            "reason": self.reason,
            "user_id": self.user_id,
            "policy": self.policy,
            "batch_id": self.batch_id,
            "memory_ids": list(self.memory_ids),
            "summary": self.summary,
            "details": self.details,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }
        if self.mac is not None:
            out["mac"] = self.mac
        return out


def entry_hash(prev_hash: str, draft: AuditDraft | AuditEntry, at_epoch: float) -> str:
    """SHA-256 over a canonical JSON of the entry's content and the previous hash."""
    body = {
        "prev": prev_hash,
        "tenant": draft.tenant,
        "at": round(at_epoch, 6),
        "actor": draft.actor,
        "action": draft.action,
        "reason": draft.reason,
        "user_id": draft.user_id,
        "policy": draft.policy,
        "batch_id": draft.batch_id,
        "memory_ids": list(draft.memory_ids),
        "summary": draft.summary,
        "details": draft.details,
    }
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _mac(key: bytes, *parts: str | int) -> str:
    # length-prefixed, so no two different tuples sign the same bytes
    msg = b"".join(len(str(p).encode()).to_bytes(4, "big") + str(p).encode() for p in parts)
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def entry_mac(key: bytes, tenant: str, digest: str) -> str:
    """The signature of one entry: an HMAC of its tenant and hash under the audit key (the hash
    covers the entry and its link to the one before, so the position is signed too)."""
    return _mac(key, "remnant-audit-entry-v1", tenant, digest)


@dataclass(frozen=True, slots=True)
class AuditHead:
    """A tenant's newest entry as last signed: ``signed_from`` is the first signed seq (entries
    before it predate the key and are checked by their hashes only)."""

    tenant: str
    seq: int
    hash: str
    signed_from: int
    mac: str

    @staticmethod
    def sign(key: bytes, tenant: str, seq: int, digest: str, signed_from: int) -> AuditHead:
        return AuditHead(tenant, seq, digest, signed_from, head_mac(key, tenant, seq, digest, signed_from))


def head_mac(key: bytes, tenant: str, seq: int, digest: str, signed_from: int) -> str:
    # a different domain than entry_mac: an entry's signature cannot be copied into the head
    return _mac(key, "remnant-audit-head-v1", tenant, seq, digest, signed_from)


ANCHOR_FORMAT = "remnant-audit-anchor"


def make_anchor(
    heads: dict[str, AuditEntry | None], *, created_at: datetime, key: bytes | None = None
) -> dict[str, Any]:
    """The exportable head: per tenant the newest entry's seq and hash (keep it outside the database).

    With ``key`` the anchor is signed too, so an edited anchor file is found as well."""
    tenants = {
        t: {"seq": e.seq, "hash": e.hash} if e is not None else {"seq": 0, "hash": GENESIS}
        for t, e in sorted(heads.items())
    }
    anchor: dict[str, Any] = {
        "format": ANCHOR_FORMAT,
        "version": 1,
        "created_at": created_at.isoformat(),
        "tenants": tenants,
    }
    if key is not None:
        anchor["mac"] = _anchor_mac(key, tenants)
    return anchor


def _anchor_mac(key: bytes, tenants: dict[str, Any]) -> str:
    return _mac(key, "remnant-audit-anchor-v1", json.dumps(tenants, sort_keys=True, separators=(",", ":")))


def check_anchor(anchor: object, key: bytes | None = None) -> dict[str, tuple[int, str]]:
    """The (seq, hash) per tenant of an anchor document; ``ValueError`` when it is not one (or,
    with ``key``, when its signature does not match)."""
    if not isinstance(anchor, dict) or anchor.get("format") != ANCHOR_FORMAT:
        raise ValueError(f"not an audit anchor (expected format {ANCHOR_FORMAT!r})")
    tenants = anchor.get("tenants")
    if not isinstance(tenants, dict):
        raise ValueError("the anchor has no tenants")
    out: dict[str, tuple[int, str]] = {}
    for tenant, head in tenants.items():
        if (
            not isinstance(head, dict)
            or not isinstance(head.get("seq"), int)
            or not isinstance(head.get("hash"), str)
        ):
            raise ValueError(f"the anchor's entry for tenant {tenant!r} needs an integer seq and a hash")
        out[str(tenant)] = (int(head["seq"]), str(head["hash"]))
    if (
        key is not None
        and "mac" in anchor
        and not hmac.compare_digest(str(anchor["mac"]), _anchor_mac(key, tenants))
    ):
        raise ValueError("the anchor's signature does not match: the file was edited")
    return out


@dataclass(frozen=True, slots=True)
class ChainVerification:
    ok: bool
    checked: int
    first_bad_seq: int | None = None
    problem: str | None = None
    signed: bool = False  # signatures and the signed head were checked (an audit key was given)
    anchored: bool = False  # an anchor was checked
    # why it failed, for callers that branch on it: "audit_key_missing" (the log is signed but no
    # key was given), "audit_key_wrong" (no signature verifies under the key given), "tampered"
    code: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "first_bad_seq": self.first_bad_seq,
            "problem": self.problem,
            "signed": self.signed,
            "anchored": self.anchored,
            "code": self.code,
        }


def verify_chain(
    entries: Iterable[AuditEntry],
    *,
    key: bytes | None = None,
    head: AuditHead | None = None,
    anchor: tuple[int, str] | None = None,
    require_key: bool = True,
) -> ChainVerification:
    """Check one tenant's entries, in sequence order, against their hashes and links.

    With ``key``: every entry from the head's ``signed_from`` on must carry a valid signature, and
    the signed ``head`` must name the newest entry (a cut tail, a deleted log or an entry appended
    without the key all show). With ``anchor`` (seq, hash from :func:`make_anchor`): the chain must
    still hold that entry with that hash (a cut or a rewrite of what the anchor covers shows).

    Without ``key``, a log that holds signed entries or a signed head fails (``audit_key_missing``)
    unless ``require_key=False`` asks on purpose for its hashes only (the key is lost for good)."""
    signed, anchored = key is not None, anchor is not None

    def bad(checked: int, seq: int | None, problem: str, code: str = "tampered") -> ChainVerification:
        return ChainVerification(False, checked, seq, problem, signed, anchored, code)

    entries = list(entries)
    if key is None and require_key and (head is not None or any(e.mac is not None for e in entries)):
        # fail closed: a log that was signed cannot fall back to its hashes when the key is gone,
        # or deleting the key file would be enough to hide a cut tail (recovery: docs/security.md)
        first = head.seq if head is not None else next(e.seq for e in entries if e.mac is not None)
        return bad(
            0,
            first,
            "the log is signed but no audit key was given (the key file was deleted or is not "
            "configured): restore the key; see docs/security.md",
            "audit_key_missing",
        )

    if (
        key is not None
        and head is not None
        and not hmac.compare_digest(
            head.mac, head_mac(key, head.tenant, head.seq, head.hash, head.signed_from)
        )
    ):
        signed_entries = [e for e in entries if e.mac is not None and e.seq >= head.signed_from]
        if signed_entries and not any(
            hmac.compare_digest(str(e.mac), entry_mac(key, e.tenant, e.hash)) for e in signed_entries[-8:]
        ):
            return bad(
                0,
                head.seq,
                "no signature verifies under the audit key given (a wrong or rotated key)",
                "audit_key_wrong",
            )
        return bad(0, head.seq, "the signed head does not match its signature (it was edited)")
    prev = GENESIS
    checked = 0
    last: AuditEntry | None = None
    anchored_seen = anchor is None or anchor[0] == 0
    for entry in entries:
        if entry.prev_hash != prev:
            return bad(
                checked,
                entry.seq,
                "link to the previous entry is broken (an entry was removed, inserted or reordered)",
            )
        expected = entry_hash(prev, entry, entry.at.timestamp())
        if expected != entry.hash:
            return bad(checked, entry.seq, "entry content does not match its hash (it was edited)")
        if key is not None and head is not None and entry.seq >= head.signed_from:
            if entry.mac is None:
                return bad(
                    checked,
                    entry.seq,
                    "entry is not signed (appended without the audit key: forged, or written by a "
                    "process that lacks the key)",
                )
            if not hmac.compare_digest(entry.mac, entry_mac(key, entry.tenant, entry.hash)):
                return bad(checked, entry.seq, "entry signature does not match (forged or re-hashed)")
        if anchor is not None and entry.seq == anchor[0]:
            if entry.hash != anchor[1]:
                return bad(checked, entry.seq, "entry differs from the anchor (the chain was rewritten)")
            anchored_seen = True
        prev = entry.hash
        last = entry
        checked += 1
    if anchor is not None and not anchored_seen:
        if last is None:
            return bad(checked, anchor[0], f"the log is gone: the anchor names entry #{anchor[0]}")
        if last.seq < anchor[0]:
            return bad(
                checked,
                last.seq,
                f"the log was truncated: the anchor names entry #{anchor[0]}, the log ends at #{last.seq}",
            )
        return bad(checked, anchor[0], f"entry #{anchor[0]} named by the anchor is missing")
    if key is not None:
        if head is None and last is not None:
            return bad(
                checked,
                last.seq,
                "the chain has no signed head (it was deleted, or the log predates the audit key: "
                "the next audited change signs it)",
            )
        if head is not None and last is None:
            return bad(0, head.seq, f"the log is gone: the signed head names entry #{head.seq}")
        if head is not None and last is not None and (head.seq, head.hash) != (last.seq, last.hash):
            if head.seq > last.seq:
                problem = (
                    f"the log was truncated: the signed head names #{head.seq}, the log ends at #{last.seq}"
                )
            else:
                problem = f"entries after the signed head #{head.seq} were appended without the key"
            return bad(checked, min(head.seq, last.seq), problem)
    return ChainVerification(True, checked, signed=signed, anchored=anchored)


def key_ref(key: str) -> str:
    """A memory key as the audit log names it: a short hash, since a key may carry a user's value
    ("phone:+1 555 …"); the same key always gives the same reference."""
    return "k:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def describe(records: Sequence[Any]) -> str:
    """A summary of affected memories: counts by kind and hashed keys, never the content or a key."""
    if not records:
        return "no memories"
    kinds: dict[str, int] = {}
    keys: set[str] = set()
    for r in records:
        kinds[str(r.kind)] = kinds.get(str(r.kind), 0) + 1
        if r.key:
            keys.add(key_ref(r.key))
    parts = [f"{n} {k}" for k, n in sorted(kinds.items())]
    text = f"{len(records)} {'memory' if len(records) == 1 else 'memories'} ({', '.join(parts)})"
    if keys:
        text += f"; keys: {', '.join(sorted(keys)[:20])}"
    return text
