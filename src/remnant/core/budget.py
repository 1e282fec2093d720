"""A time budget for one request.

The server gives each request a deadline (``REMNANT_REQUEST_BUDGET``, seconds); the CPU-heavy
steps (reading a long turn, matching a forget request against every memory of a user, a recall's
halves) call :func:`checkpoint` between items, and past the deadline raise
:class:`~remnant.core.errors.BudgetExceeded`. Checkpoints sit only before a write begins, so a
request given up has changed nothing. Outside a budget (the Python API, the CLI) a checkpoint
costs one context-variable read and never raises.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from remnant.core.errors import BudgetExceeded

# a context variable, so each request (task, and the worker thread it runs in) has its own
_deadline: ContextVar[float | None] = ContextVar("remnant_request_deadline", default=None)


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Run the block with a deadline ``seconds`` from now (``None`` or 0: no deadline)."""
    if not seconds or seconds <= 0:
        yield
        return
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def checkpoint(step: str) -> None:
    """Raise :class:`BudgetExceeded` when the current request's deadline has passed."""
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise BudgetExceeded(
            f"the request ran past its time budget during {step}; nothing was changed "
            "(send a shorter input, or raise REMNANT_REQUEST_BUDGET)"
        )


def remaining() -> float | None:
    """Seconds left of the current request's budget (``None``: no budget)."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()
