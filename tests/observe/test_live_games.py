"""The live games' gauge (nardy_games_live): each save of a game adds it to the live index or takes it out, and
the sampler counts the index after dropping the games nobody saved within a game's lifetime."""

from __future__ import annotations

import time

import redis

from bot.model.flow import ScriptedDice, resign, start_table
from bot.model.table import Person, Table
from bot.observe.metrics import Metrics
from bot.observe.sampler import sample
from bot.storage import Storage
from bot.storage.keys import ACTIVE_TTL, LIVE_GAMES_KEY
from engine import Game, Play

ALICE, BOB, CAROL, DAN = Person(1, "Alice"), Person(2, "Bob"), Person(3, "Carol"), Person(4, "Dan")


async def no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in these games")


async def friends(game_id: str, white: Person, black: Person) -> Table:
    return await start_table(
        game_id, "friend", "short", white, black, "en", ScriptedDice([6, 1]), no_computer
    )


def gauge(metrics: Metrics) -> float:
    value = metrics.registry.get_sample_value("nardy_games_live")
    assert value is not None
    return value


async def test_a_game_is_live_from_its_first_save_to_its_end_and_the_gauge_counts_it(redis_url: str) -> None:
    storage, metrics = Storage.from_url(redis_url), Metrics()
    try:
        one, two = await friends("live1", ALICE, BOB), await friends("live2", CAROL, DAN)
        await storage.games.create(one)
        await storage.games.create(two)
        await sample(metrics, storage)
        assert gauge(metrics) == 2
        await storage.games.save(resign(one, BOB.user_id, one.number))
        await sample(metrics, storage)
        assert gauge(metrics) == 1
        await storage.games.delete_game(two)
        await sample(metrics, storage)
        assert gauge(metrics) == 0
    finally:
        await storage.close()


async def test_a_game_nobody_saved_within_its_lifetime_leaves_the_count(redis_url: str) -> None:
    storage, metrics = Storage.from_url(redis_url), Metrics()
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        await storage.games.create(await friends("fresh", ALICE, BOB))
        client.zadd(LIVE_GAMES_KEY, {"forgotten": time.time() - ACTIVE_TTL - 60})  # its record expired
        await sample(metrics, storage)
        assert gauge(metrics) == 1
        assert client.zrange(LIVE_GAMES_KEY, 0, -1) == ["fresh"]
    finally:
        client.close()
        await storage.close()
