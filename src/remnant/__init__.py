"""Remnant: a memory layer for LLM apps and agents that forgets the way people do.

The public API lives here; everything else is an implementation detail that may move.
``Memory`` is the product (:class:`remnant.config.Memory`: privacy layer, hybrid recall, the offline
ingestor); the bare engine is :class:`remnant.engine.Memory`.
"""

from typing import TYPE_CHECKING, Any

from remnant.config import Memory, build_memory
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
from remnant.engine import (
    ContradictionPolicy,
    ErasureReport,
    EvictionPolicy,
    FadedHint,
    ForgetResult,
    Hit,
    RecallResult,
    SweepPolicy,
    SweepReport,
    WriteItem,
    WriteOptions,
)
from remnant.store import MemoryFilter, Store, open_store

if TYPE_CHECKING:
    from remnant.client import AsyncClient, Client

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # the clients need httpx (the client extra): imported on first use, not with remnant
    if name in ("Client", "AsyncClient"):
        from remnant import client

        return getattr(client, name)
    raise AttributeError(f"module 'remnant' has no attribute {name!r}")


__all__ = [
    "AsyncClient",
    "AuditEntry",
    "ChainVerification",
    "Client",
    "Clock",
    "ConfirmationRequired",
    "ConflictError",
    "ContradictionPolicy",
    "DecayConfig",
    "ErasureReport",
    "EvictionPolicy",
    "FadedHint",
    "ForgetResult",
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
    "WriteItem",
    "WriteOptions",
    "build_memory",
    "open_store",
]
