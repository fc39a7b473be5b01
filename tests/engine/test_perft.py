"""Move generation pinned by perft figures kept as data (tests/data/perft.json), python-chess style.

perft(position, depth) counts the legal full-turn outcomes summed over the 21 distinct rolls at each
level (a pass counts as one; a finished game is a leaf). Short figures are GNU Backgammon's; long
figures were computed by this engine, recounted with testkit/reference_long.py (RULES.md read
literally, no engine code) and checked by hand against RULES.md §6.5 (see the tests below).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gnubg_nn
import pytest

from engine import ALL_ROLLS, Dice, Options, Position, Rules, find_rules
from testkit import reference_long

PERFT: dict[str, Any] = json.loads((Path(__file__).parent.parent / "data" / "perft.json").read_text())


def perft(rules: Rules, position: Position, depth: int) -> int:
    """Legal outcomes summed over every roll, `depth` turns deep."""
    if depth == 0 or position.x[0] == 15 or position.o[0] == 15:
        return 1
    return sum(
        perft(rules, play.position.swapped(), depth - 1)
        for dice in ALL_ROLLS
        for play in rules.legal_plays(position, dice)
    )


def outcomes_by_roll(rules: Rules, position: Position) -> dict[str, int]:
    return {str(dice): len(rules.legal_plays(position, dice)) for dice in ALL_ROLLS}


@pytest.mark.parametrize("game", ["short", "long"])
def test_start_position_has_the_recorded_id(game: str) -> None:
    rules = find_rules(game)
    assert rules.position_id(rules.start_position()) == PERFT[game]["start_id"]


@pytest.mark.parametrize("game", ["short", "long"])
def test_perft_depth_1_by_roll(game: str) -> None:
    rules = find_rules(game)
    by_roll = outcomes_by_roll(rules, rules.start_position())
    assert by_roll == PERFT[game]["depth_1_by_roll"]
    assert perft(rules, rules.start_position(), 1) == PERFT[game]["depth_1"]


def test_short_perft_depth_1_is_gnubgs_447() -> None:
    by_roll = PERFT["short"]["depth_1_by_roll"]
    assert PERFT["short"]["depth_1"] == sum(by_roll.values()) == 447
    assert (by_roll["1-2"], by_roll["1-1"], by_roll["2-2"], by_roll["5-5"], by_roll["6-6"]) == (
        15,
        42,
        75,
        4,
        11,
    )


@pytest.mark.parametrize("game", ["short", "long"])
def test_perft_depth_2_by_first_roll(game: str) -> None:
    rules = find_rules(game)
    start = rules.start_position()
    by_first_roll = {
        str(dice): sum(perft(rules, play.position.swapped(), 1) for play in rules.legal_plays(start, dice))
        for dice in ALL_ROLLS
    }
    assert by_first_roll == PERFT[game]["depth_2_by_first_roll"]
    assert sum(by_first_roll.values()) == PERFT[game]["depth_2"]


def test_short_perft_depth_2_is_202782_by_gnubg_too() -> None:
    start = [0] * 25
    for point, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
        start[point - 1] = n
    total = 0
    for first in ALL_ROLLS:
        for key in gnubg_nn.moves([start, start], first.a, first.b):
            opponent, mover = gnubg_nn.board_from_position_key(key)
            total += sum(
                max(1, len(gnubg_nn.moves([list(mover), list(opponent)], d.a, d.b))) for d in ALL_ROLLS
            )
    assert total == PERFT["short"]["depth_2"] == 202782


def test_long_perft_depth_3() -> None:
    rules = find_rules("long")
    assert perft(rules, rules.start_position(), 3) == PERFT["long"]["depth_3"] == 35722


def reference_long_perft(position: Position, depth: int) -> int:
    """perft by the literal reading of the rules (default options)."""
    if depth == 0 or position.x[0] == 15 or position.o[0] == 15:
        return 1
    total = 0
    for dice in ALL_ROLLS:
        _, finals = reference_long.outcomes(position, dice, Options())
        for x in finals:
            after = Position(x, position.o, False, position.o_first_turn, None)
            total += reference_long_perft(after.swapped(), depth - 1)
    return total


def test_long_perft_depth_2_by_the_literal_reading_of_the_rules() -> None:
    start = find_rules("long").start_position()
    assert reference_long_perft(start, 1) == PERFT["long"]["depth_1"]
    assert reference_long_perft(start, 2) == PERFT["long"]["depth_2"]


def test_long_start_is_before_both_first_turns_and_a_play_ends_the_movers() -> None:
    rules = find_rules("long")
    start = rules.start_position()
    assert (start.x_first_turn, start.o_first_turn) == (True, True)
    for dice in ALL_ROLLS:
        for play in rules.legal_plays(start, dice):
            assert (play.position.x_first_turn, play.position.o_first_turn) == (False, True)
            second = play.position.swapped()
            assert (second.x_first_turn, second.o_first_turn) == (True, False)
            for reply in rules.legal_plays(second, Dice(6, 6)):
                assert (reply.position.x_first_turn, reply.position.o_first_turn) == (False, False)


@pytest.mark.parametrize(
    "dice, outcomes",
    [
        ((6, 6), [{24: 13, 18: 2}]),  # H = 2: 24/18 24/18 (the head at X12 stops 18 -> 12)
        ((4, 4), [{24: 13, 16: 2}]),  # H = 2: 24/16 24/16
        ((3, 3), [{24: 13, 18: 2}, {24: 13, 21: 1, 15: 1}]),  # H = 2: 24/18 24/18 or 24/21 24/15
        ((5, 5), [{24: 14, 4: 1}]),  # one checker plays all four: 24/4
        ((1, 1), [{24: 14, 20: 1}]),
        ((2, 2), [{24: 14, 16: 1}]),
        ((6, 5), [{24: 14, 13: 1}]),
    ],
)
def test_long_first_turn_outcomes_by_hand(dice: tuple[int, int], outcomes: list[dict[int, int]]) -> None:
    rules = find_rules("long")
    start = rules.start_position()
    expected = {Position.from_counts(x, {24: 15}, x_first_turn=False, o_first_turn=True) for x in outcomes}
    assert {play.position for play in rules.legal_plays(start, dice)} == expected


@pytest.mark.parametrize(
    "first_roll, reply, count",
    [
        ((1, 2), (5, 5), 1),  # H = 2, but 24/19/14 is cut at X9 for both checkers: 24/14 24/14 only
        ((6, 2), (5, 5), 2),  # cut at X4: 24/14 24/14 or 24/9 24/19
        ((5, 5), (2, 2), 2),  # cut at X16: 24/20 24/20 or 24/18 24/22
        ((6, 1), (5, 5), 1),  # nothing in the way: 24/4
        ((6, 1), (6, 6), 1),  # 24/18 24/18
    ],
)
def test_long_second_players_first_turn_by_hand(
    first_roll: tuple[int, int], reply: tuple[int, int], count: int
) -> None:
    rules = find_rules("long")
    (first,) = rules.legal_plays(rules.start_position(), first_roll)
    assert len(rules.legal_plays(first.position.swapped(), reply)) == count
