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
  absolute floor: their fused relevance is min-max normalised, the best is always 1;
* ``salient`` instead of ``absolute`` for a memory of importance ``salient_at`` or more: what the
  salience model judged important (a move, a new job, an allergy) often answers in other words than
  the question's ("we unpacked the last boxes in our bungalow in Exeter" for "which city does the
  user live in?", learned-ranker score 0.0018), and filler is not important, so a lower bar there
  brings the answer back without the filler.

All were chosen by cross-validation (docs/retrieval.md, "Relevance floor": absolute 0.0025, no
relative floor; "What is not recalled": the salient bar); ``REMNANT_RELEVANCE_FLOOR`` sets the
first two (``off``, ``R`` or ``R,A``; the salient bar is never above the absolute one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from remnant.core.errors import ValidationError
from remnant.core.settings import read

RELEVANCE_FLOOR_ENV = "REMNANT_RELEVANCE_FLOOR"


@dataclass(frozen=True)
class RelevanceFloor:
    """``relative``: the share of the best candidate's relevance a hit needs; ``absolute``: the
    learned ranker's score a hit needs (0: none); ``salient``: the score a memory of importance
    ``salient_at`` or more needs instead (None: no such bar; at most ``absolute``)."""

    relative: float = 0.0
    absolute: float = 0.0
    salient_at: float | None = None
    salient: float = 0.0

    def __post_init__(self) -> None:
        if not (0.0 <= self.relative < 1.0 and 0.0 <= self.absolute < 1.0):
            raise ValidationError(
                f"a relevance floor is two numbers from 0 to below 1, not {self.relative}, {self.absolute}"
            )
        if self.salient < 0 or (self.salient_at is not None and not 0.0 <= self.salient_at <= 1.0):
            raise ValidationError(
                f"the salient bar is a score of 0 or more for an importance from 0 to 1, not "
                f"{self.salient} from {self.salient_at}"
            )

    @property
    def off(self) -> bool:
        return self.relative <= 0 and self.absolute <= 0

    def apply(
        self,
        ranked: Sequence[tuple[str, float]],
        *,
        absolute: bool = True,
        importance: Mapping[str, float] | None = None,
    ) -> tuple[list[tuple[str, float]], list[str]]:
        """(kept, dropped ids) of a ranking (id, relevance), its order kept; ``absolute=False``
        when the scores are not the learned ranker's; ``importance``: the candidates' (for the
        salient bar; none given, none has it)."""
        if not ranked or self.off:
            return list(ranked), []
        best = max(s for _, s in ranked)
        bar = max(self.relative * best, self.absolute if absolute else 0.0)
        low = max(self.relative * best, min(self.salient, self.absolute) if absolute else 0.0)
        salient_at = self.salient_at
        weights = importance or {}

        def passes(i: str, s: float) -> bool:
            if s >= bar:
                return True
            return salient_at is not None and s >= low and weights.get(i, 0.0) >= salient_at

        kept = [(i, s) for i, s in ranked if passes(i, s)]
        taken = {i for i, _ in kept}
        return kept, [i for i, _ in ranked if i not in taken]


# Chosen by leave-one-author-out cross-validation on the development timelines and checked on the
# LoCoMo development split (docs/retrieval.md, "Relevance floor").
# The folds chose no relative floor (it cost LoCoMo answer-hit from 0.05 and added no case once
# the absolute floor was in) and an absolute one of 0.0025 (10 folds of 15) or 0.0075 (5).
DEFAULT_FLOOR = RelevanceFloor(relative=0.0, absolute=0.0025, salient_at=0.9, salient=0.0015)
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
    return replace(DEFAULT_FLOOR, relative=numbers[0], absolute=absolute)
