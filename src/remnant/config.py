"""Build a :class:`~remnant.Memory` from the environment, with every layer that is installed.

The CLI, the server and the examples use this so that one set of environment variables
(``REMNANT_DB``, ``REMNANT_EMBEDDER``, ``REMNANT_PRIVACY``, ``REMNANT_RECALL_THRESHOLD``…) configures
them all the same way.
"""

from __future__ import annotations

import os
from typing import Any

from remnant.core.clock import Clock
from remnant.core.decay import DecayConfig
from remnant.engine.memory import Memory


def decay_from_env() -> DecayConfig:
    kwargs: dict[str, Any] = {}
    if os.environ.get("REMNANT_RECALL_THRESHOLD"):
        kwargs["recall_threshold"] = float(os.environ["REMNANT_RECALL_THRESHOLD"])
    if os.environ.get("REMNANT_DECAY_CURVE"):
        kwargs["curve"] = os.environ["REMNANT_DECAY_CURVE"]
    if os.environ.get("REMNANT_DECAY_CLOCK"):
        kwargs["clock_mode"] = os.environ["REMNANT_DECAY_CLOCK"]
    return DecayConfig(**kwargs)


def build_memory(
    db: str | None = None, *, tenant: str = "default", clock: Clock | None = None, **overrides: Any
) -> Memory:
    """A Memory on ``db`` with the layers the environment asks for."""
    return Memory(
        db, tenant=tenant, clock=clock, decay=overrides.pop("decay", None) or decay_from_env(), **overrides
    )
