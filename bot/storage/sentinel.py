"""Where the bot's Redis is: one server, or a master that Redis Sentinel names (and follows through a failover).

`REDIS_URL` is either a plain redis-py URL (`redis://host:6379/0`, `unix:///path/redis.sock?db=0`) or names
sentinels and a service: `redis+sentinel://[:password@]host1:26379,host2:26379,host3:26379/<service>/<db>`.
Either may end in `?replicas=N&replica_timeout=S`: after a game's save the bot waits (`WAIT N`, at most S
seconds) for N replicas to hold it before anyone sees it; a sentinel URL waits for 1 replica unless it says
`replicas=0`. These two settings are the bot's own and are taken out of the URL before redis-py reads it.

The master is asked of the sentinels on every new connection (`SentinelManagedConnection`), so every user of
the one client (presses, sweepers, the quick-match loop, the live pages' subscription) follows a failover
without a restart. redis-py reconnects a connection dropped in use straight to its old address (redis/redis-py
issue 3874, still so in 8.1): FollowingConnection asks the sentinels on every connect instead.
When no sentinel answers, the master last named is used (`FollowingPool.get_master_address`): sentinels down
while the master is fine do not stop the play; a master demoted meanwhile refuses writes (READONLY) and has
no replica to confirm a save, so nothing is acknowledged from it.
"""

from __future__ import annotations

import logging
import urllib.parse
from dataclasses import dataclass
from typing import Any

from redis.asyncio.connection import BlockingConnectionPool
from redis.asyncio.sentinel import MasterNotFoundError, SentinelConnectionPool, SentinelManagedConnection

log = logging.getLogger(__name__)

SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379
DEFAULT_REPLICA_TIMEOUT = 0.5  # seconds a save waits for its replicas: well inside a press's 2.5 s, and
# less than any wait on Redis may take (NARDY_REDIS_TIMEOUT, 1 s), else the WAIT's answer comes too late
OUR_PARAMS = ("replicas", "replica_timeout")


@dataclass(frozen=True, slots=True)
class Replication:
    """How many replicas must hold a game's save before it is shown (0: none waited for), and for how long
    the save waits for them (seconds)."""

    replicas: int = 0
    timeout: float = DEFAULT_REPLICA_TIMEOUT

    @property
    def timeout_ms(self) -> int:
        return max(1, round(self.timeout * 1000))


NO_REPLICAS = Replication()  # one server: a save is shown as soon as it is made


@dataclass(frozen=True, slots=True)
class Sentinels:
    """A sentinel URL, read: the sentinels' addresses, the service they watch, the database, the password
    (of the master and of the sentinels alike)."""

    addresses: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    password: str | None = None
    username: str | None = None


@dataclass(frozen=True, slots=True)
class Target:
    """What REDIS_URL names: a plain URL for redis-py, or sentinels; and the replicas a save waits for."""

    url: str | None
    sentinels: Sentinels | None
    replication: Replication


def _our_params(query: str, url: str, default_replicas: int) -> tuple[str, Replication]:
    """The query without the bot's own settings, and those settings."""
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    ours = {k: v for k, v in pairs if k in OUR_PARAMS}
    rest = urllib.parse.urlencode([(k, v) for k, v in pairs if k not in OUR_PARAMS])
    try:
        replicas = int(ours.get("replicas", default_replicas))
        timeout = float(ours.get("replica_timeout", DEFAULT_REPLICA_TIMEOUT))
    except ValueError as err:
        raise ValueError(
            f"REDIS_URL {shown(url)}: replicas and replica_timeout must be numbers: {err}"
        ) from err
    if replicas < 0 or not timeout > 0:
        raise ValueError(f"REDIS_URL {shown(url)}: replicas must be >= 0 and replica_timeout > 0")
    return rest, Replication(replicas, timeout)


def parse(url: str) -> Target:
    """REDIS_URL read (ValueError, naming the URL without its password, when it is not one)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != SCHEME:
        rest, replication = _our_params(parts.query, url, 0)
        base = url.partition("?")[0]  # as written: urlunsplit would turn unix:///path into unix:/path
        return Target(f"{base}?{rest}" if rest else base, None, replication)
    rest, replication = _our_params(parts.query, url, 1)
    credentials, _, hosts = parts.netloc.rpartition("@")
    username, _, password = credentials.partition(":") if credentials else ("", "", "")
    addresses = []
    for host in hosts.split(","):
        name, _, port = host.strip().rpartition(":") if ":" in host else (host.strip(), "", "")
        if not name or (port and not port.isdigit()):
            raise ValueError(f"REDIS_URL {shown(url)}: {host!r} is not a sentinel's host:port")
        addresses.append((name, int(port) if port else SENTINEL_PORT))
    path = [p for p in parts.path.split("/") if p]
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError(f"REDIS_URL {shown(url)}: the path must be /<service name>[/<db>]")
    if rest:
        raise ValueError(f"REDIS_URL {shown(url)}: unknown settings {rest!r} (only {', '.join(OUR_PARAMS)})")
    sentinels = Sentinels(
        tuple(addresses),
        urllib.parse.unquote(path[0]),
        int(path[1]) if len(path) == 2 else 0,
        urllib.parse.unquote(password) or None,
        urllib.parse.unquote(username) or None,
    )
    return Target(None, sentinels, replication)


def shown(url: str) -> str:
    """The URL with its password, if any, replaced by ***."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


class FollowingConnection(SentinelManagedConnection):
    """A connection to the master that asks the sentinels for its address every time it connects.

    redis-py's SentinelManagedConnection asks them only in `connect()`; a connection dropped in use is
    connected again by `send_packed_command` through `connect_check_health`, straight to the address it had:
    the old master, for good (redis/redis-py issue 3874; the failover tests saw every press refused).
    """

    async def connect_check_health(
        self, check_health: bool = True, retry_socket_connect: bool = True
    ) -> None:
        if self.is_connected:
            return
        await self.connect_to(await self.connection_pool.get_master_address())

    async def connect_to(self, address: Any) -> None:
        self.host, self.port = address
        await super().connect_check_health(
            check_health=self.connection_pool.check_connection, retry_socket_connect=False
        )


class FollowingPool(SentinelConnectionPool, BlockingConnectionPool):
    """The master's connections, found through the sentinels: a busy moment waits for a free connection
    (BlockingConnectionPool); a failover is followed on the next connection (FollowingConnection); the
    master last named is kept while no sentinel answers."""

    def __init__(self, service_name: str, sentinel_manager: Any, **kwargs: Any) -> None:
        super().__init__(service_name, sentinel_manager, connection_class=FollowingConnection, **kwargs)

    async def get_master_address(self) -> Any:
        known = self.master_address
        try:
            address = await super().get_master_address()
        except MasterNotFoundError as err:
            if known is None or str(err).count(" - ") < len(self.sentinel_manager.sentinels):
                raise  # none known yet, or a sentinel answered and named no master: a failover under way
            log.warning("redis: no sentinel answers; staying on the master last named, %s:%s", *known)
            return known
        if known is not None and address != known:
            log.warning("redis: the sentinels name a new master %s:%s (was %s:%s)", *address, *known)
        return address
