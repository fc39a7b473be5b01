"""A turn with few legal plays offers each whole play as one button: one press plays the turn (and in a
group, with Done off, ends it with one board edit); the press is checked like its single moves."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest

from bot.i18n import texts
from bot.model.flow import Refused, ScriptedDice, press_play, press_play_to_end
from bot.model.table import Person, Table
from bot.telegram import callbacks
from bot.telegram.callbacks import BadCallback
from bot.telegram.keyboards import WHOLE_PLAYS, board_markup, moved_twice
from engine import OFF, Dice, Game, Phase, Play, Position, Rules, Side, find_rules
from testkit.fake_telegram import FakeTelegram, SimUser
from testkit.fake_telegram.play import (
    MOVER,
    board,
    data_of,
    is_over,
    play_turn,
    press_and_wait,
    start_group_game,
)
from testkit.fake_telegram.runner import BotRunner
from testkit.random_play import random_play_positions

# white: two checkers on 13 and 10, the rest home; black: two back checkers. 6-5: five ways to play.
POSITION = Position.from_counts({13: 1, 10: 1, 6: 13}, {24: 2, 13: 13})


def _table() -> Table:
    game = Game(
        rules=find_rules("short"), phase=Phase.MOVE, turn=Side.WHITE, position=POSITION, dice=Dice(6, 5)
    )
    return Table("g7", "group", game, (Person(1, "Alice"), Person(2, "Bob")), "en", chat_id=-5, version=4)


async def _no_computer(game: Game, level: str) -> Play:
    raise AssertionError("no computer in this game")


def _labels(table: Table) -> list[str]:
    markup = board_markup(texts("en"), table, None)
    assert markup is not None
    return [b.text for row in markup.inline_keyboard for b in row]


def test_few_plays_are_offered_whole_and_many_as_single_moves() -> None:
    table = _table()
    plays = table.game.rules.turn_plays(table.game.position, table.game.dice or Dice(6, 5))
    assert 2 <= len(plays) <= WHOLE_PLAYS
    labels = _labels(table)
    assert len(labels) == len(plays), labels  # and no 💡: a game between two people is rated
    assert all(" " in label for label in labels), "each button is a whole play: two moves"
    assert "13→7 10→5" in labels, labels
    computer = Person(0, "Computer", level="expert")
    assert _labels(replace(table, mode="computer", players=(table.players[0], computer)))[-1] == "💡"
    start = Game.new("short").opening_roll(5, 3)  # 5-3 from the start: many plays
    many = Table("g6", "group", start, (Person(1, "A"), Person(2, "B")), "en", chat_id=-5, version=2)
    assert "24→21" in _labels(many) and not any(" " in label for label in _labels(many))


def _chains(rules: Rules, position: Position, dice: Dice) -> set[tuple[int, int]]:
    """(checker's point, final point) of every checker that some legal play moves twice in a row, from
    where it stands when the turn starts, whatever order the engine lists the play's moves in."""
    return {
        (a.src, b.dst)
        for play in rules.turn_plays(position, dice)
        for i, a in enumerate(play.moves)
        for j, b in enumerate(play.moves)
        if i != j and a.dst == b.src and a.dst != OFF and position.x[a.src] > 0
    }


@pytest.mark.parametrize("variant", ["short", "long"])
def test_every_two_step_destination_of_a_legal_play_is_a_button_at_the_start(variant: str) -> None:
    rules = find_rules(variant)
    start = rules.start_position()
    for high in range(1, 7):
        for low in range(1, high + 1):
            dice = Dice(high, low)
            offered = {(a.src, b.dst) for a, b in moved_twice(rules, start, dice)}
            assert offered == _chains(rules, start, dice), f"{variant} {dice}"
    two_two = {
        (a.src, a.dst, b.dst)
        for a, b in moved_twice(find_rules("short"), Game.new("short").position, Dice(2, 2))
    }
    assert (6, 4, 2) in two_two, sorted(two_two)


def test_a_two_step_button_is_offered_exactly_where_its_two_moves_may_start_the_turn() -> None:
    """In positions of random games: every button is two moves the move picker takes as the turn's first
    (what a press is checked against), and every legal play's checker moved twice whose two moves may come
    first has its button."""
    for variant in ("short", "long"):
        rules = find_rules(variant)
        for position, dice in random_play_positions(rules, random.Random(3), 200):
            first_moves = rules.turn_step(position, dice).next_moves
            offered = moved_twice(rules, position, dice)
            for a, b in offered:
                assert a in first_moves and rules.turn_step(position, dice, (a,)).find(a.dst, b.die) == b
            playable = {
                (a.src, b.dst)
                for play in rules.turn_plays(position, dice)
                for a in play.moves
                for b in play.moves
                if a in first_moves
                and a.dst == b.src
                and a.dst != OFF
                and rules.turn_step(position, dice, (a,)).find(b.src, b.die) is not None
            }
            assert {(a.src, b.dst) for a, b in offered} == playable, f"{variant} {position} {dice}"


def test_a_whole_play_is_checked_like_its_moves_and_ends_the_turn_with_done_off() -> None:
    table = _table()
    played = press_play(table, 1, 4, ((13, 6), (10, 5)))
    assert played.moves == ((13, 6), (10, 5)) and played.version == 5
    for forged in (((13, 6),), ((13, 6), (13, 5)), ((10, 6), (10, 6)), ((24, 6), (10, 5))):
        with pytest.raises(Refused):
            press_play(table, 1, 4, forged)
    with pytest.raises(Refused):
        press_play(table, 2, 4, ((13, 6), (10, 5)))  # not Bob's turn
    with pytest.raises(Refused):
        press_play(table, 1, 3, ((13, 6), (10, 5)))  # an old board
    ended = asyncio.run(
        press_play_to_end(table, 1, 4, ((13, 6), (10, 5)), ScriptedDice([4, 3]), _no_computer)
    )
    assert ended.version == 5 and ended.game.turn is Side.BLACK and str(ended.game.dice) == "4-3"
    assert ended.events[0] == {"k": "play", "s": 0, "p": "13/7 10/5", "d": "6-5", "how": "chosen"}


def test_whole_play_buttons_decode_strictly_and_fit_in_64_bytes() -> None:
    data = callbacks.whole_play("a" * 24, 10**9 - 1, ((25, 6), (25, 6), (25, 6), (25, 6)))
    assert len(data.encode()) <= callbacks.MAX_BYTES
    assert callbacks.decode(data).play_moves == ((25, 6),) * 4
    for forged in ("p:g7:4:", "p:g7:4:13.7", "p:g7:4:0.5", "p:g7:4:26.1", "p:g7:4:013.6", "p:g7:4:1.1-" * 2):
        with pytest.raises(BadCallback):
            callbacks.decode(forged)


def test_a_group_turn_with_few_plays_is_one_press_and_one_edit(tg: FakeTelegram, bot: BotRunner) -> None:
    alice, bob = SimUser(tg, 1, "Alice"), SimUser(tg, 2, "Bob")
    first = start_group_game(tg, -3131, alice, bob, "short")
    by_name, rng = {"Alice": alice, "Bob": bob}, random.Random(2)
    for _ in range(300):  # play on until a turn offers its few plays whole
        msg = board(tg, -3131)
        assert not is_over(msg), "the game ended before a turn with few plays"
        match = MOVER.search(msg.caption or "")
        assert match, msg.caption
        whole = data_of(msg, "p:")
        if whole:
            break
        play_turn(by_name[match["name"]], msg, rng)
    else:
        raise AssertionError("no turn with few plays in 300 turns")
    mover = by_name[match["name"]]
    assert not data_of(msg, "m:"), "whole plays only: no single moves beside them"
    edits, calls = msg.edits, len(tg.calls())
    answer = press_and_wait(mover, msg, whole[0])
    assert not answer.show_alert, answer.text
    bot.settle()
    now = tg.message(-3131, first.message_id)
    assert now.edits == edits + 1, "one edit for the whole turn"
    assert "Moves so far" not in (now.caption or "") and f"{match['name']} moves" not in (now.caption or "")
    group_calls = [m for m, p in tg.calls()[calls:] if p.get("chat_id") == -3131]
    assert len(group_calls) == 1, group_calls
    assert not bot.errors.records, bot.errors.messages()
