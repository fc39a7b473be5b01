"""Matches to N points and the doubling cube, through the real Application and the fake Bot API over HTTP:
a group match whose games start by themselves, cube double / take / redouble / pass between people and
with the computer, and the result recorded in the players' statistics once."""

from __future__ import annotations

import asyncio
import random
import re

import redis.asyncio as aioredis

from bot.model import stats
from bot.model.flow import ScriptedDice
from bot.storage.results import ResultStore
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    MOVER,
    board,
    data_of,
    is_over,
    new_game_menu,
    play_turn,
    press_and_wait,
    wait_board,
)
from testkit.fake_telegram.runner import BotRunner

GROUP = -1002


def start_group(tg: FakeTelegram, starter: SimUser, joiner: SimUser, fmt: str) -> None:
    tg.add_chat(GROUP, "group", "Nardy club")
    menu = new_game_menu(starter, GROUP)
    answer = starter.press_data(menu, f"v:{starter.id}:{fmt}")
    assert not getattr(answer, "show_alert", False), answer
    lobby = tg.message(GROUP, menu.message_id)
    assert "match to 3" in lobby.body or "doubling cube" in lobby.body, lobby.body
    answer = joiner.press(lobby, "Join")
    assert not answer.show_alert, answer.text


def stored_stats(redis_url: str, user_id: int) -> stats.PlayerStats:
    async def read() -> stats.PlayerStats:
        client = aioredis.from_url(redis_url)
        try:
            return await ResultStore(client).stats_of(user_id)
        finally:
            await client.aclose()

    return asyncio.run(read())


def test_a_match_to_3_in_a_group_plays_its_games_one_after_another_on_one_board(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 11, "Alice"), SimUser(tg, 12, "Bob")
    start_group(tg, alice, bob, "short.3")
    first = wait_board(tg, GROUP)
    assert "match to 3, game 1" in (first.caption or ""), first.caption
    assert "Match to 3: Alice 0 : 0 Bob" in (first.caption or ""), first.caption
    rng = random.Random(5)
    by_name = {"Alice": alice, "Bob": bob}
    next_games = set()
    for _ in range(2000):
        msg = board(tg, GROUP)
        found = re.search(r"Game (\d+) begins\.", msg.caption or "")
        if found:
            next_games.add(int(found[1]))
            assert re.search(r"Match to 3: Alice \d : \d Bob", msg.caption or ""), msg.caption
        if is_over(msg):
            break
        mover = MOVER.search(msg.caption or "")
        assert mover, msg.caption
        play_turn(by_name[mover["name"]], msg, rng)
    final = board(tg, GROUP)
    assert final.message_id == first.message_id, "the whole match must live on one message"
    caption = final.caption or ""
    won = re.search(r"🏆 (Alice|Bob) wins the match (\d+) : (\d+)!", caption)
    assert won and int(won[2]) >= 3 > int(won[3]), caption
    assert next_games, "the match was decided in one game: choose another seed"
    assert final.button_texts[0] == "🔁 New match"
    rated_caption = tg.wait_for(
        lambda: "Rating: " in (board(tg, GROUP).caption or "") and board(tg, GROUP).caption, 10, "the ratings"
    )
    assert re.search(r"Rating: Alice \d+\.\d \([+-]\d+\.\d\), Bob \d+\.\d \([+-]\d+\.\d\)", rated_caption)
    winner = alice if won[1] == "Alice" else bob
    rated = stored_stats(redis_url, winner.id)
    assert rated.of("short").games == len(next_games) + 1  # every game of the match counted once
    assert (
        rated.of("short").rated == 1 and rated.of("short").rating > 1500
    )  # the match is rated once, at its end
    # 📄 Record at the end of a match: every game of it in one GNU Backgammon match file
    answer = alice.press(final, "Record", wait_edit=False)
    assert not answer.show_alert, answer.text
    sent = tg.wait_for(
        lambda: [m for m in tg.bot_messages(GROUP) if m.document is not None], 10.0, "the record"
    )
    mat = (sent[0].document or b"").decode()
    assert (sent[0].file_name or "").endswith("-match.mat"), sent[0].file_name
    assert " 3 point match" in mat and f" Game {len(next_games) + 1}" in mat, mat
    # New match: the same length from 0 : 0, on a new board
    answer = winner.press(final, "New match")
    assert not answer.show_alert, answer.text
    fresh = tg.wait_for(
        lambda: next(
            (m for m in reversed(tg.bot_messages(GROUP)) if m.photo and m.message_id > final.message_id), None
        ),
        10,
        "the new match's board",
    )
    assert "Match to 3: Alice 0 : 0 Bob" in (fresh.caption or ""), fresh.caption
    assert not bot.errors.records, bot.errors.messages()


