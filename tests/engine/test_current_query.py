"""The current-state step's use of the query (issue 27): a pair the model is unsure of (from
``UNSURE_AT``, under ``EARLIER_AT``) makes the older hit earlier only when the newer one answers the
query at least ``CLOSER_BY`` more closely; the query's vector is read once, and only when such a pair
is in hand. The model's behaviour on real turns is in ``test_current_judged.py`` (through
``Memory``); here a scorer of fixed probabilities pins the band's edges, which no real pair can be
steered to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt
import pytest

from remnant.core.model import Kind, MemoryRecord
from remnant.engine.current import CLOSER_BY, EARLIER_AT, UNSURE_AT, current_first
from remnant.engine.results import Hit

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
MODEL = "e5-test"
# the old turn and the new one, unit vectors; the query sits between them
OLD, NEW = np.array([1.0, 0.0, 0.0]), np.array([0.6, 0.8, 0.0])


class Fixed:
    """A pair scorer that answers one probability for every pair."""

    def __init__(self, p: float) -> None:
        self.p = p

    def probabilities_of(
        self,
        texts: Sequence[str],
        vectors: Sequence[npt.ArrayLike],
        pairs: Sequence[tuple[int, int]],
        *,
        model_id: str | None,
    ) -> list[float] | None:
        return [self.p for _ in pairs]


def _hits() -> list[Hit]:
    old = MemoryRecord("old", "u", "i shop at the co-op", kind=Kind.EPISODE, created_at=T0)
    new = MemoryRecord(
        "new", "u", "i shop at tesco now", kind=Kind.EPISODE, created_at=T0 + timedelta(days=2)
    )
    return [Hit(old, 0.9, 1.0), Hit(new, 0.5, 1.0)]


def _run(p: float, query: npt.NDArray[np.float64] | None, *, model: str = MODEL) -> tuple[list[str], int]:
    reads = [0]

    def vectors(ids: list[str]) -> tuple[str | None, Mapping[str, npt.NDArray[np.float64]]]:
        return MODEL, {"old": OLD, "new": NEW}

    def query_vector() -> tuple[str | None, npt.ArrayLike] | None:
        reads[0] += 1
        return (model, query) if query is not None else None

    got = current_first(
        _hits(), lambda ids: [], limit=5, judge=Fixed(p), vectors=vectors, query_vector=query_vector
    )
    return [h.memory.id for h in got], reads[0]


def _toward(v: npt.NDArray[np.float64], w: npt.NDArray[np.float64], t: float) -> npt.NDArray[np.float64]:
    q = (1 - t) * v + t * w
    return np.asarray(q / np.linalg.norm(q), dtype=np.float64)


def test_the_band_is_below_the_threshold() -> None:
    assert 0.0 < UNSURE_AT < EARLIER_AT
    assert CLOSER_BY >= 0.0


def test_an_unsure_pair_counts_when_the_newer_answers_the_query_as_closely() -> None:
    ids, reads = _run(UNSURE_AT, _toward(OLD, NEW, 0.9))
    assert ids == ["new"] and reads == 1


def test_an_unsure_pair_does_not_count_when_the_older_answers_more_closely() -> None:
    ids, reads = _run((UNSURE_AT + EARLIER_AT) / 2, _toward(OLD, NEW, 0.1))
    assert ids == ["old", "new"] and reads == 1


@pytest.mark.parametrize("p", [0.0, UNSURE_AT - 0.01])
def test_under_the_band_the_query_is_not_read(p: float) -> None:
    ids, reads = _run(p, _toward(OLD, NEW, 0.9))
    assert ids == ["old", "new"] and reads == 0


def test_a_sure_pair_needs_no_query() -> None:
    ids, reads = _run(EARLIER_AT, None)
    assert ids == ["new"] and reads == 0


@pytest.mark.parametrize(
    ("query", "model"),
    [(None, MODEL), ((0.6, 0.8, 0.0), "another-model"), ((0.6, 0.8), MODEL)],
    ids=["no-vector", "another-model", "another-size"],
)
def test_without_a_query_vector_of_the_stored_model_the_pair_model_alone_decides(
    query: tuple[float, ...] | None, model: str
) -> None:
    ids, _ = _run(UNSURE_AT, None if query is None else np.array(query), model=model)
    assert ids == ["old", "new"]
