"""Every game format's quick-match search ends: timed out by the sweep, stopped, and forgotten (/forget).

The formats the sweep, Stop searching and /forget walk are GameFormat.every(), derived from the format type's
own fields; a format with a clock (e.g. "short-live") was once left out, and its searches never ended."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator

import pytest
import redis

from bot.model import game_format
from bot.model.flow import Refused, ScriptedDice, engine_computer
from bot.model.game_format import ALL_FORMATS, FIELD_VALUES, GameFormat
from bot.model.table import Person, Seeker
from bot.service import quickmatch
from bot.service.context import SearchNews, Services
from bot.service.settings import SettingsCache
from bot.storage import Storage
from bot.storage.keys import SEEK_FORMATS
from engine import Game, Play
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import new_game_menu
from testkit.fake_telegram.runner import BotRunner

TIMEOUT = 20.0  # NARDY_SEEK_TIMEOUT of these tests: seconds on the injected clock


class Recorded(Services):
    """Services that keep the news of searches instead of telling anyone."""

    news: list[SearchNews]
    now: list[float]  # the injected clock's reading

    def searched(self, news: SearchNews) -> None:
        self.news.append(news)


async def _no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in a quick match")


@pytest.fixture
async def services(redis_url: str) -> AsyncIterator[Recorded]:
    storage = Storage.from_url(redis_url)
    now = [1000.0]
    s = Recorded(
        storage=storage,
        dice=ScriptedDice(seed=3),
        computer=_no_computer,
        settings=SettingsCache(storage),
        seek_timeout=TIMEOUT,
        clock=lambda: now[0],
    )
    s.news, s.now = [], now
    try:
        yield s
    finally:
        await storage.close()


def _queues(redis_url: str) -> dict[str, list[str]]:
    """Every nonempty quick-match queue in Redis, found by scanning (not by the list under test)."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return {
            str(key): list(r.zrange(key, 0, -1))  # type: ignore[arg-type]
            for key in r.scan_iter(match="nardy:seek:*")
            if r.zcard(key)
        }
    finally:
        r.close()


async def _one_search_per_format(s: Recorded) -> dict[int, str]:
    """A search in each format, by users 1, 2, ...: each queued (alone in its format)."""
    users = {}
    for i, fmt in enumerate(ALL_FORMATS, start=1):
        me = Seeker(Person(i, f"P{i}"), fmt, s.clock(), f"t{i}", 100 + i)
        assert await quickmatch.find_opponent(s, me) is None, fmt
        users[i] = fmt
    return users


# ---------------------------------------------------------------------- the list of formats


def test_the_format_list_covers_every_field_of_the_format_type_and_every_value() -> None:
    assert set(FIELD_VALUES) == {f.name for f in dataclasses.fields(GameFormat)}
    assert len(ALL_FORMATS) == len(set(ALL_FORMATS)) == 39  # 13 untimed, each also live and blitz
    assert SEEK_FORMATS == ALL_FORMATS
    parsed = [GameFormat.parse(text) for text in ALL_FORMATS]
    assert [str(f) for f in parsed] == list(ALL_FORMATS)  # each text is the format's own
    for name, values in FIELD_VALUES.items():
        assert {getattr(f, name) for f in parsed} == set(values), name
    assert {"short-live", "short.5c-blitz", "long.7-live", "short.1cj-blitz"} <= set(ALL_FORMATS)


def test_a_field_missing_from_the_values_is_an_error_not_a_format_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    partial = {k: v for k, v in FIELD_VALUES.items() if k != "clock"}
    monkeypatch.setattr(game_format, "FIELD_VALUES", partial)
    with pytest.raises(TypeError, match=r"disagree on \['clock'\]"):
        GameFormat.every()


# ---------------------------------------------------------------------- every format's search ends


