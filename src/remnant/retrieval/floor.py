"""The relevance floor: recall returns nothing rather than something unrelated.

Recall ranks what it finds; without a floor it returns the ``limit`` best candidates however weak,
so in a small store a chit-chat turn fills the list for any question ("still offered": a meme
weeks later for "what is Tracy allergic to"). After the ranking (the learned ranker's score, or
the fixed weights' boosted fused relevance), before the memory's own signals multiply it, a
candidate is dropped when its relevance is under

* ``relative`` times the best candidate's (the query's best hit sets the bar: a hit at 1 % of
  it is filling the list, not answering), or
* ``absolute``, when the learned ranker ranks: its score is a sigmoid of features that hold the
  raw cosines and whether a query word was found at all, so a floor on it says "nothing here is
  about the question" even when the best candidate is itself unrelated. The fixed weights have no
  absolute floor: their fused relevance is min-max normalised, the best is always 1.

Both were chosen by cross-validation (docs/retrieval.md, "Relevance floor": absolute 0.0025, no
relative floor); ``REMNANT_RELEVANCE_FLOOR`` sets them (``off``, ``R`` or ``R,A``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from remnant.core.errors import ValidationError
from remnant.core.settings import read

RELEVANCE_FLOOR_ENV = "REMNANT_RELEVANCE_FLOOR"


@dataclass(frozen=True)
class RelevanceFloor:
    """``relative``: the share of the best candidate's relevance a hit needs; ``absolute``: the
    learned ranker's score a hit needs (0: none); ``stated``: the learned ranker's score a
    candidate that states the attribute the question asks about needs instead (None: such a
    candidate gets no other bar; :func:`remnant.understand.attribute_model.stating`)."""

    relative: float = 0.0
    absolute: float = 0.0
    stated: float | None = None

    def __post_init__(self) -> None:
        if not (0.0 <= self.relative < 1.0 and 0.0 <= self.absolute < 1.0):
            raise ValidationError(
                f"a relevance floor is two numbers from 0 to below 1, not {self.relative}, {self.absolute}"
            )
        if self.stated is not None and not 0.0 <= self.stated <= self.absolute:
            raise ValidationError(
                f"the floor for a stated attribute is from 0 to the absolute floor, not {self.stated}"
            )

    @property
    def off(self) -> bool:
        return self.relative <= 0 and self.absolute <= 0

    def under(self, ranked: Sequence[tuple[str, float]], *, absolute: bool = True) -> list[str]:
        """The ids of a ranking (id, relevance) under the bar; ``absolute=False`` when the scores
        are not the learned ranker's."""
        if not ranked or self.off:
            return []
        best = max(s for _, s in ranked)
        bar = max(self.relative * best, self.absolute if absolute else 0.0)
        return [i for i, s in ranked if s < bar]

    def apply(
        self,
        ranked: Sequence[tuple[str, float]],
        *,
        absolute: bool = True,
        keep: Collection[str] = (),
    ) -> tuple[list[tuple[str, float]], list[str]]:
        """(kept, dropped ids) of a ranking (id, relevance), its order kept; ``absolute=False``
        when the scores are not the learned ranker's; ``keep``: ids kept however low (those that
        hold what the question asks for, :func:`remnant.understand.attribute_model.stating`)."""
        out = set(self.under(ranked, absolute=absolute)) - set(keep)
        return [(i, s) for i, s in ranked if i not in out], [i for i, _ in ranked if i in out]


# Chosen by leave-one-author-out cross-validation on the development timelines and checked on the
# LoCoMo development split (docs/retrieval.md, "Relevance floor").
# The folds chose no relative floor (it cost LoCoMo answer-hit from 0.05 and added no case once
# the absolute floor was in) and an absolute one of 0.0025 (10 folds of 15) or 0.0075 (5).
DEFAULT_FLOOR = RelevanceFloor(relative=0.0, absolute=0.0025)
OFF = RelevanceFloor()


def floor_from_env() -> RelevanceFloor:
    """:data:`DEFAULT_FLOOR`, or ``REMNANT_RELEVANCE_FLOOR``: ``off``, ``R`` (relative, the
    default absolute kept) or ``R,A``."""
    raw = str(read(RELEVANCE_FLOOR_ENV) or "").strip().lower()
    if not raw:
        return DEFAULT_FLOOR
    if raw in ("off", "none", "no", "false", "0"):
        return OFF
    parts = [p.strip() for p in raw.split(",")]
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        numbers = []
    if len(numbers) not in (1, 2):
        raise ValidationError(
            f"{RELEVANCE_FLOOR_ENV} must be off, a relative floor (0.05) or relative,absolute (0.05,0.02); "
            f"not {raw!r}"
        )
    absolute = numbers[1] if len(numbers) == 2 else DEFAULT_FLOOR.absolute
    return RelevanceFloor(relative=numbers[0], absolute=absolute)
