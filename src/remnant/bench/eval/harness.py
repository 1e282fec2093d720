"""Run suites against adapters and collect an :class:`EvalRun` (the CLI and the tests both use this)."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from remnant.bench.eval.adapters import AdapterFactory, EvalError, adapter_factory
from remnant.bench.eval.report import EvalRun
from remnant.bench.eval.runner import CaseOutcome, SuiteResult
from remnant.bench.eval.suites import DATA_SUITES, SUITE_NAMES, SuiteContext, suite_module
from remnant.core.settings import read


def resolve_suites(names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        n = n.replace("-", "_")
        if n == "all":
            out += [s for s in SUITE_NAMES if s not in out]
        elif n in SUITE_NAMES:
            if n not in out:
                out.append(n)
        else:
            raise EvalError(f"unknown suite {n!r}; choose from all, {', '.join(SUITE_NAMES)}")
    return out


def run_eval(
    suites: Sequence[str],
    adapters: Sequence[str],
    *,
    seed: int = 7,
    quick: bool = False,
    timeout_s: float = 300.0,
    factories: dict[str, AdapterFactory] | None = None,
    progress: Callable[[SuiteResult], None] | None = None,
    data: str | Path | None = None,
    embedder: str | None = None,
) -> EvalRun:
    """Run every suite for every adapter. A suite that crashes as a whole is recorded, never raised.

    ``embedder`` is Remnant's recall embedder (``REMNANT_EMBEDDER`` while the suites run; ``None``
    leaves the environment as it is). ``"auto"`` runs the suites that measure the product's meaning
    match (a module with ``PRODUCT_EMBEDDER = True``: forget_requests) with the embedder the product
    uses (``REMNANT_EMBEDDER`` if set, else e5-small), the others lexical (``none``).
    ``data`` replaces the cases of a suite that reads a case file (:data:`DATA_SUITES`)."""
    names = resolve_suites(suites)
    if data is not None:
        others = [n for n in names if n not in DATA_SUITES]
        if others:
            raise EvalError(
                f"--data replaces the cases of {', '.join(DATA_SUITES)} only; not of {', '.join(others)}"
            )
        if not Path(data).is_file():
            raise EvalError(f"no such case file: {data}")
    factories = dict(factories or {})
    for a in adapters:
        if a not in factories:
            factories[a] = adapter_factory(a)
    started = time.perf_counter()
    run = EvalRun(seed, quick, list(adapters), names)
    run.meta = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
    }
    product_embedder = read("REMNANT_EMBEDDER")
    for suite in names:
        module = suite_module(suite)
        run.results[suite] = {}
        if embedder == "auto":
            _set_embedder(product_embedder if getattr(module, "PRODUCT_EMBEDDER", False) else "none")
        elif embedder is not None:
            _set_embedder(embedder)
        for a in adapters:
            ctx = SuiteContext(
                seed=seed,
                quick=quick,
                timeout_s=timeout_s,
                adapter_name=a,
                data=str(data) if data is not None else None,
            )
            t0 = time.perf_counter()
            try:
                result = module.run(factories[a], ctx)
            except Exception as exc:  # a suite bug must not lose the other suites' results
                result = SuiteResult(suite, a, module.DEFINITION, module.TARGET, 0.0, False)
                result.cases.append(CaseOutcome("suite", False, error=f"{type(exc).__name__}: {exc}"))
            result.seconds = round(time.perf_counter() - t0, 2)
            run.results[suite][a] = result
            if progress:
                progress(result)
    if embedder is not None:
        _set_embedder(product_embedder)
    run.meta["seconds"] = round(time.perf_counter() - started, 1)
    return run


def _set_embedder(name: str | None) -> None:
    """``REMNANT_EMBEDDER`` for the adapters build_memory makes next (unset: the product default)."""
    if name is None:
        os.environ.pop("REMNANT_EMBEDDER", None)
    else:
        os.environ["REMNANT_EMBEDDER"] = name
