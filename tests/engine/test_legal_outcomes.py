"""The search's fast path (Rules.legal_outcomes: positions only, no moves, no validation) equals
legal_plays' positions, in the same order, on many positions of both games and every roll."""

from __future__ import annotations

import random

import pytest

from engine import ALL_ROLLS, Options, find_rules
from testkit.random_play import random_long_position, random_play_positions


@pytest.mark.parametrize("game", ["short", "long"])
def test_legal_outcomes_equal_the_positions_of_legal_plays_on_played_positions(game: str) -> None:
    rules = find_rules(game)
    checked = 0
    for position, _ in random_play_positions(rules, random.Random(7), 300):
        for dice in ALL_ROLLS:
            assert rules.legal_outcomes(position, dice) == [
                p.position for p in rules.legal_plays(position, dice)
            ]
            checked += 1
    assert checked == 300 * 21


@pytest.mark.parametrize(
    "options",
    [
        Options(),
        Options(block_timing="end_of_turn"),
        Options(block_rule="none"),
        Options(head_exception="fixed_663"),
    ],
)
def test_legal_outcomes_equal_legal_plays_on_random_long_positions_under_each_house_rule(
    options: Options,
) -> None:
    rules = find_rules("long", options)
    rng = random.Random(11)
    for _ in range(150):
        position = random_long_position(rng, options.block_rule)
        for dice in ALL_ROLLS:
            assert rules.legal_outcomes(position, dice) == [
                p.position for p in rules.legal_plays(position, dice)
            ]
