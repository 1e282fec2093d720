"""The periodic forgetting sweep, run inside the server for every tenant.

Expiry, fading and the purges after their grace periods are :meth:`Memory.sweep`; this only runs it
on a timer, in a worker thread so requests keep flowing, and logs the counts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from remnant.server.engines import Engines

log = logging.getLogger("remnant.server.sweep")


class Sweeper:
    """Runs ``Memory.sweep`` for every known tenant every ``interval`` seconds (``0`` = never)."""

    def __init__(
        self, engines: Engines, interval: float, tenants: Callable[[], list[str]] | None = None
    ) -> None:
        self.engines = engines
        self.interval = interval
        self._tenants = tenants or (lambda: [])
        self._task: asyncio.Task[None] | None = None
        self.runs = 0
        self.last_totals: dict[str, int] = {}

    def sweep_once(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for tenant in self.engines.tenants(self._tenants()):
            try:
                report = self.engines.get(tenant).sweep()
            except Exception as exc:  # one bad tenant must not stop the others
                log.error(
                    "sweep failed", extra={"event": "sweep_error", "tenant": tenant, "error": repr(exc)}
                )
                continue
            totals[tenant] = report.total
            log.info(
                "sweep",
                extra={
                    "event": "sweep",
                    "tenant": tenant,
                    "total": report.total,
                    "skipped": report.skipped,
                    "steps": {s.action: s.count for s in report.steps},
                },
            )
        self.runs += 1
        self.last_totals = totals
        return totals

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await asyncio.to_thread(self.sweep_once)

    def start(self) -> None:
        if self.interval > 0 and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="remnant-sweeper")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
