"""Optional parts and the extras that install them: one error, naming the extra, raised before
anything is written.

``require(what, extra, *modules)`` checks up front (a command, a constructor); ``needs(what, extra)``
wraps a module's own top-level imports of an optional framework::

    with needs("the LangGraph adapter", "langgraph"):
        from langgraph.store.base import BaseStore
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager

from remnant.core.errors import MissingExtraError


def missing_module(*modules: str) -> str | None:
    """The first of ``modules`` that is not installed, without importing any of them (cheap)."""
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):  # a parent package missing, or a module set to None
            return name
    return None


def require(what: str, extra: str, *modules: str, load: bool = False) -> None:
    """Raise :class:`MissingExtraError` unless every module of ``modules`` is installed (``load``:
    import each one, so a broken dependency of theirs is caught here too)."""
    for name in modules:
        if load:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                raise MissingExtraError(what, extra, getattr(exc, "name", None) or name) from exc
        elif missing_module(name) is not None:
            raise MissingExtraError(what, extra, name)


@contextmanager
def needs(what: str, extra: str) -> Iterator[None]:
    """Turn an ImportError of the block (an optional framework's import) into the extra's error."""
    try:
        yield
    except MissingExtraError:
        raise
    except ImportError as exc:
        raise MissingExtraError(what, extra, getattr(exc, "name", None)) from exc
