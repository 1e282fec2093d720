"""The memory engine: the :class:`Memory` facade, its write seam (:class:`Ledger`), the forgetting
policies and what they return."""

from remnant.engine.forgetting import ContradictionPolicy, EvictionPolicy, SweepPolicy
from remnant.engine.ledger import Ledger, Transition, WriteHook, WriteOptions
from remnant.engine.memory import Memory, WriteItem
from remnant.engine.results import (
    ErasureReport,
    FadedHint,
    ForgetIntent,
    ForgetMatch,
    ForgetResult,
    Hit,
    RecallResult,
    SweepReport,
    SweepStep,
)
from remnant.engine.seams import EngineView, LexicalRetriever, Redactor, Retriever

__all__ = [
    "ContradictionPolicy",
    "EngineView",
    "ErasureReport",
    "EvictionPolicy",
    "FadedHint",
    "ForgetIntent",
    "ForgetMatch",
    "ForgetResult",
    "Hit",
    "Ledger",
    "LexicalRetriever",
    "Memory",
    "RecallResult",
    "Redactor",
    "Retriever",
    "SweepPolicy",
    "SweepReport",
    "SweepStep",
    "Transition",
    "WriteHook",
    "WriteItem",
    "WriteOptions",
]
