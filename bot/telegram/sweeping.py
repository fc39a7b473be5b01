"""A loop that every worker runs to act on what Redis says is due (quick-match searches that waited too long,
live games' flags and warnings): `sweep()` takes what is due now and says how many it took; a full batch
looks again at once, else after `every` seconds. Redis away is logged and tried again; nothing stops it
but `stop()`."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.storage import StorageError

log = logging.getLogger(__name__)


class Sweeping:
    """Runs `sweep()` every `every` seconds from `start()` to `stop()`."""

    name = "sweeper"  # the task's name and the log's word for it
    batch = 100  # a sweep that took this many looks again at once

    def __init__(self, every: float) -> None:
        self.every = every
        self._task: asyncio.Task[None] | None = None

    async def sweep(self) -> int:
        """Act on what is due now; returns how many this worker took."""
        raise NotImplementedError

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def _run(self) -> None:
        while True:
            taken = 0
            try:
                taken = await self.sweep()
            except StorageError as err:
                log.warning("%s: storage unavailable (%s)", self.name, err)
            except Exception:
                log.exception("%s failed; trying again", self.name)
            await asyncio.sleep(self.every if taken < self.batch else 0)

    async def stop(self, timeout: float = 5.0) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({task}, timeout=timeout)
