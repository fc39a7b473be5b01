"""A worker observed: its Metrics counted by every seam, its endpoint (/metrics, /healthz, /readyz) and the
Redis sampler, put together above the Telegram front, the storage and the worker pools (bot/observe/)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Sequence

from bot.config import MetricsConfig
from bot.observe import metrics as observe_metrics
from bot.observe.metrics import Metrics
from bot.observe.sampler import SAMPLE_EVERY, sample_forever
from bot.observe.server import READY_WITHIN, Check, ObserveServer
from bot.storage import Storage, StorageError
from bot.telegram.outbox import Outbox
from bot.workers.worker_pool import WorkerPool


def ready_checks(storage: Storage, pools: Sequence[tuple[str, WorkerPool]]) -> list[Check]:
    """Readiness: Redis answers a PING within READY_WITHIN, and every pool has a process alive."""

    async def redis() -> str | None:
        try:
            async with asyncio.timeout(READY_WITHIN):
                await storage.ping()
        except (StorageError, TimeoutError) as err:
            return f"redis: {err or 'no answer in time'}"
        return None

    def pool_check(name: str, pool: WorkerPool) -> Check:
        async def alive() -> str | None:
            return None if pool.running else f"{name}: no worker process is alive"

        return alive

    return [redis, *(pool_check(name, pool) for name, pool in pools)]


def queued(pool: WorkerPool) -> float:
    return float(pool.queued)


def running(pool: WorkerPool) -> float:
    return float(pool.running)


@contextlib.asynccontextmanager
async def observed(
    config: MetricsConfig | None,
    storage: Storage,
    outbox: Outbox | None = None,
    pools: Sequence[tuple[str, WorkerPool]] = (),
    sample_every: float = SAMPLE_EVERY,
) -> AsyncIterator[ObserveServer | None]:
    """Count into a new Metrics (and serve it) while the block runs, in this task and those it starts; with
    `config` None nothing is counted and no port is opened."""
    if config is None:
        yield None
        return
    metrics = Metrics()
    if outbox is not None:
        metrics.watch(metrics.outbox, lambda: float(outbox.queued))
    for name, pool in pools:
        metrics.watch(metrics.pool_queue, functools.partial(queued, pool), name)
        metrics.watch(metrics.pool_alive, functools.partial(running, pool), name)
    server = ObserveServer(metrics, config.listen, config.port, config.token, ready_checks(storage, pools))
    with observe_metrics.using(metrics):
        await server.start()
        sampler = asyncio.get_running_loop().create_task(sample_forever(metrics, storage, sample_every))
        try:
            yield server
        finally:
            sampler.cancel()
            await asyncio.gather(sampler, return_exceptions=True)
            await server.stop()
