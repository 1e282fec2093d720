"""The SQL dialects, and one translation of :class:`MemoryFilter` into SQL shared by every backend.

This is the one place where the two backends' SQL differs in spelling: placeholders, lists,
booleans, JSON look-ups, days, scripts, locks and catalog queries (a :class:`Dialect`). The
semantics of a filter live here once, so a new filter field is added in one place and both stores
(and their contract tests) pick it up. The shared queries are in :mod:`remnant.store.sql`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import date
from typing import Any

from remnant.core.errors import ValidationError
from remnant.core.importance import SCORE, ImportanceWeights, render_sql, score_params
from remnant.store.base import MemoryFilter

#: One lock name for every schema migration, so two processes never migrate at once.
MIGRATION_LOCK = "remnant-schema-migration"


class Dialect:
    """How a backend's SQL spells the pieces that differ; the defaults are SQLite's."""

    name = "sqlite"
    ph = "?"
    false = "0"
    greatest = "MAX"  # the two-argument maximum (SQLite's scalar MAX, PostgreSQL's GREATEST)
    no_limit: Any = -1  # a LIMIT that limits nothing (PostgreSQL: NULL)

    def column(self, a: str, col: str, flt: MemoryFilter) -> str:
        """How a filtered column is referenced (SQLite may hide it from the planner, see there)."""
        return f"{a}.{col}"

    def unindexed(self, expr: str) -> str:
        """``expr`` hidden from the planner's index choice where that matters (SQLite's unary +)."""
        return expr

    def marks(self, n: int) -> str:
        return ", ".join([self.ph] * n)

    def day(self, value: date) -> Any:
        """A calendar day as a parameter (SQLite keeps ISO text, PostgreSQL a ``date``)."""
        return value.isoformat()

    def day_value(self, value: Any) -> date:
        return value if isinstance(value, date) else date.fromisoformat(str(value))

    def json_param(self, value: Any) -> Any:
        """A JSON document as a parameter (text here, ``jsonb`` in PostgreSQL)."""
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    def fade_param(self, fade_at: float) -> float:
        # SQLite stores +inf as a REAL fine, but keep a finite sentinel out of JSON exports
        return BIG if math.isinf(fade_at) else fade_at

    def split_script(self, script: str) -> list[str]:
        """A migration file as statements the driver runs one by one (triggers keep inner semicolons)."""
        statements, buf, depth = [], [], 0
        for line in script.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("--"):
                continue
            buf.append(line)
            upper = stripped.upper()
            if upper.startswith("CREATE TRIGGER"):
                depth = 1
            if depth and upper.endswith("END;"):
                depth = 0
            if not depth and stripped.endswith(";"):
                statements.append("\n".join(buf))
                buf = []
        if buf:
            statements.append("\n".join(buf))
        return statements

    def lock_sql(self) -> str | None:
        """A statement that takes a transaction-scoped lock named by its one parameter; None where
        a write transaction already excludes every other writer (SQLite's BEGIN IMMEDIATE)."""
        return None

    def columns_sql(self) -> str:
        """The column names of the table named by the one parameter."""
        return "SELECT name FROM pragma_table_info(?)"

    def within(self, expr: str, values: Sequence[Any], params: list[Any]) -> str:
        params.extend(values)
        return f"{expr} IN ({', '.join(self.ph * len(values))})"

    def flag(self, value: bool) -> Any:
        return int(value)

    def metadata_eq(self, a: str, key: str, value: Any, params: list[Any]) -> str:
        params.append(int(value) if isinstance(value, bool) else value)
        return f"json_extract({a}.metadata, '$.{key}') = {self.ph}"

    def has_tag(self, a: str, tag: str, params: list[Any]) -> str:
        params.append(tag)
        return f"EXISTS (SELECT 1 FROM json_each({a}.metadata, '$.tags') WHERE value = {self.ph})"

    def metadata_text(self, a: str, key: str, params: list[Any]) -> str:
        """The metadata value at ``key`` where it is a string, else NULL."""
        params.extend([f"$.{key}", f"$.{key}"])
        # a row an older version stored with metadata SQLite cannot parse (NaN, too deep) reads
        # as NULL here rather than failing the whole statement (the nested CASE is evaluated first)
        return (
            f"CASE WHEN json_valid({a}.metadata) THEN CASE WHEN json_type({a}.metadata, {self.ph}) = 'text' "
            f"THEN json_extract({a}.metadata, {self.ph}) END END"
        )


BIG = 1e300  # SQLite's stand-in for an infinite fade_at (read back as inf by row_to_record)


class SQLiteDialect(Dialect):
    def unindexed(self, expr: str) -> str:
        return f"+{expr}"

    def column(self, a: str, col: str, flt: MemoryFilter) -> str:
        # With an id list, a unary "+" hides every other column from the planner, so it stays on the
        # unique id index. Without statistics it would otherwise pick a (tenant, user, ...) or the
        # (status, fade_at) index and scan a whole scope to check 150 ids (22 ms at 30k memories
        # in one user, growing with the scope, instead of well under 1 ms).
        return self.unindexed(f"{a}.{col}") if flt.ids is not None and col != "id" else f"{a}.{col}"


class PostgresDialect(Dialect):
    name = "postgres"
    ph = "%s"
    false = "FALSE"
    greatest = "GREATEST"
    no_limit = None

    def day(self, value: date) -> Any:
        return value

    def json_param(self, value: Any) -> Any:
        from psycopg.types.json import Jsonb  # only imported where the PostgreSQL driver is in use

        return Jsonb(value)

    def fade_param(self, fade_at: float) -> float:
        return fade_at  # double precision holds Infinity, so "never fades" round-trips as inf

    def split_script(self, script: str) -> list[str]:
        return [script]  # one simple-protocol round trip runs the whole file, $$ bodies and all

    def lock_sql(self) -> str | None:
        return "SELECT pg_advisory_xact_lock(hashtext(%s))"

    def columns_sql(self) -> str:
        return (
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = %s"
        )

    def within(self, expr: str, values: Sequence[Any], params: list[Any]) -> str:
        params.append(list(values))
        return f"{expr} = ANY(%s)"

    def flag(self, value: bool) -> Any:
        return bool(value)

    def metadata_eq(self, a: str, key: str, value: Any, params: list[Any]) -> str:
        # SQLite's json_extract compares booleans as 0/1; match either spelling
        if isinstance(value, bool):
            params.extend([key, json.dumps(value), json.dumps(int(value))])
            return f"({a}.metadata -> %s) IN (%s::jsonb, %s::jsonb)"
        params.extend([key, json.dumps(value)])
        return f"({a}.metadata -> %s) = %s::jsonb"

    def has_tag(self, a: str, tag: str, params: list[Any]) -> str:
        params.extend([tag, tag])
        return (
            f"(jsonb_typeof({a}.metadata -> 'tags') = 'array' AND ({a}.metadata -> 'tags') ? %s"
            f" OR ({a}.metadata ->> 'tags') = %s AND jsonb_typeof({a}.metadata -> 'tags') = 'string')"
        )

    def metadata_text(self, a: str, key: str, params: list[Any]) -> str:
        params.extend([key, key])
        return f"CASE WHEN jsonb_typeof({a}.metadata -> %s) = 'string' THEN {a}.metadata ->> %s END"


def build_where(flt: MemoryFilter, dialect: Dialect, alias: str = "m") -> tuple[str, list[Any]]:
    """A SQL condition and its parameters for ``flt``. The tenant (and the user, when given) come
    first, so a table distributed by (tenant, user_id) routes the query to one shard."""
    a, p = alias, dialect.ph

    def c(col: str) -> str:
        return dialect.column(a, col, flt)

    cond = [f"{c('tenant')} = {p}"]
    params: list[Any] = [flt.tenant]

    def add(sql: str, *values: Any) -> None:
        cond.append(sql)
        params.extend(values)

    def eq(col: str, value: Any) -> None:
        if value is not None:
            add(f"{c(col)} = {p}", value)

    def within(col: str, values: Sequence[Any] | None) -> None:
        if values is not None:
            cond.append(dialect.within(c(col), values, params) if values else dialect.false)

    eq("user_id", flt.user_id)
    eq("agent_id", flt.agent_id)
    eq("session_id", flt.session_id)
    within("id", flt.ids)
    within("kind", [k.value for k in flt.kinds] if flt.kinds is not None else None)
    within("key", flt.keys)
    within("source", flt.sources)
    within("status", [s.value for s in flt.statuses] if flt.statuses is not None else None)
    if flt.pinned is not None:
        eq("pinned", dialect.flag(flt.pinned))
    if flt.remembered_at is not None:
        add(f"{c('fade_at')} > {p}", flt.remembered_at)
    if flt.faded_by is not None:
        add(f"{c('fade_at')} <= {p}", flt.faded_by)
    if flt.now is not None:
        add(f"({a}.expires_at IS NULL OR {c('expires_at')} > {p})", flt.now)
    if flt.expired_by is not None:
        add(f"{a}.expires_at IS NOT NULL AND {c('expires_at')} <= {p}", flt.expired_by)
    if flt.valid_at is not None:
        # a memory with no explicit valid_from is valid from the moment it was recorded, or from
        # when it happened if that was earlier (an imported old message was true before it was
        # learned; one about a planned event is known from now on)
        start = (
            f"COALESCE({a}.valid_from, CASE WHEN {a}.occurred_at < {a}.created_at "
            f"THEN {a}.occurred_at ELSE {a}.created_at END)"
        )
        add(
            f"{start} <= {p} AND ({a}.valid_to IS NULL OR {a}.valid_to > {p})",
            flt.valid_at,
            flt.valid_at,
        )
    if flt.created_after is not None:
        add(f"{c('created_at')} >= {p}", flt.created_after)
    if flt.created_before is not None:
        add(f"{c('created_at')} < {p}", flt.created_before)
    if flt.accessed_before is not None:
        add(f"COALESCE({a}.last_accessed_at, {a}.created_at) < {p}", flt.accessed_before)
    if flt.changed_before is not None:
        add(f"{a}.status_changed_at IS NOT NULL AND {c('status_changed_at')} <= {p}", flt.changed_before)
    for mkey, mvalue in flt.metadata.items():
        if not mkey.replace("_", "").replace("-", "").isalnum():
            raise ValidationError(f"metadata filter key {mkey!r} must be alphanumeric")
        cond.append(dialect.metadata_eq(a, mkey, mvalue, params))
    for tag in flt.tags or ():
        cond.append(dialect.has_tag(a, tag, params))
    return " AND ".join(cond), params


def importance_sql(dialect: Dialect, alias: str = "m") -> str:
    """The score of :func:`remnant.core.importance.importance_score_raw` as one SQL expression (with
    :func:`importance_params`), rendered from the same definition (:data:`remnant.core.importance.SCORE`),
    so a sweep ranks a million rows inside the database instead of paging them through Python."""
    return render_sql(SCORE, dialect, alias)[0]


_SCORE_PARAMS = render_sql(SCORE, Dialect())[1]  # parameter names in placeholder order (same per dialect)


def importance_params(now: float, decay_per_day: float, mark_weight: float) -> list[Any]:
    """The parameters of :func:`importance_sql`, in order."""
    values = score_params(now, ImportanceWeights(decay_per_day, mark_weight))
    return [values[name] for name in _SCORE_PARAMS]
