"""Storage: everything the bot keeps in Redis, as small stores over one shared client.

`Storage` owns the client and the stores, one module each, each owning one kind of record:
  games.py      games, their board messages and the versions those show, drawing leases; the game's save
                (one compare-and-set script that also schedules, consumes rooms and records results)
  schedules.py  games whose boards are due to be drawn, turn reminders due
  rooms.py      where games start: group lobbies, friend invitations, inline challenges, quick-match seeks
  limits.py     inbound token buckets, things done once in a while, first deliveries of updates
  users.py      users' settings and dice secrets, the homes of messages with buttons, media file ids,
                and the per-user keys /forget deletes
  results.py    results of finished games: statistics, ratings, histories, leaderboards
  tournaments.py  a group's tournaments, their inboxes of ended games, the tournaments due a look
  reviews.py    finished games' analyses for the Mini App's review (expiring and deleted with the game)
  live.py       the board pages' feed: the versions every save publishes on its game's channel
and beside them:
  keys.py       every key name, what it holds and how long it lives
  client.py     the connection pool and the storage's errors (StorageError and its kinds)
  sentinel.py   REDIS_URL read: one server, or sentinels naming a master; the replicas a save waits for
  scripts.py    the loader of the Lua scripts in lua/ (one file per script, its KEYS and ARGV named on top)
Every change of a game is one atomic compare-and-set script (lua/save_game.lua). Call a store through its
owner: `storage.games.save(table)`, `storage.rooms.open_lobby(lobby)`, `storage.results.stats_of(user_id)`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import redis.asyncio as aioredis

from bot.storage.client import (
    DEFAULT_TIMEOUT,
    MAX_CONNECTIONS,
    ChatBusy,
    Gone,
    LobbyTaken,
    StorageError,
    StorageFault,
    StorageTimeout,
    StorageUnavailable,
    VersionConflict,
    connect,
    redis_errors,
    replication,
)
from bot.storage.games import GameStore
from bot.storage.keys import LIVE_GAMES_KEY
from bot.storage.limits import LimitStore
from bot.storage.live import LiveStore
from bot.storage.results import ResultStore
from bot.storage.reviews import ReviewStore
from bot.storage.rooms import RoomStore
from bot.storage.schedules import ScheduleStore
from bot.storage.sentinel import NO_REPLICAS, Replication
from bot.storage.tournaments import TournamentStore
from bot.storage.users import UserStore

__all__ = [
    "ChatBusy",
    "Gone",
    "LobbyTaken",
    "Storage",
    "StorageError",
    "StorageFault",
    "StorageTimeout",
    "StorageUnavailable",
    "VersionConflict",
]


class Storage:
    """The bot's Redis: one client, and a store for each kind of record (`storage.games.save(table)`)."""

    def __init__(
        self,
        client: aioredis.Redis,
        clock: Callable[[], float] = time.time,
        replicated: Replication = NO_REPLICAS,
    ) -> None:
        self._r = client
        self.games = GameStore(client, clock, replicated)
        self.schedules = ScheduleStore(client, clock)
        self.rooms = RoomStore(client, self.games)
        self.limits = LimitStore(client, clock)
        self.users = UserStore(client)
        self.results = ResultStore(client)
        self.live = LiveStore(client)
        self.tournaments = TournamentStore(client)
        self.reviews = ReviewStore(client)

    @classmethod
    def from_url(
        cls, url: str, max_connections: int = MAX_CONNECTIONS, timeout: float = DEFAULT_TIMEOUT
    ) -> Storage:
        """Stores over a client whose pool makes a busy moment wait for a free connection, and whose every
        wait on Redis lasts at most `timeout` seconds (client.connect); a game's save waits for the
        replicas the URL asks for (bot/storage/sentinel.py)."""
        wanted = replication(url)
        if wanted.replicas and wanted.timeout >= timeout:  # the WAIT must answer before the socket gives up
            wanted = dataclasses.replace(wanted, timeout=timeout / 2)
        return cls(connect(url, max_connections, timeout), replicated=wanted)

    async def close(self) -> None:
        await self._r.aclose()

    async def ping(self) -> bool:
        async with redis_errors("ping"):
            return bool(await self._r.ping())

    # ------------------------------------------------------------------ diagnostics

    async def sizes(self, keys: Sequence[str]) -> list[int]:
        """The length of each sorted set in `keys` (0: none), in one round trip: the metrics' gauges."""
        async with redis_errors("sizes"), self._r.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.zcard(key)
            return [int(n) for n in await pipe.execute()]

    async def live_games(self, since: float) -> int:
        """The live games saved since `since` (unix time), after dropping from their index those saved before
        it: a game nobody finished expires with its record (ACTIVE_TTL), and leaves the count with it."""
        async with redis_errors("live games"), self._r.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(LIVE_GAMES_KEY, "-inf", f"({since!r}")
            pipe.zcard(LIVE_GAMES_KEY)
            _, count = await pipe.execute()
        return int(count)

    async def keys(self, pattern: str = "nardy:*") -> list[str]:
        async with redis_errors("keys"):
            return sorted([k async for k in self._r.scan_iter(match=pattern)])

    async def ttl(self, key: str) -> int:
        async with redis_errors(f"ttl {key}"):
            return int(await self._r.ttl(key))

    async def raw(self, key: str) -> Any:
        async with redis_errors(f"get {key}"):
            return await self._r.get(key)
