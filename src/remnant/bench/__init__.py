"""Benchmark helpers shared by the ``remnant bench …`` commands: machine description, timers, percentiles."""

from __future__ import annotations

import os
import platform
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

# Every bench command's own -h/--help, the same as the root group's. Click builds a command's help
# option once, at its first use: a command first used on its own (the tests invoke them directly)
# would otherwise keep a bare --help, even later under `remnant`.
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def product_switches(fn: F) -> F:
    """The defaults of ``Memory(path)`` a bench may turn off, each printed when it differs:
    ``--dedup/--no-dedup`` and ``--contradictions``."""
    fn = click.option(
        "--contradictions",
        type=click.Choice(["auto", "supersede", "flag", "off"]),
        help="The contradiction check's mode; default: the product's policy.",
    )(fn)
    return click.option(  # type: ignore[no-any-return]
        "--dedup/--no-dedup",
        default=True,
        show_default=True,
        help="Deduplicate repeated writes (the default).",
    )(fn)


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            kb = int(fh.readline().split()[1])
            mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": mem,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
    }


def header(command: str) -> str:
    m = machine()
    return (
        f"$ {command}\nmachine: {m['cpu']}, {m['cores']} cores, {m['memory']}; {m['os']}; "
        f"Python {m['python']}, SQLite {m['sqlite']}"
    )


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@contextmanager
def timer() -> Iterator[list[float]]:
    """``with timer() as t: ...`` then ``t[0]`` is the elapsed seconds."""
    out: list[float] = []
    start = time.perf_counter()
    try:
        yield out
    finally:
        out.append(time.perf_counter() - start)


def peak_rss_mib() -> float:
    """This process's peak resident memory in MiB. Read from ``VmHWM``: ``getrusage``'s
    ``ru_maxrss`` carries the parent's peak over fork and exec on Linux, so a fresh process started
    by a big benchmark would report the benchmark's memory."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
