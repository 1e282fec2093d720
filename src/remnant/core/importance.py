"""The importance score that decides eviction (seed 001, section 3.3), defined once.

``score = reliability × (recency + ln(1 + frequency)) × (1 + mark_weight × importance) × decay^age``

- *reliability* is the memory's ``confidence`` (how far its source is trusted);
- *recency* is ``1 / (days since last access + 1)``;
- *frequency* is ``access_count`` (recalls and reviews both count);
- *importance* is the user's mark (0..1, set on write); pinned memories score ``inf`` (exempt);
- *age* is days since the memory was created, decayed by ``decay_per_day``.

The formula is one small expression tree (:data:`SCORE`). It is rendered once to Python (what
:func:`importance_score_raw` runs) and, by :func:`render_sql`, to each store's SQL, so a sweep can
rank a million rows in the database without the two definitions ever drifting apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from remnant.core.errors import ValidationError
from remnant.core.model import MemoryRecord

SECONDS_PER_DAY = 86_400.0


class Expr:
    """A node of an arithmetic expression over memory columns and query parameters."""

    __slots__ = ("args", "op")

    def __init__(self, op: str, *args: Any) -> None:
        self.op = op
        self.args = args

    def __add__(self, other: Expr | float) -> Expr:
        return Expr("+", self, _lift(other))

    def __radd__(self, other: float) -> Expr:
        return Expr("+", _lift(other), self)

    def __sub__(self, other: Expr | float) -> Expr:
        return Expr("-", self, _lift(other))

    def __mul__(self, other: Expr | float) -> Expr:
        return Expr("*", self, _lift(other))

    def __rmul__(self, other: float) -> Expr:
        return Expr("*", _lift(other), self)

    def __truediv__(self, other: Expr | float) -> Expr:
        return Expr("/", self, _lift(other))

    def __rtruediv__(self, other: float) -> Expr:
        return Expr("/", _lift(other), self)


def _lift(value: Expr | float) -> Expr:
    return value if isinstance(value, Expr) else Expr("const", float(value))


def col(name: str) -> Expr:
    return Expr("col", name)


def param(name: str) -> Expr:
    return Expr("param", name)


def greatest(a: Expr | float, b: Expr | float) -> Expr:
    return Expr("max", _lift(a), _lift(b))


def coalesce(a: Expr, b: Expr) -> Expr:
    return Expr("coalesce", a, b)


def ln(a: Expr) -> Expr:
    return Expr("ln", a)


def exp(a: Expr) -> Expr:
    return Expr("exp", a)


_NOW = param("now")
_CREATED = col("created_at")
_AGE_DAYS = greatest(0.0, (_NOW - _CREATED) / SECONDS_PER_DAY)
_IDLE_DAYS = greatest(0.0, (_NOW - coalesce(col("last_accessed_at"), _CREATED)) / SECONDS_PER_DAY)
_RECENCY = 1.0 / (_IDLE_DAYS + 1.0)
_FREQUENCY = ln(1.0 + greatest(0.0, col("access_count")))
_BOOST = 1.0 + param("mark_weight") * col("importance")
# The exponent is clamped at -700: PostgreSQL's exp raises on underflow where Python returns 0.0
# (exp(-700) is about 1e-304, below every threshold), so both sides clamp alike.
_DECAY = exp(greatest(-700.0, param("log_decay") * _AGE_DAYS))
#: The score of an unpinned memory; pinned memories score ``inf`` and are handled beside it.
SCORE: Expr = col("confidence") * (_RECENCY + _FREQUENCY) * _BOOST * _DECAY


class SQLSpelling(Protocol):
    """What rendering needs from a SQL dialect: its placeholder and its two-argument maximum."""

    ph: str
    greatest: str


def render_sql(expr: Expr, dialect: SQLSpelling, alias: str = "m") -> tuple[str, list[str]]:
    """``expr`` as SQL over ``alias``'s columns, and the names of its parameters in placeholder order."""
    names: list[str] = []

    def go(e: Expr) -> str:
        op, args = e.op, e.args
        if op == "col":
            return f"{alias}.{args[0]}"
        if op == "param":
            names.append(args[0])
            return dialect.ph
        if op == "const":
            return repr(args[0])
        if op in "+-*/":
            left = go(args[0])
            return f"({left} {op} {go(args[1])})"
        if op == "max":
            left = go(args[0])
            return f"{dialect.greatest}({left}, {go(args[1])})"
        if op == "coalesce":
            left = go(args[0])
            return f"COALESCE({left}, {go(args[1])})"
        return f"{op}({go(args[0])})"  # ln, exp: the same name in SQLite and PostgreSQL

    return go(expr), names


