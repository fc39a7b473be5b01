"""Whole games through the real Application and the fake Bot API: group, friend (invitation), computer."""

from __future__ import annotations

import random
import re

from bot.model.flow import ScriptedDice
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    board,
    is_over,
    play_group_game,
    play_private_game,
    reply_to,
    start_computer_game,
    start_friend_game,
    start_group_game,
    wait_board,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.fake_telegram.server import CallbackAnswer

GROUP = -1001


def test_group_short_game_is_played_to_the_end_on_one_message(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    dice.push(5, 3)  # opening roll: Alice (white) 5, Bob 3 -> Alice moves first with 5-3
    first = start_group_game(tg, GROUP, alice, bob, "short")
    assert "Opening roll: Alice 5, Bob 3. Alice moves first." in (first.caption or "")
    assert "Alice moves, dice 5-3." in (first.caption or "")
    labels = first.button_texts
    assert labels[:6] == ["24→21", "13→8", "13→10", "8→3", "8→5", "6→3"], labels  # 6→1, 24→19 closed
    assert "💡" not in labels, labels  # no hint in a game between two people: it is rated
    assert all(label.count("→") == 2 for label in labels[6:]), labels  # then: one checker moved twice

    final = play_group_game(tg, GROUP, [alice, bob], random.Random(1))
    photos = [m for m in tg.bot_messages(GROUP) if m.photo is not None]
    assert [m.message_id for m in photos] == [first.message_id], "the game must live on one message"
    assert final.edits > 20
    assert re.search(r"(Alice|Bob) wins: (oin|mars|koks), \d points?\.", final.caption or ""), final.caption
    assert final.button_texts == ["🔁 Rematch", "📄 Record", "🎞 Replay", "📊 Analysis"]
    assert not bot.errors.records, bot.errors.messages()


def test_friend_long_game_updates_both_private_boards_until_the_end(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob", "ru")
    # opening: Alice 2, Bob 6; Bob rolls 6-5, Alice 3-2 (first turns: one checker off the head, forced);
    # then Bob rolls 4-1 and has a choice
    dice.push(2, 6, 6, 5, 3, 2, 4, 1)
    alice_board, bob_board = start_friend_game(tg, alice, bob, "long")
    caption = alice_board.caption or ""
    assert "Opening roll: Alice 2, Bob 6. Bob moves first." in caption, caption
    assert "Bob rolled 6-5; the only move was played: 24/18 18/13." in caption, caption
    assert "Alice rolled 3-2; the only move was played: 24/21 21/19." in caption, caption
    assert "Bob moves, dice 4-1." in caption, caption
    assert "Ваш ход, кубики 4-1." in (bob_board.caption or "")
    assert not alice_board.buttons and bob_board.buttons
    assert "24→20 20→19" in bob_board.button_texts, bob_board.button_texts  # three plays: each a button

    edits_before = (alice_board.edits, bob_board.edits)
    bob.press(bob_board, "24→20 20→19")
    assert tg.message(alice.id, alice_board.message_id).edits == edits_before[0] + 1
    assert tg.message(bob.id, bob_board.message_id).edits == edits_before[1] + 1

    final = play_private_game(tg, [alice, bob], random.Random(2))
    assert [m.message_id for m in final.values()] == [alice_board.message_id, bob_board.message_id]
    assert re.search(r"(Alice|Bob) wins: (oin|mars), \d points?\.", final[alice.id].caption or "")
    assert re.search(r"Победа: (Alice|Bob), (оин|марс), \d очк(о|а)\.", final[bob.id].caption or "")
    assert not bot.errors.records, bot.errors.messages()


def test_game_against_the_computer_is_played_to_the_end(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    carol = SimUser(tg, 3, "Carol")
    dice.push(1, 6)  # the computer (black) wins the opening roll and plays 6-1 at once
    first = start_computer_game(tg, carol, "short", "Expert")
    caption = first.caption or ""
    assert "Computer (expert) rolled 6-1 and played" in caption, caption
    assert "Your move, dice" in caption
    final = play_private_game(tg, [carol], random.Random(3))
    assert is_over(final[carol.id])
    assert "wins" in (final[carol.id].caption or "")
    assert not bot.errors.records, bot.errors.messages()


def test_rematch_starts_the_next_game_of_the_series_on_a_new_message(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    first = start_group_game(tg, GROUP, alice, bob, "short")
    resign_question = reply_to(bob, "/resign", GROUP)
    assert bob.press(resign_question, "Yes").text is None
    bot.settle()
    over = tg.message(GROUP, first.message_id)
    assert "Alice wins: koks, 3 points." in (over.caption or ""), over.caption  # RULES §2.8: before any move

    rematch_data = bob.button(over, "Rematch")
    answer = bob.press_data(over, rematch_data)
    assert isinstance(answer, CallbackAnswer) and not answer.show_alert, answer
    bot.settle()
    second = wait_board(tg, GROUP)
    assert second.message_id != first.message_id
    assert tg.message(GROUP, first.message_id).buttons == [], "the old board keeps no buttons"
    caption = second.caption or ""
    assert "game 2" in caption and "Series: Alice 3 : 0 Bob" in caption, caption
    stale = alice.press_data(over, rematch_data)  # a later tap on the old Rematch button
    assert isinstance(stale, CallbackAnswer) and stale.show_alert
    assert stale.text == "This board is out of date. Use the latest message."
    assert len([m for m in tg.bot_messages(GROUP) if m.photo is not None]) == 2
    assert not bot.errors.records, bot.errors.messages()


def test_board_labels_and_buttons_are_in_the_players_language(
    tg: FakeTelegram, bot: BotRunner, dice: ScriptedDice
) -> None:
    ivan, anna = SimUser(tg, 5, "Иван", "ru"), SimUser(tg, 6, "Anna", "en")
    dice.push(1, 2, 6, 1, 3, 1)  # the first opening roll: Ivan 1, Anna 2 (then Anna rolls... short reuses)
    ivan_board, anna_board = start_friend_game(tg, ivan, anna, "short")
    assert "Короткие нарды, партия 1" in (ivan_board.caption or "")
    assert "Short nardy (backgammon), game 1" in (anna_board.caption or "")
    # Anna won the opening with 2-1 (short: the opening dice are her first roll)
    assert "Your move, dice 2-1." in (anna_board.caption or "")
    assert "Ходит Anna, кубики 2-1." in (ivan_board.caption or "")
    anna.press(anna_board, "13→11")
    anna.press(anna_board, "6→5")
    assert "✅ Done" in board(tg, anna.id).button_texts and "↩ Undo" in board(tg, anna.id).button_texts
    anna.press(anna_board, "Done")
    ivan_now = board(tg, ivan.id)
    assert "↩ Отменить" not in ivan_now.button_texts
    assert "Anna: выпало 2-1, ход 13/11 6/5." in (ivan_now.caption or ""), ivan_now.caption
