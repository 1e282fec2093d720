"""Errors raised by the training-data layer.

They derive from one base so callers can catch every data-layer problem at once; the base will
be re-parented onto the core ``RemnantError`` when the core lands.
"""

from __future__ import annotations


class TrainingDataError(Exception):
    """Base class for problems with training data, rules or pool files."""


class InvalidExampleError(TrainingDataError, ValueError):
    """An example or claim is missing a required field or has a bad value.

    Also a ``ValueError`` so tolerant JSONL loaders reject just that line.
    """


class RuleError(TrainingDataError):
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
