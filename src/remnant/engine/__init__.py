"""The memory engine and what it returns."""

from remnant.engine.memory import Memory
from remnant.engine.results import ErasureReport, FadedHint, Hit, RecallResult, SweepReport, SweepStep
from remnant.engine.sweep import SweepPolicy

__all__ = [
    "ErasureReport",
    "FadedHint",
    "Hit",
    "Memory",
    "RecallResult",
    "SweepPolicy",
    "SweepReport",
    "SweepStep",
]
