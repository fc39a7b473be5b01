"""The computer's cube decisions inside the game flow (bot/model/flow.py): it doubles, takes and passes by
itself, in last-roll bear-offs whose right cube action is textbook arithmetic (money play: double with
more than 50 % to win, take with at most 75 %)."""

from __future__ import annotations

import asyncio

from bot.model import flow
from bot.model.flow import ScriptedDice, engine_computer
from bot.model.table import Person, Table
from engine import Cube, Game, Phase, Position, Side, find_rules

HUMAN = Person(7, "Dora")
COMPUTER = Person(0, "computer", level="expert")


def last_roll(on_roll: dict[int, int], players: tuple[Person, Person]) -> Table:
    """White on roll with the checkers `on_roll` left (the rest borne off); black has one checker on its
    1-point: whatever white fails to finish now, black finishes next turn."""
    position = Position.from_counts(x={**on_roll, 0: 15 - sum(on_roll.values())}, o={1: 1, 0: 14})
    game = Game(find_rules("short"), Phase.ROLL, Side.WHITE, position, cube=Cube())
    return Table(id="cube1", mode="computer", game=game, players=players, lang="en", version=1)


def test_the_computer_doubles_a_last_roll_it_wins_25_times_in_36() -> None:
    """Checkers on the 3- and 2-points: 25 rolls of 36 bear both off (69 %): a double, and a take."""
    table = asyncio.run(
        flow.advance(last_roll({3: 1, 2: 1}, (COMPUTER, HUMAN)), ScriptedDice(), engine_computer(1))
    )
    assert table.game.phase is Phase.CUBE and table.game.deciding is Side.BLACK
    assert table.events[-1] == {"k": "double", "s": 0, "v": 2}


def test_the_computer_passes_a_double_in_a_last_roll_lost_29_times_in_36() -> None:
    """Dora's checkers on the 4- and 1-points: 29 rolls of 36 finish (81 %): the computer passes."""
    table = last_roll({4: 1, 1: 1}, (HUMAN, COMPUTER))
    done = asyncio.run(flow.press_double(table, HUMAN.user_id, 1, ScriptedDice(), engine_computer(1)))
    assert done.over and done.game.result is not None and done.game.result.dropped
    assert done.game.result.winner is Side.WHITE and done.game.result.points == 1
    assert [e["k"] for e in done.events] == ["double", "pass"]
    assert done.ended and done.ended[0]["how"] == "dropped"


def test_the_computer_takes_a_double_in_a_last_roll_lost_25_times_in_36() -> None:
    """Dora's checkers on the 3- and 2-points (69 % for her): the computer takes and owns the cube at 2."""
    table = last_roll({3: 1, 2: 1}, (HUMAN, COMPUTER))
    dice = ScriptedDice([1, 1])  # then Dora rolls 1-1: she cannot finish, and the computer then does
    taken = asyncio.run(flow.press_double(table, HUMAN.user_id, 1, dice, engine_computer(1)))
    assert [e["k"] for e in taken.events][:2] == ["double", "take"]
    assert taken.game.cube is not None and taken.game.cube.value == 2
    assert taken.game.cube.owner is Side.BLACK
