"""The suites. Each module has ``NAME``, ``DEFINITION``, ``TARGET`` and ``run(factory, ctx) -> SuiteResult``.

``SuiteContext`` carries the seed, the size (default or ``--quick``), the per-case timeout and,
for suites that read a case file (:data:`DATA_SUITES`), an optional file of the same schema in
its place (``--data``), so a suite is a pure function of its inputs: the same seed gives the same
scores.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, EvalError
from remnant.bench.eval.runner import SuiteResult


def read_jsonl(path: str | Path | None, heldout: str) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file, one a non-blank line: ``path``, or by default the held-out
    file ``heldout`` shipped with the package (``remnant/bench/heldout/``)."""
    if path is None:
        text = resources.files("remnant.bench").joinpath(f"heldout/{heldout}").read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class SuiteContext:
    seed: int = 7
    quick: bool = False
    timeout_s: float = 300.0
    adapter_name: str = "remnant"
    data: str | None = None  # a case file replacing the suite's own (``remnant eval --data``)

    def size(self, default: int, quick: int) -> int:
        return quick if self.quick else default


# suites whose cases come from a file that ``--data`` may replace
DATA_SUITES: tuple[str, ...] = ("expiry", "forget_requests", "supersession", "timelines", "chitchat")

SuiteFn = Callable[[AdapterFactory, SuiteContext], SuiteResult]

SUITE_NAMES: tuple[str, ...] = (
    "retention",
    "conflict",
    "long_dialogue",
    "tokens",
    "interference",
    "deletion",
    "retention_curve",
    "supersession",
    "forget_requests",
    "salience",
    "reinforcement",
    "paraphrase",
    "expiry",
    "duplicates",
    "timelines",
    "chitchat",
)


def suite_module(name: str) -> ModuleType:
    import importlib

    name = name.replace("-", "_")
    if name not in SUITE_NAMES:
        raise EvalError(f"unknown suite {name!r}; choose from all, {', '.join(SUITE_NAMES)}")
    if name == "retention_curve":
        return importlib.import_module("remnant.bench.eval.retention_curve")
    return importlib.import_module(f"remnant.bench.eval.suites.{name}")
