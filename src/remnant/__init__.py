"""Remnant: a memory layer for LLM apps and agents that forgets the way people do.

The public API lives here; everything else is an implementation detail that may move.
"""

from remnant.core.audit import AuditEntry, ChainVerification
from remnant.core.clock import Clock, ManualClock, SystemClock
from remnant.core.decay import DecayConfig
from remnant.core.errors import (
    ConfirmationRequired,
    ConflictError,
    NotFoundError,
    RemnantError,
    SchemaTooNewError,
    StoreError,
    TransientConflict,
    ValidationError,
)
from remnant.core.model import Kind, MemoryRecord, Scope, Status
from remnant.engine import ErasureReport, FadedHint, Hit, Memory, RecallResult, SweepPolicy, SweepReport
from remnant.store import MemoryFilter, Store, open_store

__version__ = "0.1.0"

__all__ = [
    "AuditEntry",
    "ChainVerification",
    "Clock",
    "ConfirmationRequired",
    "ConflictError",
    "DecayConfig",
    "ErasureReport",
    "FadedHint",
    "Hit",
    "Kind",
    "ManualClock",
    "Memory",
    "MemoryFilter",
    "MemoryRecord",
    "NotFoundError",
    "RecallResult",
    "RemnantError",
    "SchemaTooNewError",
    "Scope",
    "Status",
    "Store",
    "StoreError",
    "SweepPolicy",
    "SweepReport",
    "SystemClock",
    "TransientConflict",
    "ValidationError",
    "open_store",
]
