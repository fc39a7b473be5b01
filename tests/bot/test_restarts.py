"""Restarts in the middle of many games: the bot process, and Redis (killed; the append-only file brings
every game back). Every game goes on from where it was. (One game across a bot restart, with its old
buttons: tests/bot/test_bot_resilience.py.)"""

from __future__ import annotations

import os
import random
import signal
import time

import redis

from bot.embedded_redis import EmbeddedRedis
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import MOVER, board, data_of, start_group_game
from testkit.fake_telegram.race import RaceStats, check_games, game_of, race_game
from testkit.fake_telegram.runner import BotRunner


def _start_games(tg: FakeTelegram, count: int) -> dict[int, tuple[SimUser, SimUser]]:
    players = {}
    for i in range(count):
        chat = -5000 - i
        players[chat] = (SimUser(tg, 500 + 2 * i, f"W{i}"), SimUser(tg, 501 + 2 * i, f"B{i}"))
        start_group_game(tg, chat, *players[chat], "long" if i % 3 == 2 else "short")
    return players


def _play(
    tg: FakeTelegram, players: dict[int, tuple[SimUser, SimUser]], rounds: int, stats: RaceStats
) -> None:
    for chat, users in players.items():
        stats.add(race_game(tg, chat, users, random.Random(chat), rounds, double_tap=0, both_at_once=0))


def _snapshot(redis_url: str) -> dict[str, object]:
    """Every game key and board-message hash, as Redis holds them."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        out: dict[str, object] = {}
        for key in client.scan_iter(match="nardy:game:*"):
            out[key] = client.hgetall(key) if key.endswith(":messages") else client.get(key)
        return out
    finally:
        client.close()


def test_a_bot_restart_in_the_middle_of_20_games_lets_every_game_go_on(
    tg: FakeTelegram, bot: BotRunner, redis_url: str
) -> None:
    players = _start_games(tg, 20)
    before = {chat: game_of(redis_url, chat) for chat in players}
    stats = RaceStats()
    _play(tg, players, 3, stats)
    bot.settle()
    kept = _snapshot(redis_url)

    bot.stop()
    waiting = []  # each game's player on turn presses while the bot is down
    for chat, (white, black) in players.items():
        msg = board(tg, chat)
        found = MOVER.search(msg.caption or "")
        assert found, msg.caption
        user = white if found["name"] == white.first_name else black
        data = (data_of(msg, "m:") or data_of(msg, "p:") or data_of(msg, "d:"))[0]
        waiting.append((chat, str(user.press_data(msg, data, wait=False))))
    assert _snapshot(redis_url) == kept, "a stopped bot changed nothing"
    bot.start()
    assert bot.starts == 2

    for chat, qid in waiting:  # the presses made during the restart are handled after it
        answer = tg.wait_answer(qid, timeout=30)  # twenty presses at once on a busy machine
        assert not answer.show_alert, f"chat {chat}: {answer.text}"
        stats.applied_by_chat[chat] += 1
        stats.applied += 1
    bot.settle()  # their boards are drawn after the answers: the players look at them before going on
    _play(tg, players, 3, stats)
    assert not stats.problems, stats.problems[:5]
    problems = check_games(
        redis_url, {c: g for c, (g, _) in before.items()}, {c: v for c, (_, v) in before.items()}, stats
    )
    assert not problems, problems
    assert not bot.errors.records, bot.errors.messages()


def test_a_redis_crash_mid_games_loses_nothing_with_the_append_only_file(
    tg: FakeTelegram, bot: BotRunner, redis_url: str, redis_server: EmbeddedRedis
) -> None:
    players = _start_games(tg, 10)
    before = {chat: game_of(redis_url, chat) for chat in players}
    stats = RaceStats()
    _play(tg, players, 4, stats)
    bot.settle()
    kept = _snapshot(redis_url)
    assert len(kept) == 2 * len(players)  # a game and its board messages each

    client = redis.Redis.from_url(redis_url)
    pid = int(client.info("server")["process_id"])
    client.close()
    os.kill(pid, signal.SIGKILL)  # no shutdown, no final flush: only what the AOF already holds
    deadline = time.monotonic() + 10
    while redis_server.running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not redis_server.running
    redis_server.start()  # notices the dead process and starts a new one on the same data directory

    assert _snapshot(redis_url) == kept
    _play(tg, players, 4, stats)
    assert not stats.problems, stats.problems[:5]
    problems = check_games(
        redis_url, {c: g for c, (g, _) in before.items()}, {c: v for c, (_, v) in before.items()}, stats
    )
    assert not problems, problems
