"""Data-layer forgetting for fine-tuning: a decaying training pool, dataset conflict resolution,
knowledge-update samples and counterfactual unlearning data (seed 001, sections 3.1 and 3.2)."""

from remnant.training.clock import Clock, FixedClock, SystemClock
from remnant.training.errors import (
    InvalidExampleError,
    RuleCycleError,
    RuleError,
    TrainingDataError,
    UnresolvableConflictError,
)
from remnant.training.example import Message, TrainingExample, example_from_dict
from remnant.training.pool import PoolStats, TrainingPool, WeightedExample
from remnant.training.weighting import DEFAULT_HALF_LIFE_DAYS, WeightPolicy

__all__ = [
    "DEFAULT_HALF_LIFE_DAYS",
    "Clock",
    "FixedClock",
    "InvalidExampleError",
    "Message",
    "PoolStats",
    "RuleCycleError",
    "RuleError",
    "SystemClock",
    "TrainingDataError",
    "TrainingExample",
    "TrainingPool",
    "UnresolvableConflictError",
    "WeightPolicy",
    "WeightedExample",
    "example_from_dict",
]
