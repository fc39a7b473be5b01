"""The board pages' feed: every save of a game publishes its new version on the game's channel
(nardy:live:<id>, lua/save_game.lua), and a worker that serves board pages (bot/web/live.py) subscribes to
the channels of the games its pages show, on one Redis connection of its own (pub/sub)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from bot.storage.client import redis_errors
from bot.storage.keys import LIVE_PREFIX, live_channel


@dataclass(frozen=True)
class LiveEvent:
    """What the feed heard: a game saved at `version` ("saved"), or a subscription confirmed ("subscribed",
    version 0): from then on every save of that game is heard."""

    kind: str
    game_id: str
    version: int = 0


class LiveFeed:
    """One pub/sub connection: subscribe to games, hear their saves. Redis errors come out as StorageError
    (StorageUnavailable when the connection is lost: subscribe again on a new feed)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._pubsub = client.pubsub()

    async def subscribe(self, *game_ids: str) -> None:
        if game_ids:
            async with redis_errors("live subscribe"):
                await self._pubsub.subscribe(*(live_channel(g) for g in game_ids))

    async def unsubscribe(self, *game_ids: str) -> None:
        if game_ids:
            async with redis_errors("live unsubscribe"):
                await self._pubsub.unsubscribe(*(live_channel(g) for g in game_ids))

    async def next(self, timeout: float) -> LiveEvent | None:
        """The next event within `timeout` seconds (None: nothing came; a health check is sent meanwhile)."""
        async with redis_errors("live feed"):
            message: dict[str, Any] | None = await self._pubsub.get_message(timeout=timeout)
        if message is None:
            return None
        channel = str(message.get("channel") or "")
        if not channel.startswith(LIVE_PREFIX):
            return None
        game_id = channel[len(LIVE_PREFIX) :]
        if message["type"] == "subscribe":
            return LiveEvent("subscribed", game_id)
        if message["type"] != "message":
            return None
        try:
            version = int(float(message["data"]))  # Lua may write a large number as 1e+14
        except (TypeError, ValueError):
            return None
        return LiveEvent("saved", game_id, version)

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # a connection that is gone already
            await self._pubsub.aclose()


class LiveStore:
    """Makes feeds over the shared client's pool (each holds one connection while open)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client

    def feed(self) -> LiveFeed:
        return LiveFeed(self._r)
