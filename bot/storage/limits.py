"""Limits: inbound token buckets (a user's or a chat's presses, commands, inline queries), things done at
most once in a while, and the first delivery of each webhook update. All shared by every worker.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis.asyncio as aioredis

from bot.storage import scripts
from bot.storage.client import redis_errors
from bot.storage.keys import UPDATE_TTL, once_key, update_key


@dataclass(frozen=True)
class Bucket:
    """A token bucket of inbound updates: `capacity` at once, refilled at `per_second`."""

    key: str
    capacity: float
    per_second: float


class LimitStore:
    """Token buckets, once-in-a-while throttles and first deliveries."""

    def __init__(self, client: aioredis.Redis, clock: Callable[[], float] = time.time) -> None:
        self._r = client
        self._clock = clock  # unix time, of first_seen (and of the buckets when no clock is passed)
        self._take_tokens_script = scripts.register(client, "take_tokens")

    def now(self) -> float:
        """The clock `first_seen` reads (unix seconds)."""
        return self._clock()

    async def take_tokens(
        self, buckets: tuple[Bucket, ...], now: float | None = None
    ) -> tuple[Bucket | None, bool]:
        """Take one token from each bucket, or from none: (None, False) when allowed, else (the empty
        bucket, whether this is the first refusal since it last allowed: the one that gets an answer).
        `now`: the limiter's clock (unix seconds; None: this store's), by which the buckets refill."""
        args: list[float] = [self._clock() if now is None else now]
        for bucket in buckets:
            args += [bucket.capacity, bucket.per_second]
        async with redis_errors("inbound limits"):
            index, notice = await self._take_tokens_script(keys=[b.key for b in buckets], args=args)
        if not index:
            return None, False
        return buckets[int(index) - 1], bool(notice)

    async def once(self, what: str, seconds: float) -> bool:
        """True at most once per `seconds` for `what` (SET NX with an expiry): throttles shared by workers."""
        return await self._first(once_key(what), seconds, f"once {what}")

    async def forget_once(self, what: str) -> None:
        """Let `what` happen again at once (the thing done once failed)."""
        async with redis_errors(f"once {what}"):
            await self._r.delete(once_key(what))

    async def first_seen(self, what: str, seconds: float) -> float:
        """When `what` was first seen in the last `seconds` (unix time; now, if this is the first time)."""
        now = self._clock()
        async with redis_errors(f"first seen {what}"):
            key = once_key(what)
            if await self._r.set(key, repr(now), nx=True, px=max(1, int(seconds * 1000))):
                return now
            found = await self._r.get(key)
        return now if found is None else float(found)

    async def _first(self, key: str, seconds: float, what: str) -> bool:
        """SET NX of a value of our own: a retry after a lost answer finds our value and is still first."""
        mark = secrets.token_hex(8)
        async with redis_errors(what):
            if await self._r.set(key, mark, nx=True, px=max(1, int(seconds * 1000))):
                return True
            return bool(await self._r.get(key) == mark)

    async def first_delivery(self, update_id: int) -> bool:
        """True the first time any worker sees `update_id` (SET NX), False for a repeated delivery."""
        return await self._first(update_key(update_id), UPDATE_TTL, f"update {update_id}")
