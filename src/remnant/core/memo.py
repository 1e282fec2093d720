"""Caches over user text that a purge empties: deleted stays deleted in process memory too.

The readers memoise work on the texts they see (a statement's reading, its tokens, a word's stem,
a pair's probability, a text's vector): a write compares with candidates that recur write after
write. Those caches hold the words of memories, so when a memory is purged, rewritten or erased
they must not keep them. Every such cache registers here: :func:`text_cache` for a function's
``lru_cache``, :func:`on_forget` for an object's own cache (held weakly, so registering keeps
nothing alive). :func:`forget` is called by the engine after it deletes memories; function caches
are emptied (they refill on the next writes: a purge is rare beside a write), object caches get the
texts so they can drop just those. Pure code, no I/O.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, Protocol, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Forgetful(Protocol):
    def forget_texts(self, texts: Sequence[str]) -> None:
        """Drop what is cached for these texts (or everything)."""
        ...

    def holds_texts(self, texts: Sequence[str]) -> bool:
        """Whether anything of these texts is still cached."""
        ...


_lock = threading.Lock()
_functions: list[Any] = []  # lru_cache wrappers
_objects: weakref.WeakSet[Any] = weakref.WeakSet()


def text_cache(maxsize: int) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)`` whose entries :func:`forget` drops."""

    def wrap(fn: F) -> F:
        cached = lru_cache(maxsize=maxsize)(fn)
        with _lock:
            _functions.append(cached)
        return cached  # type: ignore[return-value]

    return wrap


def on_forget(obj: Forgetful) -> None:
    """Register an object whose ``forget_texts`` :func:`forget` calls (held weakly)."""
    with _lock:
        _objects.add(obj)


def forget(texts: Iterable[str]) -> None:
    """Empty every registered cache of these texts: the function caches wholly, the objects' by text."""
    items = [t for t in texts if t]
    if not items:
        return
    with _lock:
        functions = list(_functions)
        objects = list(_objects)
    for fn in functions:
        fn.cache_clear()
    for obj in objects:
        obj.forget_texts(items)


def holding(texts: Iterable[str]) -> list[str]:
    """The kinds of the registered objects that still hold one of these texts (``[]`` after a
    :func:`forget` of them); the function caches are emptied wholly by :func:`forget`."""
    items = [t for t in texts if t]
    with _lock:
        objects = list(_objects)
    return sorted({type(o).__name__ for o in objects if items and o.holds_texts(items)})
