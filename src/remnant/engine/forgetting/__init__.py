"""The forgetting policies: sweeps, importance eviction, contradictions, forget requests, erasure,
knowledge sync and their schedule.

Each is written on the engine's write seam (:class:`remnant.engine.ledger.Ledger`), never on the
:class:`~remnant.engine.memory.Memory` facade: a new policy goes here, as a function of a ledger.
What a text says (a request's intent, a statement's attribute, a time expression) is read by
:mod:`remnant.understand`; only the policies are here.
"""

from __future__ import annotations

from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.engine.forgetting.eviction import EvictionPolicy
from remnant.engine.forgetting.knowledge import KnowledgeDoc, sync_knowledge
from remnant.engine.forgetting.schedule import Schedule, run_due
from remnant.engine.forgetting.sweep import SweepPolicy, run_sweep
from remnant.understand.statements import ContradictionDetector

__all__ = [
    "ContradictionDetector",
    "ContradictionPolicy",
    "EvictionPolicy",
    "KnowledgeDoc",
    "Schedule",
    "SweepPolicy",
    "run_due",
    "run_sweep",
    "sync_knowledge",
]
