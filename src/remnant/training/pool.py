"""The dynamic training data pool: examples in a SQLite file, sampled with age-decayed weights.

Instead of a static, ever-growing fine-tuning set, the pool keeps everything with its date,
source and authority, and each training run draws from it with weights that halve every
half-life. Old data is not deleted; it simply stops being drawn, which is the slow forgetting
the seed describes (section 3.1, strategy one).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.store.migrations import TRAINING_POOL, SQLiteConnection, migrate
from remnant.training.clock import Clock, SystemClock, format_time, parse_time, resolve_now
from remnant.training.errors import TrainingDataError
from remnant.training.example import Message, TrainingExample
from remnant.training.jsonl import write_jsonl
from remnant.training.weighting import SECONDS_PER_DAY, WeightPolicy, weights


@dataclass(frozen=True)
class WeightedExample:
    """An example with its age (days) and sampling weight at a given instant."""

    example: TrainingExample
    age_days: float
    weight: float


@dataclass(frozen=True)
class PoolStats:
    """A summary of the pool at one instant."""

    count: int
    by_source: dict[str, int]
    oldest: datetime | None
    newest: datetime | None
    age_quantiles_days: dict[str, float]
    total_weight: float
    effective_size: float
    weight_share_by_age: dict[str, float] = field(default_factory=dict)
    superseded: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "superseded": self.superseded,
            "by_source": self.by_source,
            "oldest": format_time(self.oldest) if self.oldest else None,
            "newest": format_time(self.newest) if self.newest else None,
            "age_quantiles_days": self.age_quantiles_days,
            "total_weight": self.total_weight,
            "effective_size": self.effective_size,
            "weight_share_by_age": self.weight_share_by_age,
        }


@dataclass(frozen=True)
class AddResult:
    added: int
    duplicates: int


class TrainingPool:
    """A pool of training examples stored in one SQLite file (``":memory:"`` for tests).

    The weight policy is stored in the file the first time it is given, so ``pool sample`` and
    ``pool export`` on the same file agree; pass ``policy=`` to override per call.
    """

    def __init__(
        self, path: str | Path, *, policy: WeightPolicy | None = None, clock: Clock | None = None
    ) -> None:
        self.path = str(path)
        self.clock: Clock = clock or SystemClock()
        self._conn = sqlite3.connect(self.path)
        migrate(SQLiteConnection(self._conn), TRAINING_POOL)
        if policy is not None:
            self.set_policy(policy)

    # -- settings -----------------------------------------------------------------------------
    @property
    def policy(self) -> WeightPolicy:
        rows = dict(self._conn.execute("SELECT name, value FROM pool_setting").fetchall())
        if not rows:
            return WeightPolicy()
        return WeightPolicy(
            **{k: float(v) for k, v in rows.items() if k in WeightPolicy.__dataclass_fields__}
        )

    def set_policy(self, policy: WeightPolicy) -> None:
        with self._conn:
            for name in WeightPolicy.__dataclass_fields__:
                self._conn.execute(
                    "DELETE FROM pool_setting WHERE name = ?",
                    (name,),
                )
                self._conn.execute(
                    "INSERT INTO pool_setting (name, value) VALUES (?, ?)",
                    (name, repr(getattr(policy, name))),
                )

    # -- writing ------------------------------------------------------------------------------
    def add(self, example: TrainingExample) -> bool:
        """Add one example; return False if the same content from the same source is already there."""
        return self.add_many([example]).added == 1

    def add_many(self, examples: Iterable[TrainingExample]) -> AddResult:
        added = duplicates = 0
        added_at = format_time(resolve_now(clock=self.clock))
        with self._conn:
            for ex in examples:
                body_kind, body = (
                    ("text", ex.text)
                    if ex.text is not None
                    else ("messages", json.dumps(ex.chat(), ensure_ascii=False))
                )
                # ON CONFLICT DO NOTHING (SQLite >= 3.24, PostgreSQL): same content or id is a duplicate
                cur = self._conn.execute(
                    "INSERT INTO pool_example (example_id, content_hash, body_kind, body, created_at, added_at,"
                    " source, authority, importance, tags, meta, superseded)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (
                        ex.example_id,
                        ex.content_hash(),
                        body_kind,
                        body,
                        format_time(ex.created_at),
                        added_at,
                        ex.source,
                        ex.authority,
                        ex.importance,
                        json.dumps(list(ex.tags), ensure_ascii=False),
                        json.dumps(ex.meta, ensure_ascii=False),
                        1 if ex.superseded else 0,
                    ),
                )
                if cur.rowcount == 1:
                    added += 1
                else:
                    duplicates += 1
        return AddResult(added, duplicates)

    def remove(self, example_id: str) -> bool:
        with self._conn:
            cur = self._conn.execute("DELETE FROM pool_example WHERE example_id = ?", (example_id,))
        return cur.rowcount > 0

    def mark_superseded(self, example_ids: Iterable[str], superseded: bool = True) -> int:
        """Flag examples as superseded (or not); return how many rows changed."""
        changed = 0
        with self._conn:
            for example_id in example_ids:
                changed += self._conn.execute(
                    "UPDATE pool_example SET superseded = ? WHERE example_id = ? AND superseded <> ?",
                    (int(superseded), example_id, int(superseded)),
                ).rowcount
        return changed

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> TrainingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM pool_example").fetchone()[0])

    def rows_holding(self, probes: Sequence[str]) -> int:
        """How many examples hold any of ``probes`` verbatim in their body, source, tags or meta
        (an erasure's check that none of a user's values went into training data)."""
        wanted = [p for p in probes if p]
        if not wanted:
            return 0
        hits = 0
        for row in self._conn.execute("SELECT body, source, tags, meta FROM pool_example"):
            text = "\n".join(str(v) for v in row)
            if any(p in text for p in wanted):
                hits += 1
        return hits

    def examples(self, *, source: str | None = None) -> list[TrainingExample]:
        """All examples in a stable order (creation time, then id)."""
        sql = (
            "SELECT example_id, body_kind, body, created_at, source, authority, importance, tags, meta,"
            " superseded FROM pool_example"
        )
        params: tuple[Any, ...] = ()
        if source is not None:
            sql += " WHERE source = ?"
            params = (source,)
        sql += " ORDER BY created_at, example_id"
        return [self._row_to_example(row) for row in self._conn.execute(sql, params)]

    @staticmethod
    def _row_to_example(row: Sequence[Any]) -> TrainingExample:
        example_id, body_kind, body, created_at, source, authority, importance, tags, meta, superseded = row
        text: str | None = None
        messages: tuple[Message, ...] = ()
        if body_kind == "text":
            text = body
        else:
            messages = tuple(Message(m["role"], m["content"]) for m in json.loads(body))
        return TrainingExample(
            created_at=parse_time(created_at),
            source=source,
            text=text,
            messages=messages,
            authority=float(authority),
            importance=float(importance),
            tags=tuple(json.loads(tags)),
            example_id=example_id,
            meta=json.loads(meta),
            superseded=bool(superseded),
        )

    def weighted(
        self, *, now: datetime | None = None, policy: WeightPolicy | None = None
    ) -> list[WeightedExample]:
        """Every example with its age and weight at ``now`` (default: the pool's clock)."""
        exs = self.examples()
        ages, w = self._weights(exs, now=now, policy=policy)
        return [WeightedExample(e, float(a), float(x)) for e, a, x in zip(exs, ages, w, strict=True)]

    def _weights(
        self,
        exs: Sequence[TrainingExample],
        *,
        now: datetime | None,
        policy: WeightPolicy | None,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        at = resolve_now(now, self.clock)
        pol = policy or self.policy
        created = np.array([e.created_at.timestamp() for e in exs], dtype=np.float64)
        ages = np.maximum((at.timestamp() - created) / SECONDS_PER_DAY, 0.0)
        auth = np.array([e.authority for e in exs], dtype=np.float64)
        imp = np.array([e.importance for e in exs], dtype=np.float64)
        sup = np.array([e.superseded for e in exs], dtype=bool)
        return ages, weights(ages, auth, imp, pol, sup)

    # -- sampling -----------------------------------------------------------------------------
    def sample(
        self,
        n: int,
        *,
        seed: int | None = 0,
        replace_draws: bool = True,
        now: datetime | None = None,
        policy: WeightPolicy | None = None,
    ) -> list[WeightedExample]:
        """Draw ``n`` examples with probability proportional to weight, reproducibly for a seed.

        With ``replace_draws`` (the default, as in weighted samplers for training) an example can
        be drawn more than once, and the sampled age distribution follows the decay exactly.
        Without it, at most ``n`` distinct examples are drawn (n may not exceed the number with
        non-zero weight).
        """
        if n < 0:
            raise ValueError("n must be >= 0")
        ids, ages, w = self._numeric(now=now, policy=policy)
        idx = draw_indices(w, n, np.random.default_rng(seed), replace_draws=replace_draws)
        return self._materialise(ids, ages, w, idx)

    def batches(
        self,
        batch_size: int,
        n_batches: int,
        *,
        seed: int | None = 0,
        now: datetime | None = None,
        policy: WeightPolicy | None = None,
    ) -> Iterator[list[WeightedExample]]:
        """Yield ``n_batches`` weighted batches from one seeded generator (same seed, same batches)."""
        if batch_size <= 0 or n_batches < 0:
            raise ValueError("batch_size must be > 0 and n_batches >= 0")
        ids, ages, w = self._numeric(now=now, policy=policy)
        rng = np.random.default_rng(seed)
        for _ in range(n_batches):
            idx = draw_indices(w, batch_size, rng, replace_draws=True)
            yield self._materialise(ids, ages, w, idx)

    def _numeric(
        self, *, now: datetime | None, policy: WeightPolicy | None
    ) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Ids, ages and weights without building example objects (the fast path for sampling)."""
        rows = self._conn.execute(
            "SELECT example_id, created_at, authority, importance, superseded FROM pool_example"
            " ORDER BY created_at, example_id"
        ).fetchall()
        at = resolve_now(now, self.clock).timestamp()
        created = np.array([datetime.fromisoformat(r[1]).timestamp() for r in rows], dtype=np.float64)
        ages = np.maximum((at - created) / SECONDS_PER_DAY, 0.0)
        auth = np.array([r[2] for r in rows], dtype=np.float64)
        imp = np.array([r[3] for r in rows], dtype=np.float64)
        sup = np.array([bool(r[4]) for r in rows], dtype=bool)
        return [r[0] for r in rows], ages, weights(ages, auth, imp, policy or self.policy, sup)

    def _materialise(
        self,
        ids: Sequence[str],
        ages: npt.NDArray[np.float64],
        w: npt.NDArray[np.float64],
        idx: npt.NDArray[np.int64],
    ) -> list[WeightedExample]:
        wanted = sorted({ids[i] for i in idx})
        found: dict[str, TrainingExample] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" for _ in chunk)
            for row in self._conn.execute(
                "SELECT example_id, body_kind, body, created_at, source, authority, importance, tags, meta,"
                f" superseded FROM pool_example WHERE example_id IN ({marks})",
                chunk,
            ):
                found[row[0]] = self._row_to_example(row)
        return [WeightedExample(found[ids[i]], float(ages[i]), float(w[i])) for i in idx]

    def export(
        self,
        path: str | Path,
        *,
        mode: str = "weighted",
        n: int | None = None,
        seed: int | None = 0,
        normalize: bool = False,
        now: datetime | None = None,
        policy: WeightPolicy | None = None,
    ) -> int:
        """Write a fine-tuning JSONL in chat format.

        ``mode="weighted"``: every example with non-zero weight once, as
        ``{"messages": [...], "weight": w}`` (trainers that support per-example loss weights).
        ``normalize`` rescales so the mean weight is 1. ``mode="sampled"``: ``n`` weighted draws,
        each written with weight 1 (for trainers without per-example weights).
        """
        if mode == "weighted":
            rows = [we for we in self.weighted(now=now, policy=policy) if we.weight > 0]
            scale = 1.0
            if normalize and rows:
                scale = len(rows) / sum(r.weight for r in rows)
            out = ({"messages": r.example.chat(), "weight": round(r.weight * scale, 6)} for r in rows)
            return write_jsonl(path, out)
        if mode == "sampled":
            if n is None:
                raise ValueError("mode 'sampled' needs n")
            drawn = self.sample(n, seed=seed, now=now, policy=policy)
            return write_jsonl(path, ({"messages": r.example.chat(), "weight": 1.0} for r in drawn))
        raise ValueError(f"unknown export mode {mode!r} (use 'weighted' or 'sampled')")

    def stats(self, *, now: datetime | None = None, policy: WeightPolicy | None = None) -> PoolStats:
        exs = self.examples()
        if not exs:
            return PoolStats(0, {}, None, None, {}, 0.0, 0.0)
        pol = policy or self.policy
        ages, w = self._weights(exs, now=now, policy=pol)
        total = float(w.sum())
        ess = float(total**2 / float((w**2).sum())) if total > 0 else 0.0
        q = np.quantile(ages, [0.0, 0.25, 0.5, 0.75, 1.0])
        shares: dict[str, float] = {}
        h = pol.half_life_days
        edges = [0.0, h, 2 * h, 4 * h, float("inf")]
        labels = [f"<{h:g}d", f"{h:g}-{2 * h:g}d", f"{2 * h:g}-{4 * h:g}d", f">={4 * h:g}d"]
        for lo, hi, label in zip(edges[:-1], edges[1:], labels, strict=True):
            mask = (ages >= lo) & (ages < hi)
            shares[label] = round(float(w[mask].sum()) / total, 4) if total > 0 else 0.0
        return PoolStats(
            count=len(exs),
            by_source=dict(Counter(e.source for e in exs).most_common()),
            oldest=min(e.created_at for e in exs),
            newest=max(e.created_at for e in exs),
            age_quantiles_days={
                k: round(float(v), 3) for k, v in zip(["min", "p25", "p50", "p75", "max"], q, strict=True)
            },
            total_weight=round(total, 6),
            effective_size=round(ess, 3),
            weight_share_by_age=shares,
            superseded=sum(e.superseded for e in exs),
        )


def draw_indices(
    w: npt.NDArray[np.float64], n: int, rng: np.random.Generator, *, replace_draws: bool = True
) -> npt.NDArray[np.int64]:
    """Indices drawn with probability proportional to ``w`` from ``rng``."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    total = float(w.sum())
    if not total > 0:
        raise TrainingDataError("nothing to sample: the pool is empty or every weight is zero")
    p = w / total
    if not replace_draws and n > int(np.count_nonzero(w)):
        raise TrainingDataError(
            f"cannot draw {n} distinct examples from {int(np.count_nonzero(w))} with weight"
        )
    return rng.choice(len(w), size=n, replace=replace_draws, p=p).astype(np.int64)


def with_policy(pool: TrainingPool, **changes: float) -> WeightPolicy:
    """The pool's policy with some fields changed (CLI convenience)."""
    return replace(pool.policy, **changes)
