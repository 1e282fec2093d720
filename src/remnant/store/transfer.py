"""Export and import a whole store as JSONL, so data moves between SQLite and PostgreSQL exactly.

One JSON object per line, in this order:

* ``header``: format name and version, the schema version, the tenants and the count of every kind
  of line that follows (an importer checks them);
* ``meta``: store settings (e.g. the decay clock mode);
* ``memory``: every field of a memory (times as epoch seconds, ``fade_at`` null for "never") and
  the text its lexical index holds;
* ``embedding`` (only with ``with_embeddings``): memory id, model, dimension, float32 vector in base64;
* ``audit``: audit entries in sequence order with their sequence numbers, hashes and signatures,
  inserted verbatim on import (never re-hashed) so the chain verifies exactly as before;
* ``audit_head``: each tenant's signed head (the newest entry as last signed);
* ``activity``: the days each user was active (the active-days decay clock);
* ``vault`` and ``vault_counter``: the privacy vault's entries, still encrypted (nonce and
  ciphertext in base64, with the id of the key that encrypted them), and each user's placeholder
  counters, so an imported ``[PHONE_1]`` rehydrates to the same original and new values go on
  numbering after it. The header lists the key ids; an import whose configured vault key is not
  among them says so and refuses before writing anything.

Import goes into an empty store in one transaction (all or nothing) and verifies every tenant's
audit chain before committing. ``migrate`` streams an export straight into an import.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Collection, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from typing import Any

import numpy as np

from remnant.core.audit import AuditEntry, AuditHead, verify_chain
from remnant.core.clock import from_epoch
from remnant.core.errors import ConflictError, SchemaTooNewError, StoreError, ValidationError
from remnant.core.model import Kind, MemoryRecord, Status, record_from_fields
from remnant.core.text import index_text as default_index_text
from remnant.store.base import DIGEST_KEY_META, SCHEMA_VERSION, MemoryFilter, Store, ts
from remnant.store.migrations import VAULT, migrate
from remnant.store.sql import VECTOR_MARK_PREFIX, SQLStore

FORMAT = "remnant-export"
FORMAT_VERSION = 1
_BATCH = 1000


@dataclass
class TransferReport:
    """What an export or import moved."""

    memories: int = 0
    embeddings: int = 0
    audit: int = 0
    activity: int = 0
    meta: int = 0
    vault: int = 0
    vault_counters: int = 0
    tenants: list[str] = field(default_factory=list)
    chain_ok: dict[str, bool] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- backend access beyond the Store contract (listing everything, verbatim audit rows) ----------
def _sql_store(store: Store) -> SQLStore:
    """The store as a :class:`SQLStore`: a transfer needs its whole-database reads and verbatim writes."""
    if not isinstance(store, SQLStore):
        raise StoreError(f"export/import does not support {type(store).__name__}")
    return store


# -- encoding ------------------------------------------------------------------------------------
def record_to_json(r: MemoryRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in r.__slots__:  # type: ignore[attr-defined]
        if name == "deduplicated":
            continue  # a write's answer, not part of the memory
        value = getattr(r, name)
        if isinstance(value, datetime):
            value = ts(value)
        elif isinstance(value, Kind | Status):
            value = value.value
        elif name == "fade_at" and math.isinf(value):
            value = None  # JSON has no infinity: null means "never fades"
        out[name] = value
    return out


def record_from_json(data: dict[str, Any]) -> MemoryRecord:
    return record_from_fields(data, from_epoch)


def audit_to_json(e: AuditEntry) -> dict[str, Any]:
    data = e.to_dict()
    data["at"] = e.at.timestamp()  # exact epoch seconds: the hash covers round(at, 6)
    return data


def audit_from_json(d: dict[str, Any]) -> AuditEntry:
    return AuditEntry(
        int(d["seq"]),
        d["tenant"],
        datetime.fromtimestamp(float(d["at"]), UTC),
        d["actor"],
        d["action"],
        d["reason"],
        d.get("user_id"),
        d.get("policy"),
        d.get("batch_id"),
        tuple(d.get("memory_ids") or ()),
        d.get("summary", ""),
        dict(d.get("details") or {}),
        d["prev_hash"],
        d["hash"],
        d.get("mac"),
    )


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# -- the vault's tables (the store layer's "vault" migration component; rows stay encrypted) ------
_VAULT_ENTRY = "tenant, user_id, placeholder, entity_type, value_hmac, key_id, nonce, ciphertext, created_at"
_VAULT_COUNTER = "tenant, user_id, entity_type, last_index"


def _has_vault(raw: SQLStore) -> bool:
    try:
        raw.fetch("SELECT 1 FROM vault_entries WHERE 1 = 0")
    except StoreError:
        return False
    return True


def _vault_rows(raw: SQLStore, tenants: list[str]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    if not tenants or not _has_vault(raw):
        return [], []
    params: list[Any] = []
    cond = raw.dialect.within("tenant", tenants, params)
    entries = raw.fetch(
        f"SELECT {_VAULT_ENTRY} FROM vault_entries WHERE {cond} ORDER BY tenant, user_id, placeholder", params
    )
    counters = raw.fetch(
        f"SELECT {_VAULT_COUNTER} FROM vault_counters WHERE {cond} ORDER BY tenant, user_id, entity_type",
        params,
    )
    return entries, counters


def _b64(value: Any) -> str:
    return base64.b64encode(bytes(value)).decode("ascii")


# -- export --------------------------------------------------------------------------------------
def export_lines(
    store: Store, *, with_embeddings: bool = False, tenants: Iterable[str] | None = None
) -> Iterator[str]:
    """The store as JSONL lines (no trailing newlines), streamed in batches."""
    raw = _sql_store(store)
    chosen = list(tenants) if tenants is not None else raw.tenants()
    all_flt = {t: MemoryFilter(tenant=t, statuses=None) for t in chosen}
    # completeness marks describe this database's rids, the digest key its digests: never carried
    meta = {
        k: v for k, v in raw.meta().items() if not k.startswith(VECTOR_MARK_PREFIX) and k != DIGEST_KEY_META
    }
    counts = {
        "memories": sum(store.count(f) for f in all_flt.values()),
        "embeddings": 0,
        "audit": sum(len(store.audit_entries(tenant=t)) for t in chosen),
        "activity": sum(len(raw.activity(t)) for t in chosen),
        "meta": len(meta),
    }
    vault_entries, vault_counters = _vault_rows(raw, chosen)
    counts["vault"], counts["vault_counters"] = len(vault_entries), len(vault_counters)
    heads = [h for h in raw.audit_heads() if h.tenant in set(chosen)]
    models = {t: store.embedding_models(tenant=t) for t in chosen} if with_embeddings else {}
    if with_embeddings:
        counts["embeddings"] = sum(raw.embedding_count(t, m) for t in chosen for m in models[t])
    yield _line(
        {
            "type": "header",
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            # the record schema, which decides whether an importer understands the lines; each
            # backend numbers its own migrations (store_schema_version), which may differ
            "schema_version": SCHEMA_VERSION,
            "store_schema_version": store.schema_version(),
            "source": store.url.split("://", 1)[0] if "://" in store.url else "sqlite",
            "exported_at": datetime.now(UTC).isoformat(),
            "tenants": chosen,
            "with_embeddings": with_embeddings,
            "counts": counts,
            "vault_key_ids": sorted({str(r[5]) for r in vault_entries}),
        }
    )
    for key, value in meta.items():
        yield _line({"type": "meta", "key": key, "value": value})
    for tenant in chosen:
        ids = store.ids(all_flt[tenant])
        for start in range(0, len(ids), _BATCH):
            batch = ids[start : start + _BATCH]
            texts = raw.index_texts(batch, tenant=tenant)
            for r in store.get_many(batch, tenant=tenant):
                yield _line({"type": "memory", "record": record_to_json(r), "index_text": texts.get(r.id)})
        for model in models.get(tenant, []):
            for start in range(0, len(ids), _BATCH):
                flt = MemoryFilter(tenant=tenant, statuses=None, ids=tuple(ids[start : start + _BATCH]))
                got, matrix = store.embeddings(flt, model=model)
                for mid, vec in zip(got, matrix, strict=True):
                    yield _line(
                        {
                            "type": "embedding",
                            "tenant": tenant,
                            "id": mid,
                            "model": model,
                            "dim": int(vec.size),
                            "vector": base64.b64encode(vec.astype("<f4").tobytes()).decode("ascii"),
                        }
                    )
    entries = sorted((e for t in chosen for e in store.audit_entries(tenant=t)), key=lambda e: e.seq)
    for e in entries:
        yield _line({"type": "audit", **audit_to_json(e)})
    for h in heads:
        yield _line(
            {
                "type": "audit_head",
                "tenant": h.tenant,
                "seq": h.seq,
                "hash": h.hash,
                "signed_from": h.signed_from,
                "mac": h.mac,
            }
        )
    for tenant in chosen:
        for user_id, day in raw.activity(tenant):
            yield _line({"type": "activity", "tenant": tenant, "user_id": user_id, "day": day.isoformat()})
    for v in vault_entries:
        yield _line(
            {
                "type": "vault",
                "tenant": v[0],
                "user_id": v[1],
                "placeholder": v[2],
                "entity_type": v[3],
                "value_hmac": v[4],
                "key_id": v[5],
                "nonce": _b64(v[6]),
                "ciphertext": _b64(v[7]),
                "created_at": v[8],
            }
        )
    for c in vault_counters:
        yield _line(
            {
                "type": "vault_counter",
                "tenant": c[0],
                "user_id": c[1],
                "entity_type": c[2],
                "last_index": int(c[3]),
            }
        )


def export_store(store: Store, out: Any, *, with_embeddings: bool = False) -> TransferReport:
    """Write the export to a text stream; returns what was written."""
    report = TransferReport()
    for line in export_lines(store, with_embeddings=with_embeddings):
        out.write(line + "\n")
        _tally(report, json.loads(line) if line.startswith('{"type":"header"') else {"type": _kind(line)})
    return report


def _kind(line: str) -> str:
    # lines start with {"type":"<kind>", (compact separators): read the kind without parsing the line
    return line[9 : line.index('"', 9)]


def _tally(report: TransferReport, obj: dict[str, Any]) -> None:
    kind = obj["type"]
    if kind == "header":
        report.tenants = list(obj.get("tenants", []))
    elif kind == "memory":
        report.memories += 1
    elif kind == "embedding":
        report.embeddings += 1
    elif kind == "audit":
        report.audit += 1
    elif kind == "activity":
        report.activity += 1
    elif kind == "meta":
        report.meta += 1
    elif kind == "vault":
        report.vault += 1
    elif kind == "vault_counter":
        report.vault_counters += 1


# -- import --------------------------------------------------------------------------------------
def import_lines(
    store: Store, lines: Iterable[str], *, vault_key_ids: Collection[str] | None = None
) -> TransferReport:
    """Load an export into an empty store, all or nothing; the audit chains are verified before commit.

    ``vault_key_ids``: the ids of the vault keys the target is configured with. An export whose
    vault is encrypted with a key not among them (or any vault, when None) is refused before
    anything is written: imported without its key, every placeholder would be unreadable."""
    raw = _sql_store(store)
    it = (line for line in lines if line.strip())
    try:
        header = json.loads(next(it))
    except StopIteration:
        raise ValidationError("the export is empty (no header line)") from None
    except json.JSONDecodeError as exc:
        raise ValidationError(f"the first line is not JSON: {exc}") from exc
    if header.get("type") != "header" or header.get("format") != FORMAT:
        raise ValidationError("not a Remnant export (the first line must be its header)")
    if int(header.get("format_version", 0)) > FORMAT_VERSION:
        raise SchemaTooNewError(
            f"export format {header['format_version']} is newer than this Remnant reads ({FORMAT_VERSION})"
        )
    if int(header.get("schema_version", 0)) > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"the export comes from schema {header['schema_version']}, newer than this Remnant "
            f"({SCHEMA_VERSION}); upgrade the remnant package"
        )
    tenants = list(header.get("tenants", []))
    needed = {str(k) for k in header.get("vault_key_ids") or ()}
    missing = needed - set(vault_key_ids or ())
    if missing:
        have = ", ".join(sorted(vault_key_ids or ())) or "none"
        raise VaultKeyMismatch(
            f"the export's vault is encrypted with key {', '.join(sorted(missing))}, but the vault key "
            f"configured for the target is {have}: set REMNANT_VAULT_KEY (or REMNANT_VAULT_KEY_FILE) to the "
            "source's key (for a SQLite source, the key in <db>.vault-key); nothing was imported"
        )
    for tenant in tenants:
        if store.count(MemoryFilter(tenant=tenant, statuses=None)) or store.audit_entries(
            tenant=tenant, limit=1
        ):
            raise ConflictError(
                f"the target store already holds data of tenant {tenant!r}; import into an empty store"
            )
    report = TransferReport(tenants=tenants)
    memories: list[tuple[MemoryRecord, str | None]] = []
    vectors: dict[str, list[tuple[str, str, np.ndarray]]] = {}
    audit: list[AuditEntry] = []
    if needed or int(header.get("counts", {}).get("vault_counters", 0)):
        migrate(raw, VAULT)

    def flush() -> None:
        if memories:
            raw.insert_many(memories)
            memories.clear()
        for tenant, items in vectors.items():
            if items:
                store.put_embeddings(items, tenant=tenant)
        vectors.clear()
        if audit:
            raw.import_audit(audit)
            audit.clear()

    bulk = store.bulk_load() if hasattr(store, "bulk_load") else nullcontext()
    with store.transaction(), bulk:
        for n, line in enumerate(it, start=2):
            try:
                obj = json.loads(line)
                kind = obj["type"]
                if kind == "memory":
                    if vectors or audit:
                        flush()
                    rec = record_from_json(obj["record"])
                    text = obj.get("index_text")
                    memories.append((rec, text if text is not None else default_index_text(rec.content)))
                elif kind == "embedding":
                    if memories:
                        flush()
                    vec = np.frombuffer(base64.b64decode(obj["vector"]), dtype="<f4").astype(np.float32)
                    if vec.size != int(obj["dim"]):
                        raise ValidationError(
                            f"embedding of {obj['id']} has {vec.size} values, not {obj['dim']}"
                        )
                    vectors.setdefault(obj["tenant"], []).append((obj["id"], obj["model"], vec))
                elif kind == "audit":
                    if memories or vectors:
                        flush()
                    audit.append(audit_from_json(obj))
                elif kind == "activity":
                    flush()
                    store.mark_active(obj["tenant"], obj["user_id"], date.fromisoformat(obj["day"]))
                elif kind == "meta":
                    store.set_meta(obj["key"], obj["value"])
                elif kind == "audit_head":
                    flush()
                    raw.import_audit_heads(
                        [
                            AuditHead(
                                obj["tenant"],
                                int(obj["seq"]),
                                obj["hash"],
                                int(obj["signed_from"]),
                                obj["mac"],
                            )
                        ]
                    )
                elif kind == "vault":
                    flush()
                    if obj["key_id"] not in needed:
                        raise ValidationError(
                            f"vault entry {obj['placeholder']} uses key {obj['key_id']}, not listed in the header"
                        )
                    row = (
                        obj["tenant"],
                        obj["user_id"],
                        obj["placeholder"],
                        obj["entity_type"],
                        obj["value_hmac"],
                        obj["key_id"],
                        base64.b64decode(obj["nonce"]),
                        base64.b64decode(obj["ciphertext"]),
                        obj["created_at"],
                    )
                    raw.execute(
                        f"INSERT INTO vault_entries ({_VAULT_ENTRY}) VALUES ({raw.dialect.marks(9)})", row
                    )
                elif kind == "vault_counter":
                    flush()
                    raw.execute(
                        f"INSERT INTO vault_counters ({_VAULT_COUNTER}) VALUES ({raw.dialect.marks(4)})",
                        (obj["tenant"], obj["user_id"], obj["entity_type"], int(obj["last_index"])),
                    )
                else:
                    raise ValidationError(f"unknown line type {kind!r}")
            except (KeyError, TypeError, ValueError) as exc:
                if isinstance(exc, ValidationError):
                    raise ValidationError(f"line {n}: {exc}") from exc
                raise ValidationError(f"line {n} is not a valid export line: {exc!r}") from exc
            _tally(report, obj)
            if (
                len(memories) >= _BATCH
                or sum(len(v) for v in vectors.values()) >= _BATCH
                or len(audit) >= _BATCH
            ):
                flush()
        flush()
        expected = header.get("counts", {})
        for name in ("memories", "embeddings", "audit", "activity", "meta", "vault", "vault_counters"):
            if name in expected and int(expected[name]) != getattr(report, name):
                raise ValidationError(
                    f"the export is incomplete: the header promises {expected[name]} {name}, "
                    f"the file has {getattr(report, name)}"
                )
        for tenant in tenants:
            # hashes and links (the signatures need the audit key, which the store does not hold)
            check = verify_chain(store.audit_entries(tenant=tenant), require_key=False)
            report.chain_ok[tenant] = check.ok
            if not check.ok:
                raise ValidationError(
                    f"the imported audit chain of tenant {tenant!r} does not verify at seq {check.first_bad_seq}: "
                    f"{check.problem}; nothing was imported"
                )
    return report


def migrate_store(
    source: Store,
    target: Store,
    *,
    with_embeddings: bool = True,
    vault_key_ids: Collection[str] | None = None,
) -> TransferReport:
    """Copy everything from one store into an empty other one, streaming (export piped into import)."""
    return import_lines(
        target, export_lines(source, with_embeddings=with_embeddings), vault_key_ids=vault_key_ids
    )


class VaultKeyMismatch(ConflictError):
    """The export's vault needs a key the target is not configured with (nothing was imported)."""
