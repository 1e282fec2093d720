"""Errors raised by the training-data layer (all :class:`~remnant.core.errors.RemnantError`)."""

from __future__ import annotations

from remnant.core.errors import RemnantError, ValidationError


class TrainingDataError(RemnantError):
    """Base class for problems with training data, rules or pool files."""


class InvalidExampleError(TrainingDataError, ValidationError):
    """An example or claim is missing a required field or has a bad value.

    A ``ValidationError`` (so a ``ValueError``): tolerant JSONL loaders reject just that line.
    """


class RuleError(TrainingDataError, ValidationError):
    """A resolution rule set is malformed."""


class RuleCycleError(RuleError):
    """Source-precedence rules form a cycle (A beats B beats ... beats A).

    ``cycle`` lists the sources in order, first repeated at the end, so the message shows the loop.
    """

    def __init__(self, cycle: list[str], attribute: str | None = None) -> None:
        self.cycle = cycle
        self.attribute = attribute
        scope = f" for attribute {attribute!r}" if attribute else ""
        super().__init__(f"resolution rules contradict each other{scope}: " + " beats ".join(cycle))


class UnresolvableConflictError(TrainingDataError):
    """Two claims tie on every resolution criterion and state different values."""
