"""Every press is checked against Redis: old boards, spectators, the wrong player, forged data, double tap."""

from __future__ import annotations

import json

import redis

from bot.model.flow import ScriptedDice
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import board, choose_settings, start_group_game
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer

GROUP = -1002


def _version(redis_url: str, game_id: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        raw = client.get(f"nardy:game:{game_id}")
        assert isinstance(raw, bytes), f"game {game_id} is gone"
        return int(json.loads(raw)["version"])
    finally:
        client.close()


def _alert(answer: object) -> str:
    assert isinstance(answer, CallbackAnswer), answer
    assert answer.show_alert, f"expected an alert, got {answer}"
    return str(answer.text)


def _start(tg: FakeTelegram, dice: ScriptedDice) -> tuple[SimUser, SimUser, SimUser]:
    alice, bob, carol = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob"), SimUser(tg, 3, "Carol", "ru")
    dice.push(6, 1)  # Alice (white) starts with 6-1
    start_group_game(tg, GROUP, alice, bob, "short")
    return alice, bob, carol


def test_an_old_button_on_a_board_already_showing_the_latest_move_is_refused_and_changes_nothing(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, _, _ = _start(tg, dice)
    old = board(tg, GROUP)
    old_data = alice.button(old, "13→7")
    game_id = old_data.split(":")[1]
    alice.press(old, "13→7")
    version = _version(redis_url, game_id)
    edits = board(tg, GROUP).edits
    text = _alert(alice.press_data(old, old.buttons[1]["callback_data"]))  # pressed before the edit arrived
    assert text == "The board has just changed. Look at it again."
    assert board(tg, GROUP).edits == edits, "a board that shows the latest move is not drawn again"
    assert _version(redis_url, game_id) == version
    assert "Moves so far: 13/7" in (board(tg, GROUP).caption or "")


def test_spectators_and_the_player_off_turn_get_an_alert(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, bob, carol = _start(tg, dice)
    msg = board(tg, GROUP)
    data = alice.button(msg, "13→7")
    version = _version(redis_url, data.split(":")[1])
    assert _alert(carol.press_data(msg, data)) == "Вы не участвуете в этой игре."
    assert _alert(bob.press_data(msg, data)) == "It is not your turn."
    assert _version(redis_url, data.split(":")[1]) == version
    assert board(tg, GROUP).edits == msg.edits


def test_forged_and_garbage_callback_data_get_an_alert(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, _, _ = _start(tg, dice)
    msg = board(tg, GROUP)
    data = alice.button(msg, "13→7")
    _, game_id, version, _, _ = data.split(":")
    cases = {
        "garbage": "This button is not valid.",
        "m:" + "x" * 70: "This button is not valid.",
        f"m:{game_id}:{version}:13:9": "This button is not valid.",
        f"m:{game_id}:{version}:99:6": "This button is not valid.",
        f"m:nosuchgame:{version}:13:6": "This button does not belong to this message.",
        f"m:{game_id}:{version}:12:6": "That move is not possible now.",
        f"m:{game_id}:{version}:6:6": "That move is not possible now.",  # no bearing off yet
        f"u:{game_id}:{version}": "There is nothing to undo.",
        f"d:{game_id}:{version}": "Finish your move first: more checkers must move.",
        f"r:{game_id}:{version}": "This game is not over yet.",
        f"ry:{game_id}:1:2": "This button does not belong to this message.",  # a question's, not a board's
        "v:2:short": "This button does not belong to this message.",
    }
    for forged, expected in cases.items():
        assert _alert(alice.press_data(msg, forged)) == expected, forged
    assert _version(redis_url, game_id) == int(version)
    assert not bot.errors.records, bot.errors.messages()


def test_a_double_tap_applies_once(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice, redis_url: str
) -> None:
    alice, _, _ = _start(tg, dice)
    msg = board(tg, GROUP)
    data = alice.button(msg, "13→7")
    version = _version(redis_url, data.split(":")[1])
    first = alice.press_data(msg, data, wait=False)
    second = alice.press_data(msg, data, wait=False)
    answers = [tg.wait_answer(str(first)), tg.wait_answer(str(second))]
    assert sorted(a.show_alert for a in answers) == [False, True], answers
    alert = next(a.text for a in answers if a.show_alert)
    assert alert in (
        "The board was behind; here it is now.",  # the second tap came before the board was redrawn
        "The board has just changed. Look at it again.",  # ... after it
        "Someone was quicker. Look at the board again.",  # ... or lost the compare-and-set
    )
    assert _version(redis_url, data.split(":")[1]) == version + 1
    bot.settle()
    assert "Moves so far: 13/7" in (board(tg, GROUP).caption or "")
    assert "Moves so far: 13/7 13/7" not in (board(tg, GROUP).caption or "")


def test_undo_takes_back_one_move_and_done_passes_the_turn(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob, _ = _start(tg, dice)
    choose_settings(alice, "Done: on")  # in a group a turn ends with its last die unless the player asks
    msg = board(tg, GROUP)
    alice.press(msg, "13→7")
    assert "↩ Undo" in board(tg, GROUP).button_texts
    alice.press(msg, "Undo")
    assert "Moves so far" not in (board(tg, GROUP).caption or "")
    assert "↩ Undo" not in board(tg, GROUP).button_texts
    alice.press(msg, "13→7")
    alice.press(msg, "8→7")
    now = board(tg, GROUP)
    assert now.button_texts == ["↩ Undo", "✅ Done"]
    dice.push(3, 2)
    alice.press(msg, "Done")
    caption = board(tg, GROUP).caption or ""
    assert "Alice rolled 6-1 and played 13/7 8/7." in caption, caption
    assert "Bob moves, dice 3-2." in caption, caption
    assert _alert(alice.press_data(msg, bob.button(msg, "→"))) == "It is not your turn."
