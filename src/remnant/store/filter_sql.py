"""One translation of :class:`MemoryFilter` into SQL, shared by every backend.

The semantics of a filter live here once; a backend only says how its SQL spells placeholders, lists,
booleans and JSON look-ups (its :class:`Dialect`). A new filter field is added in one place and
both stores (and their contract tests) pick it up.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from remnant.core.errors import ValidationError
from remnant.store.base import MemoryFilter


class Dialect:
    """How a backend's SQL spells the pieces that differ; the defaults are SQLite's."""

    ph = "?"
    false = "0"
    greatest = "MAX"  # the two-argument maximum (SQLite's scalar MAX, PostgreSQL's GREATEST)

    def column(self, a: str, col: str, flt: MemoryFilter) -> str:
        """How a filtered column is referenced (SQLite may hide it from the planner, see there)."""
        return f"{a}.{col}"

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


class SQLiteDialect(Dialect):
    def column(self, a: str, col: str, flt: MemoryFilter) -> str:
        # With an id list, a unary "+" hides every other column from the planner, so it stays on the
        # unique id index. Without statistics it would otherwise pick a (tenant, user, ...) or the
        # (status, fade_at) index and scan a whole scope to check 150 ids (22 ms at 30k memories
        # in one user, growing with the scope, instead of well under 1 ms).
        return f"+{a}.{col}" if flt.ids is not None and col != "id" else f"{a}.{col}"


class PostgresDialect(Dialect):
    ph = "%s"
    false = "FALSE"
    greatest = "GREATEST"

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
        # a memory with no explicit valid_from is valid from the moment it was recorded
        add(
            f"COALESCE({a}.valid_from, {a}.created_at) <= {p} AND ({a}.valid_to IS NULL OR {a}.valid_to > {p})",
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
    """The score of :func:`remnant.core.importance.importance_score_raw` as one SQL expression
    (with :func:`importance_params`), so a sweep ranks a million rows inside the database instead of
    paging them through Python. The exponent is clamped at -700: PostgreSQL's ``exp`` raises on
    underflow where Python returns 0.0 (``exp(-700)`` is about 1e-304, below every threshold)."""
    a, p, mx = alias, dialect.ph, dialect.greatest
    return (
        f"({a}.confidence * (1.0 / ({mx}(0.0, ({p} - COALESCE({a}.last_accessed_at, {a}.created_at)) / 86400.0)"
        f" + 1.0) + ln(1.0 + {mx}(0, {a}.access_count))) * (1.0 + {p} * {a}.importance)"
        f" * exp({mx}(-700.0, {p} * {mx}(0.0, ({p} - {a}.created_at) / 86400.0))))"
    )


def importance_params(now: float, decay_per_day: float, mark_weight: float) -> list[Any]:
    """The parameters of :func:`importance_sql`, in order."""
    return [now, mark_weight, math.log(decay_per_day), now]