def wait_for_button(tg: FakeTelegram, prefix: str) -> str:
    found: str = tg.wait_for(
        lambda: next(iter(data_of(board(tg, GROUP), prefix)), None), 10, f"a {prefix} button"
    )
    return found


def play_until(tg: FakeTelegram, users: dict[str, SimUser], prefix: str, rng: random.Random) -> None:
    """Play turns (rolling, never doubling) until the board offers a `prefix` button."""
    for _ in range(300):
        msg = board(tg, GROUP)
        if data_of(msg, prefix):
            return
        roll = data_of(msg, "cr:")
        if roll:
            roller = next(u for name, u in users.items() if msg.caption and f"{name}: roll" in msg.caption)
            press_and_wait(roller, msg, roll[0])
            continue
        mover = MOVER.search(msg.caption or "")
        assert mover, msg.caption
        play_turn(users[mover["name"]], msg, rng)
    raise AssertionError(f"no {prefix} button came")


def test_the_cube_between_people_double_take_redouble_and_pass(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob = SimUser(tg, 21, "Alice"), SimUser(tg, 22, "Bob")
    dice.push(5, 3)  # Alice opens with 5-3; then Bob is to roll, with the cube in the middle
    start_group(tg, alice, bob, "short.1c")
    rng = random.Random(3)
    users = {"Alice": alice, "Bob": bob}
    play_until(tg, users, "cd:", rng)
    msg = board(tg, GROUP)
    assert "Bob: roll, or double to 2?" in (msg.caption or ""), msg.caption
    assert msg.button_texts == ["🎲 Roll", "⬆ Double to 2"]
    refused = alice.press_data(msg, data_of(msg, "cd:")[0])
    assert getattr(refused, "show_alert", False), "Alice must not double on Bob's roll"
    press_and_wait(bob, msg, data_of(msg, "cd:")[0])
    offered = board(tg, GROUP)
    assert "Bob offers a double to 2. Alice: take or pass?" in (offered.caption or ""), offered.caption
    assert offered.button_texts == ["✅ Take (2)", "✖ Pass"]
    press_and_wait(alice, offered, data_of(offered, "ct:")[0])
    taken = board(tg, GROUP)
    assert "Alice takes." in (taken.caption or "") and "Cube: 2, Alice's." in (taken.caption or ""), (
        taken.caption
    )
    # Bob no longer may double; Alice (the owner) may redouble on her next roll
    play_until(tg, users, "cd:", rng)
    msg = board(tg, GROUP)
    assert "Alice: roll, or double to 4?" in (msg.caption or ""), msg.caption
    press_and_wait(alice, msg, data_of(msg, "cd:")[0])
    offered = board(tg, GROUP)
    press_and_wait(bob, offered, data_of(offered, "cp:")[0])
    final = board(tg, GROUP)
    assert "Alice wins: the double was passed, 2 points." in (final.caption or ""), final.caption
    assert "Bob passes." in (final.caption or "")
    rating = tg.wait_for(
        lambda: "Rating: " in (board(tg, GROUP).caption or "") and board(tg, GROUP).caption, 10, "the ratings"
    )
    assert "Rating: Alice 1510.0 (+10.0), Bob 1490.0 (-10.0)" in rating, rating  # two newcomers: ±10
    alice_stats, bob_stats = stored_stats(redis_url, alice.id), stored_stats(redis_url, bob.id)
    assert alice_stats.of("short").wins == 1 and bob_stats.of("short").losses == 1
    assert alice_stats.of("short").rating is not None and bob_stats.of("short").rating is not None
    assert alice_stats.of("short").rating > 1500 > bob_stats.of("short").rating
    assert not bot.errors.records, bot.errors.messages()


def test_the_computer_answers_a_double_at_once(tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice) -> None:
    user = SimUser(tg, 31, "Carol")
    dice.push(6, 1)  # Carol opens 6-1 and plays; then the computer rolls and plays; then Carol may double
    menu = new_game_menu(user)
    user.press_data(menu, f"v:{user.id}:short.1c")
    user.press(menu, lambda text: "🤖" in text)
    user.press(menu, "Expert")
    first = wait_board(tg, user.id)
    rng = random.Random(1)
    for _ in range(50):
        msg = tg.message(user.id, first.message_id)
        if data_of(msg, "cd:"):
            break
        play_turn(user, msg, rng)
    msg = tg.message(user.id, first.message_id)
    press_and_wait(user, msg, data_of(msg, "cd:")[0])
    after = tg.message(user.id, first.message_id)
    caption = after.caption or ""
    assert "Carol doubles to 2." in caption, caption
    assert re.search(r"Computer \(expert\) (takes|passes)\.", caption), caption
    if "takes" in caption:
        assert "Cube: 2, Computer (expert)'s." in caption, caption
    else:
        assert "Carol wins: the double was passed, 1 point." in caption, caption
    assert not bot.errors.records, bot.errors.messages()
