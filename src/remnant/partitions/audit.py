"""Audit records for partition operations, kept in a hash chain so edits to history show up.

Every create, rebuild, replace and drop writes one record (who was touched, counts before and
after, versions). ``AuditSink`` is the seam; :class:`SQLiteAudit` is the built-in chain, and an
adapter can forward to the core audit log instead (or as well).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any, Protocol

from remnant.partitions.model import AuditRecord
from remnant.training.clock import Clock, SystemClock, format_time

GENESIS = "0" * 64


class AuditSink(Protocol):
    def record(self, action: str, partition: str, detail: dict[str, Any]) -> None: ...


class SQLiteAudit:
    """Append-only ``part_audit`` table; each row hashes its content with the previous hash."""

    def __init__(self, conn: sqlite3.Connection, clock: Clock | None = None) -> None:
        self.conn = conn
        self.clock: Clock = clock or SystemClock()

    def record(self, action: str, partition: str, detail: dict[str, Any]) -> None:
        row = self.conn.execute("SELECT seq, hash FROM part_audit ORDER BY seq DESC LIMIT 1").fetchone()
        # explicit sequence numbers (no auto-increment) keep the SQL portable
        seq, prev = (row[0] + 1, row[1]) if row else (1, GENESIS)
        at = format_time(self.clock.now())
        body = json.dumps(detail, ensure_ascii=False, sort_keys=True)
        digest = _hash(prev, at, action, partition, body)
        self.conn.execute(
            "INSERT INTO part_audit (seq, at, action, partition, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (seq, at, action, partition, body, prev, digest),
        )

    def records(self, partition: str | None = None) -> list[AuditRecord]:
        sql = "SELECT seq, at, action, partition, detail, hash FROM part_audit"
        params: tuple[str, ...] = ()
        if partition is not None:
            sql += " WHERE partition = ?"
            params = (partition,)
        rows = self.conn.execute(sql + " ORDER BY seq", params).fetchall()
        return [AuditRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def verify(self) -> bool:
        """True when every record's hash matches its content and its predecessor."""
        prev = GENESIS
        for at, action, partition, body, prev_hash, digest in self.conn.execute(
            "SELECT at, action, partition, detail, prev_hash, hash FROM part_audit ORDER BY seq"
        ):
            if prev_hash != prev or digest != _hash(prev, at, action, partition, body):
                return False
            prev = digest
        return True


def _hash(prev: str, at: str, action: str, partition: str, body: str) -> str:
    return hashlib.sha256("\x1f".join([prev, at, action, partition, body]).encode("utf-8")).hexdigest()
