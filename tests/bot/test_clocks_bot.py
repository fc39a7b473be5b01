"""Live games' clocks through the fake Bot API, with the bot's clock injected (no wall-clock asserts): the
time control chosen in the menu, the caption's times after each move, a press after the flag fell, a flag
that falls with nobody pressing (applied once, with two workers and a restart), the private warning, the
rating after a loss on time, quick match pairing only equal time controls."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator

import pytest
import redis

from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import ScriptedDice, engine_computer
from bot.storage import Storage
from testkit.fake_clock import FakeClock
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import new_game_menu, wait_board
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer, StoredMessage

GROUP = -1009
START = 1_800_000_000.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def timed_bot(tg: FakeTelegram, redis_url: str, dice: ScriptedDice, clock: FakeClock) -> Iterator[BotRunner]:
    runner = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), clock=clock)
    runner.start()
    tg.settlers.append(runner.settle)
    yield runner
    tg.settlers.remove(runner.settle)
    runner.stop()


def _blitz_group_game(tg: FakeTelegram, alice: SimUser, bob: SimUser, length: str = "") -> StoredMessage:
    """/newgame in the group with the blitz clock (30 s a point + 6 s a move), Bob joins."""
    tg.add_chat(GROUP, "group", "Nardy club")
    menu = new_game_menu(alice, GROUP)
    assert not alice.press(menu, "⏱").show_alert  # none -> live
    assert "live clock" in " ".join(tg.message(GROUP, menu.message_id).button_texts)
    assert not alice.press(menu, "⏱").show_alert  # live -> blitz
    assert "blitz clock" in " ".join(tg.message(GROUP, menu.message_id).button_texts)
    label = "Short nardy" if not length else f"to {length}"
    assert not alice.press(menu, label).show_alert
    lobby = tg.message(GROUP, menu.message_id)
    assert "blitz clock" in lobby.body, lobby.body
    assert not bob.press(lobby, "Join").show_alert
    return wait_board(tg, GROUP)


def _game(redis_url: str) -> dict[str, object]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        key = next(k for k in client.scan_iter(match="nardy:game:*") if not k.endswith(":messages"))
        found: dict[str, object] = json.loads(str(client.get(key)))
        return found
    finally:
        client.close()


def _caption(tg: FakeTelegram, msg: StoredMessage) -> str:
    return tg.message(msg.chat_id, msg.message_id).caption or ""


def _mover(tg: FakeTelegram, msg: StoredMessage, alice: SimUser, bob: SimUser) -> SimUser:
    return alice if "Alice moves" in _caption(tg, msg) else bob


def _play_turn(tg: FakeTelegram, msg: StoredMessage, user: SimUser) -> None:
    """The mover presses a whole play (or move buttons) until the turn passes (groups: no Done)."""
    for _ in range(6):
        now = tg.message(msg.chat_id, msg.message_id)
        if f"{user.first_name} moves" not in (now.caption or ""):
            return
        data = next(b["callback_data"] for b in now.buttons if b.get("callback_data", "")[:2] in ("p:", "m:"))
        answer = user.press_data(now, data)
        assert isinstance(answer, CallbackAnswer) and not answer.show_alert, answer
        tg.settle()
    raise AssertionError("the turn did not pass")


def test_the_menu_sets_a_clock_and_each_caption_shows_both_times(
    tg: FakeTelegram, timed_bot: BotRunner, dice: ScriptedDice, clock: FakeClock, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)  # Alice (white) starts with 6-1
    msg = _blitz_group_game(tg, alice, bob)
    caption = _caption(tg, msg)
    assert "blitz clock (30 s a point + 6 s a move)" in caption
    assert "⏱ Alice ▶ 0:30 (+6 s) · Bob 0:30" in caption, caption
    clock.advance(4.0)  # within the delay: no reserve used
    _play_turn(tg, msg, alice)
    caption = _caption(tg, msg)
    assert "⏱ Alice 0:30 · Bob ▶ 0:30 (+6 s)" in caption, caption
    clock.advance(16.0)  # 10 s past the delay
    _play_turn(tg, msg, bob)
    caption = _caption(tg, msg)
    assert "⏱ Alice ▶ 0:30 (+6 s) · Bob 0:20" in caption, caption
    stored = _game(redis_url)["clock"]
    assert isinstance(stored, dict) and stored["reserves"] == [30.0, 20.0]
    assert [u[1:] for u in stored["used"]] == [[0, 4.0], [1, 16.0]]
    assert not timed_bot.errors.records, timed_bot.errors.messages()


def test_a_press_after_the_flag_fell_loses_on_time(
    tg: FakeTelegram, redis_url: str, dice: ScriptedDice, clock: FakeClock
) -> None:
    lazy = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=3), clock=clock, clocks_every=3600.0)
    lazy.start()  # its clocks look once an hour: the press comes first
    tg.settlers.append(lazy.settle)
    try:
        _a_press_after_the_flag(tg, redis_url, dice, clock)
    finally:
        tg.settlers.remove(lazy.settle)
        lazy.stop()
    assert not lazy.errors.records, lazy.errors.messages()


def _a_press_after_the_flag(tg: FakeTelegram, redis_url: str, dice: ScriptedDice, clock: FakeClock) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = _blitz_group_game(tg, alice, bob)
    clock.advance(36.5)  # 6 s + 30 s: Alice's flag fell
    data = next(b["callback_data"] for b in tg.message(GROUP, msg.message_id).buttons if "→" in b["text"])
    answer = alice.press_data(msg, data)
    assert isinstance(answer, CallbackAnswer) and answer.show_alert
    assert answer.text == "⏱ Alice's time ran out: Bob wins.", answer.text
    tg.settle()
    caption = _caption(tg, msg)
    assert "⏱ Alice ran out of time; Bob wins." in caption, caption
    assert "Bob wins" in caption and "Rematch" in " ".join(tg.message(GROUP, msg.message_id).button_texts)
    game = _game(redis_url)
    assert game["game"]["state"]["phase"] == "over"  # type: ignore[index]


def test_a_flag_falls_with_nobody_pressing_and_is_applied_once_by_two_workers_and_a_restart(
    tg: FakeTelegram, timed_bot: BotRunner, dice: ScriptedDice, clock: FakeClock, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = _blitz_group_game(tg, alice, bob, length="3")  # a match: the flag loses the match
    second = BotRunner(tg.api_url, redis_url, dice, engine_computer(seed=4), clock=clock, name="second")
    second.start()
    try:
        timed_bot.stop()  # a restart: the game lives in Redis, its flag too
        timed_bot.start()
        version = _game(redis_url)["version"]
        clock.advance(6 + 90 + 1)  # a match to 3: 90 s of reserve
        tg.wait_for(
            lambda: "ran out of time" in (tg._state.messages[(GROUP, msg.message_id)].caption or ""),
            10.0,
            "the flag to fall",
        )
        tg.settle()
        second.settle()
    finally:
        second.stop()
    caption = _caption(tg, msg)
    assert caption.count("ran out of time") == 1, caption
    assert "🏆 Bob wins the match" in caption, caption
    game = _game(redis_url)
    assert game["version"] == int(str(version)) + 1, "the flag applied once: one change"
    applied = timed_bot.app.bot_data["nardy.clocks"].flags + second.app.bot_data["nardy.clocks"].flags  # type: ignore[union-attr]
    assert applied == 1
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert client.zcard("nardy:clocks") == 0, "the game left the clocks"
    finally:
        client.close()
    assert not timed_bot.errors.records, timed_bot.errors.messages()


def test_a_clock_does_not_flag_a_player_because_redis_was_away(
    tg: FakeTelegram,
    timed_bot: BotRunner,
    dice: ScriptedDice,
    clock: FakeClock,
    redis_url: str,
    redis_server: EmbeddedRedis,
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = _blitz_group_game(tg, alice, bob)  # Alice on turn: 6 s of delay, then 30 s
    assert timed_bot.app is not None
    clocks = timed_bot.app.bot_data["nardy.clocks"]
    clock.advance(10.0)  # 4 s of her reserve used
    tg.wait_for(lambda: clocks._reached == clock(), 10.0, "a sweep at the new time")
    redis_server.stop()
    tg.wait_for(lambda: clocks._away_since is not None, 10.0, "a sweep that cannot reach Redis")
    clock.advance(60.0)  # her flag would have fallen 26 s before Redis came back
    redis_server.start()
    tg.wait_for(lambda: clocks.d.outages, 10.0, "the outage noted")
    assert clocks.d.outages == ((START + 10.0, START + 70.0),)
    taken = clocks.flags
    tg.wait_for(lambda: clocks._reached == clock(), 10.0, "sweeps after Redis came back")
    assert clocks.flags == taken and "ran out of time" not in _caption(tg, msg)
    _play_turn(tg, msg, alice)  # her press counts, with the 26 s she had left when Redis went away
    stored = _game(redis_url)["clock"]
    assert isinstance(stored, dict) and stored["reserves"] == [26.0, 30.0], stored
    assert "ran out of time" not in _caption(tg, msg)


def test_the_player_on_turn_is_warned_once_privately_with_20_s_left(
    tg: FakeTelegram, timed_bot: BotRunner, dice: ScriptedDice, clock: FakeClock
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    alice.say("/start")
    dice.push(6, 1)
    _blitz_group_game(tg, alice, bob)
    clock.advance(6 + 30 - 19.5)  # 19.5 s left
    warning = alice.wait_message(lambda m: (m.text or "").startswith("⏱"), timeout=10.0)
    assert warning.text == "⏱ 0:20 left to move in Short nardy (backgammon) against Bob.", warning.text
    clock.advance(1.0)
    tg.settle()
    timed_bot.settle()
    assert len([m for m in tg.bot_messages(alice.id) if (m.text or "").startswith("⏱")]) == 1
    assert not [m for m in tg.bot_messages(GROUP) if (m.text or "").startswith("⏱")], "nothing in the group"
    assert not timed_bot.errors.records, timed_bot.errors.messages()


def test_a_loss_on_time_is_rated_like_any_loss(
    tg: FakeTelegram, timed_bot: BotRunner, dice: ScriptedDice, clock: FakeClock, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = _blitz_group_game(tg, alice, bob)
    clock.advance(40.0)
    tg.wait_for(
        lambda: "ran out of time" in (tg._state.messages[(GROUP, msg.message_id)].caption or ""),
        10.0,
        "the flag to fall",
    )

    async def ratings() -> tuple[float, float]:
        storage = Storage.from_url(redis_url)
        try:
            a, b = await storage.results.stats_of(1), await storage.results.stats_of(2)
            return a.of("short").rating, b.of("short").rating
        finally:
            await storage.close()

    alice_rating, bob_rating = asyncio.run(ratings())
    assert alice_rating < 1500.0 < bob_rating
    assert re.search(r"Rating: Alice 1\d{3}\.\d \(-\d", _caption(tg, msg)), _caption(tg, msg)
    assert not timed_bot.errors.records, timed_bot.errors.messages()


def test_quick_match_pairs_only_seekers_of_the_same_time_control(redis_url: str) -> None:
    from bot.model.table import Person, Seeker

    async def run() -> list[str]:
        storage = Storage.from_url(redis_url)
        try:
            ann, ben, cat = Person(11, "Ann", "en"), Person(12, "Ben", "en"), Person(13, "Cat", "en")
            kinds = [
                (await storage.rooms.seek(Seeker(ann, "short-blitz", 1.0, "s1"), 60)).kind,
                (await storage.rooms.seek(Seeker(ben, "short", 2.0, "s2"), 60)).kind,  # no clock: not Ann
                (await storage.rooms.seek(Seeker(cat, "short-live", 3.0, "s3"), 60)).kind,  # live: not Ann
            ]
            paired = await storage.rooms.seek(Seeker(Person(14, "Dan", "en"), "short-blitz", 4.0, "s4"), 60)
            kinds.append(paired.kind)
            assert paired.other is not None and paired.other.person.user_id == ann.user_id
            return kinds
        finally:
            await storage.close()

    assert asyncio.run(run()) == ["queued", "queued", "queued", "pair"]