async def test_every_formats_search_times_out_once_its_time_is_up(services: Recorded, redis_url: str) -> None:
    s = services
    users = await _one_search_per_format(s)
    assert len(_queues(redis_url)) == len(ALL_FORMATS)
    s.now[0] += TIMEOUT - 1
    assert await quickmatch.end_expired(s) == 0 and s.news == []
    s.now[0] += 1
    assert await quickmatch.end_expired(s) == len(ALL_FORMATS)
    assert sorted((n.kind, n.seeker.person.user_id, n.seeker.game) for n in s.news) == sorted(
        ("timed_out", u, fmt) for u, fmt in users.items()
    )
    assert _queues(redis_url) == {}
    assert [await s.storage.rooms.search_of(u) for u in users] == [None] * len(users)
    for u, fmt in users.items():  # a new search is not refused as "already looking"
        assert await quickmatch.find_opponent(s, Seeker(Person(u, f"P{u}"), fmt, s.clock(), f"n{u}")) is None


async def test_every_formats_search_stops_by_its_button_and_by_cancel(
    services: Recorded, redis_url: str
) -> None:
    s = services
    users = await _one_search_per_format(s)
    for u in list(users)[::2]:  # Stop searching on the waiting message
        ended = await quickmatch.stop(s, u, f"t{u}")
        assert ended.game == users[u]
        with pytest.raises(Refused):  # the same button again: the search is over
            await quickmatch.stop(s, u, f"t{u}")
    for u in list(users)[1::2]:  # /cancel
        assert await quickmatch.stop_any(s, u)
    assert sorted(n.seeker.person.user_id for n in s.news if n.kind == "stopped") == list(users)[1::2]
    assert _queues(redis_url) == {}
    assert [await s.storage.rooms.search_of(u) for u in users] == [None] * len(users)


async def test_every_formats_search_is_forgotten(services: Recorded, redis_url: str) -> None:
    s = services
    users = await _one_search_per_format(s)
    for u in users:  # what /forget does: the search ends, then every key of the user goes
        assert await quickmatch.stop_any(s, u)
        await s.storage.users.forget_user_keys(u)
    assert _queues(redis_url) == {}
    for u in users:  # even a queue entry left behind without its search record
        r = redis.Redis.from_url(redis_url, decode_responses=True)
        r.zadd(f"nardy:seek:{users[u]}", {str(u): 1.0})
        r.close()
        await s.storage.users.forget_user_keys(u)
    assert _queues(redis_url) == {}


async def test_seekers_of_the_same_clocked_format_are_paired_and_both_hear_it(services: Recorded) -> None:
    s = services
    ann, bob = Person(1, "Ann"), Person(2, "Bob")
    assert await quickmatch.find_opponent(s, Seeker(ann, "short-live", 1000.0, "a", 11)) is None
    assert await quickmatch.find_opponent(s, Seeker(bob, "short-blitz", 1001.0, "b", 12)) is None
    table = await quickmatch.find_opponent(s, Seeker(Person(3, "Cat"), "short-live", 1002.0, "c", 13))
    assert table is not None and table.mode == "match"
    assert [(n.kind, n.seeker.person.name, n.table) for n in s.news] == [
        ("found", "Ann", table),
        ("found", "Cat", table),
    ]
    assert sorted(p.name for p in table.players) == ["Ann", "Cat"]


# ---------------------------------------------------------------------- through Telegram


@pytest.fixture
def timed_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice) -> Iterator[BotRunner]:
    """A polling bot whose quick-match searches end after 1 s (NARDY_SEEK_TIMEOUT=1)."""
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), seek_timeout=1.0)
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def test_a_search_with_a_live_clock_times_out_and_a_new_one_is_not_refused(
    tg: FakeTelegram, timed_bot: BotRunner, redis_url: str
) -> None:
    alice = SimUser(tg, 1, "Alice")
    menu = new_game_menu(alice)
    assert not alice.press(menu, "⏱").show_alert  # none -> live
    assert not alice.press(menu, lambda text: "Short" in text).show_alert
    assert not alice.press(menu, "🎲").show_alert
    tg.wait_for(
        lambda: "Nobody turned up" in tg.message_now(alice.id, menu.message_id).body,
        15.0,
        "the live search to time out",
    )
    assert _queues(redis_url) == {}
    again = alice.press(menu, "🎲")  # 🎲 Look again: a new search, not "already looking"
    assert not again.show_alert, again.text
    assert not timed_bot.errors.records, timed_bot.errors.messages()
