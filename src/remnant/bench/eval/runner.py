"""Running cases: each case gets a fresh adapter in its own thread, a timeout, and a recorded outcome.

A case that raises, times out or gets a malformed answer from the adapter is recorded as failed
(with the error) and the suite goes on; the items it was meant to check count as misses, so a
broken adapter can never score well by failing early.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter


@dataclass
class CaseOutcome:
    """What one case produced: its measurements, or why it failed."""

    name: str
    ok: bool
    value: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


def run_case(
    name: str, factory: AdapterFactory, body: Callable[[MemoryAdapter], dict[str, Any]], *, timeout_s: float
) -> CaseOutcome:
    """Build an adapter and run ``body`` on it in a daemon thread; give up after ``timeout_s``.

    The adapter is built inside the thread because SQLite connections belong to the thread that made
    them. A timed-out thread is abandoned (daemon), which is the only way to stop foreign code.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        adapter = None
        try:
            adapter = factory()
            box["value"] = body(adapter)
        except BaseException as exc:  # a broken adapter may raise anything; record it
            box["error"] = f"{type(exc).__name__}: {exc}"
            box["trace"] = traceback.format_exc(limit=4)
        finally:
            if adapter is not None:
                try:
                    adapter.close()
                except Exception as exc:
                    box.setdefault("error", f"close failed: {type(exc).__name__}: {exc}")

    started = time.perf_counter()
    thread = threading.Thread(target=target, name=f"eval-case-{name}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    seconds = time.perf_counter() - started
    if thread.is_alive():
        return CaseOutcome(name, False, error=f"timed out after {timeout_s:g} s", seconds=seconds)
    if "error" in box:
        return CaseOutcome(name, False, error=box["error"], seconds=seconds)
    value = box.get("value")
    if not isinstance(value, dict):
        return CaseOutcome(name, False, error="case produced no result", seconds=seconds)
    return CaseOutcome(name, True, value, seconds=seconds)


@dataclass
class SuiteResult:
    """One suite's verdict for one adapter."""

    suite: str
    adapter: str
    definition: str
    target: str
    score: float | None
    passed: bool | None  # None: the suite has no pass/fail target (a curve)
    metrics: dict[str, Any] = field(default_factory=dict)
    series: dict[str, Any] = field(default_factory=dict)  # chart data
    notes: list[str] = field(default_factory=list)
    cases: list[CaseOutcome] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failures(self) -> list[CaseOutcome]:
        return [c for c in self.cases if not c.ok]

    def to_dict(self, *, with_timing: bool = True) -> dict[str, Any]:
        """JSON-ready; whatever an adapter put in a case's value is stringified rather than allowed to fail."""
        out: dict[str, Any] = {
            "suite": self.suite,
            "adapter": self.adapter,
            "definition": self.definition,
            "target": self.target,
            "score": self.score,
            "passed": self.passed,
            "metrics": _jsonable(self.metrics),
            "series": _jsonable(self.series),
            "notes": list(self.notes),
            "failures": [{"case": c.name, "error": c.error} for c in self.failures],
            "cases": [
                {
                    "name": c.name,
                    "ok": c.ok,
                    "error": c.error,
                    **({"seconds": round(c.seconds, 3)} if with_timing else {}),
                }
                for c in self.cases
            ],
        }
        if with_timing:
            out["seconds"] = self.seconds
        return out


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def ratio(hits: float, total: float) -> float:
    return hits / total if total else 0.0
