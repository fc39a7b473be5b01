"""The gauges read from Redis, sampled every SAMPLE_EVERY seconds by each worker that serves its metrics:
Redis's PING round trip, the quick-match searches queued by format, the live games' clock events pending, the
live games, the tournaments running (signing up or playing: the set of those due a look, nardy:tourneys).
(Every worker reports the same queues: a dashboard takes their max, not their sum.)"""

from __future__ import annotations

import asyncio
import logging
import time

from bot.observe.metrics import Metrics
from bot.storage import Storage, StorageError
from bot.storage.keys import ACTIVE_TTL, CLOCKS_KEY, SEEK_FORMATS, TOURNEYS_KEY, seek_key

log = logging.getLogger(__name__)

SAMPLE_EVERY = 15.0  # seconds: Prometheus's usual scrape interval


async def sample(metrics: Metrics, storage: Storage) -> None:
    """One sample: a PING timed, then the queues' lengths (a Redis that fails is counted by the storage)."""
    began = time.perf_counter()
    await storage.ping()
    metrics.redis_ping.observe(time.perf_counter() - began)
    formats = tuple(dict.fromkeys(SEEK_FORMATS))
    sizes = await storage.sizes([*(seek_key(f) for f in formats), CLOCKS_KEY, TOURNEYS_KEY])
    for fmt, size in zip(formats, sizes, strict=False):
        metrics.seekers.labels(fmt).set(size)
    metrics.clocks.set(sizes[-2])
    metrics.tournaments.set(sizes[-1])
    metrics.games_live.set(await storage.live_games(time.time() - ACTIVE_TTL))


async def sample_forever(metrics: Metrics, storage: Storage, every: float = SAMPLE_EVERY) -> None:
    """Sample until cancelled; a Redis away is logged at most once until it answers again."""
    away = False
    while True:
        try:
            await sample(metrics, storage)
            away = False
        except StorageError as err:
            if not away:
                log.warning("metrics: redis could not be sampled: %s", err)
            away = True
        await asyncio.sleep(every)
