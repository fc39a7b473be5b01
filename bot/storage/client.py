"""The one Redis client every store shares: its connection pool, and the storage's errors.

redis-py's errors are translated at the storage boundary (`redis_errors`), so that the bot meets only
StorageError and its kinds: an outage to tell the user about (StorageUnavailable; StorageTimeout when Redis
does not answer in time), a refused command to log as the bug it is (StorageFault), or a change that lost a
race (VersionConflict, ChatBusy, Gone, LobbyTaken).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError, ReadOnlyError, RedisError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.config import DEFAULT_REDIS_TIMEOUT
from bot.model.table import Lobby
from bot.observe.metrics import current
from bot.storage.sentinel import FollowingPool, Replication, parse

MAX_CONNECTIONS = 50  # per process; Redis runs the commands one at a time anyway
DEFAULT_TIMEOUT = DEFAULT_REDIS_TIMEOUT  # seconds any wait on Redis may take (connect)


class StorageError(RuntimeError):
    """Base of the storage errors the bot turns into a friendly line."""


class StorageUnavailable(StorageError):
    """Redis could not be reached (connection refused, timeout, loading)."""


class StorageFault(StorageError):
    """Redis refused a command (a key of another type, a failing script): a bug to log, not an outage."""


class StorageTimeout(StorageUnavailable):
    """Redis did not answer in time (frozen, overloaded, a network partition). A change sent meanwhile may
    still be applied when it answers again: the next change is checked against the version as usual."""


class VersionConflict(StorageError):
    """The stored version is not the one this change was made from: someone else changed it first."""


class ChatBusy(StorageError):
    """A chat (a group, or a player's private chat) already has another live game: `game_id`."""

    def __init__(self, message: str, game_id: str) -> None:
        super().__init__(message)
        self.game_id = game_id


class Gone(StorageError):
    """What a change consumes (a lobby, an invitation) was taken or withdrawn first."""


class LobbyTaken(StorageError):
    """The chat has another person's open lobby (`lobby`) or a live game (`game_id`)."""

    def __init__(self, message: str, lobby: Lobby | None = None, game_id: str | None = None) -> None:
        super().__init__(message)
        self.lobby = lobby
        self.game_id = game_id


@asynccontextmanager
async def redis_errors(what: str) -> AsyncIterator[None]:
    """Translate redis-py errors at the storage boundary: unreachable -> StorageUnavailable, a refused
    command -> StorageFault (logged as the error it is, never "not available right now")."""
    try:
        yield
    except WatchError as err:
        raise VersionConflict(f"{what}: changed concurrently") from err
    except (RedisError, OSError) as err:
        translated = translate(what, err)
        metrics = current()
        if metrics is not None:
            metrics.redis_errors.labels(error_kind(translated)).inc()
        raise translated from err


def translate(what: str, err: BaseException) -> StorageError:
    """The storage's error for a redis-py error (or an OSError) met while doing `what`."""
    if isinstance(err, RedisTimeoutError) or (
        isinstance(err, RedisConnectionError) and isinstance(err.__cause__, RedisTimeoutError)
    ):  # the latter: redis-py's word for a handshake that timed out
        return StorageTimeout(f"{what}: redis did not answer in time: {err}")
    if isinstance(err, RedisConnectionError | OSError):
        return StorageUnavailable(f"{what}: redis unreachable: {err}")
    if isinstance(err, ReadOnlyError | OutOfMemoryError):  # a replica being promoted, a full server: a while
        return StorageUnavailable(f"{what}: redis refuses writes: {err}")
    return StorageFault(f"{what}: redis error: {err}")


def error_kind(error: StorageError) -> str:
    """nardy_redis_errors_total's kind: slow (no answer in time), away (unreachable, refusing writes), fault."""
    if isinstance(error, StorageTimeout):
        return "slow"
    return "away" if isinstance(error, StorageUnavailable) else "fault"


def counted(connection_class: type[AbstractConnection]) -> type[AbstractConnection]:
    """`connection_class` (TCP, TLS, a unix socket) counting each time it connects: the first time and every
    reconnect (nardy_redis_connections_total)."""

    class Counted(connection_class):  # type: ignore[valid-type, misc]
        async def on_connect(self) -> None:
            metrics = current()
            if metrics is not None:
                metrics.redis_connects.inc()
            await super().on_connect()

    Counted.__name__ = Counted.__qualname__ = f"Counted{connection_class.__name__}"
    return Counted


def connect(
    url: str, max_connections: int = MAX_CONNECTIONS, timeout: float = DEFAULT_TIMEOUT
) -> aioredis.Redis:
    """A client whose pool makes a busy moment wait for a free connection instead of failing (redis-py's
    plain pool raises "Too many connections" past 100 presses at once). The one place clients are made:
    `url` is REDIS_URL, one server or sentinels (bot/storage/sentinel.py), whose master the client follows.

    A Redis that hangs (frozen, or cut off by a network partition: connections open, nothing answers)
    costs every wait at most `timeout` seconds (NARDY_REDIS_TIMEOUT): a connection, a free connection of
    the pool, a command's answer. Nothing is retried, so a wait is never doubled: a connection Redis
    dropped (a restart) is replaced by the pool before it is used, and a command that timed out is left
    to the user's next press (a change is checked against the version, so a save that timed out and
    still landed is never applied twice)."""
    target = parse(url)
    options: dict[str, Any] = {
        "decode_responses": True,
        "socket_connect_timeout": timeout,
        "socket_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
        "health_check_interval": 30,
    }
    if target.sentinels is None:
        assert target.url is not None
        pool = aioredis.BlockingConnectionPool.from_url(
            target.url, max_connections=max_connections, timeout=timeout, **options
        )
        pool.connection_class = counted(pool.connection_class)
        return aioredis.Redis.from_pool(pool)  # the client owns the pool: aclose() closes it
    where = target.sentinels
    auth = {"username": where.username, "password": where.password}
    sentinels = Sentinel(
        list(where.addresses),
        sentinel_kwargs={
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            "retry": Retry(NoBackoff(), 0),
            **auth,
        },
    )
    pool = FollowingPool(
        where.service,
        sentinels,
        max_connections=max_connections,
        timeout=timeout,
        db=where.db,
        **auth,
        **options,
    )
    pool.connection_class = counted(pool.connection_class)
    return aioredis.Redis.from_pool(pool)


def replication(url: str) -> Replication:
    """How many replicas a game's save waits for, and how long, as REDIS_URL says (sentinel.py)."""
    return parse(url).replication


def compact_json(value: Any) -> str:
    """JSON as the records are stored: no spaces."""
    return json.dumps(value, separators=(",", ":"))
