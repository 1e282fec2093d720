"""One :class:`~remnant.Memory` per tenant over one shared store.

The server opens the store once and hands each tenant its own engine: the product,
:class:`remnant.config.Memory`, opened the way every entry point opens it, so the retrieval and
privacy layers configured in the environment apply. Engines are made on first use and cached; every engine is bound to its tenant, so the only
way to reach a tenant's data is to hold a key for it.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import AbstractContextManager
from typing import Any

from remnant.core.clock import Clock
from remnant.core.model import check_identifier
from remnant.engine.memory import Memory
from remnant.engine.seams import vault_of
from remnant.store import open_store
from remnant.store.base import Store

log = logging.getLogger("remnant.server")


class Engines:
    """Tenant → engine, over one store."""

    def __init__(self, db: str | None, *, clock: Clock | None = None, store: Store | None = None) -> None:
        self.db = db
        self.clock = clock
        self.store = store if store is not None else open_store(db)
        self._engines: dict[str, Memory] = {}
        self._batchers: dict[int, Any] = {}
        self._lock = threading.Lock()

    def peek(self, tenant: str) -> Memory | None:
        """``tenant``'s engine if it is open already (never opens one: cheap enough for the event loop)."""
        return self._engines.get(tenant)

    def get(self, tenant: str) -> Memory:
        engine = self._engines.get(tenant)
        if engine is not None:
            return engine
        check_identifier(tenant, "tenant")
        with self._lock:
            engine = self._engines.get(tenant)
            if engine is None:
                from remnant.config import Memory as Product

                engine = Product(self.db, tenant=tenant, clock=self.clock, store=self.store)
                self._batch(engine)
                self._engines[tenant] = engine
        return engine

    def _batch(self, engine: Memory) -> None:
        """Route the engine's model calls through one micro-batcher per model, shared by every
        tenant's engine, so concurrent requests are embedded together (see :mod:`remnant.server.batcher`).

        The batcher goes right in front of the model, under its text cache: where the vectors pair
        each turn with the one before it, the pair embedder and the writes' own-text embedding
        (``text_embedder``) both reach the model through it (in front of the pair embedder, the
        writes' documents went around it, each on its own request thread)."""
        from remnant.core.settings import read
        from remnant.embed.cache import CachedEmbedder
        from remnant.server.batcher import MicroBatchEmbedder

        if str(read("REMNANT_EMBED_BATCH")).lower() in ("0", "off", "no"):
            return

        cached = engine.retriever.text_embedder
        if not isinstance(cached, CachedEmbedder) or isinstance(cached.inner, MicroBatchEmbedder):
            return
        key = id(cached.inner)
        batcher = self._batchers.get(key)
        if batcher is None:
            batcher = self._batchers[key] = MicroBatchEmbedder(
                cached.inner, lanes=read("REMNANT_EMBED_LANES")
            )
        cached.inner = batcher

    def tenants(self, also: list[str] | None = None) -> list[str]:
        """Tenants with data in the store (when the store can tell), engines in use, and ``also``."""
        found: set[str] = set(self._engines) | set(also or ())
        found.update(self.store.tenants())
        return sorted(found)

    def warm(self, tenant: str) -> float:
        """Build ``tenant``'s engine and load the slow layers (the PII detector's model) now, so the
        first request does not wait for them. Returns the seconds it took."""
        start = time.perf_counter()
        mem = self.get(tenant)
        if mem.redactor is not None:
            # text without personal data: runs the detector, stores nothing in the vault
            mem.redactor.redact("Remnant warm-up", tenant=tenant, user_id="warm-up")
        return time.perf_counter() - start

    @staticmethod
    def exclusive(mem: Memory) -> AbstractContextManager[Any]:
        """Hold the store's lock (no transaction) around an operation that manages its own
        transactions and touches the vault outside them (erasure, forget requests): no other
        request's transaction can be open on the shared connection meanwhile."""
        return mem.store.exclusive()

    def ready(self, tenant: str = "default") -> bool:
        """The store answers a trivial read, ``tenant``'s engine opens, and its vault's key opens
        what the vault holds (raises the fault otherwise: ``VaultKeyError`` for a missing or
        replaced key)."""
        self.store.get_meta("decay_clock_mode")
        mem = self.get(tenant)
        check = getattr(vault_of(mem.redactor), "check_keys", None)
        if check is not None:
            check()
        return True

    def close(self) -> None:
        for batcher in self._batchers.values():
            log.info("embedding micro-batcher %s: %s", batcher.model_id, batcher.stats())
            batcher.close()
        self.store.close()
