"""The evaluation layer: prove that memory forgets well (``remnant eval``).

Suites (each prints a score with its definition): retention, conflict resolution, long-dialogue
consistency, token efficiency, interference, deletion compliance, and the retention curve. They run
against any memory system through a small adapter (:mod:`remnant.bench.eval.adapters`), from a seeded
scenario generator (:mod:`remnant.bench.eval.scenarios`), and write JSON plus a self-contained HTML report
(:mod:`remnant.bench.eval.report`). ``remnant.bench.eval.locomo`` (the LoCoMo benchmark) lives here too.
"""

from __future__ import annotations

from remnant.bench.eval.adapters import (
    ADAPTERS,
    EvalError,
    MalformedResult,
    MemoryAdapter,
    Recalled,
    register_adapter,
)
from remnant.bench.eval.harness import run_eval
from remnant.bench.eval.report import EvalRun, write_report
from remnant.bench.eval.runner import CaseOutcome, SuiteResult

__all__ = [
    "ADAPTERS",
    "CaseOutcome",
    "EvalError",
    "EvalRun",
    "MalformedResult",
    "MemoryAdapter",
    "Recalled",
    "SuiteResult",
    "register_adapter",
    "run_eval",
    "write_report",
]
