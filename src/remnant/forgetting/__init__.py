"""Forgetting done right: eviction by importance, contradictions, knowledge sync, forget requests, erasure.

The engine (:class:`remnant.engine.Memory`) owns the lifecycle ``active → hidden → purged`` and the
statuses ``expired``, ``superseded`` and ``faded``; this package holds the policies that move
memories along it. Modules are imported lazily by the engine so ``import remnant`` stays light.
"""

from __future__ import annotations

from remnant.core.importance import ImportanceWeights, importance_score
from remnant.forgetting.eviction import EvictionPolicy

__all__ = ["EvictionPolicy", "ImportanceWeights", "importance_score"]
