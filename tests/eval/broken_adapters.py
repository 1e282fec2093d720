"""Deliberately broken adapters: the harness must record their cases as failed and go on.

They live with the tests, not in the shipped adapter list; tests hand them to the harness through
``run_eval(..., factories=BROKEN)`` or ``register_adapter``.
"""

from __future__ import annotations

import time

from remnant.bench.eval.adapters import AdapterFactory, Recalled, RememberEverything


class Raises(RememberEverything):
    """Every recall raises."""

    name = "raises"

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        raise RuntimeError("recall exploded (deliberately broken adapter)")


class Hangs(RememberEverything):
    """Recall never answers in time (sleeps far past any per-case timeout)."""

    name = "hangs"
    sleep_s = 3600.0

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        time.sleep(self.sleep_s)
        return []


class Malformed(RememberEverything):
    """Recall returns things that are not recalled memories."""

    name = "malformed"

    def recall(self, user_id: str, query: str, k: int = 5) -> list[Recalled]:
        return [42, {"oops": True}]  # type: ignore[list-item]


BROKEN: dict[str, AdapterFactory] = {"raises": Raises, "hangs": Hangs, "malformed": Malformed}
