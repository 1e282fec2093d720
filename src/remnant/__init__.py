"""Remnant: a memory layer for LLM apps and agents that forgets the way people do.

The public API lives here; everything else is an implementation detail that may move.
``Memory`` is the product (:class:`remnant.config.Memory`: privacy layer, hybrid recall, the offline
ingestor); the bare engine is :class:`remnant.engine.Memory`.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from remnant.client import AsyncClient, Client
    from remnant.config import Memory, build_memory
    from remnant.core.audit import AuditEntry, ChainVerification
    from remnant.core.clock import Clock, ManualClock, SystemClock
    from remnant.core.decay import DecayConfig
    from remnant.core.errors import (
        ConfirmationRequired,
        ConflictError,
        MissingExtraError,
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

__version__ = "0.1.0"

# The names below are imported on first use (PEP 562), so `import remnant.cli` for `remnant --version`
# or `remnant list` does not pay for the engine, numpy and the store before it needs them (and the
# clients, which need httpx, only load when asked for).
_EXPORTS = {
    "AsyncClient": "remnant.client",
    "AuditEntry": "remnant.core.audit",
    "ChainVerification": "remnant.core.audit",
    "Client": "remnant.client",
    "Clock": "remnant.core.clock",
    "ConfirmationRequired": "remnant.core.errors",
    "ConflictError": "remnant.core.errors",
    "ContradictionPolicy": "remnant.engine",
    "DecayConfig": "remnant.core.decay",
    "ErasureReport": "remnant.engine",
    "EvictionPolicy": "remnant.engine",
    "FadedHint": "remnant.engine",
    "ForgetResult": "remnant.engine",
    "Hit": "remnant.engine",
    "Kind": "remnant.core.model",
    "ManualClock": "remnant.core.clock",
    "Memory": "remnant.config",
    "MemoryFilter": "remnant.store",
    "MemoryRecord": "remnant.core.model",
    "MissingExtraError": "remnant.core.errors",
    "NotFoundError": "remnant.core.errors",
    "RecallResult": "remnant.engine",
    "RemnantError": "remnant.core.errors",
    "SchemaTooNewError": "remnant.core.errors",
    "Scope": "remnant.core.model",
    "Status": "remnant.core.model",
    "Store": "remnant.store",
    "StoreError": "remnant.core.errors",
    "SweepPolicy": "remnant.engine",
    "SweepReport": "remnant.engine",
    "SystemClock": "remnant.core.clock",
    "TransientConflict": "remnant.core.errors",
    "ValidationError": "remnant.core.errors",
    "WriteItem": "remnant.engine",
    "WriteOptions": "remnant.engine",
    "build_memory": "remnant.config",
    "open_store": "remnant.store",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'remnant' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


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
    "MissingExtraError",
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
