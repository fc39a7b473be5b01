"""The bot survives: a restart mid-game, Redis going away, flood control, deleted messages, blocked users."""

from __future__ import annotations

import logging

import pytest

from bot.embedded_redis import EmbeddedRedis
from bot.model.flow import ScriptedDice
from testkit.fake_telegram import FakeTelegram, Fault, SimUser
from testkit.fake_telegram.play import board, reply_to, start_friend_game, start_group_game
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer

GROUP = -1004


def test_a_restart_mid_game_keeps_the_game_and_its_buttons(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    alice.press(msg, "13→7")
    bot.stop()
    bot.start()
    assert bot.starts == 2
    dice.push(4, 2)
    answer = alice.press(msg, "8→7")  # a button sent by the previous process; its last die ends the turn
    assert not answer.show_alert, answer.text
    assert "Alice rolled 6-1 and played 13/7 8/7." in (board(tg, GROUP).caption or "")
    assert "Bob moves, dice 4-2." in (board(tg, GROUP).caption or "")


def test_redis_going_away_gives_try_again_and_play_resumes(
    tg: FakeTelegram,
    bot: BotRunner,
    dice: ScriptedDice,
    redis_server: EmbeddedRedis,
    caplog: pytest.LogCaptureFixture,
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob", "ru")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    edits = board(tg, GROUP).edits
    redis_server.stop()
    try:
        with caplog.at_level(logging.ERROR, logger="bot"):
            answer = alice.press(msg, "13→7")
            assert answer.show_alert
            assert answer.text == "The game storage is not available right now. Please try again in a minute."
            assert reply_to(bob, "/newgame", GROUP).body == (
                "Хранилище игр сейчас недоступно. Попробуйте ещё раз через минуту."
            )
        assert any("storage unavailable" in r.getMessage() for r in caplog.records)
        assert board(tg, GROUP).edits == edits
    finally:
        redis_server.start()
    answer = alice.press(msg, "13→7")
    assert not answer.show_alert, answer.text
    assert "Moves so far: 13/7" in (board(tg, GROUP).caption or "")
    bot.errors.records.clear()  # the outage was logged on purpose


def test_flood_control_429_is_retried(tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    tg.inject(Fault("editMessageMedia", 429, "Too Many Requests: retry after 1", retry_after=1))
    answer = alice.press(msg, "13→7")
    assert not answer.show_alert
    assert tg.faults_left() == 0
    assert "Moves so far: 13/7" in (board(tg, GROUP).caption or "")
    assert not bot.errors.records, bot.errors.messages()


def test_message_not_modified_is_ignored(tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    tg.inject(
        Fault(
            "editMessageMedia",
            400,
            "Bad Request: message is not modified: specified new message content "
            "and reply markup are exactly the same",
        )
    )
    assert not alice.press(msg, "13→7", wait_edit=False).show_alert
    assert tg.faults_left() == 0
    assert not bot.errors.records, bot.errors.messages()
    assert "Moves so far" not in (board(tg, GROUP).caption or ""), "the fake kept the message as it was"


def test_a_deleted_game_message_is_replaced_by_a_new_one(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(1, 6, 6, 1)  # Bob (black) moves first with 6-1
    alice_board, bob_board = start_friend_game(tg, alice, bob, "short")
    tg.delete_message(alice_board)
    assert not bob.press(bob_board, "13→7").show_alert
    replacement = board(tg, alice.id)
    assert replacement.message_id != alice_board.message_id
    assert "Moves so far: 13/7" in (replacement.caption or "")
    bob.press(bob_board, "8→7")
    assert board(tg, alice.id).message_id == replacement.message_id, "the new message id is remembered"
    assert tg.message(alice.id, replacement.message_id).edits == 1
    assert not bot.errors.records, bot.errors.messages()


def test_a_player_who_blocked_the_bot_does_not_stop_the_game(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(1, 6, 6, 1)
    _, bob_board = start_friend_game(tg, alice, bob, "short")
    tg.set_blocked(alice.id)
    with caplog.at_level(logging.WARNING, logger="bot"):
        answer = bob.press(bob_board, "13→7")
    assert isinstance(answer, CallbackAnswer) and not answer.show_alert
    assert any("does not accept messages" in r.getMessage() for r in caplog.records)
    assert "Moves so far: 13/7" in (board(tg, bob.id).caption or "")
    assert "Moves so far" not in (board(tg, alice.id).caption or "")
    tg.set_blocked(alice.id, False)
    bob.press(bob_board, "8→7")
    assert "Moves so far: 13/7 8/7" in (board(tg, alice.id).caption or "")
    assert not bot.errors.records, bot.errors.messages()


def test_newgame_during_a_game_brings_a_deleted_group_board_back(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(6, 1)
    first = start_group_game(tg, GROUP, alice, bob, "short")
    alice.press(first, "13→7")
    tg.delete_message(first)
    sent = bob.say("/newgame", GROUP)
    refusal = bob.wait_message(lambda m: m.message_id > sent.message_id and m.text is not None, GROUP)
    assert refusal.body == "A game is already going on here. Finish it or /resign first."
    bot.settle()
    again = board(tg, GROUP)  # the deleted board is drawn again as a new message
    assert sent.message_id < again.message_id
    assert "Moves so far: 13/7" in (again.caption or "")
    assert not alice.press(again, "8→7").show_alert
    assert board(tg, GROUP).message_id == again.message_id
    assert "Alice rolled 6-1 and played 13/7 8/7." in (board(tg, GROUP).caption or "")  # its last die
    assert not bot.errors.records, bot.errors.messages()
