"""The memory engine: the :class:`Engine` facade (``Memory``, its former name, is an alias), its
write seam (:class:`Ledger`), the forgetting policies and what they return."""

from remnant.engine.forgetting import ContradictionPolicy, EvictionPolicy, SweepPolicy
from remnant.engine.ledger import Ledger, Transition, WriteHook
from remnant.engine.memory import Engine, Memory
from remnant.engine.options import (
    Draft,
    Ingestor,
    Message,
    Observation,
    PlainIngestor,
    WriteItem,
    WriteOptions,
)
from remnant.engine.results import (
    AddResult,
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
    "AddResult",
    "ContradictionPolicy",
    "Draft",
    "Engine",
    "EngineView",
    "ErasureReport",
    "EvictionPolicy",
    "FadedHint",
    "ForgetIntent",
    "ForgetMatch",
    "ForgetResult",
    "Hit",
    "Ingestor",
    "Ledger",
    "LexicalRetriever",
    "Memory",
    "Message",
    "Observation",
    "PlainIngestor",
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