def render_python(expr: Expr) -> str:
    """``expr`` as a Python expression over variables named like its columns and parameters."""
    op, args = expr.op, expr.args
    if op in ("col", "param"):
        return str(args[0])
    if op == "const":
        return repr(args[0])
    if op in "+-*/":
        return f"({render_python(args[0])} {op} {render_python(args[1])})"
    if op == "max":
        return f"max({render_python(args[0])}, {render_python(args[1])})"
    if op == "coalesce":
        a = render_python(args[0])
        return f"({a} if {a} is not None else {render_python(args[1])})"
    return f"_{op}({render_python(args[0])})"


_SCORE_PY = compile(render_python(SCORE), "<importance score>", "eval")
_SCORE_GLOBALS: dict[str, Any] = {"__builtins__": {"max": max}, "_ln": math.log, "_exp": math.exp}


@dataclass(frozen=True)
class ImportanceWeights:
    """Tuning of the score. ``decay_per_day`` 0.99 halves it every ~69 days of age; ``mark_weight`` 4
    makes a memory marked fully important worth five times an unmarked one."""

    decay_per_day: float = 0.99
    mark_weight: float = 4.0

    def __post_init__(self) -> None:
        if not 0.0 < self.decay_per_day <= 1.0:
            raise ValidationError(f"decay_per_day must be in (0, 1], got {self.decay_per_day}")
        if self.mark_weight < 0:
            raise ValidationError(f"mark_weight must not be negative, got {self.mark_weight}")


def score_params(now: float, weights: ImportanceWeights) -> dict[str, float]:
    """The values of the score's parameters (by name) at ``now``."""
    return {"now": now, "mark_weight": weights.mark_weight, "log_decay": math.log(weights.decay_per_day)}


def importance_score_raw(
    *,
    now: float,
    created_at: float,
    last_accessed_at: float | None,
    access_count: int,
    confidence: float,
    importance: float,
    pinned: bool,
    weights: ImportanceWeights = ImportanceWeights(),
) -> float:
    """The score from plain numbers (epoch seconds), evaluated from :data:`SCORE`."""
    if pinned:
        return math.inf
    env: dict[str, Any] = {
        "created_at": created_at,
        "last_accessed_at": last_accessed_at,
        "access_count": access_count,
        "confidence": confidence,
        "importance": importance,
        **score_params(now, weights),
    }
    return float(eval(_SCORE_PY, _SCORE_GLOBALS, env))


def importance_score(
    record: MemoryRecord, now: datetime, weights: ImportanceWeights = ImportanceWeights()
) -> float:
    """How much a memory is worth keeping now (higher is better; ``inf`` when pinned)."""
    if record.created_at is None:
        raise ValidationError(f"memory {record.id} has no created_at")
    return importance_score_raw(
        now=now.timestamp(),
        created_at=record.created_at.timestamp(),
        last_accessed_at=record.last_accessed_at.timestamp() if record.last_accessed_at else None,
        access_count=record.access_count,
        confidence=record.confidence,
        importance=record.importance,
        pinned=record.pinned,
        weights=weights,
    )
