"""Group pace: what a turn of a group game costs in calls to the group (Telegram allows about 20 a minute).

The claim (docs/playing.md, bench/group_pace.py): at most one call per press (the board edit), none for Done (by
default a group turn ends with its last die) and none for the moves of a play forced after the first
choice (tests/bot/test_settings.py has that one press). Counted in the fake's call log: no clocks."""

from __future__ import annotations

import random
from typing import Any

from bot.model.flow import ScriptedDice
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import MOVER, board, choose_settings, play_group_game, start_group_game
from testkit.fake_telegram.runner import BotRunner

GROUP = -1088
UNLIMITED = {"answerCallbackQuery", "getMe", "getUpdates", "setMyCommands", "setMyDescription"}


def _group_calls(tg: FakeTelegram, since: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """The calls to the group (sends and edits: what Telegram counts per group) after the first `since`."""
    return [
        (method, params)
        for method, params in tg.calls()[since:]
        if method not in UNLIMITED and str(params.get("chat_id")) == str(GROUP)
    ]


def _has_done(params: dict[str, Any]) -> bool:
    markup = params.get("reply_markup") or {}
    if not isinstance(markup, dict):
        return False
    rows = markup.get("inline_keyboard", [])
    return any(str(b.get("callback_data", "")).startswith("d:") for row in rows for b in row)


def test_a_group_turn_costs_one_call_per_press_and_none_for_done(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 61, "Alice"), SimUser(tg, 62, "Bob")
    dice.push(6, 1)  # Alice (white) 6-1: two choices to make
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    bot.settle()
    start = len(tg.calls())
    alice.press(msg, "13→7")
    assert len(_group_calls(tg, start)) == 1, _group_calls(tg, start)
    dice.push(3, 2)
    alice.press(msg, "8→7")  # the last die: the turn ends, Bob's dice are rolled, all in one edit
    calls = _group_calls(tg, start)
    assert [m for m, _ in calls] == ["editMessageMedia", "editMessageMedia"], calls
    caption = board(tg, GROUP).caption or ""
    assert "Alice rolled 6-1 and played 13/7 8/7." in caption and "Bob moves, dice 3-2." in caption, caption
    assert not any(_has_done(p) for _, p in calls), "no board offered ✅ Done"


def test_with_done_on_the_turn_costs_one_more_call(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 63, "Alice"), SimUser(tg, 64, "Bob")
    choose_settings(alice, "Done: on")  # her own setting applies to her turns, in a group too
    dice.push(6, 1)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    bot.settle()
    start = len(tg.calls())
    alice.press(msg, "13→7")
    alice.press(msg, "8→7")
    assert _has_done(_group_calls(tg, start)[-1][1])
    dice.push(3, 2)
    alice.press(msg, "Done")
    assert len(_group_calls(tg, start)) == 3
    assert "Bob moves, dice 3-2." in (board(tg, GROUP).caption or "")


def test_a_whole_group_game_costs_at_most_one_group_call_per_press(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 65, "Alice"), SimUser(tg, 66, "Bob")
    dice.push(5, 2)
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    bot.settle()
    start = len(tg.calls())
    answers = len(tg.calls("answerCallbackQuery"))
    final = play_group_game(tg, GROUP, [alice, bob], random.Random(5))
    bot.settle()
    presses = len(tg.calls("answerCallbackQuery")) - answers
    calls = _group_calls(tg, start)
    assert final.message_id == msg.message_id
    assert not MOVER.search(final.caption or ""), "the game is over"
    assert presses > 40
    assert len(calls) <= presses, (len(calls), presses)
    assert {m for m, _ in calls} <= {"editMessageMedia", "editMessageCaption"}, "one message, edited"
    assert not any(_has_done(p) for _, p in calls), "no Done step in a group by default"
    assert not bot.errors.records, bot.errors.messages()


def test_one_checker_moved_twice_is_one_press_and_one_edit(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 67, "Alice"), SimUser(tg, 68, "Bob")
    dice.push(6, 1)  # Alice (white) 6-1: 13→7→6 takes both dice with one checker
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    bot.settle()
    texts = board(tg, GROUP).button_texts
    assert texts.index("13→7→6") > max(texts.index(single) for single in ("24→18", "13→7", "8→7", "6→5"))
    start = len(tg.calls())
    dice.push(4, 2)
    alice.press(msg, "13→7→6")
    assert len(_group_calls(tg, start)) == 1, _group_calls(tg, start)
    caption = board(tg, GROUP).caption or ""
    assert "Alice rolled 6-1 and played 13/7 7/6." in caption and "Bob moves, dice 4-2." in caption, caption
    # with Done on the same press makes both moves, and Undo takes back the second
    choose_settings(bob, "Done: on")
    onward = [t for t in board(tg, GROUP).button_texts if t.count("→") == 2]
    assert onward, board(tg, GROUP).button_texts
    bob.press(msg, onward[0])
    now = board(tg, GROUP)
    assert now.button_texts == ["↩ Undo", "✅ Done"], now.button_texts
    bob.press(msg, "Undo")
    assert "Moves so far:" in (board(tg, GROUP).caption or "")
    assert "✅ Done" not in board(tg, GROUP).button_texts
    assert not bot.errors.records, bot.errors.messages()


def test_the_two_two_start_offers_six_four_two_and_one_press_plays_it(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 69, "Alice"), SimUser(tg, 70, "Bob")
    dice.push(6, 1, 2, 2)  # Alice (white) 6-1 first; then Bob, at his start position, 2-2
    msg = start_group_game(tg, GROUP, alice, bob, "short")
    alice.press(msg, "13→7→6")
    now = board(tg, GROUP)
    assert "Bob moves, dice 2-2." in (now.caption or ""), now.caption
    onward = [t for t in now.button_texts if t.count("→") == 2]
    assert {"6→4→2", "13→11→9", "24→22→20", "8→6→4"} <= set(onward), onward  # 13 legal plays hold 6→4→2
    bob.press(msg, "6→4→2")
    caption = board(tg, GROUP).caption or ""
    assert "Moves so far: 6/4 4/2\n" in caption, caption  # one press, both moves of that checker
    assert not bot.errors.records, bot.errors.messages()
